"""Bench: a commit costs the same at log length 5 and 500, and with 1 or 1,000 games.

Run: ``.venv/bin/python bench/growth_store.py`` (prints one JSON line; target ratios <= 1.2).

Each ratio compares medians of commits timed alternately on the two sides (short vs long
log in one store; the 1-game store vs the 1,000-game store), so that the machine's fsync
speed drifting during the run hits both sides alike. A commit is one realistic step: two
log entries, a ~8 KB snapshot, one applied mail and one outbox mail.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pbem.store import OutboxItem, Store

TARGET = 1.2
SNAPSHOT = {"groups": [{"name": f"group {i}", "power": i % 7, "money": i, "puppets": [i, i + 1]}
                       for i in range(120)]}


class _Game:
    """One game being stepped, with its own counter for unique mail ids."""

    def __init__(self, store: Store, game_id: str) -> None:
        self.store, self.game_id, self.n = store, game_id, 0

    def _commit(self, entries: int, with_mail: bool) -> float:
        """Commit one step; give the seconds the commit alone took."""
        self.n += 1
        tag = f"{self.game_id}-{self.n}"
        mail_ids: list[str] = []
        outbox: list[OutboxItem] = []
        if with_mail:
            mail_id = self.store.receive(f"orders {tag}".encode(), message_id=f"<{tag}@bench>",
                                         received_at="2024-05-01T10:00:00")
            assert mail_id is not None
            mail_ids = [mail_id]
            outbox = [OutboxItem(f"{tag}-report", self.game_id, "player@bench", f"<r{tag}@pbem>",
                                 b"x" * 3000, "2024-05-01T10:00:01")]
        start = self.store.log_length(self.game_id)
        began = time.perf_counter()
        self.store.commit(self.game_id,
                          log_entries=[{"i": start + k, "command": "attack", "roll": [3, 4]}
                                       for k in range(entries)],
                          snapshot=SNAPSHOT | {"length": start + entries},
                          meta={"phase": "orders", "n": self.n},
                          mail_ids=mail_ids, outbox=outbox)
        took = time.perf_counter() - began
        for mail_id in mail_ids:
            self.store.inbox_done(mail_id)
        for item in outbox:
            self.store.mark_sent(item, sent_at="2024-05-01T10:00:02")
        return took

    def grow(self, entries: int) -> None:
        """Add ``entries`` log entries in a few big steps (not timed)."""
        while entries > 0:
            self._commit(min(50, entries), with_mail=False)
            entries -= 50

    def timed(self) -> float:
        """Give the seconds one ordinary step's commit took."""
        return self._commit(2, with_mail=True)


def _alternate(left: Callable[[], float], right: Callable[[], float],
               samples: int) -> tuple[list[float], list[float]]:
    lefts, rights = [], []
    for _ in range(samples):
        lefts.append(left())
        rights.append(right())
    return lefts, rights


def run(short: int = 5, long: int = 500, games: int = 1000, samples: int = 40) -> dict[str, Any]:
    """Give the bench figures as a dict (see the module docstring)."""
    with tempfile.TemporaryDirectory(prefix="pbem-bench-") as folder:
        root = Path(folder)
        turns, one, many = Store(root / "turns"), Store(root / "one"), Store(root / "many")
        with turns.lock(), one.lock(), many.lock():
            for store, ids in ((turns, ["short", "long"]), (one, ["g0000"]),
                               (many, [f"g{i:04d}" for i in range(games)])):
                for game_id in ids:
                    store.create_game(game_id, {})
            short_game, long_game = _Game(turns, "short"), _Game(turns, "long")
            lonely, crowded = _Game(one, "g0000"), _Game(many, "g0000")
            for game, length in ((short_game, short), (long_game, long), (lonely, short),
                                 (crowded, short)):
                game.grow(length)
            at_short, at_long = _alternate(short_game.timed, long_game.timed, samples)
            hot_short = (root / "turns/games/short/hot.json").stat().st_size
            hot_long = (root / "turns/games/long/hot.json").stat().st_size
            in_one, in_many = _alternate(lonely.timed, crowded.timed, samples)
    ms = {name: statistics.median(times) * 1000 for name, times in (
        ("short", at_short), ("long", at_long), ("one", in_one), ("many", in_many))}
    turn_ratio, games_ratio = ms["long"] / ms["short"], ms["many"] / ms["one"]
    return {
        "bench": "store_growth",
        "turn_ratio": round(turn_ratio, 3),
        "games_ratio": round(games_ratio, 3),
        "target": TARGET,
        "ok": turn_ratio <= TARGET and games_ratio <= TARGET,
        "commit_ms_median": {f"log_{short}": round(ms["short"], 3),
                             f"log_{long}": round(ms["long"], 3),
                             "games_1": round(ms["one"], 3),
                             f"games_{games}": round(ms["many"], 3)},
        "commit_ms_mean_ratio_log": round(statistics.mean(at_long) / statistics.mean(at_short), 3),
        "hot_file_bytes": {f"log_{short}_and_more": hot_short, f"log_{long}_and_more": hot_long},
        "samples": samples,
    }


if __name__ == "__main__":
    print(json.dumps(run()))
