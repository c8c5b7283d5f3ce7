"""Rule cases: the game master's edits, logged and replayed like any command."""

from __future__ import annotations

from dataclasses import replace

import pytest
from factory import (
    BAVARIA,
    CARDS,
    GNOMES,
    NETWORK,
    deal,
    free,
    game,
    money_balances,
    of_kind,
    place,
    run,
    treasury,
)
from support import refuses

from pbem.engine.commands import (
    Attack,
    EndTurn,
    GiveCard,
    GmEndGame,
    GmMoveCard,
    GmRemovePlayer,
    GmSetMoney,
    Pass,
    PlaySpecial,
)
from pbem.engine.rules import replay
from pbem.engine.setup import Setup, StartingSeat
from pbem.engine.state import GameState
from pbem.errors import IllegalCommandError


def position() -> GameState:
    state = place(game(ann=BAVARIA, bob=GNOMES), "ann", "The Mafia", treasury=3)
    return place(state, "ann", "Yuppies", master="The Mafia", treasury=2)


def test_the_game_master_sets_the_money_on_a_card() -> None:
    """DESIGN.md: "Mail, deadline ticks and GM overrides all change a game through the
    same public step" """
    state, events = run(position(), GmSetMoney("gm", "The Mafia", 10, "lost mail"))
    assert treasury(state, "The Mafia") == 10 and money_balances(state)
    assert of_kind(events, "gm_money")[0].data["reason"] == "lost mail"
    with pytest.raises(IllegalCommandError, match="in no power structure"):
        run(state, GmSetMoney("gm", "KGB", 1, "typo"))


def test_the_game_master_moves_a_group_and_its_puppets_go_free() -> None:
    """DESIGN.md: "Mail, deadline ticks and GM overrides all change a game through the
    same public step" (a group taken out of a structure frees its puppets, as a drop does)"""
    state, _ = run(position(), GmMoveCard("gm", "The Mafia", "dead", "ruling"))
    assert state.dead == ("The Mafia",) and state.uncontrolled == ("Yuppies",)
    assert state.player("ann").groups == () and money_balances(state)


def test_the_game_master_moves_special_cards_between_hands_and_piles() -> None:
    """DESIGN.md: "Mail, deadline ticks and GM overrides all change a game through the
    same public step" """
    state = deal(position(), "ann", "Deep Agent")
    state, _ = run(state, GmMoveCard("gm", "Deep Agent", "hand:bob", "misdeal"))
    assert state.player("bob").hand == ("Deep Agent",) and state.player("ann").hand == ()
    with pytest.raises(IllegalCommandError, match="go to a hand"):
        run(state, GmMoveCard("gm", "Deep Agent", "uncontrolled", "typo"))
    with pytest.raises(IllegalCommandError, match="Illuminati card cannot be moved"):
        run(state, GmMoveCard("gm", BAVARIA, "dead", "typo"))
    with pytest.raises(IllegalCommandError, match="no card named"):
        run(state, GmMoveCard("gm", "Deep Agnet", "deck", "typo"))
    played, _ = run(deal(state, "bob", "Slush Fund"), PlaySpecial("bob", "Slush Fund"))
    with pytest.raises(IllegalCommandError, match="waits for an answer"):
        run(played, GmMoveCard("gm", "Slush Fund", "discards", "too early"))


def test_the_game_master_may_still_edit_a_finished_game() -> None:
    """DESIGN.md: "A game is its setup (players, options, seed) plus its log of commands." """
    state, _ = run(position(), EndTurn("ann"))
    over = replace(state, phase="over")
    with refuses("game_over"):
        run(over, Pass("bob"))
    over, _ = run(over, GmSetMoney("gm", "The Mafia", 0, "correction"))
    assert treasury(over, "The Mafia") == 0


def test_a_replay_of_the_log_repeats_the_game_masters_edits() -> None:
    """DESIGN.md: "A game is its setup (players, options, seed) plus its log of commands.
    Replaying the log rebuilds the state" """
    seats = (StartingSeat("ann", BAVARIA), StartingSeat("bob", GNOMES))
    setup = Setup(game="g", seats=seats, seed="ab" * 16)
    log = [GmSetMoney("gm", BAVARIA, 40, "prize")]
    state = replay(setup, log, CARDS)
    assert treasury(state, BAVARIA) == 40
    assert replay(setup, log, CARDS) == state


