"""The game master's operations on a game's deadlines: ``pause``, ``resume`` and ``extend``
(see ``pbem.service.gm`` for how every operation takes the lock, changes the game through a
``Table`` and commits)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from pbem.reports.context import utc_minute
from pbem.service import gm_ops
from pbem.service.deadlines import offer_due
from pbem.service.entries import gm_event_of
from pbem.service.gm import _running, _started
from pbem.service.model import iso, parse_iso
from pbem.service.service import Service
from pbem.service.table import Table


def pause(service: Service, game_id: str, now: datetime, reason: str = "") -> None:
    """Stop the deadlines until ``resume``."""
    with service.store.lock():
        table = service._table(game_id, now)
        _running(table)
        _started(table, "its deadlines begin at the start (pbem game start)")
        gm_ops.pause(table)
        gm_ops.tell_players(table, gm=table.record("pause", {"reason": reason}))
        service._finish(table, now)


def resume(service: Service, game_id: str,
           now: datetime) -> tuple[float, datetime | None, datetime | None]:
    """Run the deadlines again, every one moved later by the pause; gives the hours paused,
    the deadline running now (the response window's, else the orders'; None if none runs)
    and the answer's to a group offered (None without one)."""
    with service.store.lock():
        table = service._table(game_id, now)
        _running(table)
        paused_at = _paused_at(service.store.log(game_id))
        stopped = gm_ops.resume(table, parse_iso(paused_at) if paused_at else None)
        hours = round(stopped.total_seconds() / 3600, 2)
        window = table.service.window
        running = window.deadline if window is not None else table.service.deadline
        deadline = parse_iso(running) if running else None
        data: dict[str, Any] = {"paused_hours": hours, "window": window is not None}
        if deadline is not None:  # players are told the new one
            data |= _deadline_data(deadline)
        offer, answer = _offer_data(table)
        data |= offer
        gm_ops.tell_players(table, gm=table.record("resume", data))
        service._advance(table)
        service._finish(table, now)
    return hours, deadline, answer


def _paused_at(log: Iterable[dict[str, Any]]) -> str:
    """When the game was last paused (a rollback may have cut the pause off): ISO, or ""."""
    paused_at = ""
    for event in map(gm_event_of, log):
        if event is None:
            continue
        if event.kind == "pause":
            paused_at = event.at
        elif event.kind == "rollback":
            paused_at = next((str(u["at"]) for u in reversed(event.data["undone"])
                              if u["kind"] == "pause"), paused_at)
    return paused_at


def extend(service: Service, game_id: str, hours: float, now: datetime,
           reason: str = "") -> tuple[datetime, datetime | None]:
    """Move the running deadline ``hours`` later (with a group offered, the answer's and
    the orders'; see ``gm_ops.extend``); gives the new deadline (the response window's, else
    the orders') and the answer's to a group offered (None without one)."""
    with service.store.lock():
        table = service._table(game_id, now)
        _running(table)
        window = table.service.window is not None
        deadline = parse_iso(gm_ops.extend(table, hours))
        offer, answer = _offer_data(table) if not window else ({}, None)
        event = table.record("extend", {"hours": hours, **_deadline_data(deadline),
                                        "window": window, **offer, "reason": reason})
        gm_ops.tell_players(table, gm=event)
        service._finish(table, now)
    return deadline, answer


def _offer_data(table: Table) -> tuple[dict[str, Any], datetime | None]:
    """The group offered and unanswered as a GM entry records it for the players' mail
    (``offer``: who offers what to whom, and by when the answer is due), and that moment;
    ({}, None) without an offer."""
    offer, due = table.state.offer, offer_due(table.state, table.service)
    if offer is None or due is None:
        return {}, None
    return {"offer": {"giver": offer.giver, "receiver": offer.receiver, "group": offer.group,
                      **_deadline_data(due)}}, due


def _deadline_data(deadline: datetime) -> dict[str, str]:
    """A deadline as a GM entry records it for the players' mail: ISO, and UTC to read."""
    return {"deadline": iso(deadline),
            "deadline_utc": utc_minute(deadline)}
