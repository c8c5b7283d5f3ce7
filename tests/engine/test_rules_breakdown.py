"""Rule cases: every term of the number an attack needs, and the rulebook's worked examples."""

from __future__ import annotations

import pytest
from factory import (
    BAVARIA,
    CARDS,
    GNOMES,
    NETWORK,
    attack_to_result,
    chain,
    current,
    free,
    game,
    money,
    money_balances,
    need,
    place,
    result,
    run,
    term,
    terms,
    treasury,
)
from support import refuses

from pbem.engine.abilities import alignment_modifier
from pbem.engine.breakdown import roll_needed, success_chance
from pbem.engine.commands import Attack, Interfere, Spend
from pbem.engine.events import Spent
from pbem.engine.state import GameState

OIL = "Multinational Oil Companies"  # power 6, no alignment
BOBS_CHAIN = ("Big Media", "The Mafia", "New York")  # three deep: the fourth gets no bonus


def position(target_depth: int = 0, target: str = "Boy Sprouts",
             target_money: int = 0) -> GameState:
    """ann: Bavarian Illuminati (20 MB) -> Multinational Oil (5 MB), C.I.A. (aid 4).
    ``target`` uncontrolled (depth 0) or in bob's structure at ``target_depth``."""
    state = game(ann=BAVARIA, bob=GNOMES, cy=NETWORK)
    state = money(state, "ann", BAVARIA, 20)
    state = money(state, "bob", GNOMES, 20)
    state = money(state, "cy", NETWORK, 20)
    state = place(state, "ann", OIL, treasury=5)
    state = place(state, "ann", "C.I.A.")
    if target_depth == 0:
        return free(state, target)
    state = chain(state, "bob", *BOBS_CHAIN[: target_depth - 1])
    master = BOBS_CHAIN[target_depth - 2] if target_depth > 1 else ""
    return place(state, "bob", target, master=master, treasury=target_money)


def example_attack(state: GameState) -> GameState:
    state, _ = run(state, Attack("ann", OIL, "Boy Sprouts", "control", aids=("C.I.A.",)))
    return state


# --- the rulebook's worked examples ------------------------------------------------------


def test_power_six_aided_by_four_against_resistance_three_needs_seven() -> None:
    """rulebook-en: "Example: A Group with a power of 6, aided by another Group with a
    transferable power of 4, is attacking a Group with a resistance of 3. The attacker has a
    total power of 10 (6 plus 4), and will have to roll a 7 or less (10 minus 3) to succeed." """
    state = example_attack(position())
    assert terms(state) == [("power", OIL, 6), ("aid", "C.I.A.", 4),
                            ("resistance", "Boy Sprouts", -3)]
    assert need(state) == 7
    assert state.turn.actions == 1  # the aid is part of the attack, not an action of its own


def test_spending_three_megabucks_makes_it_ten() -> None:
    """rulebook-en: "So he spent 3 MB. Now he needs to roll a 10 or less, which is much
    easier." """
    state = example_attack(position())
    state, _ = run(state, Spend("ann", OIL, 3))
    assert need(state) == 10
    assert term(state, "attacker_money") == 3


def test_the_defenders_three_megabucks_on_the_group_bring_it_back_to_four() -> None:
    """rulebook-en: "Example: In the instance above, the defender has 3 MB on the defending
    Group. He spends it all. It counts double, so instead of a 10, the attacker now needs to
    roll a 4." """
    state = example_attack(position(target_depth=4, target_money=3))
    assert term(state, "proximity") == 0
    state, _ = run(state, Spend("ann", OIL, 3), Spend("bob", "Boy Sprouts", 3))
    assert need(state) == 4
    assert term(state, "defender_money") == -6


