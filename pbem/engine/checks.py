"""Preconditions shared by the rules: whose turn, which phase, actions left."""

from __future__ import annotations

from pbem.engine.state import GameState, Phase, Player
from pbem.errors import IllegalCommandError

ACTIONS_PER_TURN = 2
FREE_TRANSFERS = 2


def phase(state: GameState, *allowed: Phase) -> None:
    if state.phase not in allowed:
        raise IllegalCommandError(f"that cannot be done now: {_phase_text(state)}",
                                  key="wrong_phase",
                                  words={"phase": state.phase, "active": state.active_player.name})
    if state.special is not None:
        raise IllegalCommandError(
            f"{state.special.player}'s {state.special.card} is waiting for any answer first",
            key="special_waiting",
            words={"player": state.special.player, "card": state.special.card}
        )


def active(state: GameState, player: str) -> Player:
    """The active player, who must be ``player``."""
    p = state.active_player
    if p.name != player:
        raise IllegalCommandError(
            f"it is {p.name}'s turn, not {player}'s", suggestion="wait for your turn",
            key="not_active", words={"active": p.name, "player": player}
        )
    return p


def playing(state: GameState, player: str) -> Player:
    """The player named ``player``, who must still be in the game."""
    try:
        p = state.player(player)
    except KeyError:
        raise IllegalCommandError(f"there is no player named {player}",
                                  key="no_player", words={"name": player}) from None
    if not p.playing:
        raise IllegalCommandError(f"{player} is no longer in the game",
                                  key="player_gone", words={"player": player})
    return p


def action_left(state: GameState, player: str) -> Player:
    """The active player, in the actions phase, with a regular action left."""
    phase(state, "actions")
    p = active(state, player)
    if state.offer is not None:
        raise IllegalCommandError(f"{state.offer.receiver} has not yet answered the offer of "
                                  f"{state.offer.group}",
                                  key="offer_unanswered",
                                  words={"receiver": state.offer.receiver,
                                         "group": state.offer.group})
    if state.turn.end_powers:
        raise IllegalCommandError("no actions are left after the end-of-turn powers",
                                  key="actions_after_end_powers")
    if state.turn.actions >= ACTIONS_PER_TURN:
        raise IllegalCommandError(
            "both regular actions of this turn are used", suggestion="end your turn",
            key="actions_used"
        )
    return p


def owns(player: Player, card: str) -> None:
    if player.slot(card) is None:
        raise IllegalCommandError(f"{card} is not in {player.name}'s power structure",
                                  key="not_in_structure",
                                  words={"card": card, "player": player.name})


def _phase_text(state: GameState) -> str:
    return {
        "turn_start": f"{state.active_player.name}'s turn has not begun",
        "actions": f"it is {state.active_player.name}'s turn to act",
        "attack": "an attack is under way",
        "after_roll": "the dice of an attack were just rolled",
        "over": "the game is over",
    }[state.phase]
