"""Every benchmark of the project, one after the other, as one JSON document.

    .venv/bin/python bench/run.py            # all of them
    .venv/bin/python bench/run.py engine parse   # some of them

Each module beside this file has a ``run() -> dict``; its figures go under its name.
Benchmarks that need Dovecot (pipeline, transport) start it themselves, as the tests do.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
ALL = ("engine", "simulate", "parse", "orders", "pipeline", "transport", "growth", "tick",
       "growth_store", "bots", "cli_start", "latency", "mail_volume", "quotes")


def load(name: str) -> ModuleType:
    """The benchmark module ``bench/<name>.py``."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", HERE / f"{name}.py")
    if spec is None or spec.loader is None:
        raise SystemExit(f"no benchmark named {name} in {HERE}")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(HERE.parent))
    spec.loader.exec_module(module)
    return module


def main(names: list[str]) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for name in names or list(ALL):
        if not (HERE / f"{name}.py").exists():
            figures[name] = {"skipped": "not written yet"}
            continue
        start = time.perf_counter()
        try:
            figures[name] = load(name).run()
        except Exception as exc:  # a failing benchmark is reported, the others still run
            figures[name] = {"error": f"{type(exc).__name__}: {exc}"}
        figures[name]["bench_seconds"] = round(time.perf_counter() - start, 1)
        print(f"{name}: done", file=sys.stderr)
    return figures


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:]), indent=2, default=str))
