"""Attacks to control, neutralize and destroy: announcing, spending, dice, result (abolishing
privilege is in ``privilege``)."""

from __future__ import annotations

from typing import Literal, cast

from pbem.engine import checks
from pbem.engine import events as ev
from pbem.engine.abilities import (
    abilities,
    attacking_alignments,
    attacks_allowed,
    immune,
    power,
    transferable,
)
from pbem.engine.breakdown import breakdown, roll_needed, succeeds
from pbem.engine.cards import AttackMode, CardSet, Group
from pbem.engine.commands import (
    Attack,
    CallOff,
    Interfere,
    Roll,
    Settle,
    Spend,
)
from pbem.engine.dice import roll_2d6
from pbem.engine.events import Event
from pbem.engine.ops import move_money, pay, release, treasury, update_player
from pbem.engine.state import GameState, Payment, PendingAttack, Player, Slot
from pbem.engine.structure import attach, open_arrows, remove, subtree
from pbem.engine.values import evolve
from pbem.errors import IllegalCommandError

BAVARIAN_PRIVILEGE_COST = 5
Result = tuple[GameState, list[Event]]


def participation_left(cards: CardSet, state: GameState, card: str) -> bool:
    """The card has not yet taken part in as many attacks as it may this turn."""
    return state.turn.attacked.count(card) < attacks_allowed(cards, card)


def validate_attack(
    cards: CardSet, state: GameState, p: Player, attacker: str, target: str, mode: str,
    aids: tuple[str, ...], whispering: bool = False,
) -> None:
    """Raise IllegalCommandError unless ``attacker`` may attack ``target`` this way now."""
    checks.owns(p, attacker)
    target_card = cards.card(target) if target in cards else None
    if not isinstance(target_card, Group):
        raise IllegalCommandError(key="not_attackable", target=target)
    if power(cards, attacker) <= 0:
        raise IllegalCommandError(key="attacker_powerless", attacker=attacker)
    if not participation_left(cards, state, attacker):
        raise IllegalCommandError(key="attacker_used", attacker=attacker)
    if target == attacker:
        raise IllegalCommandError(key="attacks_itself")
    owner = state.owner(target)
    if owner is None and target not in state.uncontrolled:
        raise IllegalCommandError(key="target_not_in_play", target=target)
    if mode == "control":
        if owner is not None and owner.name == p.name:
            raise IllegalCommandError(key="already_controlled", target=target)
        if not open_arrows(cards, p, attacker):
            raise IllegalCommandError(key="attacker_no_arrow", attacker=attacker)
    elif mode == "neutralize":
        if owner is None or owner.name == p.name:
            raise IllegalCommandError(key="neutralize_own")
    elif mode == "destroy":
        if target_card.power <= 0 and not whispering:
            raise IllegalCommandError(key="target_powerless", target=target)
        if whispering and target_card.power > 0:
            raise IllegalCommandError(key="whispering_power")
    else:
        raise IllegalCommandError(f"unknown kind of attack: {mode}")
    if owner is not None and owner.name != p.name:
        # The attacker's alignments in this attack: the Chinese Campaign Donors who count as
        # Government are a Government attacker for the Discordians' immunity too.
        shield = immune(cards, state, owner, attacker,
                        attacking_alignments(cards, state, attacker, target,
                                             cast(AttackMode, mode)))
        if shield is not None:
            raise IllegalCommandError(key="immune", owner=owner.name, attacker=attacker,
                                      shield=shield)
    for aid in aids:
        checks.owns(p, aid)
        if aid == attacker or aids.count(aid) > 1:
            raise IllegalCommandError(key="aid_twice", aid=aid)
        if aid == target:
            raise IllegalCommandError(key="aid_target")
        if transferable(cards, aid) <= 0:
            raise IllegalCommandError(key="aid_no_power", aid=aid)
        if not participation_left(cards, state, aid):
            raise IllegalCommandError(key="aid_used", aid=aid)


