"""Proxy bidding: maximums stated in one mail play out the back-and-forth spending.

"The attacker and defender can each go back and forth, putting in more money, as long as they
are able. When no player is willing to spend more money to affect the attack, the dice are
rolled." By mail, each side states what it puts in at once and the most it is willing to add.
The service then plays the exchange: the attacker's side adds only what brings the number
needed up to 10 (more is useless: 11 and 12 always fail), the defender's side only what brings
it below 2 (no roll can then succeed), each answering the other until one side's maximum is
spent or neither needs to move.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pbem.engine.breakdown import AUTOMATIC_FAILURE, roll_needed
from pbem.engine.cards import CardSet
from pbem.engine.commands import Interfere, Spend
from pbem.engine.events import Event, Spent
from pbem.engine.rules import apply
from pbem.engine.state import GameState
from pbem.errors import IllegalCommandError

ATTACKER_GOAL = AUTOMATIC_FAILURE - 1  # a need of 10 is as good as any higher
DEFENDER_GOAL = 1  # a need of 1 or less cannot be rolled

Side = Literal["attack", "defense", "assist", "interfere"]


@dataclass(frozen=True)
class Stance:
    """One player's money on an attack: ``fixed`` at once, then up to ``upto`` more in all.

    ``sources`` are the cards paying, in order (attacker and defender only; others pay from
    their Illuminati).
    """

    player: str
    side: Side
    fixed: int = 0
    upto: int = 0
    sources: tuple[str, ...] = ()


def _pays(
    cards: CardSet, state: GameState, stance: Stance, amount: int
) -> tuple[GameState, list[Spend | Interfere], int, int | None]:
    """Pay up to ``amount`` for ``stance``; the new state, the commands, what was paid and
    the roll needed after it (None when nothing was paid): the engine's ``Spent`` event
    carries it, so the bidding need not work the attack out again."""
    commands: list[Spend | Interfere] = []
    paid = 0
    need: int | None = None
    if stance.side in ("assist", "interfere"):
        have = state.player(stance.player).treasury
        take = min(amount, have)
        if take > 0:
            cmd: Spend | Interfere = Interfere(stance.player, take, stance.side)
            state, events = apply(state, cmd, cards)
            commands.append(cmd)
            paid = take
            need = _need_after(events)
        return state, commands, paid, need
    for source in stance.sources:
        if paid >= amount:
            break
        slot = state.player(stance.player).slot(source)
        take = min(amount - paid, slot.treasury if slot else 0)
        if take > 0:
            cmd = Spend(stance.player, source, take)
            state, events = apply(state, cmd, cards)
            commands.append(cmd)
            paid += take
            need = _need_after(events)
    return state, commands, paid, need


def _need_after(events: Sequence[Event]) -> int:
    """The roll needed after a payment, from its ``Spent`` event."""
    spent = events[-1]
    assert isinstance(spent, Spent)
    return spent.need


def _weight(state: GameState, stance: Stance) -> int:
    """Points per MB of the next money this stance pays (defending group money: 2)."""
    if stance.side != "defense" or state.attack is None:
        return 1
    player = state.player(stance.player)
    for source in stance.sources:
        slot = player.slot(source)
        if slot is not None and slot.treasury > 0:
            return 2 if source == state.attack.target else 1
    return 1


def defence_to_stop(need: int, purses: Sequence[tuple[int, int]]) -> tuple[int, int]:
    """The MB a defender spends to bring the roll needed from ``need`` down to
    ``DEFENDER_GOAL`` as the proxy bidding spends it, and the roll needed then.

    ``purses`` are (MB held, points per MB) in the order they pay: the attacked group's
    money (2 a MB) first, then the Illuminati's (1). When they hold too little, all of it is
    spent and the roll needed stays above the goal.
    """
    spent = 0
    for held, weight in purses:
        gap = need - DEFENDER_GOAL
        if gap <= 0:
            break
        take = min(held, -(-gap // weight))
        spent += take
        need -= take * weight
    return spent, need


def settle_bids(
    cards: CardSet, state: GameState, stances: Sequence[Stance]
) -> tuple[GameState, list[Spend | Interfere]]:
    """Apply every stance's fixed money, then play out the maximums; gives the state and the
    spending commands in the order they were applied (for the log)."""
    if state.attack is None:
        raise IllegalCommandError(key="no_attack")
    commands: list[Spend | Interfere] = []
    left = {i: s.upto for i, s in enumerate(stances)}
    for i, stance in enumerate(stances):
        if stance.fixed > 0:
            state, cmds, paid, _ = _pays(cards, state, stance, stance.fixed)
            commands += cmds
            left[i] = max(0, left[i] - paid)
    raising = [i for i, s in enumerate(stances) if s.side in ("attack", "assist")]
    lowering = [i for i, s in enumerate(stances) if s.side in ("defense", "interfere")]
    assert state.attack is not None
    need = roll_needed(cards, state, state.attack)
    while True:
        moved = False
        for group, wants_up in ((raising, True), (lowering, False)):
            for i in group:
                if left[i] <= 0:
                    continue
                gap = ATTACKER_GOAL - need if wants_up else need - DEFENDER_GOAL
                if gap <= 0:
                    continue
                stance = stances[i]
                # Defending group money counts double: half as many MB close the gap.
                weight = _weight(state, stance)
                amount = min(left[i], -(-gap // weight))
                state, cmds, paid, after = _pays(cards, state, stance, amount)
                commands += cmds
                need = need if after is None else after
                left[i] = left[i] - paid if paid else 0
                moved = moved or paid > 0
        if not moved:
            return state, commands
