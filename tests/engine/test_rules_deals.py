"""Rule cases: binding deals (made at once and whole, or not at all) and the game ended by the
players' agreement."""

from __future__ import annotations

from dataclasses import replace

import pytest
from factory import (
    BAVARIA,
    GNOMES,
    NETWORK,
    deal,
    free,
    game,
    money,
    money_balances,
    of_kind,
    place,
    run,
    treasury,
)

from pbem.engine.commands import (
    AcceptDeal,
    Attack,
    DealSide,
    DeclineDeal,
    DropGroup,
    EndTurn,
    LeaveGame,
    ProposeDeal,
    VoteEnd,
    WithdrawDeal,
    WithdrawVote,
)
from pbem.engine.state import GameState
from pbem.errors import IllegalCommandError

SWISS = "Swiss Bank Account"
SLUSH = "Slush Fund"


def traders() -> GameState:
    """ann (on her turn) holds the Mafia; bob has money and two special cards."""
    state = game(ann=BAVARIA, bob=GNOMES, cy=NETWORK)
    state = money(money(state, "ann", BAVARIA, 10), "bob", GNOMES, 20)
    state = deal(state, "bob", SWISS, SLUSH)
    return place(state, "ann", "The Mafia", treasury=4)


def mafia_for_cash_and_cards() -> ProposeDeal:
    return ProposeDeal("ann", "bob", DealSide(groups=("The Mafia",)),
                       DealSide(money=12, cards=(SWISS, SLUSH)))


def test_a_deal_accepted_is_made_at_once_and_whole() -> None:
    """rulebook-en: "When two players agree to a deal, it is binding if they make the
    exchange immediately." The group (with its treasury), the money and both cards change
    hands in the one step of the acceptance."""
    state, _ = run(traders(), mafia_for_cash_and_cards())
    assert state.owner("The Mafia").name == "ann"  # type: ignore[union-attr]
    state, events = run(state, AcceptDeal("bob", 1))
    assert state.owner("The Mafia").name == "bob"  # type: ignore[union-attr]
    assert treasury(state, "The Mafia") == 4
    assert treasury(state, BAVARIA) == 22 and treasury(state, GNOMES) == 8
    assert state.player("ann").hand == (SWISS, SLUSH) and state.player("bob").hand == ()
    assert [e.kind for e in events][-1] == "deal_made" and state.deals == ()
    assert money_balances(state)


def test_giving_a_group_in_a_deal_is_an_action_money_and_cards_are_free() -> None:
    """rulebook-en: "Each Group exchanged counts as an action for the player whose turn it is,
    whichever way the Group moves." Money and special cards cost no action."""
    state, _ = run(traders(), mafia_for_cash_and_cards(), AcceptDeal("bob", 1))
    assert state.turn.actions == 1
    cash = ProposeDeal("ann", "bob", DealSide(money=5), DealSide(cards=(SWISS,)))
    state, _ = run(traders(), cash, AcceptDeal("bob", 1))
    assert state.turn.actions == 0


def test_a_deal_whose_group_was_lost_meanwhile_fails_whole_and_both_are_told() -> None:
    """rulebook-en: "it is binding if they make the exchange immediately." When the giver no
    longer holds the group at the acceptance, nothing changes hands (not the money nor the
    cards either), and the refusal's key is told to both players."""
    state, _ = run(traders(), mafia_for_cash_and_cards())
    state, _ = run(state, DropGroup("ann", "The Mafia"))  # lost meanwhile
    before = state
    state, events = run(state, AcceptDeal("bob", 1))
    (failed,) = of_kind(events, "deal_failed")
    assert failed.data["reason"] == "giver_lost_group"
    assert failed.visible_to == ("ann", "bob")
    assert state.deals == ()
    assert treasury(state, GNOMES) == treasury(before, GNOMES) == 20
    assert state.player("bob").hand == (SWISS, SLUSH)


