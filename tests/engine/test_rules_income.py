"""Rule cases: income at the start of a turn, the I.R.S., the Post Office, Market Manipulation."""

from __future__ import annotations

import pytest
from factory import (
    BAVARIA,
    CARDS,
    GNOMES,
    NETWORK,
    active,
    deal,
    free,
    game,
    money,
    money_balances,
    of_kind,
    place,
    run,
    special,
    treasury,
)

from pbem.engine.commands import BeginTurn, Pass, PlaySpecial
from pbem.errors import IllegalCommandError

MARKET = "Market Manipulation"



def test_each_controlled_card_collects_its_income_onto_itself() -> None:
    """rulebook-en: "At the beginning of your turn, each Group you control collects the amount
    listed on its card. This income is placed directly on that card, becoming part of the
    Group's treasury." """
    state = game(phase="turn_start", ann=BAVARIA, bob=GNOMES)
    state = place(state, "ann", "The Mafia")
    state = place(state, "ann", "Yuppies", master="The Mafia")
    state, events = run(state, BeginTurn())
    assert treasury(state, BAVARIA) == 9
    assert treasury(state, "The Mafia") == 6
    assert treasury(state, "Yuppies") == 5
    assert len(of_kind(events, "income")) == 3
    assert money_balances(state)


def test_a_card_without_income_gets_no_money() -> None:
    """rulebook-en: "If a card has no Income, it gets no money." """
    state = game(phase="turn_start", ann=BAVARIA, bob=GNOMES)
    state = place(state, "ann", "C.I.A.")
    state, events = run(state, BeginTurn())
    assert treasury(state, "C.I.A.") == 0
    assert [e.data["card"] for e in of_kind(events, "income")] == [BAVARIA]


def test_uncontrolled_groups_get_no_income() -> None:
    """rulebook-en: "Uncontrolled Groups get no Income." """
    state = free(game(phase="turn_start", ann=BAVARIA, bob=GNOMES), "The Mafia")
    state, events = run(state, BeginTurn())
    assert "The Mafia" not in [e.data["card"] for e in of_kind(events, "income")]
    assert state.money_issued == 9


def test_only_the_player_whose_turn_begins_collects() -> None:
    """rules-fr: "Vous pouvez prendre vos ressources en dehors de votre tour, mais vous devez
    attendre votre tour avant de les placer sur la carte." """
    state = game(phase="turn_start", ann=BAVARIA, bob=GNOMES)
    state = place(state, "bob", "The Mafia")
    state, _ = run(state, BeginTurn())
    assert treasury(state, GNOMES) == 0
    assert treasury(state, "The Mafia") == 0


def test_the_irs_taxes_every_other_player_two_megabucks() -> None:
    """rulebook-en: "The IRS gets its Income by taxing each of the other players 2 MB on the
    owning player's turn." """
    state = game(phase="turn_start", ann=BAVARIA, bob=GNOMES, cy=NETWORK)
    state = place(state, "ann", "I.R.S.")
    state = money(state, "bob", GNOMES, 10)
    state = money(state, "cy", NETWORK, 10)
    state, events = run(state, BeginTurn())
    assert treasury(state, "I.R.S.") == 4
    assert treasury(state, GNOMES) == 8 and treasury(state, NETWORK) == 8
    assert [e.data["amount"] for e in of_kind(events, "irs_tax")] == [2, 2]
    assert money_balances(state)


def test_the_irs_collects_nothing_on_another_players_turn() -> None:
    """rulebook-en: "taxing each of the other players 2 MB on the owning player's turn" """
    state = game(phase="turn_start", ann=BAVARIA, bob=GNOMES)
    state = place(state, "bob", "I.R.S.")
    state = money(state, "ann", BAVARIA, 10)
    state, events = run(state, BeginTurn())
    assert treasury(state, "I.R.S.") == 0
    assert treasury(state, BAVARIA) == 19
    assert not of_kind(events, "irs_tax")


def test_the_irs_tax_comes_from_the_groups_when_the_illuminati_are_short() -> None:
    """groups.csv: "each other player pays the owner 2 MB (from any of their groups)" """
    state = game(phase="turn_start", ann=BAVARIA, bob=GNOMES)
    state = place(state, "ann", "I.R.S.")
    state = place(state, "bob", "The Mafia", treasury=5)
    state = money(state, "bob", GNOMES, 1)
    state, _ = run(state, BeginTurn())
    assert treasury(state, GNOMES) == 0
    assert treasury(state, "The Mafia") == 4
    assert treasury(state, "I.R.S.") == 2


