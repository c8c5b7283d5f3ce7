"""Rule cases: attacks to control, neutralize and destroy; participation; results."""

from __future__ import annotations

import pytest
from factory import (
    BAVARIA,
    CARDS,
    DOWN,
    GNOMES,
    LEFT,
    RIGHT,
    UFOS,
    UP,
    attack_to_result,
    chain,
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
    term,
    treasury,
)
from support import refuses

from pbem.engine.cards import ATTACK_MODES
from pbem.engine.commands import Attack, CallOff, Command, Interfere, Roll, Spend
from pbem.engine.state import GameState
from pbem.engine.structure import well_formed
from pbem.errors import IllegalCommandError

OIL = "Multinational Oil Companies"  # power 6, no alignment, three outgoing arrows


def ann_and_bob() -> GameState:
    state = game(ann=BAVARIA, bob=GNOMES, cy=UFOS)
    state = money(state, "ann", BAVARIA, 20)
    return place(state, "ann", OIL, treasury=5)


# --- the number needed -------------------------------------------------------------------


@pytest.mark.parametrize(("attacker", "needed"), [(OIL, 4), (BAVARIA, 8)])
def test_the_roll_needed_is_power_minus_resistance(attacker: str, needed: int) -> None:
    """rulebook-en: "Example: If a Power of 6 attacks a Resistance of 2, it can succeed only on
    a roll of 4 or less. If a Power of 10 attacked that same Resistance of 2, it would succeed
    on an 8 or less" """
    state = free(ann_and_bob(), "L-4 Society")  # resistance 2
    state, _ = run(state, Attack("ann", attacker, "L-4 Society", "control"))
    assert need(state) == needed


@pytest.mark.parametrize(("roll", "success"), [(3, True), (4, True), (5, False)])
def test_the_attacker_must_roll_the_number_or_less(roll: int, success: bool) -> None:
    """summary-en: "Using two dice, attacker must roll this number or less." """
    state = free(ann_and_bob(), "L-4 Society")
    state, events = attack_to_result(state, Attack("ann", OIL, "L-4 Society", "control"),
                                     roll=roll)
    assert result(events).data["need"] == 4
    assert result(events).data["success"] is success
    assert (state.owner("L-4 Society") is not None) is success


@pytest.mark.parametrize("roll", [11, 12])
def test_eleven_or_twelve_always_fails(roll: int) -> None:
    """rulebook-en: "A roll of 11 or 12 results in automatic failure of the attack, no matter
    how much Power was involved." """
    state = free(ann_and_bob(), "L-4 Society")
    state, events = attack_to_result(state, Attack("ann", BAVARIA, "L-4 Society", "control"),
                                     Spend("ann", BAVARIA, 20), roll=roll)
    assert result(events).data["need"] == 28
    assert result(events).data["success"] is False
    assert state.uncontrolled == ("L-4 Society",)


# --- who may attack what ------------------------------------------------------------------


def test_an_illuminati_card_cannot_be_attacked() -> None:
    """rulebook-en: "Illuminati cards themselves can attack, but cannot be attacked." """
    for mode in ATTACK_MODES:
        with refuses("not_attackable"):
            run(ann_and_bob(), Attack("ann", OIL, GNOMES, mode))


def test_an_illuminati_card_can_attack() -> None:
    """rulebook-en: "Illuminati cards themselves can attack" """
    state, _ = attack_to_result(free(ann_and_bob(), "L-4 Society"),
                                Attack("ann", BAVARIA, "L-4 Society", "control"))
    assert master_of(state, "L-4 Society") == BAVARIA


def test_a_group_you_already_control_cannot_be_attacked_to_control() -> None:
    """rulebook-en: "This attack may be made against any other Group in play except another
    Illuminati or a Group you already control." """
    state = place(ann_and_bob(), "ann", "Yuppies", arrow=RIGHT)
    with refuses("already_controlled"):
        run(state, Attack("ann", OIL, "Yuppies", "control"))


def test_a_group_out_of_play_cannot_be_attacked() -> None:
    """rulebook-en: "This attack may be made against any other Group in play" """
    with refuses("target_not_in_play"):
        run(ann_and_bob(), Attack("ann", OIL, "Yuppies", "control"))


