"""An absence never costs the player the game (docs/service.md, "Absences"): the turns a
stand-in plays (house rules ``pass`` and ``bot``) are not the player's own for elimination,
a bot standing in never gives up its seat's last group, an absent player is not asked in
response windows, and ``SET ABSENCE`` warns of what the game's policy may still cost.

Each game runs through the service by mail, the other seats played by bots of the default
level, so the whole game is played in a few steps.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from transcripts.harness import Mailroom

from pbem.engine.events import Eliminated
from pbem.service import gm
from pbem.service.history import read_game

CTHULHU = "The Servants of Cthulhu"
UFOS = "The UFOs"
ABSENCE = "SET ABSENCE 2026-11-29 TO 2026-12-12"  # from the start (2026-11-29 12:00 UTC)


@pytest.fixture
def room(tmp_path: Path) -> Mailroom:
    return Mailroom(tmp_path)


def eliminated(room: Mailroom, game: str = "illu") -> list[str]:
    """The players the game's log says were eliminated, in order."""
    events = [e for entry in read_game(room.store.inner, game).log
              for e in entry.get("events", ())]
    return [e["data"]["player"] for e in events if e.get("kind") == Eliminated.kind]


def play_on(room: Mailroom, rounds: int = 6) -> None:
    """Let the bots play: every step the game's mails call for, until Alice has begun
    ``rounds`` turns or the game is over (deadlines ticked only if something waits)."""
    for _ in range(40):
        room.service.process(room.now)
        room.collect()
        state = room.state()
        if state.phase == "over" or state.player("Alice").turns >= rounds:
            return
        room.at(hours=1)
        room.service.tick(room.now)  # (bot seats answer: several commits, unlike a player's)


@pytest.mark.parametrize("stand_in", ["pass", "bot"])
@pytest.mark.parametrize("illuminati", [CTHULHU, UFOS])
def test_an_absence_from_the_start_never_eliminates_the_player(
        room: Mailroom, stand_in: str, illuminati: str) -> None:
    """Alice (the Servants of Cthulhu, or the UFOs who chose their goal) is away from the
    first day; the other seats are bots that play at once. Her turns pass or a bot plays
    them: none is one of her three first turns, so she is still in the game when her sixth
    turn begins, however few groups the stand-in got her."""
    room.new_game("illu", [("Alice", illuminati), ("Bob", "The Gnomes of Zurich"),
                           ("Carol", "The Network")], options={"stand_in": stand_in})
    goal = ["GOAL The Servants of Cthulhu"] if illuminati == UFOS else []
    out = room.orders("Alice", *goal, ABSENCE)
    assert f"{1 + len(goal)} accepted" in out[0].subject
    for seat in ("Bob", "Carol"):
        gm.set_bot(room.service, "illu", seat, True, room.now)
    play_on(room)
    state = room.state()
    assert "Alice" not in eliminated(room)
    assert state.player("Alice").playing or state.phase == "over"
    assert state.player("Alice").stood_in == state.player("Alice").turns
    for game in room.service.games():
        assert room.service.replay_check(game)
