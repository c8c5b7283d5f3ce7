"""The deadline tick loads only the games that may have something due.

The store's due index notes, per game, its stamp and the next moment a tick may find
something to do there (``deadlines.next_due``). These tests check the moments, and that a
tick using the index does exactly what a tick over every game does: same mails, same log.
"""

from __future__ import annotations

import random
from contextlib import AbstractContextManager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from transcripts.harness import Mailroom

from pbem import store as store_module
from pbem.engine.codec import to_json
from pbem.engine.state import GroupOffer
from pbem.service.deadlines import next_due
from pbem.service.model import GameService, Seat, Timing, Window, iso
from pbem.service.steps import Step
from pbem.store import games as store_games

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
PLAYERS = [("Alice", ""), ("Bob", ""), ("Carol", "")]  # the seed makes Carol play first


@pytest.fixture
def no_margin(monkeypatch: pytest.MonkeyPatch) -> None:
    """Game files count as stamped as soon as written, so the index is used at once."""
    monkeypatch.setattr(store_games, "STAMP_MARGIN", 0.0)


def service(**fields: object) -> GameService:
    seats = (Seat("ann", "ann@example.org"), Seat("bob", "bob@example.org"))
    return replace(GameService(seats=seats, started=True, timing=Timing(reminders=(12.0, 2.0))),
                   **fields)  # type: ignore[arg-type]


def unsalted(record: GameService) -> GameService:
    """The record without its password hashes (their salts are random)."""
    return replace(record, seats=tuple(replace(s, password_hash="") for s in record.seats))


# --- the next moment due --------------------------------------------------------------------


def test_the_next_moment_is_the_earliest_reminder_then_the_deadline(tmp_path: Path) -> None:
    """Orders due at D with reminders 12 h and 2 h before: D-12h, then (once sent) D-2h,
    then D; a moment already passed is not the next one."""
    room = Mailroom(tmp_path)
    room.new_game("illu", PLAYERS)
    state = room.state()
    deadline = NOW + timedelta(hours=72)
    s = service(deadline=iso(deadline))
    assert next_due(state, s, NOW) == deadline - timedelta(hours=12)
    reminded = replace(s, reminded=(12.0,))
    assert next_due(state, reminded, NOW + timedelta(hours=61)) == deadline - timedelta(hours=2)
    assert next_due(state, replace(s, reminded=(12.0, 2.0)), NOW) == deadline
    assert next_due(state, s, NOW + timedelta(hours=71)) == deadline
    assert next_due(state, s, deadline) is None


def test_an_offer_deadline_comes_before_a_later_orders_deadline(tmp_path: Path) -> None:
    """A group offered and unanswered is declined at its own deadline."""
    room = Mailroom(tmp_path)
    room.new_game("illu", PLAYERS)
    offer = NOW + timedelta(hours=3)
    s = service(deadline=iso(NOW + timedelta(hours=72)), offer_deadline=iso(offer))
    assert next_due(room.state(), s, NOW) == offer


def test_an_unanswered_offer_is_due_at_its_reminder_then_its_deadline(tmp_path: Path) -> None:
    """The receiver of a group offered is reminded once, at the first (largest) reminder
    time before the answer's deadline; once reminded, the deadline is next."""
    room = Mailroom(tmp_path)
    room.new_game("illu", PLAYERS)
    state = replace(room.state(), offer=GroupOffer("Carol", "Alice", "Feminists"))
    offer = NOW + timedelta(hours=24)
    s = service(deadline=iso(NOW + timedelta(hours=72)), offer_deadline=iso(offer))
    assert next_due(state, s, NOW) == offer - timedelta(hours=12)
    assert next_due(state, replace(s, offer_reminded=True), NOW) == offer
    assert next_due(room.state(), s, NOW) == offer  # answered: no reminder due


def test_a_window_is_due_at_its_reminder_and_its_deadline(tmp_path: Path) -> None:
    """An open window: the orders deadline waits; the window's reminder time (the first,
    largest reminder) and its deadline count."""
    room = Mailroom(tmp_path)
    room.new_game("illu", PLAYERS)
    closes = NOW + timedelta(hours=24)
    window = Window(opened=iso(NOW), deadline=iso(closes), asked=("bob",))
    s = service(deadline=iso(NOW + timedelta(hours=1)), window=window)
    assert next_due(room.state(), s, NOW) == closes - timedelta(hours=12)
    assert next_due(room.state(), s, closes - timedelta(hours=1)) == closes


def test_a_paused_an_unstarted_or_an_ended_game_is_never_due(tmp_path: Path) -> None:
    """Only a change to the game (resume, start) can make these due."""
    room = Mailroom(tmp_path)
    room.new_game("illu", PLAYERS)
    s = service(deadline=iso(NOW + timedelta(hours=72)))
    state = room.state()
    assert next_due(state, replace(s, paused=True), NOW) is None
    assert next_due(state, replace(s, started=False), NOW) is None
    assert next_due(replace(state, phase="over"), s, NOW) is None


# --- the tick ---------------------------------------------------------------------------------


