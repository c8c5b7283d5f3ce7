"""The checks of an order that waits (behind an attack, a group offer, or earlier orders
waiting) which nothing before it can change: refused when the mail is read, not
acknowledged and refused later.

An order waits only for what comes before it in the turn. What is sure to have happened by
the time it comes up is the turn as it stands, plus what the orders waiting before it do if
they run (if one of them is refused, none after it runs: ``advance``): the ``Ahead`` turn.
An attack that may still be called off (no money in it yet) is not counted, since calling it
off gives its action back. Each kind of order has its check in ``CHECKS``; a kind without one
is carried out or refused at once, never queued (``ANSWER``, ``CARRY_OUT``), or cannot be
known to fail until it comes up (``NOT_DECIDABLE``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pbem.engine import behaviour, checks
from pbem.engine.abilities import abilities, has_special, power, transferable
from pbem.engine.attack import participation_left
from pbem.engine.cards import Group
from pbem.engine.commands import (
    CallOff,
    DropGroup,
    EndPowers,
    EndTurn,
    GiveCard,
    GiveMoney,
    MoveGroup,
    OfferGroup,
    Pass,
    PlaySpecial,
    TransferMoney,
    UseLasers,
    UseRecyclers,
)
from pbem.engine.groups import offer_parties
from pbem.engine.state import GameState, Player, TurnState
from pbem.engine.structure import subtree
from pbem.engine.turn_powers import check_end_powers, lasers_unusable, recyclers_unusable
from pbem.engine.values import evolve
from pbem.errors import IllegalCommandError
from pbem.orders.model import AttackOrder, Odds, Order
from pbem.service.order_refusals import refused
from pbem.service.table import Table


def check_waiting(table: Table, player: str, order: Order) -> None:
    """Raise the refusal of ``order`` (``player``'s, about to wait behind what is under way
    or waiting) if it fails a check whose answer nothing before it can change: the card is
    in hand, the groups it names are the player's or may become theirs by an attack under
    way or waiting, the power belongs to their Illuminati, an action is left (none after END
    POWERS), the attack is one the rules allow at all."""
    check = CHECKS.get(type(order))
    if check is not None:
        check(Ahead.of(table), table.state.player(player), order)


@dataclass(frozen=True)
class Ahead:
    """The turn as it is sure to be when an order written now comes up: ``state`` with the
    turn's counters of the orders waiting before it (``turn``), as if each runs; ``gained``
    the groups an attack to control under way or waiting may bring the player."""

    table: Table
    turn: TurnState
    gained: frozenset[str]

    @classmethod
    def of(cls, table: Table) -> Ahead:
        state = table.state
        turn = state.turn
        attack = state.attack
        if attack is not None and not attack.committed:
            # It may still be called off, which gives its action and its groups back.
            attacked = list(turn.attacked)
            for card in (attack.attacker, *attack.aids):
                if card in attacked:
                    attacked.reverse()
                    attacked.remove(card)
                    attacked.reverse()
            turn = evolve(turn, actions=max(0, turn.actions - 1), attacked=tuple(attacked))
        p = state.active_player
        for item in table.service.queue:
            turn = SURE.get(type(item.order), _nothing)(table, p, turn, item.order)
        return cls(table, turn, frozenset(_may_become_theirs(table, p)))

    @property
    def state(self) -> GameState:
        """The position with the turn's counters as they will be (phase "actions")."""
        s = self.table.state
        return evolve(s, turn=self.turn, phase="actions", attack=None, offer=None,
                      special=None)

    def action_left(self, p: Player) -> None:
        """Raise the rules' refusal when no regular action will be left: END POWERS written
        before, or both actions sure to be used."""
        checks.action_left(self.state, p.name)

    def end_power(self, p: Player, ability: str) -> bool:
        """True when ``p``'s end-of-turn power ``ability`` will be in use."""
        return self.turn.end_powers and ability in abilities(
            self.table.cards, p.illuminati).special


# --- what an order waiting before is sure to do to the turn, if it runs ---------------------

Sure = Callable[[Table, Player, TurnState, Order], TurnState]


def _nothing(table: Table, p: Player, turn: TurnState, order: Order) -> TurnState:
    return turn


def _sure_attack(table: Table, p: Player, turn: TurnState, order: Order) -> TurnState:
    """An attack with money put in at once (or the Bavarian privilege paid) is committed as
    it is made: it cannot be called off, so its action and its groups are spent."""
    assert isinstance(order, AttackOrder)
    a = order.attack
    if not (order.spend > 0 or a.privilege == "bavarian"):
        return turn
    return evolve(turn, actions=turn.actions + 1, attacked=(*turn.attacked, a.attacker, *a.aids),
                  privileged_bavarian=turn.privileged_bavarian or a.privilege == "bavarian")