def test_spending_goes_back_and_forth() -> None:
    """rulebook-en: "The attacker and defender can each go back and forth, putting in more
    money, as long as they are able. When no player is willing to spend more money to affect
    the attack, the dice are rolled to determine the result." """
    state = example_attack(position(target_depth=4, target_money=3))
    state, _ = run(state, Spend("ann", OIL, 3), Spend("bob", "Boy Sprouts", 3),
                   Spend("ann", BAVARIA, 4), Spend("bob", GNOMES, 2), Spend("ann", OIL, 2))
    assert need(state) == 7 + 3 - 6 + 4 - 2 + 2
    state, events = attack_to_result(state, roll=8)
    assert result(events).data["need"] == 8 and result(events).data["success"]


def test_the_defender_must_spend_twenty_to_undo_a_lead_of_twenty() -> None:
    """rulebook-en: "if an attacker uses enough money and power to exceed the target's
    resistance by 20, the defender would have to spend 20 MB to get the attacking roll back
    down to zero again!" """
    state = position(target_depth=4)
    state, _ = run(state, Attack("ann", BAVARIA, "Boy Sprouts", "control"),
                   Spend("ann", BAVARIA, 13))
    assert need(state) == 20
    state, _ = run(state, Spend("bob", GNOMES, 20))
    assert need(state) == 0


def test_past_ten_more_money_does_not_improve_the_odds() -> None:
    """rulebook-en: "Once the roll needed to succeed has reached 10, additional spending will
    not improve the attacker's odds; an 11 or 12 always fails." """
    assert success_chance(10) == success_chance(25) == 33 / 36
    assert success_chance(9) == 30 / 36
    assert success_chance(1) == 0 and success_chance(2) == 1 / 36


def test_the_french_example_seven_against_three() -> None:
    """rules-fr: "Pour gagner l'affrontement, il faut obtenir un 4 au lancer de dés. Afin
    d'augmenter vos chances, vous pouvez dépenser 3MB et augmenter le chiffre à obtenir à 7." """
    state = place(position(target="Tobacco & Liquor Companies"), "ann", "New York",
                  treasury=3)  # power 7 against resistance 3, no alignment pair
    state, _ = run(state, Attack("ann", "New York", "Tobacco & Liquor Companies", "control"))
    assert need(state) == 4
    state, _ = run(state, Spend("ann", "New York", 3))
    assert need(state) == 7


def test_any_number_of_groups_may_aid_one_attack() -> None:
    """rulebook-en: "Any number of Groups may aid one attack by adding Transferable Power." """
    state = place(place(position(), "ann", "Big Media"), "ann", "KGB")
    state, _ = run(state, Attack("ann", OIL, "Boy Sprouts", "control",
                                 aids=("C.I.A.", "Big Media", "KGB", BAVARIA)))
    assert term(state, "aid") == 4 + 3 + 2 + 10


def test_no_transferable_power_is_added_once_the_attack_is_announced() -> None:
    """rulebook-en: "When an attack is announced, all transferable power to be used in that
    attack must be announced before any money is spent (see below) to support the attack. No
    transferable power may be added in the middle of the attack." """
    state = example_attack(place(position(), "ann", "Big Media"))
    with refuses("wrong_phase", phase="attack"):
        run(state, Attack("ann", OIL, "Boy Sprouts", "control", aids=("Big Media",)))
    assert state.attack is not None and state.attack.aids == ("C.I.A.",)


def test_two_opposite_pairs_subtract_eight() -> None:
    """rulebook-en: "Example: A Weird, Communist Group is trying to control a Straight,
    Government Group. Two sets of opposite alignments subtract 8 from the attacking power on
    this attack." """
    assert alignment_modifier(("Weird", "Communist"), ("Straight", "Government"),
                              "control") == (0, 2)


# --- each modifier -----------------------------------------------------------------------


@pytest.mark.parametrize(("depth", "bonus"), [(1, 10), (2, 5), (3, 2), (4, 0)])
def test_closeness_to_the_illuminati_adds_resistance(depth: int, bonus: int) -> None:
    """summary-en: "Defending Group is controlled directly by Illuminati -10 Defending Group
    is 1 Group away from Illuminati group -5 Defending Group is 2 Groups away from Illuminati
    group -2" """
    state = position(target_depth=depth, target="L-4 Society")
    state, _ = run(state, Attack("ann", OIL, "L-4 Society", "control"))
    assert term(state, "proximity") == -bonus
    assert need(state) == 6 - 2 - bonus


