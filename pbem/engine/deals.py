"""Binding deals: an exchange one player proposes to another, made at once and whole when the
other accepts, or not at all.

rulebook-en, When Is a Deal Binding?: "When two players agree to a deal, it is binding if
they make the exchange immediately." By mail one player cannot hand over their part the
moment the other hands over theirs; the engine does it for both: ``accept_deal`` makes every
transfer of the deal in one command, each by the rule that governs it alone (a group as
``accept_group`` gives it, money as ``give_money``, a special card as ``give_card``), on a copy
of the position; if any of them is refused the position stays as it was and the deal fails,
with the refusal's key for both players.

Actions are counted as the rules count them: "Each Group exchanged counts as an action for
the player whose turn it is, whichever way the Group moves"; money and special cards are
free. A deal lapses at the end of the turn it was proposed in (``lapse_deals``): groups change
hands only "if it is the turn of one of the players involved", and a price agreed on one
turn's position is not a promise for the next ("A deal is not binding if it involves an
exchange of one thing now for something in the future").
"""

from __future__ import annotations

from dataclasses import asdict

from pbem.engine import checks
from pbem.engine import events as ev
from pbem.engine.cards import CardSet
from pbem.engine.checks import ACTIONS_PER_TURN
from pbem.engine.commands import (
    AcceptDeal,
    AcceptGroup,
    DealSide,
    DeclineDeal,
    GiveCard,
    GiveMoney,
    ProposeDeal,
    WithdrawDeal,
)
from pbem.engine.events import Event
from pbem.engine.groups import accept_group
from pbem.engine.money import give_card, give_money
from pbem.engine.state import Deal, GameState, GroupOffer, Player
from pbem.engine.values import evolve
from pbem.errors import IllegalCommandError

Result = tuple[GameState, list[Event]]


def propose_deal(cards: CardSet, state: GameState, cmd: ProposeDeal) -> Result:
    """The deal is recorded for the partner's answer; nothing changes hands yet. What each
    side gives must be theirs now (it is checked again when the deal is accepted)."""
    proposer = checks.playing(state, cmd.player)
    partner = checks.playing(state, cmd.to)
    if proposer.name == partner.name:
        raise IllegalCommandError(key="deal_with_self")
    if cmd.gives.empty and cmd.takes.empty:
        raise IllegalCommandError(key="deal_empty")
    if state.attack is not None and state.attack.privileged:
        raise IllegalCommandError(key="privileged_gifts")
    if (cmd.gives.groups or cmd.takes.groups) and state.active_player.name not in (
            proposer.name, partner.name):
        raise IllegalCommandError(key="gift_turn")
    _holds(proposer, cmd.gives)
    _holds(partner, cmd.takes)
    number = state.deals_made + 1
    deal = Deal(number=number, proposer=proposer.name, partner=partner.name, gives=cmd.gives,
                takes=cmd.takes, turn=state.turn_number)
    state = evolve(state, deals=(*state.deals, deal), deals_made=number)
    return state, [ev.DealProposed(number=number, player=proposer.name, to=partner.name,
                                   gives=asdict(cmd.gives), takes=asdict(cmd.takes),
                                   visible_to=(proposer.name, partner.name))]


def accept_deal(cards: CardSet, state: GameState, cmd: AcceptDeal) -> Result:
    """The partner accepts: the whole exchange is made now, or nothing is and both are told
    why (``DealFailed``). Refused, the deal still open, while an attack or a card is under
    way: the structures may change before it is settled."""
    deal = _deal(state, cmd.number)
    if cmd.player != deal.partner:
        raise IllegalCommandError(key="deal_not_yours", number=deal.number,
                                  player=deal.partner)
    if state.attack is not None or state.special is not None:
        raise IllegalCommandError(key="deal_mid_attack", number=deal.number)
    rest = evolve(state, deals=tuple(d for d in state.deals if d.number != deal.number))
    try:
        made, events = _exchange(cards, rest, deal)
    except IllegalCommandError as why:
        return rest, [ev.DealFailed(number=deal.number, player=deal.proposer, to=deal.partner,
                                    reason=why.key or "", words=dict(why.words),
                                    visible_to=(deal.proposer, deal.partner))]
    return made, [*events, ev.DealMade(number=deal.number, player=deal.proposer,
                                       to=deal.partner, gives=asdict(deal.gives),
                                       takes=asdict(deal.takes),
                                       visible_to=(deal.proposer, deal.partner))]


