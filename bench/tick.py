"""Bench: how long one deadline tick holds the store with 1,000 live games.

Run: ``.venv/bin/python bench/tick.py [--games 1000] [--dir /tmp]`` (prints one JSON object).

The games are started three-player games waiting for their first orders, their orders
deadlines spread evenly over three days beyond the first reminder (12 hours before), as on
a server whose games began at different times. Three ticks are timed, a minute of game time
apart at first:

- ``first``: the first tick over the store (after a restart with no due index, and what
  every tick cost before the due index): every game is loaded; nothing is due;
- ``idle``: the next tick, nothing due anywhere;
- ``due``: a tick at a moment when ``due_games`` games have passed their reminder time, so
  each of those is loaded, reminded and written.

Before the timed ticks the bench waits ``STAMP_MARGIN`` seconds, as a daemon's ticks come
long after most writes (a game written more recently is loaded in any case).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pbem import store as store_module
from pbem.engine.codec import from_json, to_json
from pbem.engine.setup import Setup
from pbem.engine.state import GameState
from pbem.service.model import GameService
from pbem.service.service import Service, ServiceConfig
from pbem.store import Store

PLAYERS = (("Alice", "alice@example.org", "The Bavarian Illuminati"),
           ("Bob", "bob@example.org", "The Servants of Cthulhu"),
           ("Carol", "carol@example.org", "The Discordian Society"))
SPREAD = timedelta(hours=72)  # the deadlines' spread beyond the first reminder
FIRST_DUE = timedelta(minutes=10)  # the earliest reminder time after the start


def _build(service: Service, games: int, start: datetime) -> list[str]:
    """Start one game, then write ``games - 1`` copies of it with their own deadlines."""
    store = service.store
    service.create_game("t0000", PLAYERS, seed="c4" * 32, now=start)
    service.start_game("t0000", start)
    setup = store.setup("t0000")
    snapshot = store.snapshot("t0000")
    assert snapshot is not None
    entries = list(store.log("t0000"))
    state = from_json(GameState, snapshot["state"])
    record = from_json(GameService, snapshot["service"])
    first_reminder = timedelta(hours=max(record.timing.reminders, default=0.0))
    ids = [f"t{i:04d}" for i in range(games)]
    for n, game_id in enumerate(ids):
        deadline = start + first_reminder + FIRST_DUE + SPREAD * n / games
        copy = replace(record, deadline=deadline.isoformat())
        snapshot = {"state": to_json(replace(state, game=game_id)), "service": to_json(copy)}
        with store.lock():
            if n:
                game_setup = replace(from_json(Setup, setup["setup"]), game=game_id)
                store.create_game(game_id, {"setup": to_json(game_setup),
                                            "service": setup["service"]})
            store.commit(game_id, log_entries=entries if n else [], snapshot=snapshot,
                         expect_length=0 if n else len(entries))
    return ids


def _timed_tick(service: Service, now: datetime) -> tuple[float, int]:
    """Give the seconds a tick at ``now`` took and how many game writes it made."""
    before = {g: service.store.log_length(g) for g in service.games()}
    steps = {g: service.service_record(g).steps for g in before}
    began = time.perf_counter()
    service.tick(now)
    took = time.perf_counter() - began
    written = sum(service.service_record(g).steps != s for g, s in steps.items())
    return took, written


def run(games: int = 1000, due_games: int = 10, folder: str | None = None) -> dict[str, Any]:
    """Give the bench figures as a dict (see the module docstring)."""
    start = datetime(2030, 1, 7, 9, 0, tzinfo=UTC)
    with tempfile.TemporaryDirectory(prefix="pbem-tick-", dir=folder) as temp:
        service = Service(Store(Path(temp) / "store"), ServiceConfig(
            password_cost=4, passwords=lambda game, player: f"{player}-{game}"))
        built = time.perf_counter()
        _build(service, games, start)
        build_seconds = time.perf_counter() - built
        time.sleep(getattr(store_module, "STAMP_MARGIN", 0.0))
        first, first_written = _timed_tick(service, start + timedelta(minutes=1))
        idle, idle_written = _timed_tick(service, start + timedelta(minutes=2))
        # The moment the reminder time of the first ``due_games`` games has passed.
        at = start + FIRST_DUE + SPREAD * (due_games - 0.5) / games
        assert at > start + timedelta(minutes=2)
        due, due_written = _timed_tick(service, at)
    return {
        "bench": "deadline_tick",
        "games": games,
        "tick_s": {"first": round(first, 3), "idle": round(idle, 3), "due": round(due, 3)},
        "games_written": {"first": first_written, "idle": idle_written, "due": due_written},
        "due_games": due_games,
        "build_seconds": round(build_seconds, 1),
        "store_folder": folder or tempfile.gettempdir(),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--due", type=int, default=10, help="games with a reminder due at "
                        "the third tick")
    parser.add_argument("--dir", default=None, help="where the store goes (default: the temp "
                        "folder; /dev/shm leaves the disk's fsync out)")
    arguments = parser.parse_args()
    print(json.dumps(run(arguments.games, arguments.due, folder=arguments.dir)))