def test_groups_more_than_three_away_get_no_bonus() -> None:
    """rulebook-en: "Note that Groups more than 3 away from the Illuminati get no bonus at
    all." """
    state = position(target_depth=4, target="L-4 Society")
    state, _ = run(state, Attack("ann", OIL, "L-4 Society", "control"))
    assert "proximity" not in [kind for kind, _, _ in terms(state)]


def test_an_uncontrolled_group_gets_no_closeness_bonus() -> None:
    """rulebook-en: "If a Group is already controlled by an opponent, it may be harder to
    control." """
    state = example_attack(position())
    assert term(state, "proximity") == 0


def test_each_identical_alignment_adds_four() -> None:
    """rulebook-en: "If the Groups have any identical alignments, add 4 to the attacker's
    effective Power for each identical alignment." """
    state = place(position(target="New York"), "ann", "Pentagon")  # Gov/Violent/Straight
    state, _ = run(state, Attack("ann", "Pentagon", "New York", "control"))  # Viol/Crim/Gov
    assert term(state, "identical_alignment") == 8
    assert need(state) == 6 - 8 + 8


def test_each_opposite_alignment_subtracts_four() -> None:
    """rulebook-en: "If they have any opposite alignments, subtract 4 for each." """
    state = place(position(target="Boy Sprouts"), "ann", "KGB")  # Communist/Violent
    state, _ = run(state, Attack("ann", "KGB", "Boy Sprouts", "control"))  # Straight/Peaceful
    assert term(state, "opposite_alignment") == -4
    assert need(state) == 2 - 3 - 4


def test_the_alignment_of_aiding_groups_does_not_matter() -> None:
    """rulebook-en: "Alignment of the Group(s) transferring power does not matter." """
    state = free(position(), "KGB")  # Communist: the aiding C.I.A. is Government
    state, _ = run(state, Attack("ann", OIL, "KGB", "control", aids=("C.I.A.",)))
    assert terms(state) == [("power", OIL, 6), ("aid", "C.I.A.", 4), ("resistance", "KGB", -6)]


def test_the_mafia_has_seven_to_control_a_criminal_group() -> None:
    """rulebook-en: "The Mafia would also have a 4 bonus to control other Criminal cards
    because its own alignment is Criminal (see p. 5). Thus, it would have a total of 7 for
    control of other Criminal cards!" """
    state = place(position(target="Junk Mail"), "ann", "The Mafia")  # Junk Mail: Criminal
    state, _ = run(state, Attack("ann", "The Mafia", "Junk Mail", "control"))
    assert term(state, "ability") == 3 and term(state, "identical_alignment") == 4
    assert term(state, "ability") + term(state, "identical_alignment") == 7


def test_attacking_money_comes_from_the_attacking_group_or_the_illuminati_only() -> None:
    """rulebook-en: "Attacking money may be spent from both the attacking Group's treasury and
    the Illuminati treasury. Other Groups in the Power Structure cannot spend money to aid the
    attack." """
    state = place(example_attack(position()), "ann", "Yuppies", master=OIL, treasury=2)
    state, _ = run(state, Spend("ann", OIL, 1), Spend("ann", BAVARIA, 2))
    assert term(state, "attacker_money") == 3
    with refuses("attack_money_source"):
        run(state, Spend("ann", "Yuppies", 1))


def test_defending_money_counts_double_from_the_group_and_single_from_the_illuminati() -> None:
    """rulebook-en: "Resistance to that attack will increase by two for each MB spent from the
    defending Group's treasury, and by one for each MB spent from his Illuminati treasury.
    Other Groups cannot participate." """
    state = example_attack(position(target_depth=4, target_money=3))
    state, _ = run(state, Spend("bob", "Boy Sprouts", 2), Spend("bob", GNOMES, 3))
    assert term(state, "defender_money") == -2 * 2 - 3
    with refuses("attack_money_source"):
        run(state, Spend("bob", "Big Media", 1))


