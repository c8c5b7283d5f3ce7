"""Rule cases: every special card, its timing, Secrets, and "the last card played governs"."""

from __future__ import annotations

from dataclasses import replace

import pytest
from factory import (
    BAVARIA,
    CTHULHU,
    GNOMES,
    NETWORK,
    active,
    attack_to_result,
    dead,
    deal,
    free,
    game,
    master_of,
    money,
    money_balances,
    need,
    of_kind,
    place,
    result,
    rig,
    run,
    special,
    term,
    terms,
    treasury,
)
from support import refuses

from pbem.engine.commands import (
    Attack,
    BeginTurn,
    Counter,
    PlaySpecial,
    ResolveSpecial,
    Roll,
    Settle,
    TransferMoney,
)
from pbem.engine.state import GameState, TurnState
from pbem.errors import IllegalCommandError

OIL = "Multinational Oil Companies"
SECRETS = "Secrets Man Was Not Meant To Know"


def position() -> GameState:
    """ann (Gnomes, 10 MB, Multinational Oil with 4 MB) on her turn; bob (Bavaria) and cy
    (Network) each with 10 MB; L-4 Society and Boy Sprouts uncontrolled."""
    state = game(ann=GNOMES, bob=BAVARIA, cy=NETWORK)
    for name, card in (("ann", GNOMES), ("bob", BAVARIA), ("cy", NETWORK)):
        state = money(state, name, card, 10)
    state = place(state, "ann", OIL, treasury=4)
    return free(state, "L-4 Society", "Boy Sprouts")


def rolled(state: GameState, roll: int) -> GameState:
    """An attack by Multinational Oil on L-4 Society (needs 4), rolled ``roll``."""
    state, _ = run(state, Attack("ann", OIL, "L-4 Society", "control"))
    state, _ = run(rig(state, roll), Roll())
    return state


def test_assassination_makes_the_roll_a_two() -> None:
    """specials.csv: "right after the dice are rolled on any attack (control/neutralize/
    destroy) by any player,the roll becomes a 2" """
    state = deal(rolled(position(), 9), "cy", "Assassination")
    state, _ = special(state, PlaySpecial("cy", "Assassination"))
    state, events = run(state, Settle())
    assert result(events).data["roll"] == 2 and result(events).data["success"]
    assert state.owner("L-4 Society").name == "ann"  # type: ignore[union-attr]


def test_murphys_law_makes_the_roll_a_twelve() -> None:
    """specials.csv: "Murphy's Law,1,right after the dice are rolled on any attack by any
    player,the roll becomes a 12" """
    state = deal(rolled(position(), 2), "bob", "Murphy's Law")
    state, _ = special(state, PlaySpecial("bob", "Murphy's Law"))
    state, events = run(state, Settle())
    assert result(events).data["roll"] == 12 and not result(events).data["success"]


@pytest.mark.parametrize("card", ["Assassination", "Murphy's Law"])
def test_roll_cards_are_played_only_right_after_the_dice(card: str) -> None:
    """specials.csv: "right after the dice are rolled on any attack by any player" """
    state = deal(position(), "bob", card)
    state, _ = run(state, Attack("ann", OIL, "L-4 Society", "control"))
    with refuses("wrong_phase", active="ann"):
        run(state, PlaySpecial("bob", card))


@pytest.mark.parametrize(("first", "last", "success"),
                         [("Assassination", "Murphy's Law", False),
                          ("Murphy's Law", "Assassination", True)])
def test_the_last_card_played_governs(first: str, last: str, success: bool) -> None:
    """rulebook-en: "If two specials are played and one contradicts the other (for example,
    Assassination and Murphy's Law), the last card played is the one that governs." """
    state = deal(deal(rolled(position(), 7), "bob", first), "cy", last)
    state, _ = special(state, PlaySpecial("bob", first))
    state, _ = special(state, PlaySpecial("cy", last))
    state, events = run(state, Settle())
    assert result(events).data["success"] is success


def test_bribery_takes_an_uncontrolled_group_as_a_regular_action() -> None:
    """rulebook-en: "Using a Special card - follow the instructions on the card. (Exception:
    Using the Bribery card is a regular action.)" """
    state = deal(position(), "ann", "Bribery")
    state, events = special(state, PlaySpecial("ann", "Bribery", group="L-4 Society"))
    assert state.owner("L-4 Society").name == "ann"  # type: ignore[union-attr]
    assert state.turn.actions == 1
    assert of_kind(events, "bribery") and "Bribery" in state.discards


