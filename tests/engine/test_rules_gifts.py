"""Rule cases: money, special cards and groups given, sold or traded between players."""

from __future__ import annotations

import pytest
from factory import (
    BAVARIA,
    CARDS,
    DOWN,
    GNOMES,
    LEFT,
    NETWORK,
    RIGHT,
    active,
    deal,
    free,
    game,
    master_of,
    money,
    money_balances,
    of_kind,
    place,
    run,
    treasury,
)
from support import refuses

from pbem.engine.commands import (
    AcceptGroup,
    Attack,
    DeclineGroup,
    DropGroup,
    GiveCard,
    GiveMoney,
    GmRemovePlayer,
    LeaveGame,
    OfferGroup,
    PlaySpecial,
    ResolveSpecial,
    WithdrawOffer,
)
from pbem.engine.state import GameState
from pbem.engine.structure import well_formed


def two_players() -> GameState:
    state = game(ann=BAVARIA, bob=GNOMES, cy=NETWORK)
    state = money(state, "ann", BAVARIA, 10)
    state = money(state, "bob", GNOMES, 10)
    return place(state, "ann", "The Mafia", treasury=4)


def test_money_is_given_from_one_illuminati_treasury_to_another() -> None:
    """rulebook-en: "When cash is transferred, it must come from an Illuminati card and go to
    another one." """
    state, _ = run(two_players(), GiveMoney("ann", "bob", 7))
    assert treasury(state, BAVARIA) == 3 and treasury(state, GNOMES) == 17
    assert money_balances(state)


def test_money_may_be_given_at_any_time_and_is_not_an_action() -> None:
    """rulebook-en: "Giving away a Special card or money - this may be done at any time, not
    just during your turn." """
    state, _ = run(two_players(), GiveMoney("bob", "ann", 2))  # on ann's turn
    assert treasury(state, BAVARIA) == 12 and state.turn.actions == 0
    later = active(state, "cy", "turn_start")
    later, _ = run(later, GiveMoney("ann", "bob", 1))
    assert treasury(later, GNOMES) == 9


def test_no_more_money_can_be_given_than_the_illuminati_hold() -> None:
    """rulebook-en: "Money may be transferred only between Illuminati treasuries when it goes
    to another player." """
    with refuses("money_short", have=10):
        run(two_players(), GiveMoney("ann", "bob", 11))


def test_a_special_card_may_be_given_at_any_time_unseen_by_others() -> None:
    """rulebook-en: "Special cards may be traded, sold, or given away at any time; this is a
    free action." """
    state = deal(two_players(), "bob", "Deep Agent")
    state, events = run(state, GiveCard("bob", "cy", "Deep Agent"))
    assert state.player("cy").hand == ("Deep Agent",) and state.player("bob").hand == ()
    assert of_kind(events, "gift_card")[0].visible_to == ("bob", "cy")
    assert of_kind(events, "gift_card_count")[0].visible_to is None


def test_a_special_card_just_played_is_not_given_away_before_the_answer() -> None:
    """rulebook-en: "Special cards may be traded, sold, or given away at any time; this is a
    free action." (a card just played is being used, no longer held to give)"""
    state = deal(two_players(), "bob", "Slush Fund", "Interference", "Interference")
    played, _ = run(state, PlaySpecial("bob", "Slush Fund"))
    with refuses("card_pending"):
        run(played, GiveCard("bob", "cy", "Slush Fund"))
    resolved, _ = run(played, ResolveSpecial(), GiveCard("bob", "cy", "Interference"))
    assert resolved.player("cy").hand == ("Interference",)


def test_nothing_changes_hands_during_a_privileged_attack() -> None:
    """rulebook-en: "Cash or special cards may be transferred anytime (except when a
    privileged attack is under way)." """
    state = deal(free(two_players(), "Boy Sprouts"), "ann", "Slush Fund", "Deep Agent")
    state, _ = run(state, Attack("ann", "The Mafia", "Boy Sprouts", "control",
                                 privilege="card", privilege_card="Slush Fund"))
    with refuses("privileged_gifts"):
        run(state, GiveMoney("bob", "cy", 1))
    with refuses("privileged_gifts"):
        run(state, GiveCard("ann", "cy", "Deep Agent"))


def test_a_group_is_given_only_with_the_receivers_permission() -> None:
    """rulebook-en: "You may only give a Group away with the permission of the player who
    receives it!" """
    state, _ = run(two_players(), OfferGroup("ann", "The Mafia", "bob"))
    assert state.owner("The Mafia").name == "ann"  # type: ignore[union-attr]
    declined, _ = run(state, DeclineGroup("bob"))
    assert declined.owner("The Mafia").name == "ann"  # type: ignore[union-attr]
    assert declined.offer is None and declined.turn.actions == 0
    accepted, events = run(state, AcceptGroup("bob"))
    assert accepted.owner("The Mafia").name == "bob"  # type: ignore[union-attr]
    assert of_kind(events, "gift_group")


