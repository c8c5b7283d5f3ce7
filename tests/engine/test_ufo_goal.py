"""The UFOs choose their secret goal (issue 18.6). The card (reference/illuminati.csv, The
UFOs): "secretly chooses one of the other seven special goals at game start"."""

from __future__ import annotations

from dataclasses import replace

import pytest
from factory import BAVARIA, CARDS, CTHULHU, GNOMES, NETWORK, UFOS, game, in_round, update
from support import refuses

from pbem.engine.commands import ChooseGoal, EndTurn
from pbem.engine.rules import apply
from pbem.engine.state import TurnState
from pbem.engine.victory import goals_to_choose, special_goal
from pbem.errors import IllegalCommandError


def test_the_ufos_choose_one_of_the_other_seven_goals_before_their_first_turn() -> None:
    """"secretly chooses one of the other seven special goals at game start": before their
    first turn the UFOs take the goal of the Network; only they are told."""
    state = update(game(ann=BAVARIA, bob=UFOS), "bob", secret_goal=GNOMES)
    assert len(goals_to_choose(CARDS)) == 7 and UFOS not in goals_to_choose(CARDS)
    chosen, events = apply(state, ChooseGoal("bob", NETWORK), CARDS)
    bob = chosen.player("bob")
    assert bob.secret_goal == NETWORK and bob.goal_chosen
    assert special_goal(CARDS, bob)[0] == NETWORK
    (told,) = events
    assert told.kind == "secret_goal" and told.visible_to == ("bob",)


def test_only_the_ufos_choose_and_only_among_the_other_goals() -> None:
    """"one of the other seven special goals": not their own, and no other Illuminati
    chooses at all."""
    state = update(game(ann=BAVARIA, bob=UFOS), "bob", secret_goal=GNOMES)
    with refuses("not_a_goal"):
        apply(state, ChooseGoal("bob", UFOS), CARDS)
    with pytest.raises(IllegalCommandError):
        apply(state, ChooseGoal("ann", NETWORK), CARDS)


def test_the_choice_closes_once_the_ufos_first_act() -> None:
    """"at game start": by mail the UFOs who play first may still choose with their first
    orders, but not once they have acted, nor in a later turn."""
    state = update(game(ann=UFOS, bob=BAVARIA), "ann", secret_goal=GNOMES)
    assert apply(state, ChooseGoal("ann", NETWORK), CARDS)[0].player("ann").goal_chosen
    acted = replace(state, turn=TurnState(did_anything=True))
    with pytest.raises(IllegalCommandError):
        apply(acted, ChooseGoal("ann", NETWORK), CARDS)
    later, _ = apply(state, EndTurn("ann"), CARDS)
    later = in_round(later, 2)
    with pytest.raises(IllegalCommandError):
        apply(later, ChooseGoal("ann", NETWORK), CARDS)


def test_the_choice_closes_once_the_game_has_begun_for_ufos_who_play_later() -> None:
    """illuminati.csv: "secretly chooses one of the other seven special goals at game start"
    (summary-en: "The UFOs secretly pick"). The beginning of the game is before anyone acts:
    UFOs who play second may not wait to see the first player's turn and then choose, nor
    change the goal they chose (docs/rules-coverage.md, doubtful readings)."""
    state = update(game(ann=BAVARIA, bob=UFOS), "bob", secret_goal=GNOMES)
    begun = state  # ann's first turn, her actions to come
    chosen, _ = apply(begun, ChooseGoal("bob", NETWORK), CARDS)
    changed, _ = apply(chosen, ChooseGoal("bob", CTHULHU), CARDS)
    assert changed.player("bob").secret_goal == CTHULHU  # nothing seen yet
    acted = replace(begun, turn=TurnState(did_anything=True))
    with pytest.raises(IllegalCommandError) as refused:
        apply(acted, ChooseGoal("bob", NETWORK), CARDS)
    assert refused.value.key == "goal_choice_closed"
    second, _ = apply(begun, EndTurn("ann"), CARDS)
    assert second.active_player.name == "bob"
    with pytest.raises(IllegalCommandError):
        apply(second, ChooseGoal("bob", NETWORK), CARDS)