def no_open_arrow(blocked: bool) -> GameState:
    """ann's Anti-Nuclear Activists (one outgoing arrow) with that arrow used by a puppet,
    or blocked by a card hanging elsewhere in the structure."""
    state = free(game(ann=BAVARIA, bob=GNOMES), "Boy Sprouts", "Nuclear Power Companies")
    state = place(state, "ann", "Anti-Nuclear Activists", arrow=UP)  # its arrow points left
    if blocked:
        state = place(state, "ann", "The Mafia", arrow=LEFT)
        return place(state, "ann", "Yuppies", master="The Mafia", arrow=UP)
    return place(state, "ann", "Yuppies", master="Anti-Nuclear Activists")


@pytest.mark.parametrize("blocked", [False, True], ids=["used", "blocked"])
def test_attacking_to_control_needs_an_open_outgoing_arrow(blocked: bool) -> None:
    """rulebook-en: "If a Group has no open outward-pointing arrow (either because all are
    being used or some are blocked), it cannot attempt to control another Group." """
    state = no_open_arrow(blocked)
    with refuses("attacker_no_arrow"):
        run(state, Attack("ann", "Anti-Nuclear Activists", "Boy Sprouts", "control"))


@pytest.mark.parametrize("blocked", [False, True], ids=["used", "blocked"])
def test_destroying_needs_no_open_arrow(blocked: bool) -> None:
    """rulebook-en: "3. A Group does not need an open control arrow in order to attempt
    destruction." """
    state = no_open_arrow(blocked)
    state, _ = run(state, Attack("ann", "Anti-Nuclear Activists", "Nuclear Power Companies",
                                 "destroy"))
    assert state.attack is not None


def test_a_group_without_power_cannot_attack() -> None:
    """rulebook-en: "A card with no Power cannot attack." """
    state = free(place(ann_and_bob(), "ann", "Evil Geniuses for a Better Tomorrow",
                       arrow=RIGHT), "Boy Sprouts")
    with refuses("attacker_powerless"):
        run(state, Attack("ann", "Evil Geniuses for a Better Tomorrow", "Boy Sprouts",
                          "destroy"))


def test_a_group_with_transferable_power_only_can_aid() -> None:
    """rulebook-en: "A few Groups have transferable power only (Power 0/1, for instance). This
    means they cannot attack, but can help another Group attack." """
    state = free(place(ann_and_bob(), "ann", "Evil Geniuses for a Better Tomorrow",
                       arrow=RIGHT), "Boy Sprouts")
    state, _ = run(state, Attack("ann", OIL, "Boy Sprouts", "control",
                                 aids=("Evil Geniuses for a Better Tomorrow",)))
    assert term(state, "aid") == 2


def test_a_group_with_no_transferable_power_cannot_aid() -> None:
    """rulebook-en: "If a Group does not attack during a turn, it may use its transferable
    power to aid an attack" ("Aiding Attacks"; the second of two Power numbers is the
    transferable power): a Group with Power 1 and no second number (American Autoduel
    Association, 1/0) has none to give."""
    aada = "American Autoduel Association"
    state = free(place(ann_and_bob(), "ann", aada, arrow=RIGHT), "Boy Sprouts")
    assert CARDS.group(aada).power == 1 and CARDS.group(aada).transferable == 0
    with pytest.raises(IllegalCommandError) as refused:
        run(state, Attack("ann", OIL, "Boy Sprouts", "control", aids=(aada,)))
    assert refused.value.key == "aid_no_power"
    assert refused.value.words.get("aid") == aada
    state, _ = run(state, Attack("ann", aada, "Boy Sprouts", "control"))  # it may attack
    assert state.attack is not None and state.attack.attacker == aada


def test_no_group_attacks_twice_in_a_turn_even_after_failing() -> None:
    """rulebook-en: "No Group, except the UFOs, can attack more than once per turn." """
    state = free(ann_and_bob(), "L-4 Society")
    state, events = attack_to_result(state, Attack("ann", OIL, "L-4 Society", "control"),
                                     roll=12)
    assert not result(events).data["success"]
    with refuses("attacker_used") as refused:
        run(state, Attack("ann", OIL, "L-4 Society", "control"))
    assert "another group" in (refused.value.suggestion or "")  # what to write instead


def test_a_failed_first_attack_may_be_repeated_by_another_group() -> None:
    """rulebook-en: "If a player's first action is an attack, and it fails, the player may
    attack the same Group again as his second action." """
    state = free(ann_and_bob(), "L-4 Society")
    state, _ = attack_to_result(state, Attack("ann", OIL, "L-4 Society", "control"), roll=12)
    state, events = attack_to_result(state, Attack("ann", BAVARIA, "L-4 Society", "control"))
    assert result(events).data["success"] and state.turn.actions == 2


