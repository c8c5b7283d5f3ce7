"""Bot players that play by mail: they read their reports and write order mails.

A mail-bot knows only what its player's mail tells it: the JSON view attached to its turn
report or to a request for an answer. From that view it rebuilds a *belief*
(``pbem.bots.belief``): a ``GameState`` where what the player cannot see (other hands and
treasuries, the deck, the dice) is filled with neutral values and only its own secrets are
real. It decides with ``pbem.bots.play`` at the seat's level, the same logic as ``pbem
simulate``, and writes the order mail a person would: the start line with game, player,
password and STEP, order lines, END.

``decide`` gives the mail for one seat; ``MailBot`` wraps it for a transport that hands mail
over as bytes (``pbem.service.bot_games`` plays whole games of them through the service).
The service itself uses ``decide`` for seats a bot stands in for.
"""

from __future__ import annotations

import email
import email.message
import email.policy
import email.utils
import hashlib
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from pbem import bots
from pbem.bots import play
from pbem.bots.belief import belief
from pbem.engine import behaviour
from pbem.engine.cards import CardSet
from pbem.engine.codec import from_json
from pbem.engine.commands import (
    Attack,
    Command,
    DeclineGroup,
    EndPowers,
    EndTurn,
    Interfere,
    Pass,
    PlaySpecial,
    ResolveSpecial,
    TransferMoney,
    WithdrawOffer,
)
from pbem.engine.rules import apply
from pbem.engine.state import (
    GameState,
)
from pbem.engine.view import View
from pbem.errors import IllegalCommandError
from pbem.orders.format import format_order
from pbem.orders.lexer import quote_name
from pbem.orders.model import (
    AttackOrder,
    ConditionalPlay,
    DefendOrder,
    InterfereOrder,
    NoResponse,
    Order,
    SetJson,
    StandingClear,
    StandingTurnReaction,
)

MAX_LINES = 6  # orders a bot writes in one turn's mail, far more than two actions need
SENATE_LEAD = 0.75  # play the Senate on a player this close to winning (as pbem.bots)


@dataclass(frozen=True)
class BotSeat:
    """What a bot needs to write its player's mail."""

    game: str
    player: str
    password: str
    address: str  # the seat's registered address: the bot's mail comes from it
    service_address: str  # where order mail goes
    level: bots.Level = "normal"


# --- reading mail ---------------------------------------------------------------------------


def read_view(raw: bytes) -> View | None:
    """The player's view attached to one of our mails (turn report, request), if any."""
    # compat32 (the default) reads several times faster than policy.default, and a bot
    # needs no more than the parts' names and bytes.
    message = email.message_from_bytes(raw)
    for part in message.walk():
        name = part.get_filename() or ""
        if part.get_content_type() == "application/json" and name.startswith("view-"):
            payload = part.get_payload(decode=True)
            if isinstance(payload, bytes):
                value: View = from_json(View, json.loads(payload))
                return value
    return None


# --- deciding -------------------------------------------------------------------------------


def decide(cards: CardSet, seat: BotSeat, received: Sequence[bytes]) -> bytes | None:
    """The order mail the bot sends after ``received`` (oldest first), or None.

    It answers the latest mail that asks it to act: a report showing its turn, a request
    for an answer to an attack, a group offered to it.
    """
    for raw in reversed(received):
        v = read_view(raw)
        if v is None or v.viewer != seat.player:
            continue
        orders = orders_for(cards, v, seat.level)
        if orders and v.active == seat.player and v.phase == "actions":
            # The bot reads the view attached (read_view), which the service attaches late
            # in a game only to who asks (reports.mails.JSON_SMALL): its turn's mail asks.
            orders = [SetJson(True), *orders]
        if orders:
            return order_mail(seat, v.seq, orders, raw)
    return None


def orders_for(cards: CardSet, v: View, level: bots.Level = "normal") -> list[Order]:
    """What the bot orders, seeing ``v`` (empty when nothing is asked of it)."""
    me = v.viewer
    state = belief(cards, v)
    rng = random.Random(f"{v.game}:{me}:{v.seq}")
    if v.attack is not None and v.phase == "attack":
        return [] if v.attack.player == me else _answer(cards, state, me, rng, level)
    if v.offer is not None and v.offer[1] == me:
        return [DeclineGroup(me)]
    if v.active == me and v.phase == "actions":
        # Gifts drawn apart, so the other choices of a turn without one stay as they were.
        return _turn(cards, state, me, rng, random.Random(f"{v.game}:{me}:{v.seq}:gifts"),
                     level)
    return []


def _answer(cards: CardSet, state: GameState, me: str, rng: random.Random,
            level: bots.Level = "normal") -> list[Order]:
    """Money against (or for) the attack, as ``pbem.bots`` would, and Murphy's Law."""
    attack = state.attack
    assert attack is not None
    orders: list[Order] = []
    stance = play.response(cards, state, me, level, rng)
    if stance is not None and stance.side == "defense":
        orders.append(DefendOrder(stance.fixed, upto=stance.upto - stance.fixed))
    elif stance is not None and stance.side == "assist":
        orders.append(InterfereOrder(Interfere(me, stance.fixed, "assist"),
                                     upto=stance.upto - stance.fixed))
    elif stance is not None and stance.side == "interfere":
        orders.append(InterfereOrder(Interfere(me, stance.fixed, "interfere"),
                                     upto=stance.upto - stance.fixed))
    murphy = bots.held_where(cards, state.player(me).hand, bots.stops_a_success)
    if murphy and bots.murphy_wanted(cards, state, me):
        orders.append(ConditionalPlay("succeeds", PlaySpecial(me, murphy)))
    return orders or [NoResponse()]


