"""The bots weigh a target by what it brings toward their special goal, by the goal's kind
(card data): a table from every kind, checked whole (``bots.GOAL_BONUS``)."""

from __future__ import annotations

from factory import (
    BAVARIA,
    BERMUDA,
    CARDS,
    CTHULHU,
    GNOMES,
    NETWORK,
    free,
    game,
    in_round,
    money,
    place,
)

from pbem import bots
from pbem.engine.cards import GOAL_KINDS
from pbem.engine.state import Options
from pbem.engine.victory import progress


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


def test_a_destroy_weighs_more_where_the_basic_goal_asks_fewer_groups() -> None:
    """summary-en: the Servants of Cthulhu "Destroy 8 groups"; the basic goal asks 12 groups
    at 4 players and 8 at 8 (the card data's ``basic_goal``). The Servants' normal bot
    weighs a destroy by its goal's pace (8 of 12, 8 of 8): the same destroy of a free group
    is worth more at 8 players than at 4 (before the change, the same at every size)."""
    values = []
    for groups in (12, 8):
        state = game(Options(victory_groups=groups), me=CTHULHU, other=BAVARIA)
        state = place(place(state, "me", "The Mafia", treasury=8), "me", "Boy Sprouts")
        state = free(money(in_round(state, 3), "me", CTHULHU, 12), "Convenience Stores")
        me = state.player("me")
        assert bots.aim_of(CARDS, state, me).pace == 8 / groups
        values += [p.value for p in bots.plan_attacks(CARDS, state, me)
                   if p.attack.mode == "destroy" and p.attack.target == "Convenience Stores"]
    assert len(values) == 2 and values[0] < values[1]


def test_the_network_s_own_transferable_power_counts_for_nothing() -> None:
    """summary-en: the Network "Control groups with a total Transferable Power of 20
    (including their own 7)". How close the bots judge them counts from their own 7
    (``bots.UNCOUNTED``): nothing at the start, and the C.I.A. (4) brings 4 of the 13 still
    missing (before the change: counted from half, 4 of 17 at the start), counted as the
    square of that share (``bots.SLOW_FINISH``): the groups rich in transferable power come
    first, the rest slowly."""
    state = game(me=NETWORK, other=BAVARIA)
    me = state.player("me")
    special = next(g for g in progress(CARDS, state, me) if g.kind == "total_transferable")
    assert bots.closeness(CARDS, me, special) == 0.0
    state = place(state, "me", "C.I.A.")
    me = state.player("me")
    special = next(g for g in progress(CARDS, state, me) if g.kind == "total_transferable")
    assert bots.closeness(CARDS, me, special) == (4 / 13) ** 2
