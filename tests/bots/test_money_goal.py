"""A bot whose special goal is money (the Gnomes of Zurich: "hold 150 MB in the whole power
structure's treasuries", card data ``treasury``) spends it as progress lost: it defends a
group that is not all it holds with less than another bot would, and leaves the leader's
attacks to the others unless the game is at stake."""

from __future__ import annotations

import random

from factory import BAVARIA, BERMUDA, CARDS, GNOMES, chain, game, in_round, money, place

from pbem import bots
from pbem.bots.belief import belief
from pbem.engine.bidding import Stance
from pbem.engine.commands import Attack
from pbem.engine.rules import apply
from pbem.engine.state import GameState, Options
from pbem.engine.view import view


def _attacked(me: str, target: str, groups: int = 8) -> tuple[GameState, Stance | None]:
    """``b`` (``me``) holding three groups and 30 MB; ``a`` (the Bavarians, 5 groups of the
    ``groups`` that win) attacks ``target`` to control it; ``b``'s answer."""
    state = game(Options(victory_groups=groups), a=BAVARIA, b=me, c=BERMUDA)
    state = money(state, "b", me, 30)
    state = chain(state, "b", "The Mafia", "Loan Sharks")
    state = place(state, "b", "Boy Sprouts")
    state = chain(state, "a", "C.I.A.", "Big Media", "CFL-AIO", "Democrats")
    state = in_round(place(state, "c", "Trekkies"), 3)
    state, _ = apply(state, Attack("a", BAVARIA, target, "control"), CARDS)
    return state, bots.response_stance(CARDS, belief(CARDS, view(CARDS, state, "b")), "b",
                                       random.Random(1))


def test_a_money_goal_defends_a_spare_group_with_less() -> None:
    """rulebook-en, the defender "may counter an attack by spending some of his own money":
    the Gnomes put less of their 30 MB into a group that is not all they hold than the
    Bermuda Triangle would (before the change, as much: 25 MB each)."""
    _, gnomes = _attacked(GNOMES, "Boy Sprouts")
    _, bermuda = _attacked(BERMUDA, "Boy Sprouts")
    assert gnomes is not None and bermuda is not None
    assert gnomes.side == bermuda.side == "defense"
    assert gnomes.upto < bermuda.upto // 2


def test_a_money_goal_defends_a_spare_group_with_more_in_a_shorter_game() -> None:
    """rulebook-en: the Basic Goal's "number depends on the number of players at the
    beginning of the game" (13 at 2 to 3, 8 at 7 to 8; ``victory_groups``). The Gnomes put
    more into a spare group when 8 groups win than when 13 do (``bots.HOARDED``): in a
    short game a group lost is a larger step back, in a long one money kept wins it."""
    _, short = _attacked(GNOMES, "Boy Sprouts", groups=8)
    _, long = _attacked(GNOMES, "Boy Sprouts", groups=13)
    assert short is not None and long is not None
    assert long.upto < short.upto
    assert bots.hoarded(CARDS, 8) == bots.HOARDED[1]
    assert bots.hoarded(CARDS, 13) == bots.HOARDED[0]


def test_a_money_goal_leaves_the_leader_to_the_others() -> None:
    """Interference is paid from the Illuminati treasury "to the bank": the Bermuda Triangle
    interferes with the leader's attack on a third player's group, the Gnomes keep their
    money (before the change they interfered too)."""
    state = game(Options(victory_groups=8), a=BAVARIA, b=GNOMES, c=BERMUDA)
    state = chain(state, "a", "C.I.A.", "Big Media", "CFL-AIO", "Democrats")
    state = place(place(state, "c", "Trekkies"), "c", "Boy Sprouts")
    state = money(money(state, "b", GNOMES, 30), "c", BERMUDA, 30)
    state = in_round(place(state, "b", "The Mafia"), 3)
    state, _ = apply(state, Attack("a", BAVARIA, "Trekkies", "control"), CARDS)
    rng = random.Random(1)
    gnomes = bots.response_stance(CARDS, belief(CARDS, view(CARDS, state, "b")), "b", rng)
    assert gnomes is None
    as_bermuda = game(Options(victory_groups=8), a=BAVARIA, b=BERMUDA, c=GNOMES)
    as_bermuda = chain(as_bermuda, "a", "C.I.A.", "Big Media", "CFL-AIO", "Democrats")
    as_bermuda = place(place(as_bermuda, "c", "Trekkies"), "c", "Boy Sprouts")
    as_bermuda = money(money(as_bermuda, "b", BERMUDA, 30), "c", GNOMES, 30)
    as_bermuda = in_round(place(as_bermuda, "b", "The Mafia"), 3)
    as_bermuda, _ = apply(as_bermuda, Attack("a", BAVARIA, "Trekkies", "control"), CARDS)
    other = bots.response_stance(CARDS, belief(CARDS, view(CARDS, as_bermuda, "b")), "b", rng)
    assert other is not None and other.side == "interfere"

