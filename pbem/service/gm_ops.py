"""The game master's overrides of one game during one step, carried out through a ``Table``.

What changes the game itself is an engine command (``GmSetMoney``, ``GmMoveCard``,
``GmRenamePlayer``, ``GmRemovePlayer``, ``GmEndGame``), so the log replays it. What changes
only the service's record (a pause, a deadline, a seat's address or bot flag) is a GM entry
in the log (``Table.record``, see ``pbem.service.entries``), which replay skips. Every
override is announced to the players by mail, in each one's language.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from pbem.engine.commands import (
    GmEndGame,
    GmMoveCard,
    GmRemovePlayer,
    GmRenamePlayer,
    GmSetMoney,
)
from pbem.engine.events import Event, GmRename
from pbem.engine.state import GameState
from pbem.errors import IllegalCommandError
from pbem.orders.lexer import RESERVED
from pbem.orders.model import StandingAttackReaction, StandingTurnReaction
from pbem.service.deadlines import offer_due, past_reminders_sent
from pbem.service.entries import GmEvent
from pbem.service.model import GameService, Seat, iso, parse_iso
from pbem.service.notices import GmNews
from pbem.service.table import Table

GM = "gm"  # the ``player`` of the game master's engine commands
_NAME = re.compile(r"[^\W\d_][\w.'-]*( [\w.'-]+)*")
_WHOLE_NAMES = ("all", "any", "anyone", "card", "me", GM)


def tell_players(table: Table, events: Sequence[Event] = (), gm: GmEvent | None = None,
                 also: Iterable[str] = ()) -> None:
    """Tell every player still sent reports (and ``also``) what the game master did: the
    override's engine ``events`` and its GM entry ``gm``, each put in the reader's language."""
    extra = set(also)
    for p in table.state.players:
        if not p.departed or p.name in extra:
            table.notify(GmNews(p.name, tuple(events), gm))


# --- changes to the game: engine commands ----------------------------------------------------


def set_money(table: Table, card: str, amount: int, reason: str) -> list[Event]:
    """Set the money on a card of a power structure; gives the logged events."""
    return table.do(GmSetMoney(GM, card, amount, reason))


def move_card(table: Table, card: str, place: str, reason: str) -> list[Event]:
    """Put a group or special card in ``place``; gives the logged events."""
    return table.do(GmMoveCard(GM, card, place, reason))


def end_game(table: Table, winners: Sequence[str], reason: str) -> list[Event]:
    """End the game now (``GmEndGame``), won by ``winners`` or by no one; between attacks
    only."""
    if table.service.window is not None:
        raise IllegalCommandError(
            "a game can be ended only between attacks",
            suggestion="wait until the attack under way is settled (pbem preview shows when)")
    events = table.do(GmEndGame(GM, tuple(winners), reason))
    table.service = replace(table.service, queue=(), deadline="", offer_deadline="")
    return events


def remove_seat(table: Table, seat: str, reason: str = "") -> list[Event]:
    """The game master takes the player out of the game (``GmRemovePlayer``), between
    attacks only; gives the logged events, the removal and its reason first."""
    player = table.state.player(seat)
    if not player.playing:
        raise IllegalCommandError(f"{seat} is no longer playing", text=seat)
    if table.state.attack is not None or table.service.window is not None:
        raise IllegalCommandError(
            "a player can be removed only between attacks",
            suggestion="wait until the attack under way is settled (pbem preview shows when)")
    if table.state.active_player.name == seat:
        table.service = replace(table.service, queue=())
    events = table.do(GmRemovePlayer(GM, seat, reason))
    table.service = _with_seat(table.service, seat, bot=False, bot_password="")
    return events


def rename_seat(table: Table, seat: str, name: str, reason: str = "") -> list[Event]:
    """The seat is called ``name`` from now on, in the game (``GmRenamePlayer``) and in the
    service's record (seat, standing orders); between attacks only."""
    name = " ".join(name.split())
    taken = [p.name for p in table.state.players if p.name != seat]
    problem = name_problem(name, taken, table.cards.names())
    if problem:
        raise IllegalCommandError(problem, text=name,
                                  suggestion="choose a name of letters and digits, like Dee")
    if table.state.attack is not None or table.service.window is not None or (
            table.service.queue or table.state.special is not None):
        raise IllegalCommandError(
            "a seat can be renamed only between attacks",
            suggestion="wait until the attack under way is settled (pbem preview shows when)")
    if name == seat:
        return []
    events = table.do(GmRenamePlayer(GM, seat, name, reason))
    table.service = _renamed(table.service, seat, name)
    return events


def _renamed(service: GameService, seat: str, name: str) -> GameService:
    """The service's record with ``seat`` called ``name`` (seat and standing orders)."""

    def new(who: str) -> str:
        return name if who == seat else who

    standing = []
    for player, order in service.standing:
        if isinstance(order, StandingAttackReaction):
            order = replace(order, attacker=new(order.attacker))
        elif isinstance(order, StandingTurnReaction):
            order = replace(order, player=new(order.player))
        standing.append((new(player), order))
    return replace(_with_seat(service, seat, name=name), standing=tuple(standing))


def name_problem(name: str, taken: Iterable[str], cards: Iterable[str]) -> str:
    """Why ``name`` cannot be a player's name in this game, as a sentence; "" if it can.

    A name must read back in every order: letters first, no keyword of the order language,
    no card's name, and no other player's name (in any case).
    """
    words = name.casefold().split()
    if not name or len(name) > 30 or not _NAME.fullmatch(name):
        return (f"{name!r} cannot be a player's name: it must begin with a letter and hold "
                "only letters, digits, spaces and . ' - (30 at most)")
    if any(w in RESERVED for w in words) or name.casefold() in _WHOLE_NAMES:
        return f"{name!r} cannot be a player's name: it holds a word of the order language"
    if name.casefold() in {c.casefold() for c in cards}:
        return f"{name!r} cannot be a player's name: it is the name of a card"
    if name.casefold() in {t.casefold() for t in taken}:
        return f"the name {name} is already used in this game"
    return ""