def _sure_transfer(table: Table, p: Player, turn: TurnState, order: Order) -> TurnState:
    gnomes = turn.end_powers and "gnomes_money" in abilities(table.cards, p.illuminati).special
    if gnomes:
        return turn
    if turn.free_transfers < checks.FREE_TRANSFERS:
        return evolve(turn, free_transfers=turn.free_transfers + 1)
    return evolve(turn, actions=turn.actions + 1)


def _sure_move(table: Table, p: Player, turn: TurnState, order: Order) -> TurnState:
    bermuda = turn.end_powers and "bermuda_reorganize" in abilities(
        table.cards, p.illuminati).special
    return turn if bermuda else evolve(turn, actions=turn.actions + 1)


# What each kind of order waiting is sure to add to the turn's counters once it runs; other
# kinds add nothing sure (a group offer may be declined, its action then not spent).
SURE: dict[type[Order], Sure] = {
    AttackOrder: _sure_attack, TransferMoney: _sure_transfer, MoveGroup: _sure_move,
    EndPowers: lambda table, p, turn, order: evolve(turn, end_powers=True),
    UseLasers: lambda table, p, turn, order: evolve(turn, lasers_used=True),
    UseRecyclers: lambda table, p, turn, order: evolve(turn, recyclers_used=True),
}


# --- the checks -----------------------------------------------------------------------------

Check = Callable[[Ahead, Player, Order], None]


def _held(ahead: Ahead, p: Player, order: Order) -> None:
    assert isinstance(order, PlaySpecial)
    if order.card not in p.hand:
        raise refused("not_held", card=order.card)
    card = ahead.table.cards.special(order.card)
    if behaviour.regular_action(card):  # Bribery, the Whispering Campaign
        ahead.action_left(p)


def _offerable(ahead: Ahead, p: Player, order: Order) -> None:
    assert isinstance(order, OfferGroup)
    giver, _ = offer_parties(ahead.table.state, order)
    if order.group not in ahead.gained:
        checks.owns(giver, order.group)
    ahead.action_left(p)


def _owned(ahead: Ahead, p: Player, *cards: str) -> None:
    """The ``cards`` are the player's own, or may become theirs."""
    for card in cards:
        if card not in ahead.gained:
            checks.owns(p, card)


def _transfer(ahead: Ahead, p: Player, order: Order) -> None:
    assert isinstance(order, TransferMoney)
    _owned(ahead, p, order.source, order.dest)
    if order.source == order.dest:
        raise IllegalCommandError(key="transfer_same_card")
    if ahead.end_power(p, "gnomes_money"):
        return
    if ahead.turn.end_powers:
        raise IllegalCommandError(key="transfers_after_end_powers")
    if ahead.turn.free_transfers >= checks.FREE_TRANSFERS:
        ahead.action_left(p)


def _move(ahead: Ahead, p: Player, order: Order) -> None:
    assert isinstance(order, MoveGroup)
    _owned(ahead, p, order.group, order.master)
    if order.group == p.illuminati:
        raise IllegalCommandError(key="illuminati_moved")
    if not ahead.end_power(p, "bermuda_reorganize"):
        ahead.action_left(p)


def _drop(ahead: Ahead, p: Player, order: Order) -> None:
    assert isinstance(order, DropGroup)
    _owned(ahead, p, order.group)


def _lasers(ahead: Ahead, p: Player, order: Order) -> None:
    if (not _may_hold(ahead, p, "orbital_mind_control_lasers") or ahead.turn.lasers_used
            or ahead.turn.end_powers):
        raise lasers_unusable(p)


def _recyclers(ahead: Ahead, p: Player, order: Order) -> None:
    if (not _may_hold(ahead, p, "recyclers") or ahead.turn.recyclers_used
            or ahead.turn.end_powers):
        raise recyclers_unusable(p)


def _end_powers(ahead: Ahead, p: Player, order: Order) -> None:
    check_end_powers(ahead.table.cards, p)


