"""Fewer mails, nothing missed (docs/service.md "Fewer mails"): the mails of a step that
need not go out on their own are folded away, and the next mail each reader gets carries
what they would have told.

By default (``SET MAIL FULL``):

- an order mail whose every line is an answer to the attack under way (``NO RESPONSE``,
  ``DEFEND``, ``INTERFERE`` ...), all of them accepted with no warning and nothing to add
  (``OrderResult.quiet``: no note, an UPTO its treasuries cover), is not answered: the
  attack's result (or whichever mail comes first) says they were accepted;
- an attack's result goes in a mail of its own only to those it touches (its attacker, the
  target's owner, whoever put money or cards into it), and to them only when no report of
  the same step follows; the others read it in their next mail.

With ``SET MAIL DIGEST``, besides:

- an order mail is answered only when a line was refused (or warned about), asks something
  (STATUS, HISTORY, HELP, ODDS, STANDING LIST, or SET MAIL itself, to confirm it), or leaves
  something waiting (orders behind an attack, the writer's attack waiting for answers, the
  writer's group offered);
- an attack's result goes in a mail of its own only to its attacker, when their turn waits
  for their orders;
- a turn report goes only to the player whose move it is (and to one it asks to answer a
  group offered); the others read its news in their next mail.

What a mail folded away told is kept on the seat (``Seat.folded``: the words of the order
mails not answered; ``Seat.untold``: the log entry the news not yet told start at) and
carried by the first mail of the step to the reader, this step's or a later one's
(``Notice.folded``, ``Notice.untold``): a report shows its news from the earliest entry
untold, any other mail opens with what it carries (``pbem.reports.mails.with_carried``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from pbem.orders.model import ParsedOrders, nature_of
from pbem.reports.mails import OrderResult, picture_keys
from pbem.service.model import GameService, Seat
from pbem.service.notices import AttackOutcome, Notice, StatusReport, TurnReport
from pbem.service.table import Table

__all__ = ["FOLDS", "answered", "deliver"]


def answered(table: Table, player: str, parsed: ParsedOrders, results: Sequence[OrderResult],
               warnings: Sequence[str], pending: str, reply_to: str | None = None) -> bool:
    """True when the order mail of ``player`` is answered now; False when nothing calls for
    an answer: then its words are kept for the next mail the player gets, which refers to
    the mail (``reply_to``, its Message-ID) in its References: answered, in the thread."""
    seat = table.service.seat(player)
    if seat.mail != "digest":
        quiet = (bool(results) and not warnings and not pending
                 and all(r.accepted and r.quiet for r in results))
        if not quiet:
            return True
    else:
        window, offer = table.service.window, table.state.offer
        if (warnings or pending or any(not r.accepted for r in results)
                or any(nature_of(o.order).answered for o in parsed.orders)
                or (window is not None and window.attacker is not None
                    and window.attacker.player == player)
                or (offer is not None and offer.giver == player)):
            return True
    kept = tuple((r.line, r.text, r.note) for r in results)
    refers = (*seat.folded_mails, reply_to) if reply_to else seat.folded_mails
    _set(table, replace(seat, folded=(*seat.folded, *kept), folded_mails=refers))
    return False


def deliver(table: Table) -> None:
    """Before the step's mails are rendered: those that need not go out are folded away
    (``FOLDS``), and what they told, with what earlier steps kept, goes into the first
    mail of the step to each reader (and is forgotten)."""
    notices = table.notices
    kept: list[Notice] = []
    for index, notice in enumerate(notices):
        seat = _seat_of(table.service, notice.to)
        fold = FOLDS.get(type(notice))
        since = (fold(table, seat, notice, notices[index + 1:])
                 if seat is not None and fold is not None else None)
        if seat is not None and since is not None:
            _set(table, replace(seat, untold=since if seat.untold is None
                                else min(seat.untold, since)))
            continue
        kept.append(notice)
    first: dict[str, Notice] = {}
    for notice in sorted(kept, key=lambda n: n.place):  # the mail order (a stable sort)
        if _seat_of(table.service, notice.to) is not None:
            first.setdefault(notice.to, notice)
    carried = [_carry(table, n) if first.get(n.to) is n else n for n in kept]
    table.notices = [_pictured(table, n) if isinstance(n, PICTURED) else n for n in carried]


PICTURED = (TurnReport, StatusReport)
"""The kinds of mail that show the other players' structures as pictures."""


def _pictured(table: Table, notice: Notice) -> Notice:
    """A report to a seat that reads pictures (HTML, SET REPORT FULL) leaves out those of
    the other players' structures unchanged but for their money since the last report that
    showed them to it; the seat remembers what this one shows."""
    seat = _seat_of(table.service, notice.to)
    # The settings the mail is rendered with: the seat's when the report was called for.
    reads = _seat_of(notice.service or table.service, notice.to)
    if seat is None or reads is None or not reads.html or reads.report == "short":
        return notice
    keys = picture_keys(table.cards, notice.state or table.state, notice.to)
    seen = dict(seat.pictured)
    _set(table, replace(seat, pictured=tuple(sorted(keys.items()))))
    return replace(notice, unchanged=tuple(name for name, key in keys.items()
                                           if seen.get(name) == key))


def _carry(table: Table, notice: Notice) -> Notice:
    """The reader's first mail of the step, carrying what their seat keeps."""
    seat = table.service.seat(notice.to)
    if not seat.folded and seat.untold is None and not seat.folded_mails:
        return notice
    _set(table, replace(seat, folded=(), untold=None, folded_mails=()))
    return replace(notice, folded=seat.folded, untold=seat.untold,
                   folded_mails=seat.folded_mails)


def _result(table: Table, seat: Seat, notice: Notice, later: Sequence[Notice]) -> int | None:
    """An attack's result is folded into a report of the same step that follows it (whose
    news tell it), or when it does not touch the reader; on DIGEST, unless the reader made
    the attack and their turn waits for their orders."""
    assert isinstance(notice, AttackOutcome)
    if any(n.to == notice.to and n.tells_news for n in later):
        return notice.logged
    if seat.mail == "digest":
        waits = notice.to == notice.attacker and table.may_act_now(notice.to)
        return None if waits else notice.logged
    return None if notice.to in notice.touched else notice.logged


def _report(table: Table, seat: Seat, notice: Notice, later: Sequence[Notice]) -> int | None:
    """On DIGEST, a turn report of another player's move, which asks nothing of a reader
    still playing, is folded into their next mail."""
    assert isinstance(notice, TurnReport)
    state = notice.state or table.state
    if (seat.mail != "digest" or notice.offer is not None or state.phase != "actions"
            or not state.player(notice.to).playing or state.active_player.name == notice.to):
        return None
    return table.service.reported if notice.since is None else notice.since


FOLDS: dict[type[Notice], Callable[[Table, Seat, Notice, Sequence[Notice]], int | None]] = {
    AttackOutcome: _result, TurnReport: _report}
"""The kinds of mail that may be folded away: given the table, the reader's seat, the notice
and those called for after it in the step, the log entry whose news the reader has still to
be told (the mail folded), or None (the mail goes out)."""


def _seat_of(service: GameService, name: str) -> Seat | None:
    return next((s for s in service.seats if s.name == name), None)


def _set(table: Table, seat: Seat) -> None:
    seats = tuple(seat if s.name == seat.name else s for s in table.service.seats)
    table.service = replace(table.service, seats=seats)
