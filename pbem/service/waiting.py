"""The checks of an order that waits behind an attack which no attack can change: refused
when the mail is read, not acknowledged and refused later."""

from __future__ import annotations

from collections.abc import Callable

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
    check = CHECKS.get(type(order))
    if check is not None:
        check(table, table.state.player(player), order)


def _held(table: Table, p: Player, order: Order) -> None:
    assert isinstance(order, PlaySpecial)
    if order.card not in p.hand:
        raise refused("not_held", card=order.card)


def _offerable(table: Table, p: Player, order: Order) -> None:
    assert isinstance(order, OfferGroup)
    giver, _ = offer_parties(table.state, order)
    if order.group not in _may_become_theirs(table, giver):
        checks.owns(giver, order.group)


def _owned(*fields: str) -> Callable[[Table, Player, Order], None]:
    """The check that the cards the order names in ``fields`` are the player's own, or may
    become theirs."""
    def check(table: Table, p: Player, order: Order) -> None:
        for card in (getattr(order, f) for f in fields):
            if card not in _may_become_theirs(table, p):
                checks.owns(p, card)
    return check


def _lasers(table: Table, p: Player, order: Order) -> None:
    if not _may_hold(table, p, "orbital_mind_control_lasers"):
        raise lasers_unusable(p)


def _recyclers(table: Table, p: Player, order: Order) -> None:
    if not _may_hold(table, p, "recyclers"):
        raise recyclers_unusable(p)


def _end_powers(table: Table, p: Player, order: Order) -> None:
    check_end_powers(table.cards, p)


# The check of each kind of order no attack can change; other kinds have none.
CHECKS: dict[type[Order], Callable[[Table, Player, Order], None]] = {
    PlaySpecial: _held, OfferGroup: _offerable,
    TransferMoney: _owned("source", "dest"), MoveGroup: _owned("group", "master"),
    DropGroup: _owned("group"),
    UseLasers: _lasers, UseRecyclers: _recyclers, EndPowers: _end_powers,
}


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
