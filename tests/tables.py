"""Positions handed to a service ``Table`` one mail at a time, as the service does after
authentication (the turn-flow tests use them).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from factory import (
    BAVARIA,
    CARDS,
    GNOMES,
    NETWORK,
    free,
    game,
    money,
    place,
)

from pbem.engine.commands import Command
from pbem.engine.state import GameState
from pbem.orders.parse import parse_orders
from pbem.reports.mails import OrderResult
from pbem.service.model import GameService, Seat, Timing, iso
from pbem.service.order_mail import carry_out_mail
from pbem.service.table import Table

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def position() -> GameState:
    """ann (Bavarians, to act) and bob (Gnomes) with money, cat (Network); two free groups;
    bob holds Boy Sprouts under his Gnomes."""
    state = game(ann=BAVARIA, bob=GNOMES, cat=NETWORK)
    state = free(state, "Hackers", "Flat Earthers")
    state = place(state, "bob", "Boy Sprouts", treasury=2)
    for name, card in (("ann", BAVARIA), ("bob", GNOMES), ("cat", NETWORK)):
        state = money(state, name, card, 10)
    return state


def table(state: GameState, **timing: object) -> Table:
    """The position at the start of ann's turn, as the service holds it."""
    seats = tuple(Seat(p.name, f"{p.name}@example.org") for p in state.players)
    rules = Timing(**timing)  # type: ignore[arg-type]
    service = GameService(seats=seats, timing=rules, started=True, turn_seq=state.seq,
                          deadline=iso(NOW + timedelta(hours=rules.orders_hours)))
    return Table(CARDS, state, service, NOW, 0)


def mail(t: Table, player: str, *lines: str, turn: int | None = None) -> list[OrderResult]:
    """One order mail's lines carried out for ``player``."""
    start = f"GAME test PLAYER {player} PASSWORD x" + (
        f" TURN {turn}" if turn is not None else "")
    names = tuple(p.name for p in t.state.players)
    parsed = parse_orders("\n".join([start, *lines, "END"]), CARDS, names)
    assert not parsed.errors, parsed.errors
    return carry_out_mail(t, t.service.seat(player), parsed, site_dir=None)[0]


def commands(t: Table) -> list[Command]:
    from pbem.engine.codec import from_json

    return [from_json(Command, e["command"]) for e in t.entries]


def refused(results: list[OrderResult]) -> OrderResult:
    (result,) = [r for r in results if not r.accepted]
    return result
