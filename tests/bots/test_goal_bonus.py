"""The bots weigh a target by what it brings toward their special goal, by the goal's kind
(card data): a table from every kind, checked whole (``bots.GOAL_BONUS``)."""

from __future__ import annotations

from factory import BERMUDA, CARDS, GNOMES, game

from pbem import bots
from pbem.engine.cards import GOAL_KINDS


def test_every_goal_kind_has_its_bonus_and_a_blind_bot_none() -> None:
    """Each kind of special goal the card data may name is weighed; the easy level, blind
    to its goal, adds nothing for any target."""
    assert set(bots.GOAL_BONUS) == set(GOAL_KINDS)
    state = game(me=BERMUDA, other=GNOMES)
    assert bots.goal_bonus(CARDS, state, "Boy Sprouts", bots.BLIND) == 0.0
    assert bots.aim_of(CARDS, state, state.player("me"), "easy") == bots.BLIND
    aim = bots.aim_of(CARDS, state, state.player("me"))
    assert aim.kind == "every_alignment"
    assert bots.goal_bonus(CARDS, state, "Boy Sprouts", aim) > 0