def _attack(ahead: Ahead, p: Player, order: Order) -> None:
    """What the rules refuse of this attack whatever happens before it: an action left, a
    target that is a group, an attacker with power, groups not yet used this turn (nor by
    an attack before it that cannot be called off), the player's own groups (or groups an
    attack may bring), the privilege they can pay."""
    assert isinstance(order, AttackOrder)
    cards, a = ahead.table.cards, order.attack
    ahead.action_left(p)
    _owned(ahead, p, a.attacker, *a.aids)
    target = cards.card(a.target) if a.target in cards else None
    if not isinstance(target, Group):
        raise IllegalCommandError(key="not_attackable", target=a.target)
    if power(cards, a.attacker) <= 0:
        raise IllegalCommandError(key="attacker_powerless", attacker=a.attacker)
    if a.target == a.attacker:
        raise IllegalCommandError(key="attacks_itself")
    if not participation_left(cards, ahead.state, a.attacker):
        raise IllegalCommandError(key="attacker_used", attacker=a.attacker)
    if a.mode == "destroy" and target.power <= 0:
        raise IllegalCommandError(key="target_powerless", target=a.target)
    if a.transfer_on_success < 0 or (a.transfer_on_success and a.mode != "control"):
        raise IllegalCommandError(key="money_follows_control")
    if a.arrow != -1 and a.mode != "control":
        raise IllegalCommandError(key="arrow_control_only")
    for aid in a.aids:
        if aid == a.attacker or a.aids.count(aid) > 1:
            raise IllegalCommandError(key="aid_twice", aid=aid)
        if aid == a.target:
            raise IllegalCommandError(key="aid_target")
        if transferable(cards, aid) <= 0:
            raise IllegalCommandError(key="aid_no_power", aid=aid)
        if not participation_left(cards, ahead.state, aid):
            raise IllegalCommandError(key="aid_used", aid=aid)
    if a.privilege == "card" and a.privilege_card not in p.hand:
        raise IllegalCommandError(key="privilege_card_not_held", player=p.name,
                                  card=a.privilege_card)
    if a.privilege == "bavarian":
        if "bavarian_privilege" not in abilities(cards, p.illuminati).special:
            raise IllegalCommandError(key="bavarian_only")
        if ahead.turn.privileged_bavarian:
            raise IllegalCommandError(key="bavarian_once")


def _pass(ahead: Ahead, p: Player, order: Order) -> None:
    """A PASS behind something the player did this turn (their attack, their offer, orders
    waiting) is refused when it comes up: one may pass "only before doing anything else"."""
    table = ahead.table
    if table.state.turn.did_anything or any(
            not isinstance(q.order, Odds) for q in table.service.queue):
        raise IllegalCommandError(key="pass_late")


def _call_off(ahead: Ahead, p: Player, order: Order) -> None:
    """A CALL OFF that waits (behind a group offer or orders waiting, no attack open) comes
    up when no attack is under way: an attack waiting before it is settled by then (while it
    waits for answers, a CALL OFF is answered at once, not queued)."""
    if ahead.table.state.attack is None:
        raise IllegalCommandError(key="no_attack")


def _gift(ahead: Ahead, p: Player, order: Order) -> None:
    """Gifts by the active player waiting their turn: to another player still in the game,
    a card they hold."""
    assert isinstance(order, GiveMoney | GiveCard)
    checks.playing(ahead.table.state, order.to)
    if order.to == p.name:
        if isinstance(order, GiveCard):
            raise IllegalCommandError(key="card_to_self", card=order.card)
        raise IllegalCommandError(key="gift_to_self")
    if isinstance(order, GiveCard) and order.card not in p.hand:
        raise IllegalCommandError(key="not_held_by", player=p.name, card=order.card)


# The check of each kind of order that may wait; see NOT_DECIDABLE for the others.
CHECKS: dict[type[Order], Check] = {
    AttackOrder: _attack, PlaySpecial: _held, OfferGroup: _offerable,
    TransferMoney: _transfer, MoveGroup: _move, DropGroup: _drop,
    UseLasers: _lasers, UseRecyclers: _recyclers, EndPowers: _end_powers,
    Pass: _pass, CallOff: _call_off, GiveMoney: _gift, GiveCard: _gift,
}
# Kinds of order that may wait and that nothing can refuse for sure when the mail is read:
# END TURN always runs; ODDS is answered when it comes up, with the reason if the attack is
# not possible then (its acknowledgement says so).
NOT_DECIDABLE: tuple[type[Order], ...] = (EndTurn, Odds)


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


def _may_hold(ahead: Ahead, p: Player, ability: str) -> bool:
    """True when ``p`` holds a group with ``ability``, or an attack may bring them one."""
    if has_special(ahead.table.cards, p, ability) is not None:
        return True
    return any(ability in abilities(ahead.table.cards, card).special for card in ahead.gained)
