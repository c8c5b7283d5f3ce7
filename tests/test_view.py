"""``view(state, player)`` hides what the player may not see (DESIGN.md: Engine)."""

from __future__ import annotations

from pbem.engine.carddata import load_cardset
from pbem.engine.setup import Seat, Setup, new_game, with_options
from pbem.engine.state import GameState
from pbem.engine.view import view

CARDS = load_cardset()


def game() -> GameState:
    seats = (Seat("gnome", "The Gnomes of Zurich"), Seat("ufo", "The UFOs",
                                                          secret_goal="The Network"),
             Seat("other", "The Network"))
    state, _ = new_game(CARDS, with_options(CARDS, Setup("v", seats, "11" * 32)))
    return state


def test_others_treasuries_and_money_goal_are_hidden() -> None:
    """Money on another player's cards is hidden ("Computer Espionage: see the money on one
    group"), and so is the progress of the Gnomes' goal, which would add it up."""
    seen = {p.name: p for p in view(CARDS, game(), "other").players}
    gnome = seen["gnome"]
    assert all(c.treasury is None for c in gnome.structure)
    assert gnome.treasury_total is None
    assert [g.goal for g in gnome.goals] == ["basic"]
    own = {p.name: p for p in view(CARDS, game(), "gnome").players}["gnome"]
    assert [g.goal for g in own.goals] == ["basic", "The Gnomes of Zurich"]
    assert own.structure[0].treasury == 12


def test_the_ufos_secret_goal_is_theirs_alone() -> None:
    """The UFO player "writes it down, keeping it a secret from the other players"."""
    state = game()
    others = {p.name: p for p in view(CARDS, state, "other").players}["ufo"]
    assert others.secret_goal is None and others.hand is None
    assert all(g.goal == "basic" for g in others.goals)
    mine = {p.name: p for p in view(CARDS, state, "ufo").players}["ufo"]
    assert mine.secret_goal == "The Network"


def test_the_seed_is_revealed_only_to_the_game_master_until_the_end() -> None:
    """The seed stays secret until the game ends; its SHA-256 is public from the start."""
    state = game()
    assert view(CARDS, state, "other").seed is None
    assert view(CARDS, state, None).seed == state.dice.seed
    assert view(CARDS, state, "other").dice_commitment == state.dice.commitment
