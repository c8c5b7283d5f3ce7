"""Seats played by a bot (the GM's stand-in for a dropped player) play by mail too.

The bot reads the mails its seat is sent, exactly as a person would, and answers with an
order mail that goes through the normal intake: the inbox, authentication, the order
language, the acknowledgement. So a bot can do nothing a player could not, and the log
shows its orders like anyone's.

The bot needs a password its mail can carry, and the store keeps no password in clear. When
a bot takes a seat the seat gets a new password nobody is told (the dropped player's old
password stops working); then, in each step that mails the bot, the bot gets a one-time
password of its own for its answer, made there, whose hash the record keeps
(``Seat.bot_keys``, the last ``BOT_KEYS_KEPT``: answers still waiting in the inbox keep
working) and whose clear form lives only in memory until the bot's mail is written, and in
that mail (masked once it is processed). When the GM gives the seat back, it gets yet
another password, mailed to the seat's address like a welcome, and the keys are forgotten.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace

from pbem.bots import LEVELS, Level, mailbots
from pbem.engine.cards import CardSet
from pbem.engine.commands import DropGroup, GiveCard, GiveMoney, OfferGroup, WithdrawOffer
from pbem.engine.view import View
from pbem.orders.model import (
    AttackOrder,
    ConditionalPlay,
    InterfereOrder,
    NoResponse,
    Order,
    StandingAttackReaction,
    StandingClear,
    StandingDefend,
    StandingNeverInterfere,
    StandingTurnReaction,
)
from pbem.service.auth import KEY_COST, hash_password
from pbem.service.model import Seat
from pbem.service.notice_mails import welcome_settings
from pbem.service.notices import ResponseRequest, StatusReport, Welcome
from pbem.service.settings import MailIdentity
from pbem.service.table import Table
from pbem.store import OutboxItem

BOT_KEYS_KEPT = 4
"""One-time passwords of a bot seat that still work: its latest answers' (see above)."""


def upkeep(table: Table, new_password: Callable[[str], str], cost: int) -> None:
    """New bot seats get a password nobody is told and are shown where the game stands;
    seats given back to a person get a fresh password by mail. ``new_password(player)``
    makes one."""
    for seat in table.service.seats:
        if seat.bot and seat.bot_password and not seat.bot_keys:
            # A record of a store of version 3 kept the bot's password in clear: its hash
            # (the seat's) is the bot's first key, and the clear one is forgotten.
            _set(table, replace(seat, bot_password="", bot_keys=(seat.password_hash,)))
        elif seat.bot and not seat.bot_keys:
            password_hash = hash_password(new_password(seat.name), cost=cost)
            _set(table, replace(seat, bot_keys=(password_hash,), password_hash=password_hash))
            prompt(table, seat.name)
        elif not seat.bot and seat.away_hash:  # back from an absence: their own password
            _set(table, replace(seat, bot_password="", bot_keys=(),
                                password_hash=seat.away_hash, away_hash=""))
        elif not seat.bot and (seat.bot_keys or seat.bot_password):
            password = new_password(seat.name)
            _set(table, replace(seat, bot_password="", bot_keys=(),
                                password_hash=hash_password(password, cost=cost)))
            settings = welcome_settings(table.service.timing, table.service.house)
            table.notify(Welcome(seat.name, password, settings))


def answer_keys(table: Table, mailed: Collection[str],
                new_key: Callable[[str], str]) -> dict[str, str]:
    """Give a one-time password for the answer of each bot seat among ``mailed`` (the
    seats a step mailed), by seat; the record keeps its hash (a cheap one: the key has 128
    random bits, ``pbem.service.auth.KEY_COST``)."""
    made = {}
    for seat in table.service.seats:
        if seat.bot and seat.bot_keys and seat.name in mailed:
            password = new_key(seat.name)
            keys = (*seat.bot_keys, hash_password(password, cost=KEY_COST))[-BOT_KEYS_KEPT:]
            _set(table, replace(seat, bot_keys=keys))
            made[seat.name] = password
    return made


def prompt(table: Table, player: str) -> None:
    """The mail that asks ``player`` to act now, if the game waits for them."""
    state, window = table.state, table.service.window
    if state.phase == "over" or not state.player(player).playing:
        return
    if window is not None:
        if player in window.asked and not window.answered(player):
            table.notify(ResponseRequest(player))
    elif (state.active_player.name == player and table.may_act_now(player)) or (
            state.offer is not None and state.offer.receiver == player):
        table.notify(StatusReport(player))


def replies(cards: CardSet, game: str, seats: Sequence[Seat],
            sent: Sequence[tuple[str, OutboxItem]], sender: MailIdentity,
            passwords: Mapping[str, str]) -> list[bytes]:
    """The order mails the bot seats write in answer to the mails of one step, each with
    the one-time password ``answer_keys`` made for it (``passwords``, by seat)."""
    out: list[bytes] = []
    for seat in seats:
        password = passwords.get(seat.name)
        if not (seat.bot and password):
            continue
        received = [item.raw for to, item in sent if to == seat.name]
        if not received:
            continue
        bot = mailbots.BotSeat(game=game, player=seat.name, password=password,
                               address=seat.address, service_address=sender.address,
                               level=level_of(seat))
        raw = decide(cards, bot, received, stand_in=bool(seat.away_hash))
        if raw is not None:
            out.append(raw)
    return out


