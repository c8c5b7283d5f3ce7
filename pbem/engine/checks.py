"""Preconditions shared by the rules: whose turn, which phase, actions left."""

from __future__ import annotations

from pbem.engine.state import GameState, Phase, Player
from pbem.errors import IllegalCommandError

ACTIONS_PER_TURN = 2
FREE_TRANSFERS = 2


def phase(state: GameState, *allowed: Phase) -> None:
    if state.phase not in allowed:
        raise IllegalCommandError(key="wrong_phase", phase=state.phase,
                                  active=state.active_player.name)
    if state.special is not None:
        raise IllegalCommandError(key="special_waiting", player=state.special.player,
                                  card=state.special.card)


def active(state: GameState, player: str) -> Player:
    """The active player, who must be ``player``."""
    p = state.active_player
    if p.name != player:
        raise IllegalCommandError(key="not_active", active=p.name, player=player)
    return p


def playing(state: GameState, player: str) -> Player:
    """The player named ``player``, who must still be in the game."""
    try:
        p = state.player(player)
    except KeyError:
        raise IllegalCommandError(key="no_player", name=player) from None
    if not p.playing:
        raise IllegalCommandError(key="player_gone", player=player)
    return p


def action_left(state: GameState, player: str) -> Player:
    """The active player, in the actions phase, with a regular action left."""
    phase(state, "actions")
    p = active(state, player)
    if state.offer is not None:
        raise IllegalCommandError(key="offer_unanswered", receiver=state.offer.receiver,
                                  group=state.offer.group)
    if state.turn.end_powers:
        raise IllegalCommandError(key="actions_after_end_powers")
    if state.turn.actions >= ACTIONS_PER_TURN:
        raise IllegalCommandError(key="actions_used")
    return p


def owns(player: Player, card: str) -> None:
    if player.slot(card) is None:
        raise IllegalCommandError(key="not_in_structure", card=card, player=player.name)


