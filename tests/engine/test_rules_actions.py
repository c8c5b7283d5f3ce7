"""Rule cases: actions, money transfers, moving and dropping groups, passing."""

from __future__ import annotations

import pytest
from factory import (
    BAVARIA,
    CARDS,
    DOWN,
    GNOMES,
    LEFT,
    RIGHT,
    UP,
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
    special,
    treasury,
)
from support import refuses

from pbem.engine.commands import (
    Attack,
    DropGroup,
    EndTurn,
    MoveGroup,
    Pass,
    PlaySpecial,
    TransferMoney,
)
from pbem.engine.state import GameState
from pbem.engine.structure import well_formed
from pbem.errors import IllegalCommandError


def three_deep() -> GameState:
    """ann: Illuminati (10 MB) -> The Mafia (6 MB) -> Yuppies (2 MB)."""
    state = game(ann=BAVARIA, bob=GNOMES)
    state = money(state, "ann", BAVARIA, 10)
    state = place(state, "ann", "The Mafia", treasury=6)
    return place(state, "ann", "Yuppies", master="The Mafia", treasury=2)


def test_a_player_has_two_regular_actions() -> None:
    """rules-fr: "Étape 3 : effectuer 2 actions régulières" """
    state = three_deep()
    state = free(state, "Boy Sprouts", "Girlie Magazines", "Hackers")
    state, _ = run(state, MoveGroup("ann", "Yuppies", BAVARIA, RIGHT))
    state, _ = run(state, MoveGroup("ann", "Yuppies", "The Mafia", UP))
    assert state.turn.actions == 2
    with refuses("actions_used"):
        run(state, MoveGroup("ann", "Yuppies", BAVARIA, RIGHT))


def test_actions_cannot_be_saved_for_later_turns() -> None:
    """rulebook-en: "Actions cannot be saved for later turns." """
    state = three_deep()
    state, _ = run(state, EndTurn("ann"))
    assert state.turn.actions == 0 and state.active_player.name == "bob"
    state = active(state, "ann")
    assert state.turn.actions == 0  # a fresh turn: two actions, no more


def test_only_the_active_player_takes_actions() -> None:
    """summary-en: "Play goes counter-clockwise around the table." (one player acts at a
    time)"""
    state = place(three_deep(), "bob", "KGB")
    with refuses("not_active", active="ann"):
        run(state, MoveGroup("bob", "KGB", GNOMES, RIGHT))


def test_two_money_transfers_are_free() -> None:
    """summary-en: "Transfer money. Part or all of any group's money may be moved to an
    adjacent group. Two money transfers are allowed per turn." """
    state = three_deep()
    state, _ = run(state, TransferMoney("ann", BAVARIA, "The Mafia", 3),
                   TransferMoney("ann", "The Mafia", "Yuppies", 1))
    assert state.turn.actions == 0 and state.turn.free_transfers == 2
    assert (treasury(state, BAVARIA), treasury(state, "The Mafia"),
            treasury(state, "Yuppies")) == (7, 8, 3)
    assert money_balances(state)


def test_a_further_transfer_costs_a_regular_action() -> None:
    """rulebook-en: "But if necessary, he can also make a transfer as a regular action." """
    state = three_deep()
    transfer = TransferMoney("ann", BAVARIA, "The Mafia", 1)
    state, _ = run(state, transfer, transfer, transfer)
    assert state.turn.actions == 1
    state, _ = run(state, transfer)
    assert state.turn.actions == 2
    with refuses("actions_used"):
        run(state, transfer)


def test_money_moves_only_between_a_master_and_its_puppet() -> None:
    """rulebook-en: "A Group may, as an action, transfer any of its money to an adjacent Group
    - either its master, or a puppet." """
    state = three_deep()
    state, _ = run(state, TransferMoney("ann", "Yuppies", "The Mafia", 2))  # up to the master
    assert treasury(state, "The Mafia") == 8
    with refuses("not_adjacent"):
        run(state, TransferMoney("ann", BAVARIA, "Yuppies", 1))


def test_successive_transfers_move_money_two_groups_in_one_turn() -> None:
    """rulebook-en: "By successive transfers, the same money may be moved two or more Groups
    in one turn." """
    state = three_deep()
    state, _ = run(state, TransferMoney("ann", BAVARIA, "The Mafia", 5),
                   TransferMoney("ann", "The Mafia", "Yuppies", 5))
    assert treasury(state, "Yuppies") == 7 and treasury(state, BAVARIA) == 5