def test_a_deal_fails_whole_when_one_part_is_short() -> None:
    """rulebook-en: "When two players agree to a deal, it is binding if they make the
    exchange immediately." bob spent money meanwhile: the group does not move either."""
    state, _ = run(traders(), mafia_for_cash_and_cards())
    state = money(state, "bob", GNOMES, 3)
    state, events = run(state, AcceptDeal("bob", 1))
    assert of_kind(events, "deal_failed")[0].data["reason"] == "money_short"
    assert state.owner("The Mafia").name == "ann"  # type: ignore[union-attr]
    assert state.turn.actions == 0


def test_a_deal_is_declined_or_withdrawn_and_binds_no_one_before() -> None:
    """rulebook-en: "A deal is not binding if it involves an exchange of one thing now for
    something in the future." Until it is accepted and made, the partner may decline it and
    the proposer withdraw it; only the partner accepts, only the proposer withdraws."""
    state, _ = run(traders(), mafia_for_cash_and_cards())
    with pytest.raises(IllegalCommandError) as refused:
        run(state, AcceptDeal("ann", 1))
    assert refused.value.key == "deal_not_yours"
    with pytest.raises(IllegalCommandError) as refused:
        run(state, WithdrawDeal("bob", 1))
    assert refused.value.key == "deal_not_proposed"
    declined, events = run(state, DeclineDeal("bob", 1))
    assert declined.deals == () and of_kind(events, "deal_ended")[0].data["how"] == "declined"
    withdrawn, events = run(state, WithdrawDeal("ann", 1))
    assert withdrawn.deals == () and of_kind(events, "deal_ended")[0].data["how"] == "withdrawn"
    with pytest.raises(IllegalCommandError) as refused:
        run(withdrawn, AcceptDeal("bob", 1))
    assert refused.value.key == "no_deal"


def test_a_deal_lapses_at_the_end_of_the_turn() -> None:
    """rulebook-en: "Groups may only be transferred if it is the turn of one of the players
    involved." A deal proposed on ann's turn lapses when her turn ends; both are told."""
    state, _ = run(traders(), mafia_for_cash_and_cards())
    state, events = run(state, EndTurn("ann"))
    assert state.deals == ()
    (lapsed,) = of_kind(events, "deal_ended")
    assert lapsed.data["how"] == "lapsed" and lapsed.visible_to == ("ann", "bob")


def test_a_deal_with_groups_needs_the_turn_of_one_of_the_players_and_actions() -> None:
    """rulebook-en: "Groups may only be transferred if it is the turn of one of the players
    involved." and "Each Group exchanged counts as an action for the player whose turn it
    is": a deal of groups between bob and cy on ann's turn is refused; one of two groups with
    one action left fails."""
    state = place(traders(), "bob", "KGB")
    with pytest.raises(IllegalCommandError) as refused:
        run(state, ProposeDeal("bob", "cy", DealSide(groups=("KGB",)), DealSide()))
    assert refused.value.key == "gift_turn"
    state = place(state, "ann", "Yuppies", arrow=1)
    state = replace(state, turn=replace(state.turn, actions=1))
    two = ProposeDeal("ann", "bob", DealSide(groups=("The Mafia", "Yuppies")), DealSide())
    state, events = run(state, two, AcceptDeal("bob", 1))
    assert of_kind(events, "deal_failed")[0].data["reason"] == "deal_actions"


def test_a_deal_waits_while_an_attack_is_under_way() -> None:
    """rulebook-en: "Each action must be completed before beginning another." An attack under
    way may change the structures, so the deal cannot be accepted until it is settled (it
    stays open)."""
    state = free(money(traders(), "ann", BAVARIA, 10), "Yuppies")
    state, _ = run(state, mafia_for_cash_and_cards(),
                   Attack("ann", BAVARIA, "Yuppies", "control"))
    with pytest.raises(IllegalCommandError) as refused:
        run(state, AcceptDeal("bob", 1))
    assert refused.value.key == "deal_mid_attack"
    assert len(state.deals) == 1


