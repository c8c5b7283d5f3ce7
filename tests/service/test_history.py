"""Game histories: the timeline, the export, the replay check and ``verify`` of every roll.

The games are real stores: a finished game built from a bot game's setup and command log
(``simulated_store``, also used by the archive tests), and games run through the service.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from stored_games import CARDS, SEED, T0, edit_stored_log, simulated_store

from pbem.engine.dice import Dice, roll_2d6
from pbem.service import gm, history
from pbem.service.service import Service
from pbem.store.memory import MemoryStore


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> history.GameFile:
    root = tmp_path_factory.mktemp("finished")
    return history.read_game(simulated_store(root).store, "sim")


def test_the_simulated_game_is_finished_with_attacks(finished: history.GameFile) -> None:
    """The fixture the other tests lean on: over, rolls in the log, a commitment kept (in the
    GM entry that created the game, the log's first)."""
    assert finished.state.phase == "over"
    kinds = {e["kind"] for entry in finished.log for e in entry["events"]}
    assert {"roll", "attack_result", "turn_begins"} <= kinds
    assert finished.log[0]["gm"]["kind"] == "create" and "command" not in finished.log[0]
    assert finished.commitments == [finished.state.dice.commitment]


def test_the_timeline_goes_turn_by_turn_and_numbers_every_step(
        finished: history.GameFile) -> None:
    sections = history.timeline(CARDS, finished)
    assert sections[0].turn == 0 and sections[0].items[0].events[0].kind == "illuminati"
    assert [s.turn for s in sections[1:]] == list(range(1, finished.state.turn_number + 1))
    seqs = [i.seq for s in sections for i in s.items if i.kind == "step" and i.seq]
    assert seqs == sorted(seqs) and seqs[-1] == finished.state.seq
    for section in sections[1:]:
        first = section.items[0].events[0]
        assert first.kind == "turn_begins" and first.data["turn"] == section.turn
    assert sections[-1].end == len(finished.log)
    text = history.timeline_text(CARDS, finished)
    assert "TURN 1: " in text and "or less to succeed" in text  # attack breakdowns
    assert f"{finished.state.seq:4d}  " in text  # the GM sees step numbers


def test_a_players_timeline_hides_what_others_drew(finished: history.GameFile) -> None:
    """DESIGN.md: "view(state, player) is the only way state reaches a player"."""
    drawn = [e for entry in finished.log for e in entry["events"]
             if e["kind"] == "drew_special"]
    assert drawn, "the bots drew no special card"
    who, card = drawn[0]["data"]["player"], drawn[0]["data"]["card"]
    other = next(p.name for p in finished.state.players if p.name != who)
    secret = f"{who} drew a special card: {card}."
    assert secret in history.timeline_text(CARDS, finished).replace("\n      ", " ")
    assert secret in history.timeline_text(CARDS, finished, who).replace("\n      ", " ")
    theirs = history.timeline_text(CARDS, finished, other).replace("\n      ", " ")
    assert secret not in theirs and f"{who} drew a special card." in theirs
    assert "as the game master sees it" not in theirs


def test_the_export_leaves_out_the_keys_a_bot_plays_a_seat_with() -> None:
    """A bot playing a seat mails its orders with one-time passwords whose hashes the
    record keeps: they stay out of the export like the players' hashes."""
    service = Service(MemoryStore(), cards=CARDS)
    gm.create_game(service, "g", [("ann", "ann@example.org", ""), ("bob", "b@example.org", "")],
                   seed="ab" * 32, now=T0)
    gm.start_game(service, "g", T0)
    service.set_bot("g", "bob", True, T0)
    keys = service.service_record("g").seat("bob").bot_keys
    assert keys
    text = json.dumps(history.export(history.read_game(service.store, "g")))
    assert "bot_keys" not in text and not any(key in text for key in keys)


def test_the_export_is_the_whole_game_without_password_hashes() -> None:
    service = Service(MemoryStore(), cards=CARDS)
    gm.create_game(service, "g", [("ann", "ann@example.org", ""), ("bob", "b@example.org", "")],
                   seed="ab" * 32, now=T0)
    gm.start_game(service, "g", T0)
    data = history.export(history.read_game(service.store, "g"))
    text = json.dumps(data)
    assert "password_hash" not in text and "scrypt$" not in text
    assert data["setup"]["seed"] == "ab" * 32 and len(data["log"]) == 3
    assert [s["address"] for s in data["seats"]] == ["ann@example.org", "b@example.org"]
    assert data["snapshot"]["state"]["seq"] == 1
    assert [e["gm"]["kind"] for e in data["log"] if "gm" in e] == ["create", "start"]
    assert data["commitment"] == history.read_game(service.store, "g").state.dice.commitment


def test_replay_names_the_first_difference_with_the_snapshot(tmp_path: Path) -> None:
    service = simulated_store(tmp_path)
    game = history.read_game(service.store, "sim")
    assert history.replay_difference(CARDS, game) is None
    p = game.state.players[1]
    slot = replace(p.structure[0], treasury=p.structure[0].treasury + 3)
    wrong = replace(game, state=game.state.with_player(replace(
        p, structure=(slot, *p.structure[1:]))))
    found = history.replay_difference(CARDS, wrong)
    assert found is not None
    assert found.startswith("state.players[1].structure[0].treasury: the log gives")


def test_first_difference_walks_dicts_and_lists() -> None:
    assert history.first_difference({"a": [1, 2]}, {"a": [1, 2]}) is None
    assert history.first_difference({"a": [1, 2]}, {"a": [1, 3]}, "x") == \
        "x.a[1]: one is 2, the other is 3"
    assert history.first_difference([1], [1, 2], "x") == \
        "x: one is 1 items, the other is 2"
    assert history.first_difference({"a": 1}, {"b": 1}, "x") == \
        "x.a: one is 1, the other is None"


def test_verify_accepts_an_honest_game(finished: history.GameFile) -> None:
    result = history.verify(CARDS, finished)
    assert result.ok, result.problems
    rolls = sum(1 for entry in finished.log for e in entry["events"] if e["kind"] == "roll")
    assert result.rolls == rolls > 0 and result.steps == len(finished.log)
    assert result.setup_draws > 0 and result.commitment == finished.commitments[0]


def test_verify_catches_a_tampered_roll(tmp_path: Path) -> None:
    """DESIGN.md: "after the game anyone can check every roll (pbem verify)"."""
    service = simulated_store(tmp_path)

    def luckier(data: dict[str, Any]) -> None:
        data["dice"] = [1, 1] if data["dice"] != [1, 1] else [1, 2]

    before = edit_stored_log(tmp_path, "sim", luckier)
    result = history.verify(CARDS, history.read_game(service.store, "sim"))
    assert not result.ok
    true_dice, _ = roll_2d6(Dice(SEED, before["draw"]))
    assert any(f"at draw {before['draw']}, but the seed gives {true_dice[0]}+{true_dice[1]}"
               in p for p in result.problems), result.problems


def test_verify_catches_a_roll_moved_in_the_stream(tmp_path: Path) -> None:
    service = simulated_store(tmp_path)
    before = edit_stored_log(tmp_path, "sim", lambda d: d.update(draw=d["draw"] + 2))
    result = history.verify(CARDS, history.read_game(service.store, "sim"))
    assert any(f"claims draw {before['draw'] + 2}" in p for p in result.problems)


def test_verify_catches_a_seed_that_is_not_the_one_promised(
        finished: history.GameFile) -> None:
    create = finished.log[0]
    lie = {**create, "gm": {"kind": "create",
                            "data": {**create["gm"]["data"], "commitment": "0" * 64}}}
    result = history.verify(CARDS, replace(finished, log=(lie, *finished.log[1:])))
    assert any("commitment sent at the start was " + "0" * 64 in p for p in result.problems)
    unrecorded = replace(finished, log=finished.log[1:])
    assert any("No commitment was recorded" in p
               for p in history.verify(CARDS, unrecorded).problems)
