"""Rule cases: the goals of all eight Illuminati, when a victory counts, elimination, leaving."""

from __future__ import annotations

from dataclasses import replace

import pytest
from factory import (
    ASSASSINS,
    BAVARIA,
    BERMUDA,
    CARDS,
    CTHULHU,
    DISCORDIA,
    GNOMES,
    NETWORK,
    UFOS,
    attack_to_result,
    free,
    game,
    in_round,
    money,
    of_kind,
    place,
    run,
    treasury,
    update,
)

from pbem.engine.commands import (
    Attack,
    BeginTurn,
    DropGroup,
    EndTurn,
    GiveMoney,
    LeaveGame,
    Pass,
    UseLasers,
)
from pbem.engine.state import GameState, Options
from pbem.engine.structure import open_arrows
from pbem.engine.victory import progress, victory_allowed

FOUR = Options(victory_groups=4)


def anywhere(state: GameState, player: str, *groups: str) -> GameState:
    """The groups placed on the first open arrows of the player's structure."""
    for group in groups:
        p = state.player(player)
        master = next(s.card for s in p.structure if open_arrows(CARDS, p, s.card))
        state = place(state, player, group, master=master)
    return state


def special_goal_met(state: GameState, player: str) -> bool:
    return progress(CARDS, state, state.player(player))[1].met


def two(illuminati: str = BAVARIA, options: Options | None = None) -> GameState:
    """ann (``illuminati``) and bob (Gnomes) in the second round, ann to play."""
    return in_round(game(options=options, ann=illuminati, bob=GNOMES), 2)


# --- when a victory counts ---------------------------------------------------------------


def test_the_basic_goal_counts_the_illuminati_card() -> None:
    """summary-en: "Groups to be controlled, including Illuminati" """
    state = anywhere(two(options=FOUR), "ann", "KGB", "Yuppies")
    ended, events = run(state, EndTurn("ann"))
    assert ended.phase != "over"
    state = anywhere(state, "ann", "Boy Sprouts")  # three groups and the Illuminati
    ended, events = run(state, EndTurn("ann"))
    assert ended.phase == "over" and ended.winners == ("ann",)
    assert ended.outcome == "victory" and of_kind(events, "victory")


def test_no_victory_before_the_end_of_the_first_players_second_turn() -> None:
    """endgame-en: "No one win may during the first round. The first time anyone can claim a
    victory is at the end of the first player's second turn." """
    state = game(options=FOUR, ann=BAVARIA, bob=GNOMES)
    state = anywhere(anywhere(state, "ann", "KGB", "Yuppies", "Boy Sprouts"), "bob", "C.I.A.")
    assert not victory_allowed(state)
    state, _ = run(state, EndTurn("ann"), BeginTurn(), EndTurn("bob"))
    assert state.phase == "turn_start" and state.winners == ()
    state, _ = run(state, BeginTurn())
    assert victory_allowed(state)  # ann's second turn has begun; it counts when it ends
    state, _ = run(state, EndTurn("ann"))
    assert state.winners == ("ann",)


def test_a_goal_met_on_someone_elses_turn_wins_at_its_end() -> None:
    """rulebook-en: "The game ends when, at the end of a turn (his own or someone else's) a
    player meets one of his Goals." """
    state = anywhere(two(options=FOUR), "bob", "KGB", "Yuppies", "Boy Sprouts")
    state, _ = run(state, EndTurn("ann"))
    assert state.winners == ("bob",)


def test_players_meeting_their_goals_together_share_the_victory() -> None:
    """rulebook-en: "If two or more players both meet their Goals at the same time, they share
    the victory, dividing the world between them." """
    state = anywhere(two(options=FOUR), "bob", "KGB", "Yuppies", "Boy Sprouts")
    state = anywhere(state, "ann", "C.I.A.", "Big Media", "Junk Mail")
    state, _ = run(state, EndTurn("ann"))
    assert state.winners == ("ann", "bob")


def test_the_basic_goal_does_not_change_when_a_player_leaves() -> None:
    """rulebook-en: "If a player leaves or is eliminated, the number of Groups required to win
    (see p. 16) does not change." """
    state = in_round(game(options=Options(victory_groups=9), ann=BAVARIA, bob=GNOMES,
                          cy=NETWORK), 2)
    state, _ = run(state, LeaveGame("cy"))
    assert state.options.victory_groups == 9
    basic, _ = progress(CARDS, state, state.player("ann"))
    assert basic.need == 9