def test_the_briber_chooses_where_the_bribed_group_hangs() -> None:
    """specials.csv: "take control of one uncontrolled group without a roll" (placed as a
    captured group is, on an open arrow the player chooses)"""
    state = deal(position(), "ann", "Bribery", "Deep Agent")
    oil = state.player("ann").slot(OIL)
    assert oil is not None and (oil.x, oil.y) == (0, -1)
    with refuses("bribery_arrow_closed"):
        run(state, PlaySpecial("ann", "Bribery", group="L-4 Society", master=OIL, arrow=2))
    state, _ = special(state, PlaySpecial("ann", "Bribery", group="L-4 Society", master=OIL,
                                          arrow=3))
    slot = state.player("ann").slot("L-4 Society")
    assert slot is not None and (slot.x, slot.y) == (-1, -1)
    assert master_of(state, "L-4 Society") == OIL


def test_bribery_is_refused_without_an_action_left_or_on_a_controlled_group() -> None:
    """specials.csv: "on the holder's turn; using it is a regular action,take control of one
    uncontrolled group without a roll" """
    state = place(deal(position(), "ann", "Bribery"), "bob", "KGB")
    with refuses("not_uncontrolled"):
        run(state, PlaySpecial("ann", "Bribery", group="KGB"))
    with refuses("not_active"):
        run(active(state, "bob"), PlaySpecial("ann", "Bribery", group="L-4 Society"))
    spent, _ = attack_to_result(state, Attack("ann", OIL, "L-4 Society", "control"), roll=12)
    spent, _ = attack_to_result(spent, Attack("ann", GNOMES, "L-4 Society", "control"), roll=12)
    with refuses("actions_used"):
        run(spent, PlaySpecial("ann", "Bribery", group="Boy Sprouts"))


def test_computer_espionage_shows_a_hand_to_its_player_only() -> None:
    """specials.csv: "see the money on one group or see all special cards of one player" """
    state = deal(deal(position(), "cy", "Computer Espionage"), "bob", "Deep Agent")
    state, events = special(state, PlaySpecial("cy", "Computer Espionage", other="bob"))
    (seen,) = of_kind(events, "espionage")
    assert seen.data["hand"] == ("Deep Agent",) and seen.visible_to == ("cy",)
    state = deal(state, "bob", "Computer Espionage")
    state, events = special(state, PlaySpecial("bob", "Computer Espionage", other=OIL))
    assert of_kind(events, "espionage")[0].data["treasury"] == 4


def test_media_campaign_brings_a_destroyed_group_back() -> None:
    """rulebook-en: "It can be revived only by the Special card Media Campaign." """
    state = dead(deal(position(), "bob", "Media Campaign"), "KGB")
    state, _ = special(state, PlaySpecial("bob", "Media Campaign", group="KGB"))
    assert state.dead == () and "KGB" in state.uncontrolled
    with refuses("not_dead"):
        run(deal(state, "bob", "Media Campaign"), PlaySpecial("bob", "Media Campaign",
                                                              group="L-4 Society"))


def test_a_revived_group_destroyed_again_counts_again() -> None:
    """illuminati.csv: "destroy 8 groups (a group revived and destroyed again counts again)" """
    state = game(ann=CTHULHU, bob=GNOMES)
    state = deal(money(state, "ann", CTHULHU, 10), "bob", "Media Campaign")
    state = free(state, "Nuclear Power Companies")
    destroy = Attack("ann", CTHULHU, "Nuclear Power Companies", "destroy")
    state, _ = attack_to_result(state, destroy)
    state, _ = special(state, PlaySpecial("bob", "Media Campaign",
                                          group="Nuclear Power Companies"))
    assert state.player("ann").destroyed == 1  # reviving takes nothing back
    state = in_next_turn(state)
    state, _ = attack_to_result(state, destroy)
    assert state.player("ann").destroyed == 2
    assert state.dead == ("Nuclear Power Companies",)


def in_next_turn(state: GameState) -> GameState:
    """The same position at the start of a fresh turn of the same player."""
    return replace(state, turn=TurnState())