def decide(cards: CardSet, bot: mailbots.BotSeat, received: Sequence[bytes],
           stand_in: bool = False) -> bytes | None:
    """The order mail a bot seat sends after ``received`` (oldest first), as
    ``pbem.bots.mailbots.decide`` writes it, less the orders that would cost the seat its
    last group (``keeps_a_group``) and, for a bot standing in for an absent player
    (``stand_in``), those the player would not want (``as_the_player_would``); None when
    nothing is asked of it."""
    for raw in reversed(received):
        v = mailbots.read_view(raw)
        if v is None or v.viewer != bot.player:
            continue
        orders = keeps_a_group(v, mailbots.orders_for(cards, v, bot.level))
        if stand_in:
            orders = as_the_player_would(v, orders)
        if orders:
            return mailbots.order_mail(bot, v.seq, orders, raw)
    return None


def keeps_a_group(v: View, orders: Sequence[Order]) -> list[Order]:
    """``orders`` without those that would leave the seat no group but its Illuminati: a
    bot standing in for a player never drops, gives away or attacks to destroy its last
    group (nor the master of all it holds), so its play cannot get the seat eliminated
    (docs/service.md, "Absences"). The Servants of Cthulhu may still destroy it when that
    is their eighth group destroyed: they win so (rulebook-en, "Eliminating a Player").
    The card played if such an attack fails goes with it."""
    me = next(p for p in v.players if p.name == v.viewer)
    masters = {c.card: c.master for c in me.structure[1:]}
    held = set(masters)
    wins = any(g.kind == "destroyed" and g.have is not None and g.need is not None
               and g.have + 1 >= g.need for g in me.goals)
    kept: list[Order] = []
    skipping = False
    for order in orders:
        if skipping and isinstance(order, ConditionalPlay):
            continue
        skipping = False
        lost = LOSES.get(type(order), _nothing)(order)
        if lost in held:
            gone = _with_puppets(lost, masters) & held
            if held <= gone and not (wins and isinstance(order, AttackOrder)):
                skipping = True
                continue
            held -= gone
        kept.append(order)
    return kept


RESERVE = 0.5  # the share of the Illuminati treasury a stand-in keeps for defence
# Orders a stand-in never writes: its player's standing orders stay as they left them, and
# nothing of theirs is given away (a group, money, a card) nor spent on others' attacks.
NOT_IN_THEIR_NAME: tuple[type, ...] = (
    StandingClear, StandingTurnReaction, StandingDefend, StandingNeverInterfere,
    StandingAttackReaction, OfferGroup, WithdrawOffer, GiveMoney, GiveCard, InterfereOrder)


def as_the_player_would(v: View, orders: Sequence[Order]) -> list[Order]:
    """``orders`` as a bot standing in for an absent player may give them (docs/service.md,
    "Absences"): the player's standing orders kept, no gift of a group, money or card, no
    money spent for or against another player's attack, and each attack's money capped so
    that the Illuminati keep ``RESERVE`` of their treasury to defend with. An answer left
    with no order is ``NO RESPONSE``."""
    me = next(p for p in v.players if p.name == v.viewer)
    treasury = {c.card: c.treasury or 0 for c in me.structure}
    spare = int((treasury.get(me.illuminati, 0)) * (1 - RESERVE))
    kept: list[Order] = []
    for order in orders:
        if isinstance(order, NOT_IN_THEIR_NAME):
            continue
        if isinstance(order, AttackOrder):
            most = treasury.get(order.attack.attacker, 0) + spare
            spend = min(order.spend, most)
            order = replace(order, spend=spend, upto=min(order.upto, most - spend))
        kept.append(order)
    if not kept and orders:
        return [NoResponse()] if v.phase == "attack" else []
    return kept


def _with_puppets(group: str, masters: dict[str, str]) -> set[str]:
    """``group`` and every group below it in the structure."""
    out = {group}
    while more := {g for g, m in masters.items() if m in out} - out:
        out |= more
    return out


def _nothing(order: Order) -> str:
    return ""


def _attacked(order: Order) -> str:
    assert isinstance(order, AttackOrder)
    return order.attack.target if order.attack.mode != "control" else ""


def _given_up(order: Order) -> str:
    assert isinstance(order, DropGroup | OfferGroup)
    return order.group


# The group of its own an order takes out of the writer's structure, by the order's type.
LOSES: dict[type, Callable[[Order], str]] = {
    AttackOrder: _attacked, DropGroup: _given_up, OfferGroup: _given_up}


def level_of(seat: Seat) -> Level:
    """The seat's bot level (a record from before levels, or a stray value: normal)."""
    return next((level for level in LEVELS if level == seat.bot_level), "normal")


def _set(table: Table, seat: Seat) -> None:
    seats = tuple(seat if s.name == seat.name else s for s in table.service.seats)
    table.service = replace(table.service, seats=seats)