def test_a_transfer_cannot_move_more_than_the_treasury_holds() -> None:
    """rulebook-en: "A Group may, as an action, transfer any of its money to an adjacent
    Group" (its money, no more)"""
    with refuses("money_short", have=2):
        run(three_deep(), TransferMoney("ann", "Yuppies", "The Mafia", 3))


def test_a_transfer_goes_to_another_card_and_the_refusal_says_how() -> None:
    """rulebook-en: "A Group may, as an action, transfer any of its money to an adjacent
    Group" (another card); the refusal gives the order's form."""
    with refuses("transfer_same_card") as refused:
        run(three_deep(), TransferMoney("ann", "The Mafia", "The Mafia", 1))
    assert refused.value.suggestion == "TRANSFER <MB> FROM <card> TO <another card>"


def test_a_transfer_never_goes_to_another_players_group() -> None:
    """rulebook-en: "Other Groups cannot give their money to another player, or receive money
    from another player." """
    state = place(three_deep(), "bob", "KGB")
    with refuses("not_in_structure", player="ann"):
        run(state, TransferMoney("ann", "The Mafia", "KGB", 1))


def test_the_federal_reserve_transfers_to_any_group_of_its_structure() -> None:
    """groups.csv: "money it transfers may go to any group of the same power structure" """
    state = three_deep()
    state = place(state, "ann", "Federal Reserve", arrow=RIGHT, treasury=5)
    state, _ = run(state, TransferMoney("ann", "Federal Reserve", "Yuppies", 4))
    assert treasury(state, "Yuppies") == 6
    with refuses("not_adjacent"):
        run(state, TransferMoney("ann", "Yuppies", "Federal Reserve", 1))


def test_moving_a_group_to_a_vacant_arrow_is_an_action() -> None:
    """rulebook-en: "A player may, as an action, reorganize his Power Structure by moving a
    Group to a vacant outgoing control arrow. The new control arrow may be on the Group's
    master, or any other Group the player controls." """
    state = place(three_deep(), "ann", "Big Media", arrow=RIGHT)
    state, _ = run(state, MoveGroup("ann", "Yuppies", "Big Media", DOWN))
    assert master_of(state, "Yuppies") == "Big Media"
    state, _ = run(state, MoveGroup("ann", "Yuppies", "Big Media", UP))  # same master
    assert master_of(state, "Yuppies") == "Big Media"
    assert state.turn.actions == 2
    assert not well_formed(CARDS, state.player("ann"))
    assert treasury(state, "Yuppies") == 2


def test_a_moved_group_takes_its_puppets_along() -> None:
    """rulebook-en: "If the moving Group has any puppets, then they (and their own puppets,
    and so on) are also moved." """
    state = three_deep()
    state = place(state, "ann", "Boy Sprouts", master="Yuppies")
    state, _ = run(state, MoveGroup("ann", "The Mafia", BAVARIA, LEFT))
    ann = state.player("ann")
    assert master_of(state, "Yuppies") == "The Mafia"
    assert master_of(state, "Boy Sprouts") == "Yuppies"
    mafia, yuppies = ann.slot("The Mafia"), ann.slot("Yuppies")
    assert mafia is not None and yuppies is not None
    assert (mafia.x, mafia.y) == (-1, 0)
    assert not well_formed(CARDS, ann)


def test_a_group_cannot_move_under_its_own_puppet() -> None:
    """rulebook-en: "The new control arrow may be on the Group's master, or any other Group
    the player controls." (not on the moving Group's own puppets, which move with it)"""
    with refuses("hang_from_itself"):
        run(three_deep(), MoveGroup("ann", "The Mafia", "Yuppies", DOWN))


def test_a_group_moves_only_to_a_vacant_arrow() -> None:
    """rulebook-en: "moving a Group to a vacant outgoing control arrow" """
    state = place(three_deep(), "ann", "KGB", arrow=RIGHT)
    with refuses("arrow_closed"):
        run(state, MoveGroup("ann", "KGB", BAVARIA, UP))  # The Mafia is there


def overlap_position(mover: str) -> GameState:
    """``mover`` on the Illuminati's left with Yuppies below it (3 MB); Big Media on the right
    with Boy Sprouts below it, in the cell the Yuppies would take if ``mover`` moved down."""
    state = game(ann=BAVARIA, bob=GNOMES)
    state = place(state, "ann", mover, arrow=LEFT)
    state = place(state, "ann", "Yuppies", master=mover, arrow=DOWN, treasury=3)
    state = place(state, "ann", "Big Media", arrow=RIGHT)
    return place(state, "ann", "Boy Sprouts", master="Big Media", arrow=DOWN)