def test_secrets_cancels_a_special_card_and_both_are_discarded() -> None:
    """specials.csv: "when any other special card is played,that card has no effect; both are
    discarded" """
    state = deal(deal(position(), "bob", "Slush Fund"), "cy", SECRETS)
    state, events = run(state, PlaySpecial("bob", "Slush Fund"), Counter("cy", SECRETS))
    assert treasury(state, BAVARIA) == 10
    assert state.discards == (SECRETS, "Slush Fund")
    assert state.player("bob").hand == () and state.player("cy").hand == ()
    assert of_kind(events, "special_cancelled")
    with refuses("no_special_waiting"):
        run(state, ResolveSpecial())


def test_secrets_cannot_cancel_its_own_players_card_nor_be_played_alone() -> None:
    """specials.csv: "when any other special card is played" """
    state = deal(position(), "bob", "Slush Fund", SECRETS)
    with refuses("counter_only"):
        run(state, PlaySpecial("bob", SECRETS))
    state, _ = run(state, PlaySpecial("bob", "Slush Fund"))
    with refuses("counter_own"):
        run(state, Counter("bob", SECRETS))


def test_a_played_card_waits_for_an_answer_before_anything_else() -> None:
    """rulebook-en: "Each Special may be used only once. Some may be used at any time; others
    have restrictions, stated on the card." """
    state = deal(position(), "bob", "Slush Fund", "Swiss Bank Account")
    state, _ = run(state, PlaySpecial("bob", "Slush Fund"))
    with refuses("special_unanswered"):
        run(state, PlaySpecial("bob", "Swiss Bank Account"))
    with refuses("special_waiting"):
        run(state, TransferMoney("ann", GNOMES, OIL, 1))


def test_the_senate_investigating_committee_costs_another_player_the_whole_turn() -> None:
    """specials.csv: "at the beginning of another player's turn,that player loses the whole
    turn" """
    state = game(phase="turn_start", deck=("KGB",), ann=GNOMES, bob=BAVARIA)
    state = place(deal(state, "bob", "Senate Investigating Committee"), "ann", OIL)
    state, _ = special(state, PlaySpecial("bob", "Senate Investigating Committee"))
    state, events = run(state, BeginTurn())
    assert of_kind(events, "turn_lost")
    assert treasury(state, GNOMES) == 0 and treasury(state, OIL) == 0  # no income
    assert state.deck == ("KGB",)  # no card drawn
    assert state.active_player.name == "bob" and state.phase == "turn_start"
    assert state.player("ann").turns == 1  # the lost turn still counts as a turn


@pytest.mark.parametrize("when", ["own_turn", "actions"])
def test_the_senate_is_played_only_as_another_players_turn_begins(when: str) -> None:
    """specials.csv: "Senate Investigating Committee,1,at the beginning of another player's
    turn" """
    state = game(phase="turn_start", ann=GNOMES, bob=BAVARIA)
    holder = "ann" if when == "own_turn" else "bob"
    state = deal(state, holder, "Senate Investigating Committee")
    if when == "actions":
        state = active(state, "ann", "actions")
    with pytest.raises(IllegalCommandError):
        run(state, PlaySpecial(holder, "Senate Investigating Committee"))


@pytest.mark.parametrize(("card", "amount"), [("Slush Fund", 15), ("Swiss Bank Account", 25)])
def test_money_cards_pay_into_the_illuminati_at_any_time(card: str, amount: int) -> None:
    """specials.csv: "exchange for 15 MB into the holder's Illuminati treasury" (25 MB for the
    Swiss Bank Account)"""
    state = deal(position(), "bob", card)  # on ann's turn
    state, _ = special(state, PlaySpecial("bob", card))
    assert treasury(state, BAVARIA) == 10 + amount
    assert state.player("bob").hand == () and money_balances(state)


def test_playing_a_special_card_is_not_an_action() -> None:
    """rulebook-en: "Playing a Special is not an action unless the card says it is." """
    state = deal(position(), "ann", "Slush Fund")
    state, _ = special(state, PlaySpecial("ann", "Slush Fund"))
    assert state.turn.actions == 0


def test_each_special_card_is_used_once_and_discarded() -> None:
    """rulebook-en: "Each Special may be used only once. ... After a card is used, it is
    discarded." """
    state = deal(position(), "bob", "Slush Fund")
    state, _ = special(state, PlaySpecial("bob", "Slush Fund"))
    assert state.discards == ("Slush Fund",)
    with refuses("not_held_by"):
        run(state, PlaySpecial("bob", "Slush Fund"))


