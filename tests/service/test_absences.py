"""Absences by mail (docs/service.md, "Absences"): SET ABSENCE and CANCEL ABSENCE, the game's
limits, the deadline that waits (as njudge does), the turn that passes, the bot that stands
in, the other players and the game master told, every absence in the log. Golden transcripts
in tests/transcripts/.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from transcripts.harness import Mailroom

from pbem.service import gm
from pbem.service.history import export, read_game, replay_difference, timeline_text

PLAYERS = [("Alice", ""), ("Bob", ""), ("Carol", "")]  # the seed makes Carol play first


@pytest.fixture
def room(tmp_path: Path) -> Mailroom:
    return Mailroom(tmp_path)


def test_a_deadline_in_an_absence_waits_for_its_end(room: Mailroom) -> None:
    """Carol's first deadline (2026-12-02 12:00 UTC) falls in her absence: it moves to its
    end, the last day's midnight in her zone; Alice and Bob (in French) and the game master
    are told until when; nothing passes before; at the end the deadline runs as any."""
    room.new_game("illu", PLAYERS)
    room.orders("Bob", "SET LANGUAGE FR")
    room.orders("Carol", "SET TIMEZONE Europe/Paris")
    room.at(minutes=5)
    out = room.orders("Carol", "SET ABSENCE 2026-12-01 TO 2026-12-04")
    assert "1 accepted" in out[0].subject
    assert room.record().deadline == "2026-12-04T23:00:00+00:00"  # midnight in Paris
    told = {m.to: m for m in out[1:]}
    assert set(told) == {"alice@example.org", "bob@example.org", "gm@pbem.example"}
    assert "Carol is away from 2026-11-30 23:00 UTC to 2026-12-04 23:00 UTC" in " ".join(
        told["alice@example.org"].text.split())
    assert "Carol est absent" in told["bob@example.org"].text
    assert room.tick(days=4) == []  # past the first deadline: the turn waits
    assert room.state().active_player.name == "Carol"
    room.tick(days=1, hours=11)  # 2026-12-04 23:05 UTC: the absence is over
    assert room.state().active_player.name == "Alice"
    game = read_game(room.store.inner, "illu")
    assert "Carol is away from" in timeline_text(room.service.cards, game)
    assert replay_difference(room.service.cards, game) is None  # GM entries and all
    room.check("absence_wait")


def test_the_limits_of_the_game_and_cancelling(room: Mailroom) -> None:
    room.new_game("illu", PLAYERS, options={"absence_days": 5, "absence_days_per_game": 8})
    room.at(minutes=5)
    out = room.orders("Alice", "SET ABSENCE 2026-12-01 TO 2026-12-10",
                      "SET ABSENCE 2026-11-01 TO 2026-11-02",
                      "SET ABSENCE 2026-12-05 TO 2026-12-01",
                      "SET ABSENCE 2026-12-01 TO 2026-12-05",
                      "SET ABSENCE 2026-12-04",
                      "SET ABSENCE 2026-12-07",
                      "SET ABSENCE 2026-12-10 TO 2026-12-13",
                      "SET ABSENCE tomorrow")
    ack = " ".join(out[0].text.split())
    assert "2 accepted, 6 refused" in out[0].subject
    assert "an absence in this game lasts 5 days at most, not 10" in ack
    assert "that absence is already over" in ack
    assert "the absence ends before it begins" in ack
    assert "it overlaps an absence you gave before" in ack
    assert "may add up to 8 days; you have 6 already, and this one is 4" in ack
    assert "expected a date like 2026-12-24" in ack
    assert len(room.record().seat("Alice").absences) == 2
    room.at(minutes=5)
    out = room.orders("Alice", "CANCEL ABSENCE 3", "CANCEL ABSENCE 1")
    assert "1 accepted, 1 refused" in out[0].subject
    assert "you have no absence number 3" in out[0].text
    assert "Alice is no longer away" in room.to("Bob", out)[0].text
    assert [a.start for a in room.record().seat("Alice").absences] == [
        "2026-12-07T00:00:00+00:00"]
    out = room.orders("Alice", "STATUS")  # her reports list her absences, numbered
    assert ("YOUR ABSENCES\n-------------\n"
            "- 1. from 2026-12-07 00:00 UTC to 2026-12-08 00:00 UTC") in out[1].text
    room.check("absence_limits")


def test_a_turn_begun_in_an_absence_passes_at_once(room: Mailroom) -> None:
    room.new_game("illu", PLAYERS, options={"stand_in": "pass"})
    room.at(minutes=5)
    room.orders("Alice", "SET ABSENCE 2026-11-29 TO 2026-12-03")
    room.at(minutes=5)
    money = room.state().player("Alice").treasury
    room.orders("Carol", "PASS")
    state = room.state()
    assert state.active_player.name == "Bob"  # Alice's turn passed in the same step
    assert state.player("Alice").treasury > money
    assert room.record().seat("Alice").misses == 0
    room.orders("Bob", "SET ABSENCE 2026-12-01 TO 2026-12-05")  # his turn's deadline in it
    room.tick(days=4)  # it passes at the deadline, as the turn began before the absence
    assert room.state().active_player.name == "Carol"
    assert room.record().seat("Bob").misses == 0
    room.check("absence_pass")


def test_a_bot_stands_in_and_the_player_comes_back(room: Mailroom) -> None:
    room.new_game("illu", PLAYERS, options={"stand_in": "bot"})
    room.at(minutes=5)
    room.orders("Alice", "SET ABSENCE 2026-11-30 TO 2026-12-01")
    assert not room.record().seat("Alice").bot
    room.tick(days=1)  # 2026-11-30 12:05: the absence began
    seat = room.record().seat("Alice")
    assert seat.bot and seat.away_hash and seat.bot_keys and not seat.bot_password
    out = room.orders("Carol", "PASS")  # Alice's turn: the bot plays it, by mail
    assert any("Orders received" in m.subject for m in room.to("Alice", out))
    assert room.state().turn.did_anything
    room.tick(days=2)  # back
    seat = room.record().seat("Alice")
    assert not seat.bot and not seat.away_hash and not seat.bot_keys
    out = room.orders("Alice", "STATUS")  # her own password works again
    assert "1 accepted" in out[0].subject
    room.check("absence_bot")


def test_a_player_away_keeps_their_password_hidden_and_a_new_player_gets_none(
        room: Mailroom) -> None:
    """While a bot plays for Alice, her own password still works, its hash stays out of the
    export; a new player the game master seats there inherits neither it nor her absences."""
    room.new_game("illu", PLAYERS, options={"stand_in": "bot"})
    room.at(minutes=5)
    room.orders("Alice", "SET ABSENCE 2026-11-29 TO 2026-12-03")
    seat = room.record().seat("Alice")
    assert seat.bot and seat.away_hash
    assert "1 accepted" in room.orders("Alice", "STATUS")[0].subject
    text = json.dumps(export(read_game(room.store.inner, "illu")))
    assert "away_hash" not in text and seat.away_hash not in text
    room.override("replace_seat", "Alice", "new@example.org")
    seat = room.record().seat("Alice")
    assert not seat.away_hash and not seat.absences and not seat.bot
    (refusal,) = room.orders("Alice", "STATUS", address="new@example.org")  # her password
    assert refusal.to == "new@example.org" and "wrong player or password" in refusal.subject


def test_the_game_master_sees_and_cancels_absences(room: Mailroom) -> None:
    room.new_game("illu", PLAYERS)
    room.at(minutes=5)
    room.orders("Bob", "SET ABSENCE 2026-12-06 TO 2026-12-08", "SET ABSENCE 2026-12-20")
    listed = gm.absences(room.service, "illu")
    assert [(name, a.start) for name, a in listed] == [
        ("Bob", "2026-12-06T00:00:00+00:00"), ("Bob", "2026-12-20T00:00:00+00:00")]
    out = room.override("cancel_absence", "Bob", 2)
    assert [a.start for a in room.record().seat("Bob").absences] == [
        "2026-12-06T00:00:00+00:00"]
    assert "cancelled by the game master" in " ".join(room.to("Bob", out)[0].text.split())
    assert datetime(2026, 12, 6, tzinfo=UTC)  # the dates are UTC for a player in UTC


def test_a_deadline_extended_into_an_absence_waits_too(room: Mailroom) -> None:
    """The game master's extension puts Carol's deadline in her absence: when it comes, it
    moves on to the absence's end instead of passing her turn."""
    room.new_game("illu", PLAYERS)
    room.at(minutes=5)
    room.orders("Carol", "SET ABSENCE 2026-12-06 TO 2026-12-07")
    assert room.record().deadline == "2026-12-02T12:00:00+00:00"  # not in it: unmoved
    room.override("extend", 96)  # to 2026-12-06 12:00, in the absence
    room.tick(days=7)  # 2026-12-06 12:05
    assert room.state().active_player.name == "Carol"
    assert room.record().deadline == "2026-12-08T00:00:00+00:00"
    room.tick(days=2)
    assert room.state().active_player.name == "Alice"


def test_when_everyone_is_away_no_turn_passes_at_once(room: Mailroom) -> None:
    """With the house rule pass, turns would pass one after the other for ever if every
    player were away: they wait for their deadlines instead."""
    room.new_game("illu", PLAYERS, options={"stand_in": "pass"})
    room.at(minutes=5)
    for name in ("Alice", "Bob", "Carol"):
        room.orders(name, "SET ABSENCE 2026-11-29 TO 2026-12-10")
    room.orders("Carol", "PASS")
    assert room.state().active_player.name == "Alice"
    assert room.state().turn_number == 2
