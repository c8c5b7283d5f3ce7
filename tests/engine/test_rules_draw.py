"""Rule cases: the card draw, The Network's second card, the Recyclers, the French refill."""

from __future__ import annotations

from factory import (
    BAVARIA,
    GNOMES,
    NETWORK,
    free,
    game,
    money_balances,
    of_kind,
    place,
    run,
    treasury,
)
from support import refuses

from pbem.engine.commands import BeginTurn, EndTurn, UseRecyclers
from pbem.engine.state import Options


def test_a_special_card_drawn_goes_to_the_hand_unseen() -> None:
    """summary-en: "Draw a Card. If it is a Special Event card, the player keeps it." """
    state = game(phase="turn_start", deck=("Deep Agent", "The Mafia"), ann=BAVARIA, bob=GNOMES)
    state, events = run(state, BeginTurn())
    assert state.player("ann").hand == ("Deep Agent",)
    assert state.deck == ("The Mafia",)
    (drew,) = of_kind(events, "drew_special")
    assert drew.visible_to == ("ann",)


def test_how_many_specials_a_player_holds_is_public() -> None:
    """rulebook-en: "he must keep them spread so other players can see how many specials he
    has" """
    state = game(phase="turn_start", deck=("Deep Agent",), ann=BAVARIA, bob=GNOMES)
    _, events = run(state, BeginTurn())
    (count,) = of_kind(events, "drew_special_count")
    assert count.visible_to is None and "card" not in count.data


def test_a_group_drawn_goes_face_up_to_the_uncontrolled_area() -> None:
    """summary-en: "If the card is a group, it is placed face-up in the uncontrolled area." """
    state = free(game(phase="turn_start", deck=("The Mafia",), ann=BAVARIA, bob=GNOMES), "KGB")
    state, events = run(state, BeginTurn())
    assert state.uncontrolled == ("KGB", "The Mafia")
    assert of_kind(events, "drew_group")[0].visible_to is None


def test_the_network_draws_two_cards() -> None:
    """illuminati.csv: "draws two cards instead of one at the start of its turn" """
    deck = ("The Mafia", "Deep Agent", "KGB")
    state = game(phase="turn_start", deck=deck, ann=NETWORK, bob=GNOMES)
    state, _ = run(state, BeginTurn())
    assert state.uncontrolled == ("The Mafia",)
    assert state.player("ann").hand == ("Deep Agent",)
    assert state.deck == ("KGB",)


def test_drawing_from_an_empty_deck_draws_nothing() -> None:
    """summary-en: "Draw a Card. If it is a Special Event card, the player keeps it." (when the
    deck is spent there is nothing to draw; the turn goes on)"""
    state, events = run(game(phase="turn_start", ann=BAVARIA, bob=GNOMES), BeginTurn())
    assert of_kind(events, "deck_empty") and state.phase == "actions"


def test_the_recyclers_pay_five_megabucks_to_draw_a_card() -> None:
    """groups.csv: "may pay 5 MB from its own treasury to draw an extra card on the owner's
    turn (not an action)" """
    state = game(deck=("Deep Agent",), ann=BAVARIA, bob=GNOMES)
    state = place(state, "ann", "Recyclers", treasury=6)
    state, _ = run(state, UseRecyclers("ann"))
    assert state.player("ann").hand == ("Deep Agent",)
    assert treasury(state, "Recyclers") == 1
    assert state.turn.actions == 0
    assert money_balances(state)


def test_the_recyclers_draw_once_a_turn_and_only_with_their_own_money() -> None:
    """groups.csv: "may pay 5 MB from its own treasury to draw an extra card" """
    state = game(deck=("Deep Agent", "KGB"), ann=BAVARIA, bob=GNOMES)
    poor = place(state, "ann", "Recyclers", treasury=4)
    with refuses("money_short", have=4):
        run(poor, UseRecyclers("ann"))
    rich = place(state, "ann", "Recyclers", treasury=10)
    rich, _ = run(rich, UseRecyclers("ann"))
    with refuses("recyclers_unusable"):
        run(rich, UseRecyclers("ann"))


def test_the_uncontrolled_area_is_not_refilled_by_default() -> None:
    """summary-en: "Draw a Card. If it is a Special Event card, the player keeps it. If the card
    is a group, it is placed face-up in the uncontrolled area." (the English rules refill
    nothing at the end of a turn)"""
    state = game(deck=("KGB", "The Mafia"), ann=BAVARIA, bob=GNOMES)
    state, _ = run(state, EndTurn("ann"))
    assert state.uncontrolled == () and state.deck == ("KGB", "The Mafia")


def test_the_french_option_refills_the_uncontrolled_area_to_three() -> None:
    """rules-fr: "Si le nombre de groupes non contrôlés devait tomber en dessous de 3, piochez
    des cartes jusqu'à avoir à nouveau 3 groupes." """
    deck = ("KGB", "The Mafia", "Yuppies", "C.I.A.")
    state = free(game(options=Options(uncontrolled_refill=3), deck=deck, ann=BAVARIA,
                      bob=GNOMES), "Hackers")
    state, events = run(state, EndTurn("ann"))
    assert state.uncontrolled == ("Hackers", "KGB", "The Mafia")
    assert state.deck == ("Yuppies", "C.I.A.")
    assert len(of_kind(events, "refill")) == 2


def test_a_special_card_drawn_by_the_refill_is_discarded() -> None:
    """rules-fr: "Toute carte spéciale piochée sera défaussée." """
    deck = ("Deep Agent", "KGB", "The Mafia", "Murphy's Law", "Yuppies")
    state = game(options=Options(uncontrolled_refill=3), deck=deck, ann=BAVARIA, bob=GNOMES)
    state, _ = run(state, EndTurn("ann"))
    assert state.uncontrolled == ("KGB", "The Mafia", "Yuppies")
    assert state.discards == ("Deep Agent", "Murphy's Law")
    assert all(not p.hand for p in state.players)