def test_a_group_takes_part_in_only_one_attack_attacking_or_aiding() -> None:
    """rulebook-en: "However, any one Group may participate in only one attack per turn." """
    state = place(ann_and_bob(), "ann", "C.I.A.", arrow=RIGHT)
    state = free(place(state, "ann", "Big Media", arrow=LEFT), "L-4 Society", "Boy Sprouts")
    aided, _ = attack_to_result(state, Attack("ann", OIL, "L-4 Society", "control",
                                              aids=("C.I.A.",)), roll=12)
    with refuses("attacker_used"):
        run(aided, Attack("ann", "C.I.A.", "Boy Sprouts", "control"))
    attacked, _ = attack_to_result(state, Attack("ann", "C.I.A.", "L-4 Society", "control"),
                                   roll=12)
    with refuses("aid_used") as no:
        run(attacked, Attack("ann", "Big Media", "Boy Sprouts", "control", aids=("C.I.A.",)))
    assert no.value.suggestion == "leave C.I.A. out of the WITH list"


def test_only_the_attackers_own_power_structure_can_aid() -> None:
    """summary-en: "Only members of attacker's own Power Structure can aid the attack." """
    state = free(place(ann_and_bob(), "bob", "C.I.A."), "L-4 Society")
    with refuses("not_in_structure", player="ann"):
        run(state, Attack("ann", OIL, "L-4 Society", "control", aids=("C.I.A.",)))


def test_the_ufos_take_part_in_two_attacks_a_turn() -> None:
    """rulebook-en: "(Exception: The Special Ability of the UFOs lets them participate in two
    attacks per turn.)" """
    state = free(game(cy=UFOS, ann=BAVARIA), "L-4 Society", "Boy Sprouts", "Flat Earthers")
    state = place(state, "cy", OIL)
    state, _ = attack_to_result(state, Attack("cy", UFOS, "L-4 Society", "control"), roll=12)
    state, _ = run(state, Attack("cy", OIL, "Boy Sprouts", "control", aids=(UFOS,)))
    assert term(state, "aid") == 6
    assert state.turn.attacked.count(UFOS) == 2


# --- results of an attack to control ------------------------------------------------------


def test_a_captured_group_hangs_from_its_captor() -> None:
    """rulebook-en: "It is placed next to its captor, with its inward-pointing arrow next to an
    outward-pointing arrow of the capturing Group, which becomes its new "master." """
    state = free(ann_and_bob(), "L-4 Society")
    state, events = attack_to_result(state, Attack("ann", OIL, "L-4 Society", "control"))
    assert master_of(state, "L-4 Society") == OIL
    assert "L-4 Society" not in state.uncontrolled
    assert not well_formed(CARDS, state.player("ann"))
    assert of_kind(events, "captured")[0].data["from"] == ""


@pytest.mark.parametrize("arrow", [-1, UP, LEFT])
def test_the_attacker_chooses_the_open_arrow_for_the_captured_group(arrow: int) -> None:
    """rulebook-en: "It is placed next to its captor, with its inward-pointing arrow next to an
    outward-pointing arrow of the capturing Group" (any open one; by default the first)"""
    state = free(ann_and_bob(), "L-4 Society")
    oil = state.player("ann").slot(OIL)
    assert oil is not None and (oil.x, oil.y) == (0, -1)
    state, _ = attack_to_result(state, Attack("ann", OIL, "L-4 Society", "control",
                                              arrow=arrow))
    slot = state.player("ann").slot("L-4 Society")
    assert slot is not None
    expected = {-1: (0, -2), UP: (0, -2), LEFT: (-1, -1)}[arrow]
    assert (slot.x, slot.y) == expected
    assert not well_formed(CARDS, state.player("ann"))


def test_the_chosen_arrow_must_be_open() -> None:
    """rulebook-en: "The attacking Group must have at least one outward pointing arrow free." """
    state = free(ann_and_bob(), "L-4 Society")
    with refuses("attack_arrow_closed", arrow=2):
        run(state, Attack("ann", OIL, "L-4 Society", "control", arrow=DOWN))  # its master


def bobs_kgb(puppet: str = "Yuppies", kgb: str = "KGB") -> GameState:
    """bob: Gnomes -> ``kgb`` (5 MB, on the left) -> ``puppet`` (3 MB, below it); ann has Big
    Media on her right with Boy Sprouts below it, and 20 MB."""
    state = game(ann=BAVARIA, bob=GNOMES)
    state = money(state, "ann", BAVARIA, 20)
    state = place(state, "ann", "Big Media", arrow=RIGHT)
    state = place(state, "ann", "Boy Sprouts", master="Big Media", arrow=DOWN)
    state = place(state, "bob", kgb, arrow=LEFT, treasury=5)
    return place(state, "bob", puppet, master=kgb, arrow=DOWN, treasury=3)