def take_privilege(cards: CardSet, state: GameState, p: Player,
                   privilege: Literal["none", "card", "bavarian"], card: str) -> Result:
    """The privilege an attack is announced with, paid for: ``card`` discarded, or the
    Bavarian Illuminati's 5 MB (rulebook-en, Privileged Attacks)."""
    events: list[Event] = []
    if privilege == "card":
        if card not in p.hand:
            raise IllegalCommandError(key="privilege_card_not_held", player=p.name, card=card)
        state = discard(state, p.name, card)
        events.append(ev.Privilege(player=p.name, card=card))
    elif privilege == "bavarian":
        if "bavarian_privilege" not in abilities(cards, p.illuminati).special:
            raise IllegalCommandError(key="bavarian_only")
        if state.turn.privileged_bavarian:
            raise IllegalCommandError(key="bavarian_once")
        state = pay(state, p.name, p.illuminati, BAVARIAN_PRIVILEGE_COST)
        state = evolve(state, turn=evolve(state.turn, privileged_bavarian=True))
        events.append(ev.Privilege(player=p.name, card="", amount=BAVARIAN_PRIVILEGE_COST))
    return state, events


def announce(cards: CardSet, state: GameState, cmd: Attack) -> Result:
    """A regular action: the attack and all the transferable power aiding it, and privilege."""
    p = checks.action_left(state, cmd.player)
    validate_attack(cards, state, p, cmd.attacker, cmd.target, cmd.mode, cmd.aids)
    if cmd.transfer_on_success < 0 or (cmd.transfer_on_success and cmd.mode != "control"):
        raise IllegalCommandError(key="money_follows_control")
    if cmd.arrow != -1:
        if cmd.mode != "control":
            raise IllegalCommandError(key="arrow_control_only")
        arrows = open_arrows(cards, p, cmd.attacker)
        if cmd.arrow not in arrows:
            raise IllegalCommandError(key="attack_arrow_closed", attacker=cmd.attacker,
                                      arrow=cmd.arrow, arrows=tuple(arrows))
    state, events = take_privilege(cards, state, p, cmd.privilege, cmd.privilege_card)
    attack = PendingAttack(
        player=p.name, attacker=cmd.attacker, target=cmd.target, mode=cmd.mode, aids=cmd.aids,
        privilege=cmd.privilege, transfer_on_success=cmd.transfer_on_success, arrow=cmd.arrow,
    )
    return open_attack(cards, state, attack, events)


def open_attack(cards: CardSet, state: GameState, attack: PendingAttack,
                events: list[Event]) -> Result:
    """The attack is under way: it takes an action and its groups' participation."""
    turn = evolve(
        state.turn,
        actions=state.turn.actions + 1,
        did_anything=True,
        attacked=(*state.turn.attacked, attack.attacker, *attack.aids),
    )
    state = evolve(state, attack=attack, phase="attack", turn=turn)
    need = roll_needed(cards, state, attack)
    owner = state.owner(attack.target)
    return state, [*events, ev.AttackAnnounced(player=attack.player, attacker=attack.attacker,
                                               target=attack.target, mode=attack.mode,
                                               aids=attack.aids, privileged=attack.privileged,
                                               defender=owner.name if owner else "", need=need,
                                               whispering=attack.whispering)]


def spend(cards: CardSet, state: GameState, cmd: Spend) -> Result:
    """Attacker's money (attacking group or Illuminati, +1 each) or the defender's (defending
    group +2 resistance each, Illuminati +1 each)."""
    checks.phase(state, "attack")
    attack = current_attack(state)
    if cmd.amount <= 0:
        raise IllegalCommandError(key="amount_positive")
    p = checks.playing(state, cmd.player)
    owner = state.owner(attack.target)
    side: Literal["attack", "defense"]
    if p.name == attack.player:
        allowed = (attack.attacker, p.illuminati)
        side = "attack"
    elif owner is not None and owner.name == p.name:
        allowed = (attack.target, p.illuminati)
        side = "defense"
    else:
        raise IllegalCommandError(key="not_a_side", player=p.name)
    if cmd.source not in allowed:
        raise IllegalCommandError(key="attack_money_source", sources=allowed, text=cmd.source)
    state = pay(state, p.name, cmd.source, cmd.amount)
    payment = Payment(player=p.name, source=cmd.source, amount=cmd.amount, side=side)
    return _with_payment(cards, state, attack, payment)


