"""A game as the service holds it during one step (a Table), and order mails carried out
on it: for tests of the turn flow that need no store or mail server."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from factory import CARDS

from pbem.engine.state import GameState
from pbem.orders.parse import parse_orders
from pbem.reports.mails import OrderResult
from pbem.service.model import GameService, Seat, Timing, iso
from pbem.service.order_mail import carry_out_mail
from pbem.service.table import Table

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


def table(state: GameState) -> Table:
    """The position at the start of the active player's turn, as the service holds it."""
    seats = tuple(Seat(p.name, f"{p.name}@example.org") for p in state.players)
    service = GameService(seats=seats, timing=Timing(), started=True, turn_seq=state.seq,
                          deadline=iso(NOW + timedelta(hours=72)))
    return Table(CARDS, state, service, NOW, 0)


def mail(t: Table, player: str, *lines: str, turn: int | None = None) -> list[OrderResult]:
    """One order mail's lines carried out for ``player`` (with ``TURN turn`` if given)."""
    start = f"GAME test PLAYER {player} PASSWORD x" + (
        f" TURN {turn}" if turn is not None else "")
    names = tuple(p.name for p in t.state.players)
    parsed = parse_orders("\n".join([start, *lines, "END"]), CARDS, names)
    assert not parsed.errors, parsed.errors
    return carry_out_mail(t, t.service.seat(player), parsed, site_dir=None)[0]