# --- changes to the service's record ---------------------------------------------------------


def replace_seat(table: Table, seat: str, address: str, password_hash: str) -> None:
    """Someone new sits in ``seat``: new address and password, no misses, no bot."""
    if not table.state.player(seat).playing:
        raise IllegalCommandError(f"{seat} is no longer playing",
                                  suggestion="only a seat still in the game can be replaced")
    table.service = _with_seat(table.service, seat, address=address.lower(),
                               password_hash=password_hash, misses=0, bot=False,
                               bot_password="")


def pause(table: Table) -> None:
    """Deadlines stop until the game is resumed."""
    if table.service.paused:
        raise IllegalCommandError("the game is already paused")
    table.service = replace(table.service, paused=True)


def resume(table: Table, paused_at: datetime | None) -> timedelta:
    """Deadlines run again, moved later by the time the game was paused; gives that time."""
    if not table.service.paused:
        raise IllegalCommandError("the game is not paused")
    stopped = max(timedelta(0), table.now - paused_at) if paused_at else timedelta(0)
    table.service = replace(_shifted(table.service, stopped), paused=False)
    return stopped


def extend(table: Table, hours: float) -> str:
    """Move the running deadline later; gives the new deadline (ISO): the response
    window's, else the orders'. Reminders are sent again for the new deadline, those whose
    time is still ahead: the mail telling the extension stands for any already past
    (``past_reminders_sent``), so that no reminder follows it at once.

    With a group offered and unanswered, the answer's deadline (``offer_due``) moves by
    ``hours``, and so does the orders deadline: the giver's turn waits for the answer, so
    the time given to the receiver would otherwise be taken from the giver, and the orders
    deadline, which ends the turn and the offer with it, would cap the answer's.
    """
    service = table.service
    by = timedelta(hours=hours)
    if service.window is not None:
        deadline = iso(parse_iso(service.window.deadline) + by)
        window = replace(service.window, deadline=deadline, reminded=())
        table.service = past_reminders_sent(table.state, replace(service, window=window),
                                            table.now)
        return deadline
    if not service.deadline:
        raise IllegalCommandError("no deadline is running in this game",
                                  suggestion="a deadline runs once the game has started")
    due = offer_due(table.state, service)
    if due is not None:
        service = replace(service, offer_deadline=iso(due + by), offer_reminded=False)
    deadline = iso(parse_iso(service.deadline) + by)
    table.service = past_reminders_sent(table.state,
                                        replace(service, deadline=deadline, reminded=()),
                                        table.now)
    return deadline


def rolled_back(service: GameService, state: GameState, length: int, now: datetime,
                cut: Sequence[Event] = ()) -> GameService:
    """The service record to go with ``state`` after a rollback that cut off the steps
    whose events are ``cut``.

    Seats, timing, standing orders and the pause stay; what belonged to the steps cut off
    (the response window, queued orders, reminders) goes, and a seat renamed in them gets
    its old name back (whoever plays it now goes on playing it); the orders deadline is a
    full period from now, or the one given before if that is later. ``steps`` is kept so the
    names of the mails sent from now on never repeat those of mails already sent.

    A group offer pending at ``state`` gets its answer's deadline the same way: a full
    response period from now, or the one given before if later, and its reminder is due
    again; with no offer pending, no answer's deadline or reminder is kept (one from the
    steps cut off would outlive its offer).
    """
    if state.attack is not None or state.special is not None:
        raise IllegalCommandError("the game cannot be rolled back into the middle of an attack "
                                  "or of a special card being played")
    for event in reversed(cut):
        if isinstance(event, GmRename):
            service = _renamed(service, event.new, event.old)
    deadline = ""
    if state.phase == "actions":
        fresh = now + timedelta(hours=service.timing.orders_hours)
        deadline = iso(max(fresh, parse_iso(service.deadline)) if service.deadline else fresh)
    offer_deadline = ""
    if state.offer is not None:
        fresh = now + timedelta(hours=service.timing.response_hours)
        offer_deadline = iso(max(fresh, parse_iso(service.offer_deadline))
                             if service.offer_deadline else fresh)
    return replace(
        service, window=None, queue=(), reminded=(), turn_seq=state.seq, deadline=deadline,
        reported=min(service.reported, length), offer_deadline=offer_deadline,
        offer_reminded=False,
    )


def at_rest(state: GameState) -> bool:
    """True when no attack or special card is under way: a point a rollback may go to."""
    return state.attack is None and state.special is None


def _shifted(service: GameService, by: timedelta) -> GameService:
    """The record with every deadline (the orders', a window's, a group offer's) ``by``
    later."""
    if not by:
        return service

    def later(moment: str) -> str:
        return iso(parse_iso(moment) + by) if moment else ""

    window = service.window
    if window is not None:
        window = replace(window, deadline=later(window.deadline))
    return replace(service, deadline=later(service.deadline), window=window,
                   offer_deadline=later(service.offer_deadline))


def _with_seat(service: GameService, seat: str, **changes: Any) -> GameService:
    service.seat(seat)  # KeyError names an unknown seat
    seats: list[Seat] = [replace(s, **changes) if s.name == seat else s for s in service.seats]
    return replace(service, seats=tuple(seats))