def interfere(cards: CardSet, state: GameState, cmd: Interfere) -> Result:
    """Another player's Illuminati money: +1 (assist) or -1 (interfere) a MB."""
    checks.phase(state, "attack")
    attack = current_attack(state)
    p = checks.playing(state, cmd.player)
    owner = state.owner(attack.target)
    if p.name == attack.player or (owner is not None and owner.name == p.name):
        raise IllegalCommandError(key="sides_spend")
    if attack.privileged and p.name not in attack.interference_cards:
        raise IllegalCommandError(key="privileged_interfere")
    if cmd.amount <= 0:
        raise IllegalCommandError(key="amount_positive")
    state = pay(state, p.name, p.illuminati, cmd.amount)
    payment = Payment(player=p.name, source=p.illuminati, amount=cmd.amount, side=cmd.side)
    return _with_payment(cards, state, attack, payment)


def _with_payment(cards: CardSet, state: GameState, attack: PendingAttack,
                  payment: Payment) -> Result:
    attack = evolve(attack, payments=(*attack.payments, payment))
    state = evolve(state, attack=attack)
    return state, [ev.Spent(player=payment.player, source=payment.source, amount=payment.amount,
                            side=payment.side, need=roll_needed(cards, state, attack))]


def call_off(cards: CardSet, state: GameState, cmd: CallOff) -> Result:
    """Until money is committed the attacker may change his mind: no action is spent."""
    checks.phase(state, "attack")
    attack = current_attack(state)
    if cmd.player != attack.player:
        raise IllegalCommandError(key="attacker_calls_off")
    if attack.committed:
        raise IllegalCommandError(key="money_committed")
    attacked = list(state.turn.attacked)
    for card in (attack.attacker, *attack.aids):
        attacked.reverse()
        attacked.remove(card)
        attacked.reverse()
    # A special card discarded for privilege stays discarded: only money commits an attack.
    turn = evolve(state.turn, actions=state.turn.actions - 1, attacked=tuple(attacked))
    state = evolve(state, attack=None, phase="actions", turn=turn)
    return state, [ev.CalledOff(player=cmd.player, target=attack.target)]


def roll(cards: CardSet, state: GameState, cmd: Roll) -> Result:
    checks.phase(state, "attack")
    attack = current_attack(state)
    index = state.dice.draws
    dice_rolled, dice = roll_2d6(state.dice)
    state = evolve(state, dice=dice, attack=evolve(attack, roll=dice_rolled),
                    phase="after_roll")
    return state, [ev.Rolled(player=attack.player, dice=dice_rolled, draw=index,
                             need=roll_needed(cards, state, attack))]


def settle(cards: CardSet, state: GameState, cmd: Settle) -> Result:
    """The result: capture, neutralize or destroy on success; nothing on failure."""
    checks.phase(state, "after_roll")
    attack = current_attack(state)
    assert attack.roll is not None
    terms = breakdown(cards, state, attack)
    total = attack.roll_becomes if attack.roll_becomes is not None else sum(attack.roll)
    success = succeeds(terms.need, total)
    result = ev.AttackResult(player=attack.player, attacker=attack.attacker, target=attack.target,
                             mode=attack.mode, need=terms.need, dice=attack.roll, roll=total,
                             success=success,
                             terms=tuple((t.kind, t.source, t.amount) for t in terms.terms))
    state = evolve(state, attack=None, phase="actions")
    if not success:
        return state, [result]
    if attack.mode == "control":
        state, events = _capture(cards, state, attack)
    elif attack.mode == "neutralize":
        state, events = _neutralize(state, attack)
    else:
        state, events = _destroy(state, attack)
    return state, [result, *events]