def test_whispering_campaign_destroys_a_powerless_group_against_its_resistance() -> None:
    """rulebook-en: "A Group with no Power cannot be destroyed except by the Special card
    Whispering Campaign." """
    state = deal(position(), "ann", "Whispering Campaign")
    state, _ = special(state, PlaySpecial("ann", "Whispering Campaign", group="Boy Sprouts",
                                          attacker=OIL))
    assert state.attack is not None and state.attack.whispering
    assert term(state, "resistance") == -3 and term(state, "defender_power") == 0
    assert need(state) == 6 - 3  # Multinational Oil has no alignment
    assert state.turn.actions == 1
    state, events = attack_to_result(state, roll=3)
    assert result(events).data["success"] and state.dead == ("Boy Sprouts",)
    assert state.player("ann").destroyed == 1


def test_whispering_campaign_is_played_as_an_action_of_ones_own_turn() -> None:
    """specials.csv: "on the holder's turn; the attack is a regular action" """
    state = deal(place(position(), "bob", "C.I.A."), "bob", "Whispering Campaign")
    with refuses("not_active"):
        run(state, PlaySpecial("bob", "Whispering Campaign", group="Boy Sprouts",
                               attacker="C.I.A."))


def test_whispering_campaign_is_an_attack_that_may_be_aided_and_privileged() -> None:
    """specials.csv: "the attack is a regular action" and rulebook-en: "Any special card may
    also be discarded to make an attack" privileged; an attack may be aided by the
    transferable power of other groups: the Whispering Campaign's attack is one like any
    other."""
    state = place(position(), "ann", "Yuppies", master=OIL)
    state = deal(state, "ann", "Whispering Campaign", "Slush Fund")
    state, events = special(state, PlaySpecial(
        "ann", "Whispering Campaign", group="Boy Sprouts", attacker=OIL, aids=("Yuppies",),
        privilege="card", privilege_card="Slush Fund"))
    assert state.attack is not None and state.attack.whispering
    assert state.attack.aids == ("Yuppies",) and state.attack.privileged
    assert ("aid", "Yuppies", 1) in terms(state)
    assert "Slush Fund" in state.discards and not state.player("ann").hand
    assert of_kind(events, "privilege")


def test_whispering_campaign_cannot_be_its_own_privilege() -> None:
    """rulebook-en: "Each Special may be used only once." The card played is not also the
    card discarded for privilege (unless the player holds two)."""
    state = deal(position(), "ann", "Whispering Campaign")
    with pytest.raises(IllegalCommandError) as refused:
        run(state, PlaySpecial("ann", "Whispering Campaign", group="Boy Sprouts",
                               attacker=OIL, privilege="card",
                               privilege_card="Whispering Campaign"))
    assert refused.value.key == "privilege_card_not_held"


def test_computer_espionage_is_played_at_any_time() -> None:
    """specials.csv: "Computer Espionage,1,any time" """
    state = deal(active(position(), "bob", "turn_start"), "cy", "Computer Espionage")
    state, events = special(state, PlaySpecial("cy", "Computer Espionage", other="ann"))
    assert of_kind(events, "espionage")[0].data["looked_at"] == "ann"


def test_whispering_campaign_is_only_for_a_group_without_power() -> None:
    """specials.csv: "attack to destroy a group of power 0: attacker's power against the
    target's resistance; success destroys it" """
    state = deal(position(), "ann", "Whispering Campaign")
    with refuses("whispering_power"):
        run(state, PlaySpecial("ann", "Whispering Campaign", group="L-4 Society", attacker=OIL))


def test_white_collar_crime_moves_money_freely_and_adds_five() -> None:
    """specials.csv: "move any money freely between the holder's groups and add 5 MB anywhere
    in the structure" """
    state = place(deal(position(), "ann", "White Collar Crime"), "ann", "Yuppies", master=OIL)
    state, _ = special(state, PlaySpecial("ann", "White Collar Crime",
                                          moves=((GNOMES, "Yuppies", 6),), bonus_to=OIL))
    assert treasury(state, GNOMES) == 4 and treasury(state, "Yuppies") == 6
    assert treasury(state, OIL) == 9
    assert money_balances(state)
    assert master_of(state, "Yuppies") == OIL
