"""Bench: how long the ``pbem`` command takes to start, against the floor click sets.

Run: ``.venv/bin/python bench/cli_start.py [--runs 15]`` (prints one JSON object).

Each command runs as a fresh interpreter, as a user's shell starts it, ``runs`` times
(alternating, so a busy moment of the machine weighs on all three alike); the figures are
the medians, in seconds:

- ``import_click``: ``python -c "import click"``, the floor of any click command;
- ``help``: ``python -m pbem.cli.main --help``;
- ``games_empty``: ``python -m pbem.cli.main games --store S`` on a store without games.

The target (issue 17): ``help`` and ``games_empty`` within 3 times ``import_click``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pbem.store import Store


def _seconds(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def run(runs: int = 15) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder) / "store"
        Store(store)  # an empty store: the folders, no game
        commands = {
            "import_click": [sys.executable, "-c", "import click"],
            "help": [sys.executable, "-m", "pbem.cli.main", "--help"],
            "games_empty": [sys.executable, "-m", "pbem.cli.main", "games", "--store",
                            str(store)],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for argv in commands.values():  # once each, unmeasured: the files in the page cache
            _seconds(argv)
        for _ in range(runs):
            for name, argv in commands.items():
                times[name].append(_seconds(argv))
    medians = {name: round(statistics.median(t), 3) for name, t in times.items()}
    floor = medians["import_click"]
    return {
        "runs": runs,
        "seconds": medians,
        "help_over_import_click": round(medians["help"] / floor, 2),
        "games_empty_over_import_click": round(medians["games_empty"] / floor, 2),
        "target": "<= 3",
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    print(json.dumps(run(parser.parse_args().runs), indent=2))