def _loads(room: Mailroom) -> list[str]:
    """Record the games the room's service opens a step on (a tick's, or a bot seat's)."""
    loaded: list[str] = []
    real = room.service.step

    def counting(game_id: str, now: datetime, *,
                 advance: bool = True) -> AbstractContextManager[Step]:
        loaded.append(game_id)
        return real(game_id, now, advance=advance)

    room.service.step = counting  # type: ignore[method-assign]
    return loaded


def test_a_quiet_game_is_not_loaded_until_its_next_moment(tmp_path: Path) -> None:
    """After one tick noted it, a game nobody wrote to is loaded again only once its
    reminder time has come; the reminder is then sent as before."""
    room = Mailroom(tmp_path)
    room.new_game("illu", PLAYERS)  # orders due in 72 h, reminder 12 h before
    loaded = _loads(room)
    assert room.tick(hours=1) == [] and loaded == ["illu"]
    assert room.tick(hours=30) == [] and room.tick(hours=28) == []
    assert loaded == ["illu"]
    out = room.tick(hours=2)  # 61 h: past the reminder time
    assert loaded == ["illu", "illu"]
    assert [(m.to, "Reminder" in m.subject) for m in out] == [("carol@example.org", True)]


def test_a_game_changed_elsewhere_is_looked_at_again(tmp_path: Path, no_margin: None) -> None:
    """Another process (the GM's command line) moves the deadline earlier after the tick
    noted the game: the stamp changed, so the next tick loads the game and the new
    deadline passes on time."""
    room = Mailroom(tmp_path, files=True)
    room.new_game("illu", PLAYERS)
    room.tick(hours=1)
    record = room.record()
    other = store_module.Store(room.store.root)
    with other.lock():
        snapshot = other.snapshot("illu")
        assert snapshot is not None
        earlier = replace(record, deadline=iso(room.now + timedelta(hours=2)), reminded=(12.0,))
        other.commit("illu", log_entries=[], snapshot=snapshot | {"service": to_json(earlier)})
    room.tick(hours=3)
    assert room.state().active_player.name != "Carol"  # Carol missed and passed
    assert room.record().seat("Carol").misses == 1


def test_the_due_index_changes_nothing_a_tick_does(tmp_path: Path) -> None:
    """Two rooms play the same game: one ticks with the due index, the other over every
    game (its index removed before each tick). At random moments over three weeks, with
    an attack window, a bot taking a seat and giving it back, both send the same mails and
    log the same entries; and the first one really skipped loads."""
    fast, full = Mailroom(tmp_path / "fast"), Mailroom(tmp_path / "full")
    loaded = _loads(fast)
    ticks = toggles = 0
    rng = random.Random(5)
    for room in (fast, full):
        room.new_game("illu", PLAYERS, timing=Timing(orders_hours=48, response_hours=20,
                                                    reminders=(12, 2), miss_limit=2))
        room.new_game("other", [("Dan", ""), ("Eve", "")], seed="0d" * 32)
        room.at(minutes=5)
        room.orders("Carol", "ATTACK Bavarian CONTROL Feminists SPEND 1 UPTO 3", game="illu")
    while fast.now < NOW + timedelta(days=21):
        hours = rng.choice((0.25, 0.5, 1, 2, 3, 5, 8, 11))
        event = rng.random()
        for room in (fast, full):
            if room is full:
                with room.store.lock():
                    room.store.set_due_index({})
            room.at(hours=hours)  # as room.tick, but a bot seat's answer is a second commit
            room.lines.append(f"=== TICK {room.now}")
            room.service.tick(room.now)
            room.collect()
            if event < 0.04:
                room.service.set_bot("illu", "Bob", not room.record("illu").seat("Bob").bot,
                                     room.now)
                room.collect()
        ticks += 1
        toggles += event < 0.04
    assert fast.transcript() == full.transcript()
    for game in ("illu", "other"):
        assert list(fast.store.log(game)) == list(full.store.log(game))
        assert unsalted(fast.record(game)) == unsalted(full.record(game))
    assert toggles >= 2
    assert "Reminder" in fast.transcript() and fast.record("illu").seat("Carol").misses >= 1
    assert len(loaded) < ticks  # two games a tick without the index


def test_a_game_that_cannot_be_ticked_holds_up_no_other(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A game whose snapshot is damaged fails its own tick, logged with its name; the other
    game's deadline still passes on time, and the next tick tries the damaged one again."""
    room = Mailroom(tmp_path)
    room.new_game("broken", [("Dan", ""), ("Eve", "")], seed="0d" * 32)
    room.new_game("illu", PLAYERS)
    with room.store.lock():
        room.store.commit("broken", log_entries=[], snapshot={"damaged": True})
    room.tick(hours=73)  # past illu's orders deadline
    assert room.record("illu").seat("Carol").misses == 1
    failures = [r for r in caplog.records if "deadlines of game broken failed" in r.message]
    room.tick(hours=1)
    assert len(failures) == 1
    assert len([r for r in caplog.records if "game broken failed" in r.message]) == 2