# --- the special goals -------------------------------------------------------------------


def test_the_bavarians_need_thirty_five_power_their_own_ten_included() -> None:
    """summary-en: "Bavarian Illuminati. Control groups with a total power of 35 or more
    (including their own power of 10)." """
    state = anywhere(two(BAVARIA), "ann", "International Communist Conspiracy", "New York",
                     "The Mafia")
    assert progress(CARDS, state, state.player("ann"))[1].have == 31
    assert not special_goal_met(state, "ann")
    state = anywhere(state, "ann", "Nuclear Power Companies")
    assert special_goal_met(state, "ann")
    state, _ = run(state, EndTurn("ann"))
    assert state.winners == ("ann",)


def test_the_bermuda_triangle_needs_every_alignment() -> None:
    """summary-en: "Bermuda Triangle. Control at least one group of each alignment. A group
    with more than one alignment counts for each of its alignments." """
    state = anywhere(two(BERMUDA), "ann", "Semiconscious Liberation Army",
                     "Parent/Teacher Agglomeration", "Pentagon")
    assert not special_goal_met(state, "ann")  # no Fanatic yet
    state = anywhere(state, "ann", "Libertarians")
    assert special_goal_met(state, "ann")


def test_with_the_media_option_bermuda_also_needs_a_media_group() -> None:
    """rules-fr: "Il existe 9 alignements politiques" (Media among them)"""
    state = anywhere(two(BERMUDA, Options(media_alignment=True)), "ann",
                     "Semiconscious Liberation Army", "Parent/Teacher Agglomeration",
                     "Pentagon", "Libertarians")
    assert not special_goal_met(state, "ann")
    state = anywhere(state, "ann", "Empty Vee")
    assert special_goal_met(state, "ann")


@pytest.mark.parametrize(("illuminati", "alignment", "count"),
                         [(DISCORDIA, "Weird", 5), (ASSASSINS, "Violent", 6)])
def test_the_alignment_goals(illuminati: str, alignment: str, count: int) -> None:
    """summary-en: "Discordian Society. Control 5 Weird groups. ... Society of Assassins.
    Control six Violent groups." """
    groups = [g.name for g in CARDS.groups if alignment in g.alignments][:count]
    state = anywhere(two(illuminati), "ann", *groups[:-1])
    assert not special_goal_met(state, "ann")
    state = anywhere(state, "ann", groups[-1])
    assert special_goal_met(state, "ann")


def test_the_gnomes_need_150_megabucks_in_the_whole_structure() -> None:
    """summary-en: "Gnomes of Zurich Collect 150 MegaBucks (in the whole Power Structure's
    treasuries)." """
    state = money(place(two(GNOMES), "ann", "KGB", treasury=50), "ann", GNOMES, 99)
    assert not special_goal_met(state, "ann")
    state = money(state, "ann", GNOMES, 100)
    assert special_goal_met(state, "ann")


@pytest.mark.parametrize(("goal", "met"), [(20, True), (25, False)])
def test_the_network_needs_twenty_transferable_power_or_twenty_five(goal: int,
                                                                    met: bool) -> None:
    """summary-en: "The Network. Control groups with a total Transferable Power of 20
    (including their own 7)." (25 in some printings: an option)"""
    state = anywhere(two(NETWORK, Options(network_goal=goal)), "ann", "C.I.A.", "Big Media",
                     "Federal Reserve", "I.R.S.")
    goal_progress = progress(CARDS, state, state.player("ann"))[1]
    assert (goal_progress.have, goal_progress.need) == (20, goal)
    assert goal_progress.met is met


def test_the_servants_of_cthulhu_need_eight_destroyed_groups() -> None:
    """summary-en: "Servants of Cthulhu. Destroy 8 groups." """
    state = update(two(CTHULHU), "ann", destroyed=7)
    assert not special_goal_met(state, "ann")
    state = free(money(state, "ann", CTHULHU, 5), "Nuclear Power Companies")
    state, _ = attack_to_result(state, Attack("ann", CTHULHU, "Nuclear Power Companies",
                                              "destroy"))
    assert special_goal_met(state, "ann")
    state, _ = run(state, EndTurn("ann"))
    assert state.winners == ("ann",)