def _turn(cards: CardSet, state: GameState, me: str, rng: random.Random,
          gifts: random.Random, level: bots.Level = "normal") -> list[Order]:
    """A whole turn in one mail: cards, up to two actions, then END TURN (or PASS); now and
    then a group offered too, written after the actions, or offered and withdrawn at once."""
    orders: list[Order] = _standing(cards, state, me)
    gift = bots.choose_gift(cards, state, me, gifts, level)
    if gift is not None and bots.takes_back(gifts):
        # Written first: WITHDRAW OFFER is carried out as it is read, so it must not follow
        # an attack the offer would wait behind.
        orders += [gift, WithdrawOffer(me)]
        gift = None
    attacked = False
    for _ in range(MAX_LINES):
        choice = play.Choice(bots.special_action(cards, state, me) or EndTurn(me))
        if isinstance(choice.command, EndTurn):
            choice = play.action(cards, state, me, level, rng)
        command = choice.command
        if isinstance(command, Pass):  # only offered before anything was done
            return [*orders, command]
        if isinstance(command, EndTurn) or (attacked and isinstance(command, EndPowers)):
            break  # the money an attack of this mail leaves is not known when it is written
        if isinstance(command, Attack):
            orders.append(AttackOrder(command, spend=choice.spend,
                                      upto=max(0, choice.upto - choice.spend)))
            hand = state.player(me).hand
            assassination = bots.held_where(cards, hand, bots.saves_a_failure)
            if not attacked and assassination:
                # Read with the attack just written: played only if its roll fails.
                orders.append(ConditionalPlay("fails", PlaySpecial(me, assassination)))
            attacked = True
            state = _attacked(state, command)
        else:
            orders.append(command)  # type: ignore[arg-type]
            state = _after(cards, state, command)
    if gift is not None and state.turn.actions < 2:
        orders.append(gift)  # its answer waits for the attacks, END TURN for the answer
    return [*orders, EndTurn(me)]


def _standing(cards: CardSet, state: GameState, me: str) -> list[Order]:
    """Start-of-turn cards as standing orders, renewed each turn from the hand held."""
    hand = state.player(me).hand
    orders: list[Order] = []
    market = bots.held_where(cards, hand, behaviour.on_own_turn)
    if market and len(state.player(me).structure) >= 4:
        orders.append(StandingTurnReaction(market, me))
    senate = bots.held_where(cards, hand, behaviour.takes_a_turn)
    if senate:
        for p in state.players:
            if p.name != me and p.playing and bots.leader_score(cards, state, p) > SENATE_LEAD:
                orders.append(StandingTurnReaction(senate, p.name))
    return [StandingClear(), *orders] if orders else []


def _attacked(state: GameState, attack: Attack) -> GameState:
    """The belief after announcing an attack whose outcome is not known yet: the action and
    the attacking cards are used, the target is no longer on offer."""
    turn = replace(state.turn, actions=state.turn.actions + 1, did_anything=True,
                   attacked=(*state.turn.attacked, attack.attacker, *attack.aids))
    return replace(state, turn=turn,
                   uncontrolled=tuple(g for g in state.uncontrolled if g != attack.target))


def _after(cards: CardSet, state: GameState, command: Command) -> GameState:
    """The belief after a command whose effect needs no dice (a transfer, a card)."""
    try:
        state, _ = apply(state, command, cards)
        if state.special is not None:
            state, _ = apply(state, ResolveSpecial(), cards)
    except IllegalCommandError:
        pass
    if isinstance(command, PlaySpecial | TransferMoney):
        state = replace(state, turn=replace(state.turn, did_anything=True))
    return state


# --- writing mail ---------------------------------------------------------------------------


def order_mail(seat: BotSeat, seq: int, orders: Sequence[Order], answering: bytes) -> bytes:
    """The order mail as a person would send it, in reply to ``answering``."""
    prompt = email.message_from_bytes(answering, policy=email.policy.default)
    subject = " ".join(str(prompt.get("Subject", seat.game)).split())
    lines = [f"GAME {seat.game} PLAYER {quote_name(seat.player)} PASSWORD {seat.password} "
             f"STEP {seq}", *(format_order(o) for o in orders), "END"]
    body = "\n".join(lines) + "\n"
    mail = email.message.EmailMessage(policy=email.policy.SMTP)
    mail["From"] = email.utils.formataddr((seat.player, seat.address))
    mail["To"] = seat.service_address
    mail["Subject"] = f"Re: {subject}"
    replied = str(prompt.get("Message-ID", "")).strip()
    digest = hashlib.sha256(f"{replied}\0{body}".encode()).hexdigest()[:24]
    domain = seat.address.rpartition("@")[2] or "bots.invalid"
    mail["Message-ID"] = f"<bot-{digest}@{domain}>"
    if replied:
        mail["In-Reply-To"] = replied
    if prompt.get("Date"):
        mail["Date"] = str(prompt["Date"])
    mail.set_content(body, charset="utf-8")
    return mail.as_bytes()


class MailBot:
    """One seat's bot behind a transport: mail in as bytes, its order mails out."""

    def __init__(self, cards: CardSet, seat: BotSeat, deliver: Callable[[bytes], None]) -> None:
        self.cards = cards
        self.seat = seat
        self.deliver = deliver

    def receive(self, mails: Sequence[bytes]) -> bool:
        """Read mails addressed to the seat; send the order mail they call for. True when
        one was sent."""
        raw = decide(self.cards, self.seat, mails)
        if raw is None:
            return False
        self.deliver(raw)
        return True


# --- a whole game ---------------------------------------------------------------------------