@pytest.mark.parametrize(("arrow", "offset"), [(LEFT, (0, 1)), (UP, (-1, 0))])
def test_a_captured_group_brings_its_puppets_in_their_places(
        arrow: int, offset: tuple[int, int]) -> None:
    """rulebook-en: "If the captured Group already had puppets of its own, they are also
    captured. When placed in the attacker's Power Structure, they should keep the same
    position, relative to their own master, that they had originally." """
    state, events = attack_to_result(bobs_kgb(), Attack("ann", BAVARIA, "KGB", "control",
                                                        arrow=arrow), Spend("ann", BAVARIA, 20))
    ann = state.player("ann")
    assert ann.groups[-2:] == ("KGB", "Yuppies") and state.player("bob").groups == ()
    kgb, yuppies = ann.slot("KGB"), ann.slot("Yuppies")
    assert kgb is not None and yuppies is not None
    # Still on the KGB's one outgoing arrow: below it, or to its left once turned a quarter.
    assert (yuppies.x - kgb.x, yuppies.y - kgb.y) == offset
    assert yuppies.master == "KGB" and not well_formed(CARDS, ann)
    assert of_kind(events, "captured")[0].data["puppets"] == ("Yuppies",)


def test_half_the_captured_treasuries_go_with_them_rounded_down() -> None:
    """rulebook-en: "Half of the money remaining in the captured Groups' treasuries (round
    down) goes with them to the new owner; the rest is returned to the bank." """
    state, _ = attack_to_result(bobs_kgb(), Attack("ann", BAVARIA, "KGB", "control",
                                                   arrow=LEFT), Spend("ann", BAVARIA, 20))
    assert treasury(state, "KGB") == 2 and treasury(state, "Yuppies") == 1
    assert money_balances(state)
    assert state.money_issued == 2 + 1


def test_captured_puppets_that_overlap_are_rearranged_under_the_same_master() -> None:
    """rulebook-en: "If that is not possible because of overlaps with cards the attacker
    already has, he may rearrange any new cards that overlap, as long as they are still
    controlled by the same Group." """
    state = bobs_kgb(kgb="The Mafia")
    state, events = attack_to_result(state, Attack("ann", BAVARIA, "The Mafia", "control",
                                                   arrow=DOWN), Spend("ann", BAVARIA, 20))
    assert master_of(state, "Yuppies") == "The Mafia"
    assert of_kind(events, "captured")[0].data["lost"] == ()
    assert not well_formed(CARDS, state.player("ann"))


def test_captured_puppets_that_still_cannot_fit_become_uncontrolled() -> None:
    """rulebook-en: "New Groups which still cannot fit are dropped and become uncontrolled." """
    state, events = attack_to_result(bobs_kgb(), Attack("ann", BAVARIA, "KGB", "control",
                                                        arrow=DOWN), Spend("ann", BAVARIA, 20))
    assert master_of(state, "KGB") == BAVARIA
    assert "Yuppies" in state.uncontrolled and state.owner("Yuppies") is None
    assert of_kind(events, "captured")[0].data["lost"] == ("Yuppies",)
    assert money_balances(state) and state.money_issued == 2  # the Yuppies' half went too


def test_the_attacker_may_move_money_into_the_captured_group() -> None:
    """rulebook-en: "The Group which attacked may immediately transfer any or all of its
    treasury to the Group it just captured. This is not a separate action, but is considered
    part of the attack." """
    state = free(ann_and_bob(), "L-4 Society")
    state, _ = attack_to_result(state, Attack("ann", OIL, "L-4 Society", "control",
                                              transfer_on_success=5))
    assert treasury(state, "L-4 Society") == 5 and treasury(state, OIL) == 0
    assert state.turn.actions == 1 and state.turn.free_transfers == 0
    assert money_balances(state)


def test_money_follows_only_a_group_captured_by_an_attack_to_control() -> None:
    """rulebook-en: "The Group which attacked may immediately transfer any or all of its
    treasury to the Group it just captured." """
    state = free(ann_and_bob(), "L-4 Society")
    with refuses("money_follows_control"):
        run(state, Attack("ann", OIL, "L-4 Society", "destroy", transfer_on_success=1))


