"""A fixed seeded game for the report tests, and every mail rendered from it.

The game is played with ``legal`` + ``apply``, each move chosen by a fixed rule, so the same
seed always gives the same positions; the report tests and the golden files use them.
"""

from __future__ import annotations

from scripted_game import CARDS, POINTS, first, setup, steps

from pbem.engine.rules import apply
from pbem.engine.setup import new_game

# --- the game itself ------------------------------------------------------------------------


def test_the_scripted_game_is_the_same_every_time() -> None:
    """Replaying the commands from the setup reaches the same final state (no hidden input)."""
    state, _ = new_game(CARDS, setup())
    for s in steps()[1:]:
        assert s.command is not None
        state, _ = apply(state, s.command, CARDS)
    assert state == steps()[-1].state
    assert state.phase == "over"


def test_the_scripted_game_reaches_every_point_the_goldens_show() -> None:
    """A defended attack, a seventh turn and special cards all happen in the game."""
    for point in POINTS:
        first(point)
    played = {e.kind for s in steps() for e in s.events}
    assert {"attack_result", "captured", "neutralized", "destroyed", "spend",
            "drew_special"} <= played