def test_a_puppet_that_would_overlap_moves_to_another_arrow_of_its_master() -> None:
    """rulebook-en: "If moving a Group would cause some of its puppets (or theirs) to overlap,
    any of them may also be moved to different control arrows, as long as they are still
    controlled by the same master." """
    state, events = run(overlap_position("The Mafia"),
                        MoveGroup("ann", "The Mafia", BAVARIA, DOWN))
    ann = state.player("ann")
    assert master_of(state, "Yuppies") == "The Mafia"
    assert not well_formed(CARDS, ann)
    assert of_kind(events, "move")[0].data["lost"] == ()


def test_a_puppet_that_cannot_avoid_overlapping_is_lost() -> None:
    """rulebook-en: "Any puppet that cannot be prevented from overlapping is lost. It, and its
    own puppets, are returned to the uncontrolled area." """
    state = overlap_position("KGB")  # KGB has a single outgoing arrow
    state, events = run(state, MoveGroup("ann", "KGB", BAVARIA, DOWN))
    assert state.owner("Yuppies") is None and "Yuppies" in state.uncontrolled
    assert of_kind(events, "move")[0].data["lost"] == ("Yuppies",)
    assert money_balances(state) and state.money_issued == 0
    assert not well_formed(CARDS, state.player("ann"))


def test_dropping_a_group_is_free_and_its_puppets_go_too() -> None:
    """rulebook-en: "Dropping Groups - removing a Group from your Power Structure and returning
    it to the uncontrolled area. (Its puppets must also become uncontrolled.)" """
    state, events = run(three_deep(), DropGroup("ann", "The Mafia"))
    assert state.player("ann").groups == ()
    assert set(state.uncontrolled) == {"The Mafia", "Yuppies"}
    assert state.turn.actions == 0
    assert state.money_issued == 10 and money_balances(state)  # their 8 MB went to the bank
    assert of_kind(events, "drop")[0].data["groups"] == ("The Mafia", "Yuppies")


def test_the_illuminati_card_cannot_be_dropped_or_moved() -> None:
    """rulebook-en: "Illuminati cards themselves can attack, but cannot be attacked." (the
    Illuminati card is the root of the Power Structure and stays in play)"""
    with refuses("illuminati_dropped"):
        run(three_deep(), DropGroup("ann", BAVARIA))
    with pytest.raises(IllegalCommandError):
        run(three_deep(), MoveGroup("ann", BAVARIA, "Yuppies", DOWN))


def test_passing_collects_five_megabucks_and_ends_the_turn() -> None:
    """rulebook-en: "A player may elect to take no actions (not even free actions, free money
    transfers or special actions) and collect 5 MB for his Illuminati treasury instead." """
    state, events = run(three_deep(), Pass("ann"))
    assert treasury(state, BAVARIA) == 15
    assert state.active_player.name == "bob" and state.phase == "turn_start"
    assert of_kind(events, "pass")[0].data["amount"] == 5


@pytest.mark.parametrize("free_action", ["transfer", "drop", "special"])
def test_no_pass_after_any_free_action(free_action: str) -> None:
    """summary-en: "Passing: A player may choose not to take any actions of any sort and
    collect 5MB instead." """
    state = deal(three_deep(), "ann", "Slush Fund")
    if free_action == "transfer":
        state, _ = run(state, TransferMoney("ann", BAVARIA, "The Mafia", 1))
    elif free_action == "drop":
        state, _ = run(state, DropGroup("ann", "Yuppies"))
    else:
        state, _ = special(state, PlaySpecial("ann", "Slush Fund"))
    with refuses("pass_late"):
        run(state, Pass("ann"))


def test_an_action_is_finished_before_another_begins() -> None:
    """rulebook-en: "Each action must be completed before beginning another." """
    state = free(three_deep(), "Boy Sprouts")
    state, _ = run(state, Attack("ann", "The Mafia", "Boy Sprouts", "control"))
    with refuses("wrong_phase", phase="attack"):
        run(state, MoveGroup("ann", "Yuppies", BAVARIA, RIGHT))
    with refuses("wrong_phase", phase="attack"):
        run(state, TransferMoney("ann", BAVARIA, "The Mafia", 1))
    with refuses("wrong_phase", phase="attack"):
        run(state, EndTurn("ann"))