def _capture(cards: CardSet, state: GameState, attack: PendingAttack) -> Result:
    attacker = state.player(attack.player)
    owner = state.owner(attack.target)
    if owner is not None:
        moving = subtree(owner, attack.target)
        state = state.with_player(remove(owner, (s.card for s in moving)))
        kept = [evolve(s, treasury=s.treasury // 2) for s in moving]
        state = evolve(state, money_issued=state.money_issued - sum(
            s.treasury - k.treasury for s, k in zip(moving, kept, strict=True)))
        moving = kept
    else:
        moving = [Slot(card=attack.target, x=0, y=0, rotation=0, master=None)]
        state = evolve(state, uncontrolled=tuple(c for c in state.uncontrolled
                                                  if c != attack.target))
    arrows = open_arrows(cards, attacker, attack.attacker)
    if not arrows:
        # Only a game master's edit can close the arrow during the attack: the group (and
        # its puppets) cannot be placed, so it becomes uncontrolled, money to the bank.
        state = state.with_player(evolve(attacker, structure=(*attacker.structure, *moving)))
        state = release(state, attacker.name, moving)
        return state, [ev.Captured(player=attacker.name, group=attack.target,
                                   source=owner.name if owner else "", puppets=(),
                                   lost=tuple(s.card for s in moving))]
    arrow = attack.arrow if attack.arrow in arrows else arrows[0]
    placed, lost = attach(cards, attacker, attack.attacker, arrow, moving)
    state = state.with_player(placed)
    if lost:
        state = state.with_player(evolve(placed, structure=(*placed.structure, *lost)))
        state = release(state, attacker.name, lost)
    events: list[Event] = [ev.Captured(player=attacker.name, group=attack.target,
                          source=owner.name if owner else "",
                          puppets=tuple(s.card for s in moving[1:]),
                          lost=tuple(s.card for s in lost))]
    # "any or all of its treasury": fixed when announcing, so cut to what the attacking group
    # still holds after its spending.
    amount = min(attack.transfer_on_success, treasury(state, attacker.name, attack.attacker))
    if amount > 0:
        state = move_money(state, attacker.name, attack.attacker, attack.target, amount)
        events.append(ev.Transfer(player=attacker.name, source=attack.attacker, to=attack.target,
                                  amount=amount))
    return state, events


def _neutralize(state: GameState, attack: PendingAttack) -> Result:
    owner = state.owner(attack.target)
    assert owner is not None
    slots = subtree(owner, attack.target)
    state = release(state, owner.name, slots)
    return state, [ev.Neutralized(player=attack.player, source=owner.name,
                                  groups=tuple(s.card for s in slots))]


def _destroy(state: GameState, attack: PendingAttack) -> Result:
    owner = state.owner(attack.target)
    freed: tuple[str, ...] = ()
    if owner is not None:
        slots = subtree(owner, attack.target)
        state = release(state, owner.name, slots)
        freed = tuple(s.card for s in slots[1:])
    state = evolve(state, uncontrolled=tuple(c for c in state.uncontrolled
                                              if c != attack.target),
                    dead=(*state.dead, attack.target))
    p = state.player(attack.player)
    state = update_player(state, p.name, destroyed=p.destroyed + 1)
    if owner is not None and owner.name == p.name and not p.groups:
        state = evolve(state, turn=evolve(state.turn, destroyed_own_last=True))
    return state, [ev.Destroyed(player=attack.player, group=attack.target,
                                source=owner.name if owner else "", freed=freed)]


def discard(state: GameState, player: str, card: str) -> GameState:
    """The special card leaves the player's hand for the discards."""
    p = state.player(player)
    hand = list(p.hand)
    hand.remove(card)
    state = update_player(state, player, hand=tuple(hand))
    return evolve(state, discards=(*state.discards, card))


def current_attack(state: GameState) -> PendingAttack:
    """The attack under way; IllegalCommandError if there is none."""
    if state.attack is None:
        raise IllegalCommandError(key="no_attack")
    return state.attack

