"""Whole bot games per second, with every invariant checked (as ``pbem simulate``)."""

from __future__ import annotations

import json
from typing import Any

from pbem.bots.simulate import simulate
from pbem.engine.carddata import load_cardset


def run(games: int = 100, players: int = 4, seed: int = 1) -> dict[str, Any]:
    summary = simulate(load_cardset(), games, players, seed)
    return {
        "games": summary.games,
        "players": players,
        "games_per_second": round(summary.games_per_second, 2),
        "commands_per_second": round(summary.commands / summary.seconds, 1),
        "invariant_violations": len(summary.violations),
        "outcomes": summary.outcomes,
    }


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
