"""The deadline tick over many quiet games looks at no game's files: the store's journal of
games changed (``changed.log``) names the games committed since the last tick, and only
those (and the ones due) are looked at; the first tick, and a tick after the journal was
lost, checks every game's stamp."""

from __future__ import annotations

from pathlib import Path

import pytest
from transcripts.harness import Mailroom

from pbem.store import games as store_games

PLAYERS = [("Alice", ""), ("Bob", ""), ("Carol", "")]


@pytest.fixture(autouse=True)
def no_margin(monkeypatch: pytest.MonkeyPatch) -> None:
    """Game files count as stamped as soon as written, so the index is used at once."""
    monkeypatch.setattr(store_games, "STAMP_MARGIN", 0.0)


def _stamped(room: Mailroom, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Give the list of games whose stamp the store is asked for, from now on."""
    asked: list[str] = []
    stamp = room.store.game_stamp

    def counting(game_id: str) -> list[int] | None:
        asked.append(game_id)
        return stamp(game_id)
    monkeypatch.setattr(room.store, "game_stamp", counting)
    return asked


def test_quiet_games_nobody_wrote_to_are_not_looked_at(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After the first tick, only a game committed since is looked at again."""
    room = Mailroom(tmp_path, files=True)
    for game in ("one", "two", "three"):
        room.new_game(game, PLAYERS)
    asked = _stamped(room, monkeypatch)
    room.tick(hours=1)
    assert sorted(asked) == ["one", "three", "two"]  # the first tick: every game
    asked.clear()
    room.tick(hours=1)
    assert asked == []
    room.service.set_bot("two", "Alice", True, room.now)  # a commit to "two"
    asked.clear()
    room.tick(hours=1)
    assert asked == ["two"]


def test_a_lost_journal_makes_the_tick_look_at_every_game(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The journal is not synced: lost (a crash; here removed), the next tick knows nothing
    and checks every game's stamp."""
    room = Mailroom(tmp_path, files=True)
    for game in ("one", "two"):
        room.new_game(game, PLAYERS)
    asked = _stamped(room, monkeypatch)
    room.tick(hours=1)
    asked.clear()
    (room.root / "store" / "changed.log").unlink()
    room.tick(hours=1)
    assert sorted(asked) == ["one", "two"]