def test_a_player_with_no_money_pays_the_irs_nothing() -> None:
    """groups.csv: "a player with no money pays nothing" """
    state = game(phase="turn_start", ann=BAVARIA, bob=GNOMES)
    state = place(state, "ann", "I.R.S.")
    state, events = run(state, BeginTurn())
    assert treasury(state, "I.R.S.") == 0
    assert [e.data["amount"] for e in of_kind(events, "irs_tax")] == [0]


def test_the_post_office_costs_its_master_one_megabuck() -> None:
    """rulebook-en: "The Post Office costs 1 MB per turn to control (paid by their master or
    their Illuminati)." """
    state = game(phase="turn_start", ann=BAVARIA, bob=GNOMES)
    state = place(state, "ann", "Big Media", treasury=2)
    state = place(state, "ann", "Post Office", master="Big Media")
    state, events = run(state, BeginTurn())
    assert treasury(state, "Big Media") == 2 + 3 - 1
    assert treasury(state, "Post Office") == 0
    assert of_kind(events, "post_office")[0].data["paid_by"] == "Big Media"


def test_the_post_office_cost_falls_on_the_illuminati_when_the_master_is_broke() -> None:
    """rulebook-en: "(paid by their master or their Illuminati)" """
    state = game(phase="turn_start", ann=BAVARIA, bob=GNOMES)
    state = place(state, "ann", "C.I.A.")  # no income: nothing to pay with
    state = place(state, "ann", "Post Office", master="C.I.A.")
    state, events = run(state, BeginTurn())
    assert treasury(state, "C.I.A.") == 0
    assert treasury(state, BAVARIA) == 9 - 1
    assert of_kind(events, "post_office")[0].data["paid_by"] == BAVARIA


def test_market_manipulation_doubles_the_income_of_every_card() -> None:
    """specials.csv: "all the holder's groups collect double income this turn" (the
    Illuminati card is counted among the Groups, as in rulebook-en: "each Group you control
    collects the amount listed on its card")."""
    state = deal(game(phase="turn_start", ann=BAVARIA, bob=GNOMES), "ann", MARKET)
    state = place(state, "ann", "The Mafia")
    state, _ = special(state, PlaySpecial("ann", MARKET))
    state, _ = run(state, BeginTurn())
    assert treasury(state, "The Mafia") == 12
    assert treasury(state, BAVARIA) == 18
    assert MARKET in state.discards and MARKET not in state.player("ann").hand


def test_market_manipulation_doubles_neither_the_irs_tax_nor_the_post_office_cost() -> None:
    """specials.csv: "(not the I.R.S. tax nor the Post Office cost)" """
    state = deal(game(phase="turn_start", ann=BAVARIA, bob=GNOMES), "ann", MARKET)
    state = place(state, "ann", "I.R.S.")
    state = place(state, "ann", "Post Office", master="I.R.S.")
    state = money(state, "bob", GNOMES, 10)
    state, _ = special(state, PlaySpecial("ann", MARKET))
    state, _ = run(state, BeginTurn())
    assert treasury(state, GNOMES) == 8  # taxed 2, not 4
    assert treasury(state, "I.R.S.") == 2 - 1  # the tax, less the Post Office's 1 MB
    assert treasury(state, BAVARIA) == 18


@pytest.mark.parametrize("when", ["actions", "other_turn"])
def test_market_manipulation_is_played_at_the_holders_own_income(when: str) -> None:
    """specials.csv: "Market Manipulation,1,during the holder's income phase" """
    state = deal(game(phase="turn_start", ann=BAVARIA, bob=GNOMES), "bob", MARKET)
    if when == "actions":
        state = active(state, "bob", "actions")
    with pytest.raises(IllegalCommandError):
        run(state, PlaySpecial("bob", MARKET))


def test_no_pass_after_market_manipulation() -> None:
    """summary-en: "Passing: A player may choose not to take any actions of any sort and
    collect 5MB instead." Playing a special is a free action (rulebook-en, Special Cards),
    so after Market Manipulation in the income phase the player may no longer pass."""
    state = deal(game(phase="turn_start", ann=BAVARIA, bob=GNOMES), "ann", MARKET)
    state, _ = special(state, PlaySpecial("ann", MARKET))
    state, _ = run(state, BeginTurn())
    with pytest.raises(IllegalCommandError) as refused:
        run(state, Pass("ann"))
    assert refused.value.key == "pass_late"


def test_income_is_collected_before_the_card_draw() -> None:
    """summary-en: "- Collect Income. - Draw a Card." """
    state = game(phase="turn_start", deck=("The Mafia",), ann=BAVARIA, bob=GNOMES)
    state, events = run(state, BeginTurn())
    kinds = [e.kind for e in events]
    assert kinds.index("income") < kinds.index("drew_group")
    assert state.phase == "actions"
    assert CARDS.card("The Mafia")  # the drawn group is now uncontrolled
    assert state.uncontrolled == ("The Mafia",)