def test_no_one_spends_to_defend_an_uncontrolled_group() -> None:
    """rulebook-en: "If the defending Group is controlled by another player, the defender may
    counter an attack by spending some of his own money." """
    state = example_attack(position())
    with refuses("not_a_side"):
        run(state, Spend("bob", GNOMES, 1))


def test_spent_money_goes_to_the_bank() -> None:
    """rulebook-en: "Each MB spent (returned to the bank) adds one point of Power to that
    attack." """
    state = example_attack(position(target_depth=4, target_money=3))
    before = state.money_issued
    state, _ = run(state, Spend("ann", OIL, 3), Spend("bob", "Boy Sprouts", 3),
                   Interfere("cy", 2, "assist"))
    assert state.money_issued == before - 8 and money_balances(state)
    assert (treasury(state, OIL), treasury(state, "Boy Sprouts"), treasury(state, NETWORK)) \
        == (2, 0, 18)


def test_no_one_spends_more_than_the_treasury_holds() -> None:
    """rulebook-en: "The attacker and defender can each go back and forth, putting in more
    money, as long as they are able." """
    with refuses("money_short", have=5):
        run(example_attack(position()), Spend("ann", OIL, 6))


@pytest.mark.parametrize(("side", "sign"), [("assist", 1), ("interfere", -1)])
def test_other_players_interfere_or_assist_one_point_a_megabuck(side: str, sign: int) -> None:
    """rulebook-en: "To do so, he announces who he will help, and then contributes money from
    his Illuminati treasury only. This money goes to the bank. It affects the needed die roll
    by 1 for each MB spent." """
    state = example_attack(position())
    state, _ = run(state, Interfere("cy", 5, side))  # type: ignore[arg-type]
    assert term(state, side) == sign * 5
    assert need(state) == 7 + sign * 5
    assert treasury(state, NETWORK) == 15


def test_the_attacker_and_the_defender_spend_rather_than_interfere() -> None:
    """rulebook-en: "A player may interfere in an attack, either by helping the attacker or by
    opposing him." (another player: the attacker and defender spend)"""
    state = example_attack(position(target_depth=4))
    for player in ("ann", "bob"):
        with refuses("sides_spend"):
            run(state, Interfere(player, 1, "assist"))


def test_the_breakdown_that_decides_is_the_one_reported() -> None:
    """DESIGN.md: "(each modifier, with its source) and the number needed" """
    state = example_attack(position(target_depth=4, target_money=3))
    state, _ = run(state, Spend("ann", OIL, 3), Spend("bob", "Boy Sprouts", 1))
    shown = tuple((t.kind, t.source, t.amount) for t in current(state).terms)
    _, events = attack_to_result(state, roll=5)
    assert result(events).data["terms"] == shown
    assert result(events).data["need"] == sum(amount for _, _, amount in shown) == 8


def test_every_roll_needed_told_is_the_breakdown_s() -> None:
    """rulebook-en: "To find the roll required for a successful attack, subtract the
    defending Group's Resistance from the attacking Group's Power." The events that
    tell the roll needed (announced, each payment, the roll) take it from
    ``breakdown.roll_needed``, which sums the same terms ``breakdown`` shows; after each
    command it is the breakdown's own need."""
    state = example_attack(position(target_depth=2, target_money=3))
    told = [current(state).need]
    for command in (Spend("ann", OIL, 3), Spend("bob", "Boy Sprouts", 2),
                    Interfere("cy", 4, "interfere"), Spend("ann", BAVARIA, 5)):
        state, events = run(state, command)
        assert [e.need for e in events if isinstance(e, Spent)] == [current(state).need]
        told.append(current(state).need)
    assert told == [2, 5, 1, -3, 2]  # +3; -4 (2 MB on the group count double); -4; +5
    assert state.attack is not None
    assert roll_needed(CARDS, state, state.attack) == current(state).need