def test_a_newly_controlled_group_may_attack_or_aid_on_the_same_turn() -> None:
    """rulebook-en: "A newly-controlled Group may attack (or aid an attack, or use its special
    ability) on the same turn in which it was acquired." """
    state = free(ann_and_bob(), "KGB", "Boy Sprouts")
    captured, _ = attack_to_result(state, Attack("ann", OIL, "KGB", "control"),
                                   Spend("ann", BAVARIA, 5))
    assert captured.owner("KGB") is not None
    attacking, _ = run(captured, Attack("ann", "KGB", "Boy Sprouts", "control"))
    assert attacking.attack is not None and attacking.attack.attacker == "KGB"
    aiding, _ = run(captured, Attack("ann", BAVARIA, "Boy Sprouts", "control", aids=("KGB",)))
    assert term(aiding, "aid") == 2


def test_a_failed_attack_leaves_the_target_where_it_was() -> None:
    """rulebook-en: "If the attack fails, the defending Group remains where it was." """
    state = place(ann_and_bob(), "bob", "L-4 Society", treasury=1)
    state, events = attack_to_result(state, Attack("ann", BAVARIA, "L-4 Society", "control"),
                                     roll=12)
    assert not result(events).data["success"]
    assert master_of(state, "L-4 Society") == GNOMES and treasury(state, "L-4 Society") == 1


# --- neutralize and destroy --------------------------------------------------------------


def test_an_attack_to_neutralize_gets_six_more() -> None:
    """summary-en: "Attack to Neutralize. Same as above, except that attacker receives a +6
    bonus." """
    state = chain(ann_and_bob(), "bob", "Big Media", "The Mafia", "New York", "L-4 Society")
    state, _ = run(state, Attack("ann", OIL, "L-4 Society", "neutralize"))
    assert term(state, "neutralize") == 6
    assert need(state) == 6 - 2 + 6


@pytest.mark.parametrize("whose", ["uncontrolled", "own"])
def test_only_another_players_group_can_be_neutralized(whose: str) -> None:
    """rulebook-en: "1. The target must be a Group that is already controlled by another
    player." """
    state = ann_and_bob()
    state = free(state, "L-4 Society") if whose == "uncontrolled" else place(
        state, "ann", "L-4 Society", arrow=RIGHT)
    with refuses("neutralize_own"):
        run(state, Attack("ann", BAVARIA, "L-4 Society", "neutralize"))


def test_neutralizing_needs_no_open_arrow_and_frees_the_group_and_its_puppets() -> None:
    """rulebook-en: "3. The attacker does not need an open control arrow. 4. If the attack
    succeeds, the target Group and any subordinates are placed in the uncontrolled area. All
    their money is returned to the bank." """
    state = bobs_kgb()
    state = place(state, "ann", "Anti-Nuclear Activists", arrow=UP)
    state = place(state, "ann", "L-4 Society", master="Anti-Nuclear Activists")
    state, events = attack_to_result(state, Attack("ann", "Anti-Nuclear Activists", "KGB",
                                                   "neutralize"), Spend("ann", BAVARIA, 20))
    assert set(state.uncontrolled) >= {"KGB", "Yuppies"}
    assert state.player("bob").groups == ()
    assert of_kind(events, "neutralized")[0].data["groups"] == ("KGB", "Yuppies")
    assert money_balances(state) and treasury(state, GNOMES) == 0


def test_an_attack_to_destroy_is_power_against_power() -> None:
    """rulebook-en: "1. Instead of rolling "Power minus Resistance," the attacker rolls "Power
    minus Power." In other words, the defending Group defends with its Power rather than its
    Resistance." """
    state = free(ann_and_bob(), "Nuclear Power Companies")  # power 4, resistance 4
    state, _ = run(state, Attack("ann", BAVARIA, "Nuclear Power Companies", "destroy"))
    assert term(state, "defender_power") == -4 and term(state, "resistance") == 0
    assert need(state) == 10 - 4


def test_a_destroyed_group_goes_to_the_dead_pile_and_its_puppets_go_free() -> None:
    """rulebook-en: "4. If the attack succeeds, the target Group goes to the "dead pile." Its
    subordinate Groups are not destroyed, but become uncontrolled." """
    state, events = attack_to_result(bobs_kgb(), Attack("ann", BAVARIA, "KGB", "destroy"),
                                     Spend("ann", BAVARIA, 20))
    assert state.dead == ("KGB",) and "KGB" not in state.uncontrolled
    assert "Yuppies" in state.uncontrolled
    assert of_kind(events, "destroyed")[0].data["freed"] == ("Yuppies",)
    assert state.player("ann").destroyed == 1
    assert money_balances(state) and state.money_issued == 0


