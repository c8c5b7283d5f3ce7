"""Money between groups and between players, and special cards given away."""

from __future__ import annotations

from pbem.engine import checks
from pbem.engine.abilities import abilities
from pbem.engine.cards import CardSet
from pbem.engine.commands import GiveCard, GiveMoney, TransferMoney
from pbem.engine.ops import earn, move_money, pay, update_player
from pbem.engine.state import Event, GameState, Player
from pbem.engine.values import evolve
from pbem.errors import IllegalCommandError

Result = tuple[GameState, list[Event]]


def transfer_money(cards: CardSet, state: GameState, cmd: TransferMoney) -> Result:
    """Money between two groups: adjacent (or anywhere with the Federal Reserve or the Gnomes'
    end-of-turn power); two free transfers a turn, more as regular actions."""
    checks.phase(state, "actions")
    p = checks.active(state, cmd.player)
    checks.owns(p, cmd.source)
    checks.owns(p, cmd.dest)
    if cmd.source == cmd.dest:
        raise IllegalCommandError(key="transfer_same_card")
    gnomes = state.turn.end_powers and "gnomes_money" in abilities(cards, p.illuminati).special
    anywhere = gnomes or "federal_reserve" in abilities(cards, cmd.source).special
    if not anywhere and not _adjacent(p, cmd.source, cmd.dest):
        raise IllegalCommandError(key="not_adjacent", source=cmd.source, dest=cmd.dest)
    turn = state.turn
    if gnomes:
        pass
    elif turn.end_powers:
        raise IllegalCommandError(key="transfers_after_end_powers")
    elif turn.free_transfers < checks.FREE_TRANSFERS:
        turn = evolve(turn, free_transfers=turn.free_transfers + 1)
    else:
        checks.action_left(state, cmd.player)
        turn = evolve(turn, actions=turn.actions + 1)
    state = move_money(state, p.name, cmd.source, cmd.dest, cmd.amount)
    state = evolve(state, turn=evolve(turn, did_anything=True))
    return state, [Event("transfer", {"player": p.name, "from": cmd.source, "to": cmd.dest,
                                      "amount": cmd.amount})]


def _adjacent(player: Player, a: str, b: str) -> bool:
    sa, sb = player.slot(a), player.slot(b)
    return sa is not None and sb is not None and (sa.master == b or sb.master == a)


def give_money(cards: CardSet, state: GameState, cmd: GiveMoney) -> Result:
    """Money from one Illuminati treasury to another's, at any time but a privileged attack."""
    giver = checks.playing(state, cmd.player)
    receiver = checks.playing(state, cmd.to)
    _no_privileged_attack(state)
    if giver.name == receiver.name:
        raise IllegalCommandError(key="gift_to_self")
    if cmd.amount <= 0:
        raise IllegalCommandError(key="amount_positive")
    state = pay(state, giver.name, giver.illuminati, cmd.amount)
    state = earn(state, receiver.name, receiver.illuminati, cmd.amount)
    state = _mark_free_action(state, cmd.player)
    return state, [Event("gift_money", {"player": giver.name, "to": receiver.name,
                                        "amount": cmd.amount})]


def give_card(cards: CardSet, state: GameState, cmd: GiveCard) -> Result:
    """A special card from one hand to another player's, at any time but a privileged
    attack."""
    giver = checks.playing(state, cmd.player)
    receiver = checks.playing(state, cmd.to)
    _no_privileged_attack(state)
    if giver.name == receiver.name:
        raise IllegalCommandError(key="card_to_self", card=cmd.card)
    if cmd.card not in giver.hand:
        raise IllegalCommandError(key="not_held_by", player=giver.name, card=cmd.card)
    if giver.hand.count(cmd.card) <= pending_copies(state, giver.name, cmd.card):
        raise IllegalCommandError(key="card_pending", card=cmd.card)
    hand = list(giver.hand)
    hand.remove(cmd.card)
    state = update_player(state, giver.name, hand=tuple(hand))
    # The receiver's hand as it is now, not as read before the card left the giver's.
    state = update_player(state, receiver.name,
                          hand=(*state.player(receiver.name).hand, cmd.card))
    state = _mark_free_action(state, cmd.player)
    return state, [
        Event("gift_card", {"player": giver.name, "to": receiver.name, "card": cmd.card},
              visible_to=(giver.name, receiver.name)),
        Event("gift_card_count", {"player": giver.name, "to": receiver.name}),
    ]


def pending_copies(state: GameState, player: str, card: str) -> int:
    """How many copies of ``card`` in ``player``'s hand were just played and still wait for
    an answer (they stay in the hand until then)."""
    pending = state.special
    if pending is None or pending.player != player:
        return 0
    return (pending.card, pending.partner).count(card)


def _no_privileged_attack(state: GameState) -> None:
    if state.attack is not None and state.attack.privileged:
        raise IllegalCommandError(key="privileged_gifts")


def _mark_free_action(state: GameState, player: str) -> GameState:
    if state.phase in ("actions", "attack", "after_roll") and state.active_player.name == player:
        return evolve(state, turn=evolve(state.turn, did_anything=True))
    return state