def test_giving_a_group_away_is_an_action_of_the_player_whose_turn_it_is() -> None:
    """rulebook-en: "Each Group exchanged counts as an action for the player whose turn it is,
    whichever way the Group moves." """
    state, _ = run(two_players(), OfferGroup("ann", "The Mafia", "bob"), AcceptGroup("bob"))
    assert state.turn.actions == 1
    bob_gives = place(two_players(), "bob", "KGB")
    bob_gives, _ = run(bob_gives, OfferGroup("bob", "KGB", "ann"), AcceptGroup("ann"))
    assert bob_gives.owner("KGB").name == "ann"  # type: ignore[union-attr]
    assert bob_gives.turn.actions == 1  # ann's action, on ann's turn


def test_a_trade_of_a_group_for_a_group_takes_two_actions() -> None:
    """rulebook-en: "So if you trade a Group for a Group on your turn, that counts as two
    actions - one to move the first Group, one to move the second one!" """
    state = place(place(two_players(), "bob", "KGB"), "ann", "Yuppies", arrow=RIGHT)
    state, _ = run(state, OfferGroup("ann", "The Mafia", "bob"), AcceptGroup("bob"),
                   OfferGroup("bob", "KGB", "ann"), AcceptGroup("ann"))
    assert state.turn.actions == 2
    with refuses("actions_used"):
        run(state, OfferGroup("ann", "Yuppies", "bob"))


def test_the_french_one_group_offered_is_one_group_an_offer() -> None:
    """rules-fr: "Avec la permission de l'autre joueur, vous pouvez offrir gratuitement un et
    un seul groupe à ce dernier." Read with rules-fr: "Chaque groupe échangé compte comme une
    action pour la personne dont c'est le tour." An offer carries one group (and its
    puppets), given for nothing, and each costs an action: two groups may be given in a turn,
    as the English rules allow, and a third finds no action left."""
    state = place(two_players(), "ann", "Yuppies", arrow=RIGHT)
    state = place(state, "ann", "KGB", arrow=LEFT)
    state, _ = run(state, OfferGroup("ann", "The Mafia", "bob"), AcceptGroup("bob"))
    state, _ = run(state, OfferGroup("ann", "Yuppies", "bob"), AcceptGroup("bob"))
    assert state.turn.actions == 2
    assert state.owner("Yuppies").name == "bob"  # type: ignore[union-attr]
    with refuses("actions_used"):
        run(state, OfferGroup("ann", "KGB", "bob"))


def test_groups_change_hands_only_on_the_turn_of_one_of_the_players() -> None:
    """rulebook-en: "Groups may only be transferred if it is the turn of one of the players
    involved." """
    state = place(two_players(), "bob", "KGB")
    with refuses("gift_turn"):
        run(state, OfferGroup("bob", "KGB", "cy"))


def test_a_given_group_takes_its_puppets_and_their_treasuries() -> None:
    """rulebook-en: "When a Group is transferred to another player, its puppets (if any) must
    go with it, along with all treasuries involved." """
    state = place(two_players(), "ann", "Yuppies", master="The Mafia", treasury=3)
    state, _ = run(state, OfferGroup("ann", "The Mafia", "bob"), AcceptGroup("bob"))
    bob = state.player("bob")
    assert bob.groups == ("The Mafia", "Yuppies")
    assert treasury(state, "The Mafia") == 4 and treasury(state, "Yuppies") == 3
    assert master_of(state, "Yuppies") == "The Mafia"
    assert not well_formed(CARDS, bob) and money_balances(state)


def test_the_receiver_chooses_where_the_group_fits() -> None:
    """rulebook-en: "The player receiving the Group must immediately fit it, and its puppets,
    into his power structure, exactly as for moved or captured Groups" """
    state = place(two_players(), "bob", "Big Media")
    state, _ = run(state, OfferGroup("ann", "The Mafia", "bob"),
                   AcceptGroup("bob", master="Big Media", arrow=RIGHT))
    assert master_of(state, "The Mafia") == "Big Media"


def test_a_group_cannot_be_received_without_an_open_arrow() -> None:
    """rulebook-en: "The player receiving the Group must immediately fit it" """
    state = place(two_players(), "bob", "Big Media")
    state, _ = run(state, OfferGroup("ann", "The Mafia", "bob"))
    with refuses("arrow_closed"):
        run(state, AcceptGroup("bob", master=GNOMES, arrow=0))  # Big Media is there


def test_a_received_puppet_that_cannot_fit_becomes_uncontrolled() -> None:
    """rulebook-en: "If overlaps cannot be avoided, the player must eliminate them by choosing
    one or more overlapping card, new or old, to become uncontrolled." (the engine keeps the
    old cards and lets the new ones go)"""
    state = game(ann=BAVARIA, bob=GNOMES)
    state = place(state, "ann", "KGB", arrow=LEFT)  # a single outgoing arrow, down
    state = place(state, "ann", "Yuppies", master="KGB", arrow=DOWN, treasury=2)
    state = place(state, "bob", "Big Media", arrow=RIGHT)
    state = place(state, "bob", "Boy Sprouts", master="Big Media", arrow=DOWN)
    state, events = run(state, OfferGroup("ann", "KGB", "bob"),
                        AcceptGroup("bob", master=GNOMES, arrow=DOWN))
    assert state.owner("KGB").name == "bob"  # type: ignore[union-attr]
    assert "Yuppies" in state.uncontrolled
    assert of_kind(events, "gift_group")[0].data["lost"] == ("Yuppies",)
    assert money_balances(state)