def test_an_uncontrolled_group_can_be_destroyed() -> None:
    """rulebook-en: "In an attack, a Group uses its Power, and probably its money, in an
    attempt to either control, neutralize, or destroy another Group." """
    state = free(ann_and_bob(), "Nuclear Power Companies")
    state, _ = attack_to_result(state, Attack("ann", BAVARIA, "Nuclear Power Companies",
                                              "destroy"))
    assert state.dead == ("Nuclear Power Companies",) and state.uncontrolled == ()


def test_closeness_to_the_illuminati_still_defends_against_destruction() -> None:
    """rulebook-en: "(Its closeness to its Illuminati, as shown on p. 5, still counts for
    defense.)" """
    state = place(ann_and_bob(), "bob", "Nuclear Power Companies")
    state, _ = run(state, Attack("ann", BAVARIA, "Nuclear Power Companies", "destroy"))
    assert term(state, "proximity") == -10


def test_you_may_destroy_your_own_group_and_its_closeness_does_not_protect_it() -> None:
    """rulebook-en: "5. You may try to destroy a Group you already control. In this case, the
    target's closeness to its Illuminati does not protect it." """
    state = place(ann_and_bob(), "ann", "Nuclear Power Companies", arrow=RIGHT)
    state, _ = run(state, Attack("ann", BAVARIA, "Nuclear Power Companies", "destroy"))
    assert term(state, "proximity") == 0 and need(state) == 6


def test_no_group_may_attack_itself_or_aid_an_attempt_to_destroy_itself() -> None:
    """rulebook-en: "But no Group may attack itself, or aid an attempt to destroy itself!" """
    state = place(ann_and_bob(), "ann", "C.I.A.", arrow=RIGHT)
    with refuses("attacks_itself"):
        run(state, Attack("ann", "C.I.A.", "C.I.A.", "destroy"))
    with refuses("aid_target"):
        run(state, Attack("ann", BAVARIA, "C.I.A.", "destroy", aids=("C.I.A.",)))


def test_a_group_without_power_cannot_be_destroyed() -> None:
    """rulebook-en: "A Group with no Power cannot be destroyed except by the Special card
    Whispering Campaign." """
    state = free(ann_and_bob(), "Boy Sprouts")
    with refuses("target_powerless"):
        run(state, Attack("ann", BAVARIA, "Boy Sprouts", "destroy"))


# --- calling off ---------------------------------------------------------------------------


def test_an_attack_may_be_called_off_until_money_is_put_down() -> None:
    """rulebook-en: "After a player announces an attack, he can change his mind and call it off
    - until he puts some money down." """
    state = free(place(ann_and_bob(), "ann", "C.I.A.", arrow=RIGHT), "L-4 Society")
    state, events = run(state, Attack("ann", OIL, "L-4 Society", "control", aids=("C.I.A.",)),
                        CallOff("ann"))
    assert state.attack is None and state.phase == "actions"
    assert state.turn.actions == 0 and state.turn.attacked == ()
    assert of_kind(events, "called_off")


@pytest.mark.parametrize("commitment", ["attacker", "other", "roll"])
def test_an_attack_is_committed_once_money_is_spent_or_the_dice_rolled(commitment: str) -> None:
    """rulebook-en: "If the attacker spends no money, the attack is committed when another
    player spends money (either for or against him) or when the attacker rolls the dice." """
    state = free(ann_and_bob(), "L-4 Society")
    state = money(state, "bob", GNOMES, 3)
    state, _ = run(state, Attack("ann", OIL, "L-4 Society", "control"))
    steps: dict[str, Command] = {"attacker": Spend("ann", OIL, 1), "roll": Roll(),
                                 "other": Interfere("bob", 1, "interfere")}
    step = steps[commitment]
    if commitment == "roll":
        state = rig(state, 12)
    state, _ = run(state, step)
    with pytest.raises(IllegalCommandError):
        run(state, CallOff("ann"))


def test_only_the_attacker_calls_off_an_attack() -> None:
    """rulebook-en: "After a player announces an attack, he can change his mind and call it
    off" """
    state = free(ann_and_bob(), "L-4 Society")
    state, _ = run(state, Attack("ann", OIL, "L-4 Society", "control"))
    with refuses("attacker_calls_off"):
        run(state, CallOff("bob"))
