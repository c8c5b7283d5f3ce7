"""Small state changes shared by every rule: money to and from the bank, groups let go."""

from __future__ import annotations

from collections.abc import Iterable

from pbem.engine.state import GameState, Player, Slot
from pbem.engine.structure import remove, subtree
from pbem.engine.values import evolve
from pbem.errors import IllegalCommandError


def set_treasury(state: GameState, player: str, card: str, amount: int) -> GameState:
    """The state with ``card``'s treasury set to ``amount``; the bank makes up the difference."""
    p = state.player(player)
    slot = p.slot(card)
    if slot is None:
        raise IllegalCommandError(key="not_in_structure", card=card, player=player)
    if amount < 0:
        raise IllegalCommandError(key="treasury_below_zero", card=card, have=slot.treasury)
    delta = amount - slot.treasury
    structure = tuple(evolve(s, treasury=amount) if s.card == card else s for s in p.structure)
    state = state.with_player(evolve(p, structure=structure))
    return evolve(state, money_issued=state.money_issued + delta)


def treasury(state: GameState, player: str, card: str) -> int:
    slot = state.player(player).slot(card)
    return 0 if slot is None else slot.treasury


def earn(state: GameState, player: str, card: str, amount: int) -> GameState:
    """The bank pays ``amount`` onto ``card``."""
    return set_treasury(state, player, card, treasury(state, player, card) + amount)


def pay(state: GameState, player: str, card: str, amount: int) -> GameState:
    """``card`` pays ``amount`` to the bank; an error if it has less."""
    have = treasury(state, player, card)
    if amount > have:
        raise IllegalCommandError(key="money_short", card=card, have=have, amount=amount)
    return set_treasury(state, player, card, have - amount)


def move_money(state: GameState, player: str, source: str, dest: str, amount: int) -> GameState:
    """Money from one card of a structure to another (no bank involved)."""
    if amount <= 0:
        raise IllegalCommandError(key="amount_positive")
    state = pay(state, player, source, amount)
    return earn(state, player, dest, amount)


def release(state: GameState, player: str, slots: Iterable[Slot]) -> GameState:
    """Slots leave the player's structure for the uncontrolled area; their money goes back."""
    gone = [s for s in slots]
    p = state.player(player)
    money = sum(s.treasury for s in gone if p.slot(s.card) is not None)
    state = state.with_player(remove(p, (s.card for s in gone)))
    return evolve(
        state,
        uncontrolled=(*state.uncontrolled, *(s.card for s in gone)),
        money_issued=state.money_issued - money,
    )


def release_group(state: GameState, player: str, group: str) -> tuple[GameState, list[str]]:
    """A group and all its puppets become uncontrolled; gives the state and the cards."""
    slots = subtree(state.player(player), group)
    return release(state, player, slots), [s.card for s in slots]


def update_player(state: GameState, name: str, **changes: object) -> GameState:
    return state.with_player(evolve(state.player(name), **changes))


def player_of(state: GameState, name: str) -> Player:
    """The player named ``name``, as an IllegalCommandError when there is none."""
    try:
        return state.player(name)
    except KeyError:
        raise IllegalCommandError(key="no_player", name=name) from None