def test_an_offered_group_cannot_be_dropped_before_the_answer() -> None:
    """rulebook-en: "You may only give a Group away with the permission of the player who
    receives it!" (the offer stands until answered)"""
    state, _ = run(two_players(), OfferGroup("ann", "The Mafia", "bob"))
    with refuses("group_offered", receiver="bob"):
        run(state, DropGroup("ann", "The Mafia"))


def test_only_the_receiver_declines_an_offer() -> None:
    """rulebook-en: "You may only give a Group away with the permission of the player who
    receives it!" The permission is the receiver's to give or refuse: the giver's DECLINE is
    refused, with the order that takes the offer back."""
    state, _ = run(two_players(), OfferGroup("ann", "The Mafia", "bob"))
    with refuses("decline_own_offer", group="The Mafia", receiver="bob") as refused:
        run(state, DeclineGroup("ann"))
    assert refused.value.key == "decline_own_offer"
    assert "WITHDRAW OFFER" in refused.value.suggestion
    with refuses("no_offer", player="cy"):
        run(state, DeclineGroup("cy"))


def test_the_giver_may_withdraw_an_offer_not_yet_accepted() -> None:
    """When Is a Deal Binding? rulebook-en: "When two players agree to a deal, it is
    binding if they make the exchange immediately." Until the receiver agrees there is no
    deal: the giver takes the offer back, the group stays, no action is spent."""
    state, _ = run(two_players(), OfferGroup("ann", "The Mafia", "bob"))
    withdrawn, events = run(state, WithdrawOffer("ann"))
    assert withdrawn.offer is None and withdrawn.turn.actions == 0
    assert withdrawn.owner("The Mafia").name == "ann"  # type: ignore[union-attr]
    assert [e.data for e in of_kind(events, "offer_withdrawn")] == [
        {"player": "ann", "to": "bob", "group": "The Mafia"}]
    with refuses("no_offer_made", player="bob") as refused:
        run(state, WithdrawOffer("bob"))
    assert refused.value.key == "no_offer_made"
    with refuses("no_offer", player="bob"):
        run(withdrawn, AcceptGroup("bob"))


@pytest.mark.parametrize("leaving", [LeaveGame("bob"), GmRemovePlayer("gm", "bob", "gone")])
def test_an_offer_to_a_player_who_leaves_ends_and_the_group_stays(leaving: object) -> None:
    """rulebook-en: "If a player drops out, his Groups go uncontrolled and their treasuries
    go to the bank. His Illuminati card is taken out of play." A gift needs "the permission
    of the player who receives it": a receiver out of the game can give none, so the offer
    ends at once; the group stays with the giver, whose turn goes on."""
    state, _ = run(two_players(), OfferGroup("ann", "The Mafia", "bob"))
    state, events = run(state, leaving)  # type: ignore[arg-type]
    assert state.offer is None
    assert state.owner("The Mafia").name == "ann"  # type: ignore[union-attr]
    assert state.active_player.name == "ann" and state.phase == "actions"
    (ended,) = of_kind(events, "offer_ended")
    assert ended.data == {"giver": "ann", "receiver": "bob", "group": "The Mafia",
                          "player": "bob", "status": state.player("bob").status}
    assert [e.kind for e in events][-1] == "offer_ended"


def test_an_offer_from_a_player_who_leaves_ends_with_their_groups() -> None:
    """rulebook-en: "If a player drops out, his Groups go uncontrolled" - the group offered
    too, so the offer ends, told as ended, and the next player's turn begins."""
    state, _ = run(two_players(), OfferGroup("ann", "The Mafia", "bob"))
    state, events = run(state, LeaveGame("ann"))
    assert state.offer is None and "The Mafia" in state.uncontrolled
    (ended,) = of_kind(events, "offer_ended")
    assert ended.data["player"] == "ann" and ended.data["status"] == "left"
    assert state.active_player.name != "ann"


def test_another_players_group_is_reached_only_through_its_owner() -> None:
    """rulebook-en: "On your turn, you may give a Group away (even if you get nothing in
    return), sell or trade it" (your own Group only)"""
    state = place(two_players(), "bob", "KGB")
    with refuses("not_in_structure", player="ann"):
        run(state, OfferGroup("ann", "KGB", "cy"))


def test_a_special_card_is_not_given_to_its_own_holder() -> None:
    """rulebook-en: "Groups, special cards, and money may be transferred between players:
    traded, sold (that is, traded for money) or given away." (between players: a card given
    to its holder would go nowhere, and must not be copied)"""
    state = deal(two_players(), "ann", "Swiss Bank Account")
    with refuses("card_to_self"):
        run(state, GiveCard("ann", "ann", "Swiss Bank Account"))
    assert state.player("ann").hand == ("Swiss Bank Account",)
