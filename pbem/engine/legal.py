"""``legal(state, player)``: what a player may do now, as command values.

Candidates are generated from the position and kept when the rules accept them, so this list
can never disagree with ``apply``. Amounts of money are represented by a few sample values
(1, half, all) rather than every number.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbem.engine.abilities import transferable
from pbem.engine.behaviour import counter_in
from pbem.engine.carddata import load_cardset
from pbem.engine.cards import ATTACK_MODES, CardSet
from pbem.engine.commands import (
    SYSTEM,
    AcceptGroup,
    Attack,
    BeginTurn,
    CallOff,
    Command,
    Counter,
    DeclineGroup,
    DropGroup,
    EndPowers,
    EndTurn,
    Interfere,
    MoveGroup,
    Pass,
    PlaySpecial,
    ResolveSpecial,
    Roll,
    Settle,
    Spend,
    TransferMoney,
    UseRecyclers,
)
from pbem.engine.rules import apply
from pbem.engine.state import GameState, Player
from pbem.engine.structure import open_arrows, remove, subtree
from pbem.errors import IllegalCommandError


def legal(state: GameState, player: str, cards: CardSet | None = None) -> list[Command]:
    """Every candidate command of ``player`` (or ``SYSTEM``) that the rules accept now."""
    cards = cards or load_cardset()
    out: list[Command] = []
    for cmd in candidates(cards, state, player):
        try:
            apply(state, cmd, cards)
        except IllegalCommandError:
            continue
        out.append(cmd)
    return out


def _amounts(have: int) -> list[int]:
    return sorted({a for a in (1, have // 2, have) if a > 0})


def candidates(cards: CardSet, state: GameState, name: str) -> Iterator[Command]:
    """Commands worth trying for ``name`` in this position (some may be illegal)."""
    if state.phase == "over":
        return
    if state.special is not None:
        if name == SYSTEM:
            yield ResolveSpecial()
        else:
            card = counter_in(cards, state.player(name).hand)
            if card:
                yield Counter(name, card)
        return
    if state.offer is not None:
        if name == state.offer.receiver:
            yield AcceptGroup(name)
            yield DeclineGroup(name)
        return
    if name == SYSTEM:
        system: dict[str, list[Command]] = {
            "turn_start": [BeginTurn()], "attack": [Roll()], "after_roll": [Settle()]}
        yield from system.get(state.phase, [])
        return
    p = state.player(name)
    if not p.playing:
        return
    for card in sorted(set(p.hand)):
        yield from _special_plays(state, p, card)
    if state.phase == "attack" and state.attack is not None:
        yield from _attack_answers(state, p)
    if state.phase != "actions" or state.active_player.name != name:
        return
    yield Pass(name)
    yield EndTurn(name)
    yield EndPowers(name)
    yield UseRecyclers(name)
    yield from _attacks(cards, state, p)
    for slot in p.structure:
        for other in p.structure:
            if other.master == slot.card or slot.master == other.card:
                for amount in _amounts(slot.treasury):
                    yield TransferMoney(name, slot.card, other.card, amount)
    for slot in p.structure[1:]:
        yield DropGroup(name, slot.card)
        moving = subtree(p, slot.card)
        rest = remove(p, (s.card for s in moving))
        for master in rest.structure:
            for arrow in open_arrows(cards, rest, master.card):
                yield MoveGroup(name, slot.card, master.card, arrow)


def _attacks(cards: CardSet, state: GameState, p: Player) -> Iterator[Command]:
    targets = list(state.uncontrolled) + [
        s.card for other in state.players if other.playing for s in other.structure[1:]
    ]
    helpers = tuple(s.card for s in p.structure if transferable(cards, s.card) > 0)
    for slot in p.structure:
        for target in targets:
            for mode in ATTACK_MODES:
                aids = tuple(h for h in helpers if h not in (slot.card, target))
                yield Attack(p.name, slot.card, target, mode)
                if aids:
                    yield Attack(p.name, slot.card, target, mode, aids=aids)


def _attack_answers(state: GameState, p: Player) -> Iterator[Command]:
    attack = state.attack
    assert attack is not None
    if p.name == attack.player:
        yield CallOff(p.name)
        for source in (attack.attacker, p.illuminati):
            slot = p.slot(source)
            for amount in _amounts(slot.treasury if slot else 0):
                yield Spend(p.name, source, amount)
        return
    owner = state.owner(attack.target)
    if owner is not None and owner.name == p.name:
        for source in (attack.target, p.illuminati):
            slot = p.slot(source)
            for amount in _amounts(slot.treasury if slot else 0):
                yield Spend(p.name, source, amount)
        return
    for amount in _amounts(p.treasury):
        yield Interfere(p.name, amount, "interfere")
        yield Interfere(p.name, amount, "assist")


def _special_plays(state: GameState, p: Player, card: str) -> Iterator[Command]:
    name = p.name
    yield PlaySpecial(name, card)
    for group in state.uncontrolled:
        yield PlaySpecial(name, card, group=group)
    for group in state.dead:
        yield PlaySpecial(name, card, group=group)
    for other in state.players:
        if other.name != name:
            yield PlaySpecial(name, card, other=other.name)
    for slot in p.structure:
        for group in state.uncontrolled:
            yield PlaySpecial(name, card, group=group, attacker=slot.card)