def test_a_deal_proposes_only_what_each_side_holds() -> None:
    """rulebook-en: "When cash is transferred, it must come from an Illuminati card and go to
    another one." Each side gives only what it holds when proposing: the
    Illuminati treasury, its own groups (never the Illuminati card), special cards in hand."""
    state = traders()
    for side, key in ((DealSide(money=11), "money_short"),
                      (DealSide(groups=(BAVARIA,)), "deal_illuminati"),
                      (DealSide(cards=(SWISS,)), "not_held_by")):
        with pytest.raises(IllegalCommandError) as refused:
            run(state, ProposeDeal("ann", "bob", side, DealSide()))
        assert refused.value.key == key
    with pytest.raises(IllegalCommandError) as refused:
        run(state, ProposeDeal("ann", "bob", DealSide(), DealSide()))
    assert refused.value.key == "deal_empty"


def test_the_deals_of_a_player_who_leaves_end() -> None:
    """rulebook-en: "If a player drops out, his Groups go uncontrolled and their treasuries
    go to the bank." His deals end with him, and the other side is told."""
    state, _ = run(traders(), mafia_for_cash_and_cards())
    state, events = run(state, LeaveGame("bob"))
    assert state.deals == ()
    assert of_kind(events, "deal_ended")[0].data["how"] == "gone"


# --- the game ended by agreement ------------------------------------------------------------


def test_the_game_ends_when_every_player_votes_for_the_same_ending() -> None:
    """rulebook-en: "If two or more players both meet their Goals at the same time, they
    share the victory, dividing the world between them." By agreement (the game option
    agreed_end), the players still in the game end it with a victory shared by those they
    name; it needs every one of them."""
    state, events = run(traders(), VoteEnd("ann", ("ann", "bob")), VoteEnd("bob", ("bob", "ann")))
    assert state.phase != "over"
    assert of_kind(events, "end_voted")[-1].data["missing"] == ("cy",)
    state, events = run(state, VoteEnd("cy", ("ann", "bob")))
    assert state.phase == "over" and state.outcome == "agreement"
    assert state.winners == ("ann", "bob")
    assert of_kind(events, "agreed_end")


def test_a_vote_for_another_ending_or_withdrawn_does_not_count() -> None:
    """rulebook-en: "Any agreement between players, secret or otherwise, is permitted as long
    as it does not actually violate the rules of the game." Agreement is on one ending: a
    vote for no winner and one for a shared victory do not agree; a vote may be withdrawn."""
    state, _ = run(traders(), VoteEnd("ann"), VoteEnd("bob"), VoteEnd("cy", ("cy",)))
    assert state.phase != "over"
    state, _ = run(state, WithdrawVote("ann"))
    assert [v.player for v in state.end_votes] == ["bob", "cy"]
    state, _ = run(state, VoteEnd("cy"), VoteEnd("ann"))
    assert state.phase == "over" and state.winners == () and state.outcome == "agreement"


def test_the_vote_needs_the_option_and_players_still_in_the_game() -> None:
    """rulebook-en: "The game ends when, at the end of a turn (his own or someone else's) a
    player meets one of his Goals." Ending it otherwise is a game option (agreed_end); only a
    player still in the game votes, and only such players are named winners."""
    off = traders()
    off = replace(off, options=replace(off.options, agreed_end=False))
    with pytest.raises(IllegalCommandError) as refused:
        run(off, VoteEnd("ann"))
    assert refused.value.key == "agreed_end_off"
    state, _ = run(traders(), LeaveGame("cy"))
    with pytest.raises(IllegalCommandError) as refused:
        run(state, VoteEnd("ann", ("cy",)))
    assert refused.value.key == "vote_winner_gone"
    with pytest.raises(IllegalCommandError):
        run(state, VoteEnd("cy"))
    state, _ = run(state, VoteEnd("ann"), VoteEnd("bob"))
    assert state.phase == "over" and state.outcome == "agreement"
