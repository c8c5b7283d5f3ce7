"""Games written before events were typed still open, replay and read the same.

``old_games.json.gz`` holds two games made by the version before typed events (main at
40be8da), each as ``pbem export`` writes it, with the timelines that version printed (the
game master's and the first player's): a 3-player game of mail-bots to its turn cap
(``bot_games.play_game``, seed "7" * 64, max_turns 30) and a game the game master edited
(money set, a special card to a hand, a group to the dead pile, a seat replaced and renamed,
an announcement, a player removed, the game ended).
"""

from __future__ import annotations

import gzip
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pbem.engine import events
from pbem.engine.carddata import load_cardset
from pbem.engine.codec import from_json, to_json
from pbem.engine.events import Event
from pbem.engine.setup import Setup
from pbem.engine.state import GameState
from pbem.service.entries import GM_KINDS, gm_entry, gm_event_of
from pbem.service.history import GameFile, timeline_text, verify
from pbem.service.model import GameService

OLD = Path(__file__).with_name("old_games.json.gz")
CARDS = load_cardset()


@cache
def old_games() -> dict[str, Any]:
    with gzip.open(OLD, "rt", encoding="utf-8") as f:
        games: dict[str, Any] = json.load(f)
    return games


def game_file(name: str) -> GameFile:
    """The exported game as the store would give it back."""
    data = old_games()[name]["export"]
    service = from_json(GameService, data["snapshot"]["service"])
    return GameFile(game=data["game"], setup=from_json(Setup, data["setup"]), seats=service,
                    state=from_json(GameState, data["snapshot"]["state"]), service=service,
                    log=tuple(data["log"]))


@pytest.mark.parametrize("name", ["bots", "gm"])
def test_an_old_game_replays_to_the_very_events_logged(name: str) -> None:
    """The setup and the logged commands replay to each logged event, byte for byte in the
    log's JSON form, and to the snapshot; every roll matches the committed seed."""
    check = verify(CARDS, game_file(name))
    # Made with a given seed, the games recorded no commitment to check it against.
    problems = [p for p in check.problems if not p.startswith("No commitment")]
    assert not problems
    assert check.steps >= 9


@pytest.mark.parametrize("name", ["bots", "gm"])
def test_each_old_event_reads_as_its_kind_and_writes_back_the_same(name: str) -> None:
    logged = [e for entry in old_games()[name]["export"]["log"] for e in entry["events"]]
    for raw in logged:
        event = from_json(Event, raw)
        assert type(event) is events.KINDS[raw["kind"]]
        assert to_json(event) == raw


def test_each_old_gm_entry_reads_as_its_kind_and_writes_back_the_same() -> None:
    """A game master's entry written before GM entries were typed reads as its kind's type,
    and writes back the very entry, the players' event in it included."""
    entries = [entry for game in old_games().values() for entry in game["export"]["log"]
               if "gm" in entry]
    assert {entry["gm"]["kind"] for entry in entries} == {"replace", "announce"}
    for entry in entries:
        event = gm_event_of(entry)
        assert type(event) is GM_KINDS[entry["gm"]["kind"]]
        assert gm_entry(event, entry["seq"]) == entry


def test_the_old_games_hold_many_kinds() -> None:
    kinds = {e["kind"] for game in old_games().values() for entry in game["export"]["log"]
             for e in entry["events"]}
    assert len(kinds) >= 25 and {"gm", "gm_money", "transfer", "attack_result"} <= kinds


@pytest.mark.parametrize("name", ["bots", "gm"])
def test_an_old_game_reads_as_it_did(name: str) -> None:
    """The timelines (every event's sentence) are those the older version printed."""
    game = game_file(name)
    for viewer, text in old_games()[name]["timelines"].items():
        assert timeline_text(CARDS, game, viewer or None) == text
