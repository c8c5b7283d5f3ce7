"""The checks of an order that waits behind an attack which no attack can change: refused
when the mail is read, not acknowledged and refused later."""

from __future__ import annotations

from pbem.engine import checks
from pbem.engine.abilities import abilities, has_special
from pbem.engine.commands import (
    DropGroup,
    EndPowers,
    MoveGroup,
    OfferGroup,
    PlaySpecial,
    TransferMoney,
    UseLasers,
    UseRecyclers,
)
from pbem.engine.groups import offer_parties
from pbem.engine.state import Player
from pbem.engine.structure import subtree
from pbem.engine.turn_powers import check_end_powers, lasers_unusable, recyclers_unusable
from pbem.orders.model import AttackOrder, Order
from pbem.service.refusals import refused
from pbem.service.table import Table


def check_waiting(table: Table, player: str, order: Order) -> None:
    """Raise the refusal of ``order`` (``player``'s, waiting behind an attack) if it fails a
    check whose answer no attack can change: the card is in hand, the groups a gift,
    transfer, move or drop names are the player's or may become theirs by an attack under way
    or waiting, the power belongs to their Illuminati."""
    p = table.state.player(player)
    if isinstance(order, PlaySpecial) and order.card not in p.hand:
        raise refused("not_held", card=order.card)
    if isinstance(order, OfferGroup):
        giver, _ = offer_parties(table.state, order)
        if order.group not in _may_become_theirs(table, giver):
            checks.owns(giver, order.group)
    for card in _cards_named(order):
        if card not in _may_become_theirs(table, p):
            checks.owns(p, card)
    if isinstance(order, UseLasers) and not _may_hold(table, p, "orbital_mind_control_lasers"):
        raise lasers_unusable(p)
    if isinstance(order, UseRecyclers) and not _may_hold(table, p, "recyclers"):
        raise recyclers_unusable(p)
    if isinstance(order, EndPowers):
        check_end_powers(table.cards, p)


def _cards_named(order: Order) -> tuple[str, ...]:
    """The cards of the player's own structure a transfer, move or drop names."""
    if isinstance(order, TransferMoney):
        return (order.source, order.dest)
    if isinstance(order, MoveGroup):
        return (order.group, order.master)
    if isinstance(order, DropGroup):
        return (order.group,)
    return ()


def _may_become_theirs(table: Table, p: Player) -> set[str]:
    """The groups ``p`` holds, and those an attack to control under way or waiting may bring
    them: each target with the puppets it takes along."""
    cards = {s.card for s in p.structure}
    targets = [(a.target, a.mode) for a in (table.state.attack,) if a is not None]
    targets += [(q.order.attack.target, q.order.attack.mode) for q in table.service.queue
                if isinstance(q.order, AttackOrder)]
    for target, mode in targets:
        if mode != "control":
            continue
        cards.add(target)
        owner = table.state.owner(target)
        if owner is not None:
            cards.update(s.card for s in subtree(owner, target))
    return cards


def _may_hold(table: Table, p: Player, ability: str) -> bool:
    """True when ``p`` holds a group with ``ability``, or an attack may bring them one."""
    if has_special(table.cards, p, ability) is not None:
        return True
    return any(ability in abilities(table.cards, card).special
               for card in _may_become_theirs(table, p))
