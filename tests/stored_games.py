"""Stores holding a finished game, built from a bot game's setup and command log as the
service would have logged it (the history, archive and game master tests use them).
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pbem.bots.simulate import BotTable
from pbem.engine.carddata import load_cardset
from pbem.engine.codec import to_json
from pbem.engine.rules import apply
from pbem.engine.setup import Setup, StartingSeat, new_game, with_options
from pbem.service import gm
from pbem.service.service import Service
from pbem.store import Store

CARDS = load_cardset()
T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
SEED = "5eed" * 16


def simulated_store(root: Path, game_id: str = "sim", players: int = 3, turn_cap: int = 8,
                    seed: str = SEED) -> Service:
    """A store holding one finished game: bots play it (``pbem.bots.simulate``), then its setup
    and command log are written to the store as the service would have logged them."""
    names = [f"p{i + 1}" for i in range(players)]
    setup = with_options(CARDS, Setup(game_id, tuple(StartingSeat(n) for n in names), seed),
                         max_turns=turn_cap)
    state, _ = new_game(CARDS, setup)
    table = BotTable(CARDS, state, random.Random(7))
    while table.state.phase != "over":
        table.step()
    service = Service(Store(root), cards=CARDS)
    gm.create_game(service, game_id, [(n, f"{n}@example.org", "") for n in names],
                   options={"max_turns": turn_cap}, seed=seed, now=T0)
    entries = []
    state, _ = new_game(CARDS, setup)
    for i, command in enumerate(table.log):
        state, events = apply(state, command, CARDS)
        entries.append({"at": (T0 + timedelta(minutes=i)).isoformat(),
                        "command": to_json(command), "events": [to_json(e) for e in events],
                        "seq": state.seq})
    with service.store.lock():
        record = replace(service.service_record(game_id), started=True)
        service.store.commit(game_id, log_entries=entries, expect_length=1,  # after "create"
                             snapshot={"state": to_json(state), "service": to_json(record)})
    return service


def edit_stored_log(root: Path, game_id: str, change: Any) -> dict[str, Any]:
    """Change the first roll event in the game's stored log files (``change(data)``), as
    someone with access to the files might; gives the event's data as it was."""
    folder = root / "games" / game_id
    for path in [*sorted((folder / "segments").glob("*.json")), folder / "hot.json"]:
        text = json.loads(path.read_text())
        entries = text["entries"] if "entries" in text else [
            doc["entry"] for doc in text["log"].values()]
        for entry in sorted(entries, key=lambda e: e["seq"]):
            for event in entry["events"]:
                if event["kind"] == "roll":
                    before = json.loads(json.dumps(event["data"]))
                    change(event["data"])
                    path.write_text(json.dumps(text))
                    return before
    raise AssertionError("no roll in the log")