def test_the_game_master_ends_the_game_for_what_the_rules_do_not_end() -> None:
    """rulebook-en: "The game ends when, at the end of a turn (his own or someone else's) a
    player meets one of his Goals." Nothing else ends it: a player left alone, or players
    agreeing to stop, need the game master, who names the winners (players still in the
    game) or no one."""
    state = position()
    with pytest.raises(IllegalCommandError, match="not a player still in the game"):
        run(state, GmEndGame("gm", ("cy",), "typo"))
    over, events = run(state, GmEndGame("gm", ("bob", "bob"), "ann left for good"))
    assert (over.phase, over.outcome, over.winners) == ("over", "game master", ("bob",))
    assert of_kind(events, "gm_end")[0].data == {"winners": ("bob",),
                                                 "reason": "ann left for good"}
    assert money_balances(over)
    with refuses("game_over"):
        run(over, GmEndGame("gm", (), "again"))
    nobody, _ = run(state, GmEndGame("gm", (), "we all agreed"))
    assert nobody.winners == () and nobody.outcome == "game master"


def test_the_game_master_ends_a_game_only_between_attacks() -> None:
    """An attack, once announced, goes on until the dice settle it (rulebook-en: "all
    transferable power to be used in that attack must be announced before any money is
    spent"): the game master ends a game between attacks, as a player leaves one."""
    state = free(position(), "Loan Sharks")
    attacking, _ = run(state, Attack("ann", "The Mafia", "Loan Sharks", "control"))
    with pytest.raises(IllegalCommandError, match="only between attacks"):
        run(attacking, GmEndGame("gm", ("ann",), "too soon"))


def test_the_game_master_removes_a_player_as_if_they_dropped_out() -> None:
    """rulebook-en: "If a player drops out, his Groups go uncontrolled and their treasuries
    go to the bank. His Illuminati card is taken out of play." The game master's removal is
    that, marked as the game master's, with the reason; told first, before what follows."""
    state = place(game(ann=BAVARIA, bob=GNOMES, cy=NETWORK), "bob", "KGB", treasury=4)
    state, events = run(state, GmRemovePlayer("gm", "bob", "moved away"))
    bob = state.player("bob")
    assert (bob.status, bob.playing, bob.departed) == ("removed", False, True)
    assert "KGB" in state.uncontrolled and bob.treasury == 0 and money_balances(state)
    assert events[0].kind == "removed" and events[0].data == {
        "player": "bob", "groups": ("KGB",), "reason": "moved away"}
    state, _ = run(state, EndTurn("ann"))
    assert state.active_player.name == "cy"  # bob's seat is skipped
    # The active player removed: the removal is told before the next turn it brings.
    state, events = run(state, GmRemovePlayer("gm", "cy", "silent"))
    assert [e.kind for e in events] == ["removed", "next_player"]
    assert state.active_player.name == "ann"
    with refuses("player_gone"):
        run(state, GmRemovePlayer("gm", "bob", "again"))
    seats = (StartingSeat("ann", BAVARIA), StartingSeat("bob", GNOMES))
    setup = Setup(game="g", seats=seats, seed="ab" * 16)
    replayed = replay(setup, [GmRemovePlayer("gm", "bob", "gone")], CARDS)
    assert replayed.player("bob").status == "removed"


def test_a_player_is_removed_only_between_attacks() -> None:
    """rulebook-en: "all transferable power to be used in that attack must be announced
    before any money is spent", so an attack under way is settled before the game master
    removes a player, as before a player leaves on their own."""
    state = free(position(), "Loan Sharks")
    attacking, _ = run(state, Attack("ann", "The Mafia", "Loan Sharks", "control"))
    with pytest.raises(IllegalCommandError, match="only between attacks"):
        run(attacking, GmRemovePlayer("gm", "bob", "too soon"))


def test_the_special_cards_of_a_player_out_of_the_game_stay_out_of_play() -> None:
    """endgame-en: "If a player leaves the game, the effect is as though he had been
    eliminated." rulebook-en: "His Illuminati card is taken out of play." The rules name no
    fate for the special cards: they stay in the hand of the player removed (as of one
    eliminated), out of play with them: not discarded, never played or given again, and no
    one gives them anything."""
    state = deal(game(ann=BAVARIA, bob=GNOMES, cy=NETWORK), "bob", "Market Manipulation")
    state = deal(state, "ann", "Deep Agent")
    state, _ = run(state, GmRemovePlayer("gm", "bob", "moved away"))
    assert state.player("bob").hand == ("Market Manipulation",) and state.discards == ()
    with refuses("player_gone"):
        run(state, GiveCard("bob", "ann", "Market Manipulation"))
    with refuses("player_gone"):
        run(state, PlaySpecial("bob", "Market Manipulation"))
    with refuses("player_gone"):
        run(state, GiveCard("ann", "bob", "Deep Agent"))
