"""Fewer mails (``SET MAIL DIGEST``, docs/service.md "Fewer mails"): a player who asks for it
is answered only when an order mail needs an answer, and nothing is missed.

An order mail is answered when a line was refused (or warned about), asks something (STATUS,
HISTORY, HELP, ODDS, STANDING LIST, or SET MAIL itself, to confirm it), or leaves something
waiting (orders behind an attack, the writer's attack waiting for answers, the writer's group
offered). Otherwise what the answer would have said (each line and its words) is kept on the
seat (``Seat.folded``) and said in the player's next report, under its own heading.

An attack's result goes to such a player only if they made the attack (their turn goes on
from it); the others read it in the report that follows, whose news carry it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from pbem.orders.model import ParsedOrders, nature_of
from pbem.reports.mails import OrderResult
from pbem.service.model import GameService, Seat
from pbem.service.notices import AttackResult, GameOver, Notice, StatusReport, TurnReport
from pbem.service.table import Table

__all__ = ["answered", "deliver"]


def answered(table: Table, player: str, parsed: ParsedOrders, results: Sequence[OrderResult],
             warnings: Sequence[str], pending: str) -> bool:
    """True when the order mail of ``player`` is answered now; False when the seat reads
    DIGEST and nothing calls for an answer: then its words are kept for the next report."""
    if table.service.seat(player).mail != "digest":
        return True
    window, offer = table.service.window, table.state.offer
    if (warnings or pending or any(not r.accepted for r in results)
            or any(nature_of(o.order).answered for o in parsed.orders)
            or (window is not None and window.attacker is not None
                and window.attacker.player == player)
            or (offer is not None and offer.giver == player)):
        return True
    seat = table.service.seat(player)
    kept = tuple((r.line, r.text, r.note) for r in results)
    _set(table, replace(seat, folded=(*seat.folded, *kept)))
    return False


def deliver(table: Table) -> None:
    """Before the step's mails are rendered: the words kept for each DIGEST seat go into its
    first report of the step (and are forgotten), and the attack results it need not read
    are left out (the report that follows tells them)."""
    kept: list[Notice] = []
    for notice in table.notices:
        seat = _seat_of(table.service, notice.to)
        if seat is None:  # the game master's
            kept.append(notice)
            continue
        if (isinstance(notice, AttackResult) and notice.attacker != notice.to
                and seat.mail == "digest"):
            continue
        if isinstance(notice, TurnReport | StatusReport | GameOver):
            # Each report shows what is kept now, once (a reader back on FULL included):
            # not what was kept when it was called for.
            shown = notice.service
            assert shown is not None
            seats = tuple(replace(s, folded=seat.folded) if s.name == notice.to else s
                          for s in shown.seats)
            notice = replace(notice, service=replace(shown, seats=seats))
            _set(table, replace(seat, folded=()))
        kept.append(notice)
    table.notices = kept


def _seat_of(service: GameService, name: str) -> Seat | None:
    return next((s for s in service.seats if s.name == name), None)


def _set(table: Table, seat: Seat) -> None:
    seats = tuple(seat if s.name == seat.name else s for s in table.service.seats)
    table.service = replace(table.service, seats=seats)
