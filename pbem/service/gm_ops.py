"""The game master's overrides of one game during one step, carried out through a ``Table``.

What changes the game itself is an engine command (``GmSetMoney``, ``GmMoveCard``,
``LeaveGame``), so the log replays it. What changes only the service's record (a pause, a
deadline, a seat's address or bot flag) is a ``GmEvent`` kept in the game's meta record, so
the history can show it. Every override is announced to the players by mail.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from pbem.engine.codec import from_json, to_json
from pbem.engine.commands import GmMoveCard, GmSetMoney, LeaveGame
from pbem.engine.state import Event, GameState
from pbem.errors import IllegalCommandError
from pbem.render import environment
from pbem.service.model import GameService, Seat, iso, parse_iso
from pbem.service.table import Notice, Table

GM = "gm"  # the ``player`` of the game master's engine commands


@dataclass(frozen=True)
class GmEvent:
    """Something the game master did that the engine log does not show.

    ``position`` is the log length at the time: the event sits after that many entries.
    ``data`` may hold an address; only the game master's views show it.
    """

    kind: str
    at: str
    position: int
    data: dict[str, Any] = field(default_factory=dict)


def gm_events(meta: dict[str, Any]) -> list[GmEvent]:
    """The GM events recorded in a game's meta record, oldest first."""
    return [from_json(GmEvent, e) for e in meta.get("gm_events", [])]


def meta_with(meta: dict[str, Any], *events: GmEvent) -> dict[str, Any]:
    """The meta record with ``events`` appended to its GM events."""
    return {**meta, "gm_events": [*meta.get("gm_events", []), *(to_json(e) for e in events)]}


def announcement(events: Sequence[Event] = (), gm_event: GmEvent | None = None,
                 reason: str = "") -> str:
    """The words mailed to the players about an override (from the archive templates)."""
    template = environment().get_template("archive/gm_note.txt.j2")
    return template.render(events=events, gm_event=gm_event, reason=reason).strip() + "\n"


def tell_players(table: Table, text: str, also: Iterable[str] = ()) -> None:
    """Mail ``text`` from the game master to every player still in the game (and ``also``)."""
    extra = set(also)
    for p in table.state.players:
        if p.status != "left" or p.name in extra:
            table.notify(Notice("gm", p.name, {"text": text}))


# --- changes to the game: engine commands ----------------------------------------------------


def set_money(table: Table, card: str, amount: int, reason: str) -> list[Event]:
    """Set the money on a card of a power structure; gives the logged events."""
    return table.do(GmSetMoney(GM, card, amount, reason))


def move_card(table: Table, card: str, place: str, reason: str) -> list[Event]:
    """Put a group or special card in ``place``; gives the logged events."""
    return table.do(GmMoveCard(GM, card, place, reason))


def remove_seat(table: Table, seat: str) -> list[Event]:
    """The player leaves the game (``LeaveGame``), between attacks only."""
    player = table.state.player(seat)
    if not player.playing:
        raise IllegalCommandError(f"{seat} is no longer playing")
    if table.state.attack is not None or table.service.window is not None:
        raise IllegalCommandError(
            "a player can be removed only between attacks",
            suggestion="wait until the attack under way is settled (pbem preview shows when)")
    if table.state.active_player.name == seat:
        table.service = replace(table.service, queue=())
    events = table.do(LeaveGame(seat))
    table.service = _with_seat(table.service, seat, bot=False, bot_password="")
    return events


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
    """Move the running deadline (the response window's, else the orders') later; gives
    the new deadline (ISO). Reminders are sent again for the new deadline."""
    service = table.service
    if service.window is not None:
        deadline = iso(parse_iso(service.window.deadline) + timedelta(hours=hours))
        window = replace(service.window, deadline=deadline, reminded=())
        table.service = replace(service, window=window)
        return deadline
    if not service.deadline:
        raise IllegalCommandError("no deadline is running in this game",
                                  suggestion="a deadline runs once the game has started")
    deadline = iso(parse_iso(service.deadline) + timedelta(hours=hours))
    table.service = replace(service, deadline=deadline, reminded=())
    return deadline


def rolled_back(service: GameService, state: GameState, length: int,
                now: datetime) -> GameService:
    """The service record to go with ``state`` after a rollback.

    Seats, timing, standing orders and the pause stay; what belonged to the steps cut off
    (the response window, queued orders, reminders) goes. ``steps`` is kept so the names of
    the mails sent from now on never repeat those of mails already sent.
    """
    if state.attack is not None or state.special is not None:
        raise IllegalCommandError("the game cannot be rolled back into the middle of an attack "
                                  "or of a special card being played")
    orders = state.phase == "actions"
    return replace(
        service, window=None, queue=(), reminded=(), turn_seq=state.seq,
        deadline=iso(now + timedelta(hours=service.timing.orders_hours)) if orders else "",
        reported=min(service.reported, length),
    )


def at_rest(state: GameState) -> bool:
    """True when no attack or special card is under way: a point a rollback may go to."""
    return state.attack is None and state.special is None


def _shifted(service: GameService, by: timedelta) -> GameService:
    if not by:
        return service
    deadline = iso(parse_iso(service.deadline) + by) if service.deadline else ""
    window = service.window
    if window is not None:
        window = replace(window, deadline=iso(parse_iso(window.deadline) + by))
    return replace(service, deadline=deadline, window=window)


def _with_seat(service: GameService, name: str, **changes: Any) -> GameService:
    service.seat(name)  # KeyError names an unknown seat
    seats: list[Seat] = [replace(s, **changes) if s.name == name else s for s in service.seats]
    return replace(service, seats=tuple(seats))