def decline_deal(cards: CardSet, state: GameState, cmd: DeclineDeal) -> Result:
    """The partner says no: nothing changes hands."""
    deal = _deal(state, cmd.number)
    if cmd.player != deal.partner:
        raise IllegalCommandError(key="deal_not_yours", number=deal.number,
                                  player=deal.partner)
    return _ended(state, deal, "declined")


def withdraw_deal(cards: CardSet, state: GameState, cmd: WithdrawDeal) -> Result:
    """The proposer takes the deal back before it is accepted: it binds no one until the
    exchange is made."""
    deal = _deal(state, cmd.number)
    if cmd.player != deal.proposer:
        raise IllegalCommandError(key="deal_not_proposed", number=deal.number,
                                  player=deal.proposer)
    return _ended(state, deal, "withdrawn")


def lapse_deals(state: GameState) -> Result:
    """Every deal still unanswered lapses (called as the next player's turn is set up)."""
    events: list[Event] = []
    for deal in state.deals:
        state, more = _ended(state, deal, "lapsed")
        events += more
    return state, events


def end_deals_of(state: GameState, player: str) -> Result:
    """The deals ``player`` proposed or was offered end, as they leave play."""
    events: list[Event] = []
    for deal in state.deals:
        if player in (deal.proposer, deal.partner):
            state, more = _ended(state, deal, "gone")
            events += more
    return state, events


def _exchange(cards: CardSet, state: GameState, deal: Deal) -> Result:
    """Every transfer of the deal, each by its own rule; IllegalCommandError at the first
    that cannot be made (the caller keeps the position from before)."""
    proposer = checks.playing(state, deal.proposer)
    partner = checks.playing(state, deal.partner)
    for giver, side in ((proposer, deal.gives), (partner, deal.takes)):
        for group in side.groups:  # the first reason to tell: what is no longer theirs
            if giver.slot(group) is None:
                raise IllegalCommandError(key="giver_lost_group", giver=giver.name, group=group)
    groups = len(deal.gives.groups) + len(deal.takes.groups)
    if groups:
        if state.active_player.name not in (proposer.name, partner.name):
            raise IllegalCommandError(key="gift_turn")
        checks.phase(state, "actions")
        if state.turn.end_powers:
            raise IllegalCommandError(key="actions_after_end_powers")
        if state.turn.actions + groups > ACTIONS_PER_TURN:
            raise IllegalCommandError(key="deal_actions", groups=groups,
                                      left=ACTIONS_PER_TURN - state.turn.actions)
    events: list[Event] = []
    for giver, receiver, side in ((proposer, partner, deal.gives),
                                  (partner, proposer, deal.takes)):
        state, more = _give(cards, state, giver.name, receiver.name, side)
        events += more
    return state, events


def _give(cards: CardSet, state: GameState, giver: str, receiver: str, side: DealSide) -> Result:
    events: list[Event] = []
    for group in side.groups:
        if state.player(receiver).slot(group) is not None:
            continue  # a puppet of a group given before it: it came along
        if state.player(giver).slot(group) is None:
            raise IllegalCommandError(key="giver_lost_group", giver=giver, group=group)
        pending = state.offer
        state = evolve(state, offer=GroupOffer(giver=giver, receiver=receiver, group=group))
        state, more = accept_group(cards, state, AcceptGroup(receiver))
        state = evolve(state, offer=pending)
        events += more
    if side.money:
        state, more = give_money(cards, state, GiveMoney(giver, receiver, side.money))
        events += more
    for card in side.cards:
        state, more = give_card(cards, state, GiveCard(giver, receiver, card))
        events += more
    return state, events


def _holds(player: Player, side: DealSide) -> None:
    """``player`` has what ``side`` gives, now."""
    for group in side.groups:
        checks.owns(player, group)
        if group == player.illuminati:
            raise IllegalCommandError(key="deal_illuminati", group=group)
    if side.money < 0:
        raise IllegalCommandError(key="amount_positive")
    if side.money > player.treasury:
        raise IllegalCommandError(key="money_short", card=player.illuminati,
                                  have=player.treasury, amount=side.money)
    hand = list(player.hand)
    for card in side.cards:
        if card not in hand:
            raise IllegalCommandError(key="not_held_by", player=player.name, card=card)
        hand.remove(card)


def _deal(state: GameState, number: int) -> Deal:
    for deal in state.deals:
        if deal.number == number:
            return deal
    raise IllegalCommandError(key="no_deal", number=number)


def _ended(state: GameState, deal: Deal, how: str) -> Result:
    state = evolve(state, deals=tuple(d for d in state.deals if d.number != deal.number))
    return state, [ev.DealEnded(number=deal.number, player=deal.proposer, to=deal.partner,
                                how=how, visible_to=(deal.proposer, deal.partner))]
