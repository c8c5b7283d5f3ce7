"""``view(state, player)`` hides what the player may not see (DESIGN.md: Engine)."""

from __future__ import annotations

from pbem.engine.carddata import load_cardset
from pbem.engine.setup import Setup, StartingSeat, new_game, with_options
from pbem.engine.state import GameState
from pbem.engine.view import view

CARDS = load_cardset()


def game() -> GameState:
    seats = (StartingSeat("gnome", "The Gnomes of Zurich"), StartingSeat("ufo", "The UFOs",
                                                          secret_goal="The Network"),
             StartingSeat("other", "The Network"))
    state, _ = new_game(CARDS, with_options(CARDS, Setup("v", seats, "11" * 32)))
    return state


def test_others_treasuries_and_money_goals_progress_are_hidden() -> None:
    """Money on another player's cards is hidden ("Computer Espionage: see the money on one
    group"), and so is the progress of the Gnomes' goal, which would add it up; the goal
    itself is printed on the Gnomes' card, face up for all (summary-en: "Gnomes of Zurich
    Collect 150 MegaBucks")."""
    seen = {p.name: p for p in view(CARDS, game(), "other").players}
    gnome = seen["gnome"]
    assert all(c.treasury is None for c in gnome.structure)
    assert gnome.treasury_total is None
    assert [(g.goal, g.kind, g.have, g.need) for g in gnome.goals][1:] == [
        ("The Gnomes of Zurich", "treasury", None, 150)]
    own = {p.name: p for p in view(CARDS, game(), "gnome").players}["gnome"]
    assert [(g.goal, g.have) for g in own.goals][1:] == [("The Gnomes of Zurich", 12)]
    assert own.structure[0].treasury == 12


def test_every_illuminatis_special_goal_is_public() -> None:
    """rulebook-en: "The Special Goal is another way a player can win. This is different
    for each player ... All the Goals are listed on the back page, for easy reference."
    Every player sees every Illuminati's special goal (the UFOs' only as chosen in secret),
    with its progress where it tells no secret."""
    state = game()
    for viewer in ("gnome", "ufo", "other"):
        for p in view(CARDS, state, viewer).players:
            assert [g.goal for g in p.goals] == ["basic", p.illuminati if (
                viewer != p.name or p.name != "ufo") else "The Network"], (viewer, p.name)
    network = {p.name: p for p in view(CARDS, state, "gnome").players}["other"]
    assert [(g.goal, g.kind, g.have, g.need) for g in network.goals][1:] == [
        ("The Network", "total_transferable", 7, 20)]


def test_the_ufos_secret_goal_is_theirs_alone() -> None:
    """The UFO player "writes it down, keeping it a secret from the other players"."""
    state = game()
    others = {p.name: p for p in view(CARDS, state, "other").players}["ufo"]
    assert others.secret_goal is None and others.hand is None
    assert [(g.goal, g.kind, g.have, g.need) for g in others.goals][1:] == [
        ("The UFOs", "secret_choice", None, None)]
    mine = {p.name: p for p in view(CARDS, state, "ufo").players}["ufo"]
    assert mine.secret_goal == "The Network"


def test_the_seed_is_revealed_only_to_the_game_master_until_the_end() -> None:
    """The seed stays secret until the game ends; its SHA-256 is public from the start."""
    state = game()
    assert view(CARDS, state, "other").seed is None
    assert view(CARDS, state, None).seed == state.dice.seed
    assert view(CARDS, state, "other").dice_commitment == state.dice.commitment