def test_the_ufos_win_by_the_goal_they_chose_in_secret() -> None:
    """summary-en: "UFOs. At the beginning of the game, after players choose their Illuminati,
    the UFO player picks one of the seven special victory conditions listed above." """
    state = update(two(UFOS), "ann", secret_goal=GNOMES)
    state = money(state, "ann", UFOS, 150)
    assert progress(CARDS, state, state.player("ann"))[1].goal == GNOMES
    state, _ = run(state, EndTurn("ann"))
    assert state.winners == ("ann",)
    other = money(update(two(UFOS), "ann", secret_goal=NETWORK), "ann", UFOS, 150)
    assert not special_goal_met(other, "ann")


def test_a_lasers_alignment_counts_for_goals_at_the_end_of_that_turn() -> None:
    """endgame-en: "Temporary Alignment changes (such as from the Orbital Mind Control Lasers)
    do count for Goals." """
    weird = [g.name for g in CARDS.groups if "Weird" in g.alignments][:4]
    state = anywhere(two(DISCORDIA), "ann", "Orbital Mind Control Lasers", "KGB", *weird)
    assert not special_goal_met(state, "ann")
    state, _ = run(state, UseLasers("ann", "KGB", "add", "Weird"))
    assert special_goal_met(state, "ann")
    state, _ = run(state, EndTurn("ann"))
    assert state.winners == ("ann",)


def test_a_lasers_alignment_no_longer_counts_after_that_turn() -> None:
    """endgame-en: "But these changes only count while they're in effect! They are good only
    for a victory declared at the end of that turn." """
    weird = [g.name for g in CARDS.groups if "Weird" in g.alignments][:4]
    state = anywhere(game(ann=DISCORDIA, bob=GNOMES), "ann", "Orbital Mind Control Lasers",
                     "KGB", *weird)  # first round: no victory yet
    state, _ = run(state, UseLasers("ann", "KGB", "add", "Weird"), EndTurn("ann"))
    assert state.winners == () and not special_goal_met(state, "ann")


# --- elimination and leaving --------------------------------------------------------------


def test_a_player_with_no_groups_after_the_third_turn_is_eliminated() -> None:
    """rulebook-en: "A player is eliminated if, at any time after his third turn, he controls
    no Groups except his Illuminati. His money goes to the bank." """
    state = game(ann=BAVARIA, bob=GNOMES, cy=NETWORK)
    state = place(place(place(state, "ann", "KGB"), "bob", "C.I.A."), "cy", "Yuppies")
    state = in_round(money(state, "ann", BAVARIA, 12), 4)
    state, events = run(state, DropGroup("ann", "KGB"))
    assert state.player("ann").status == "eliminated"
    assert of_kind(events, "eliminated")
    assert treasury(state, BAVARIA) == 0 and state.money_issued == 0
    assert state.active_player.name == "bob"  # ann's turn ended with her
    assert state.player("bob").playing and state.player("cy").playing


def test_no_elimination_during_the_first_three_turns() -> None:
    """rules-fr: "Un joueur est éliminé si à tout moment, après son troisième tour, il ne
    contrôle aucun groupe." """
    state = money(in_round(game(ann=BAVARIA, bob=GNOMES), 3), "ann", BAVARIA, 2)
    state, _ = run(state, GiveMoney("ann", "bob", 1))  # during ann's third turn
    assert all(p.playing for p in state.players)
    state, _ = run(state, EndTurn("ann"))  # after it
    assert state.player("ann").status == "eliminated"
    state, _ = run(state, BeginTurn())  # bob's third turn
    assert state.player("bob").playing


def test_turns_played_by_a_stand_in_are_not_the_players_own() -> None:
    """rulebook-en: "A player is eliminated if, at any time after his third turn, he controls
    no Groups except his Illuminati." Read (docs/service.md, "Absences"): "his" turns are
    those he played; a turn a stand-in played while he was away (``BeginTurn(stand_in=
    True)``) is not one of them, so a player away early in the game is not eliminated."""
    state = game(phase="turn_start", ann=CTHULHU, bob=GNOMES)
    for _ in range(3):  # ann's first three turns, all played by a stand-in
        state, _ = run(state, BeginTurn(stand_in=True))
        state, _ = run(state, EndTurn("ann"))
        state, _ = run(state, BeginTurn())
        state, _ = run(state, EndTurn("bob"))
    ann = state.player("ann")
    assert (ann.turns, ann.stood_in, ann.playing) == (3, 3, True)
    assert state.player("bob").status == "eliminated"  # his own three turns: no group
    state, _ = run(state, BeginTurn())  # ann's fourth turn, her first own one
    assert state.active_player.name == "ann" and not state.turn.stood_in
    state, _ = run(state, EndTurn("ann"))
    assert state.player("ann").playing


def test_a_turn_passed_for_a_player_away_at_its_deadline_is_not_his_own() -> None:
    """rulebook-en: "A player is eliminated if, at any time after his third turn, he controls
    no Groups except his Illuminati." A turn he began, then was away for when its deadline
    passed it (``Pass(stand_in=True)``), is not one of "his" turns either; once."""
    state = replace(in_round(game(ann=BAVARIA, bob=GNOMES), 3), phase="actions")
    state, _ = run(state, Pass("ann", stand_in=True))
    assert state.player("ann").playing and state.player("ann").stood_in == 1
    state = replace(in_round(game(phase="turn_start", ann=BAVARIA, bob=GNOMES), 2),
                    phase="turn_start")
    state = replace(state, players=tuple(replace(p, turns=p.turns - 1) if p.name == "ann"
                                         else p for p in state.players))
    state, _ = run(state, BeginTurn(stand_in=True), Pass("ann", stand_in=True))
    assert state.player("ann").stood_in == 1  # the turn counted once


def test_a_stand_in_turn_after_three_own_turns_counts_as_any() -> None:
    """rulebook-en: "A player is eliminated if, at any time after his third turn, he controls
    no Groups except his Illuminati." Once he has played three turns himself, a turn a
    stand-in plays does not shield him."""
    state = game(ann=BAVARIA, bob=GNOMES, cy=NETWORK)
    state = place(place(place(state, "ann", "KGB"), "bob", "C.I.A."), "cy", "Yuppies")
    state = replace(in_round(state, 3), phase="actions")  # ann's own third turn
    state, _ = run(state, EndTurn("ann"), BeginTurn(), EndTurn("bob"), BeginTurn(),
                   EndTurn("cy"), BeginTurn(stand_in=True))  # ann's fourth, stood in
    assert state.player("ann").playing and state.turn.stood_in
    state, _ = run(state, DropGroup("ann", "KGB"))
    assert state.player("ann").status == "eliminated"


def test_the_servants_of_cthulhu_win_by_destroying_their_own_last_group() -> None:
    """rulebook-en: "Exception: If the Servants of Cthulhu destroy their own last Group, and in
    doing so, achieve their Special Goal (eight Groups destroyed), they are not destroyed
    themselves . . . they win!" """
    state = game(ann=CTHULHU, bob=GNOMES)
    state = update(money(place(state, "ann", "Nuclear Power Companies"), "ann", CTHULHU, 5),
                   "ann", destroyed=7)
    state = in_round(state, 4)
    state, _ = attack_to_result(state, Attack("ann", CTHULHU, "Nuclear Power Companies",
                                              "destroy"))
    assert state.player("ann").playing and state.player("ann").groups == ()
    state, _ = run(state, EndTurn("ann"))
    assert state.winners == ("ann",)


def test_destroying_your_own_last_group_otherwise_eliminates_you() -> None:
    """endgame-en: "If the Servants of Cthulhu have destroyed 7 groups, and then destroy their
    own last puppet as their 8th victim, they are not destroyed themselves" (only then)"""
    state = game(ann=CTHULHU, bob=GNOMES)
    state = update(money(place(state, "ann", "Nuclear Power Companies"), "ann", CTHULHU, 5),
                   "ann", destroyed=5)
    state = in_round(state, 4)
    state, _ = attack_to_result(state, Attack("ann", CTHULHU, "Nuclear Power Companies",
                                              "destroy"))
    assert state.player("ann").status == "eliminated"


def test_cthulhu_with_eight_destroyed_elsewhere_who_drop_their_last_group_are_eliminated() -> None:
    """rulebook-en: "Exception: If the Servants of Cthulhu destroy their own last Group, and in
    doing so, achieve their Special Goal (eight Groups destroyed), they are not destroyed
    themselves" - only then: the eighth destroyed on another player's group, then their own
    last group dropped, they are eliminated like anyone else."""
    state = game(ann=CTHULHU, bob=GNOMES)
    state = free(place(state, "ann", "Nuclear Power Companies"), "Yuppies")
    state = update(money(state, "ann", CTHULHU, 5), "ann", destroyed=7)
    state = in_round(state, 4)
    state, _ = attack_to_result(state, Attack("ann", CTHULHU, "Yuppies", "destroy"))
    assert state.player("ann").destroyed == 8 and "Yuppies" in state.dead
    assert state.player("ann").playing
    state, events = run(state, DropGroup("ann", "Nuclear Power Companies"))
    assert state.player("ann").status == "eliminated"
    assert of_kind(events, "eliminated") and state.winners == ()


def test_cthulhu_with_eight_destroyed_who_drop_their_last_group_later_are_eliminated() -> None:
    """rulebook-en: "Exception: If the Servants of Cthulhu destroy their own last Group, and
    in doing so, achieve their Special Goal" (and only then); eight groups destroyed in earlier
    turns do not spare them when they drop their last group."""
    state = game(ann=CTHULHU, bob=GNOMES)
    state = update(money(place(state, "ann", "Nuclear Power Companies"), "ann", CTHULHU, 5),
                   "ann", destroyed=8)
    state = in_round(state, 4)
    state, _ = run(state, DropGroup("ann", "Nuclear Power Companies"))
    assert state.player("ann").status == "eliminated"


def test_no_other_goal_met_spares_a_player_with_no_group() -> None:
    """rulebook-en: "A player is eliminated if, at any time after his third turn, he controls
    no Groups except his Illuminati. ... Exception: If the Servants of Cthulhu destroy
    their own last Group" (and only they): the Gnomes with 150 MB and no group are
    eliminated, not winners."""
    state = game(ann=GNOMES, bob=BAVARIA, cy=NETWORK)
    state = place(place(state, "bob", "C.I.A."), "cy", "Yuppies")
    state = in_round(money(place(state, "ann", "KGB", treasury=2), "ann", GNOMES, 150), 4)
    state, events = run(state, DropGroup("ann", "KGB"))
    assert state.player("ann").status == "eliminated"
    assert of_kind(events, "eliminated") and state.winners == ()


def test_a_player_who_leaves_loses_groups_money_and_illuminati() -> None:
    """rulebook-en: "If a player drops out, his Groups go uncontrolled and their treasuries go
    to the bank. His Illuminati card is taken out of play." """
    state = game(ann=BAVARIA, bob=GNOMES, cy=NETWORK)
    state = money(place(state, "bob", "KGB", treasury=4), "bob", GNOMES, 6)
    state, events = run(state, LeaveGame("bob"))
    bob = state.player("bob")
    assert bob.status == "left" and "KGB" in state.uncontrolled
    assert bob.treasury == 0 and bob.groups == () and state.money_issued == 0
    assert not bob.playing  # the Illuminati card is out of play with its player
    assert of_kind(events, "left")
    state, _ = run(state, EndTurn("ann"))
    assert state.active_player.name == "cy"  # bob's seat is skipped


def test_a_player_leaving_on_his_own_turn_passes_it_on() -> None:
    """endgame-en: "If a player leaves the game, the effect is as though he had been
    eliminated." """
    state, _ = run(game(ann=BAVARIA, bob=GNOMES, cy=NETWORK), LeaveGame("ann"))
    assert state.active_player.name == "bob" and state.phase == "turn_start"


def test_the_game_ends_when_no_one_is_left() -> None:
    """rulebook-en: "If a player drops out, his Groups go uncontrolled and their treasuries go
    to the bank." (the last one out ends the game)"""
    state, _ = run(game(ann=BAVARIA, bob=GNOMES), LeaveGame("bob"), LeaveGame("ann"))
    assert state.phase == "over" and state.outcome == "no players"
