"""Deadlines at a moment of the clock: windows closed, turns passed, reminders, misses.

What silence means (docs/service.md): at the response deadline the window closes and the
silent spend nothing (no miss); at the orders deadline a player who did nothing passes and
collects 5 MB (a miss), one who acted has the turn ended; an offer unanswered by the
response deadline lapses (declined, with no answer). Reminders go only to those still
silent, once per reminder time (a window's and an offer's once, at the first), and a late
check sends one, not several. A reminder comes its lead before the deadline, but never more
than half the deadline's period before it (``reminder_time``): a short period gets no
reminder just after its start.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from pbem.engine.commands import DeclineGroup, EndTurn, Pass
from pbem.engine.state import GameState
from pbem.service import absences
from pbem.service.model import GameService, Window, parse_iso
from pbem.service.notices import GmAlert, OrdersDropped, Reminder
from pbem.service.offers import answer_offer
from pbem.service.table import Table


def tick(table: Table) -> None:
    """Everything due at ``table.now``."""
    if table.service.started and table.state.phase != "over":
        absences.upkeep(table)  # a bot stands in for an absence begun, or leaves
        table.excuse_absent()  # an absence begun: the window does not wait for them
        if not table.service.paused:
            absences.wait_for_absent(table)
    service, state = table.service, table.state
    if service.paused or not service.started or state.phase == "over":
        return
    window = service.window
    if window is not None:
        if table.now >= parse_iso(window.deadline):
            table.close_window()  # silence is no spending: nothing is counted
        else:
            _remind_window(table, window)
        return
    offer = state.offer
    turn_over = bool(service.deadline) and state.phase == "actions" and (
        table.now >= parse_iso(service.deadline))
    if offer is not None and (turn_over or (service.offer_deadline and (
            table.now >= parse_iso(service.offer_deadline)))):
        # Told to both as a lapse, whichever deadline ran out first; the turn ends below.
        answer_offer(table, DeclineGroup(offer.receiver, unanswered=True), silence=True,
                     turn_over=turn_over)
    else:
        _remind_offer(table)
    if table.service.deadline and table.state.phase == "actions":
        deadline = parse_iso(table.service.deadline)
        if table.now >= deadline:
            missed_orders(table)
        elif not table.state.turn.did_anything and not table.service.queue:
            _remind_orders(table)


def next_due(state: GameState, service: GameService, after: datetime) -> datetime | None:
    """Give the first moment later than ``after`` at which ``tick`` may find something due
    in the game as it stands, or None if only a change to the game can make it due.

    These are the moments ``tick`` compares the clock with (a deadline, a reminder time),
    and ``tick`` does nothing but through those comparisons: so when it did nothing at
    ``after``, it does nothing either at any time from then until this moment, and a
    caller may leave the game unloaded till then. Moments that do not apply any more are
    counted too; they only make the game looked at once for nothing.
    """
    if service.paused or not service.started or state.phase == "over":
        return None
    moments = []
    window = service.window
    if window is not None:
        moments.append(parse_iso(window.deadline))
        reminder = _window_reminder(service, window)
        if reminder is not None:
            moments.append(reminder)
    else:
        if service.offer_deadline:
            moments.append(parse_iso(service.offer_deadline))
        offer_reminder = _offer_reminder(state, service)
        if offer_reminder is not None and not service.offer_reminded:
            moments.append(offer_reminder)
        if service.deadline:
            moments.append(parse_iso(service.deadline))
            moments += [m for h, m in _orders_reminders(service) if h not in service.reminded]
    moments += absences.boundaries(service, after)
    return min((m for m in moments if m > after), default=None)


def reminder_time(deadline: datetime, lead: float, period: timedelta) -> datetime:
    """Give the moment a reminder ``lead`` hours before ``deadline`` is sent: the lead, but
    never more than half the ``period`` that ends at the deadline, so that a reminder comes
    when it is of use and not just after the mail that started the period."""
    return deadline - min(timedelta(hours=lead), period / 2)


def offer_due(state: GameState, service: GameService) -> datetime | None:
    """Give the moment silence declines the group offered, or None when none waits: its
    own deadline, or the orders deadline when that comes first (the turn ends without
    it)."""
    if state.offer is None:
        return None
    return min((parse_iso(t) for t in (service.offer_deadline, service.deadline) if t),
               default=None)


def past_reminders_sent(state: GameState, service: GameService, now: datetime) -> GameService:
    """The record with every reminder whose time is past at ``now`` counted as sent.

    For a deadline just moved (``pbem extend``): the mail telling the new deadline reaches
    every player as the reminders would, so only reminder times still ahead are sent; one
    past already would otherwise follow that mail at once.
    """
    window = service.window
    if window is not None:
        moment = _window_reminder(service, window)
        if moment is not None and now >= moment:
            reminded = tuple(dict.fromkeys((*window.reminded, *window.asked)))
            service = replace(service, window=replace(window, reminded=reminded))
        return service
    if service.deadline:
        past = [h for h, moment in _orders_reminders(service)
                if h not in service.reminded and now >= moment]
        service = replace(service, reminded=(*service.reminded, *past))
    moment = _offer_reminder(state, service)
    if moment is not None and now >= moment:
        service = replace(service, offer_reminded=True)
    return service


def missed_orders(table: Table) -> None:
    """The orders deadline passed: a player who did nothing passes (and collects 5 MB)
    and the miss is counted; one who already acted simply ends the turn."""
    active = table.state.active_player.name
    table.service = replace(table.service, queue=())
    if table.state.turn.did_anything:
        table.do(EndTurn(active))
    else:
        _miss(table, active)
        table.do(Pass(active, stand_in=table.stands_in(active)), missed=True)


def end_overdue_turn(table: Table) -> bool:
    """End the turn when its orders deadline passed while it waited for a response window
    (or a mail came in before the deadline was checked); gives whether it did.

    Nothing happens at the orders deadline while a window is open: the attack under way is
    settled first, at the window's own deadline or when everyone answered. Then the turn
    ends as at the orders deadline, and the orders still waiting behind the attack are not
    carried out: an order run after the deadline could start what the turn no longer has
    time for (a group offered with its answer's deadline already past). The active player
    is told which were dropped.
    """
    service, state = table.service, table.state
    if (state.phase != "actions" or service.window is not None or state.offer is not None
            or not service.deadline or table.now < parse_iso(service.deadline)):
        return False
    if service.queue:
        table.notify(OrdersDropped(state.active_player.name,
                                   tuple(item.text for item in service.queue)))
    missed_orders(table)
    return True


def _miss(table: Table, player: str) -> None:
    """Count a missed deadline, unless the player said they would be away then."""
    if absences.absent_at(table.service.seat(player), table.now) is not None:
        return
    limit = table.service.timing.miss_limit
    seats = []
    for s in table.service.seats:
        if s.name == player:
            s = replace(s, misses=s.misses + 1)
            # Told when the limit is reached, and again each time it is reached anew.
            if limit and s.misses % limit == 0:
                table.notify(GmAlert("", player=player, misses=s.misses))
        seats.append(s)
    table.service = replace(table.service, seats=tuple(seats))


def _orders_reminders(service: GameService) -> list[tuple[float, datetime]]:
    """Each reminder of the orders deadline (its lead in hours) and the moment it is due."""
    deadline = parse_iso(service.deadline)
    period = timedelta(hours=service.timing.orders_hours)
    return [(h, reminder_time(deadline, h, period)) for h in service.timing.reminders]


def _remind_orders(table: Table) -> None:
    """One reminder for the latest reminder time passed; earlier ones are not sent late."""
    service = table.service
    due = [h for h, moment in _orders_reminders(service)
           if h not in service.reminded and table.now >= moment]
    if due:
        table.service = replace(service, reminded=(*service.reminded, *due))
        table.notify(Reminder(table.state.active_player.name, "orders"))


def _offer_reminder(state: GameState, service: GameService) -> datetime | None:
    """The moment the receiver of the group offered is reminded: the first reminder time
    before the moment silence declines it, as for a window; None without an offer.

    The offer's period runs from the offer (its own deadline less the response period) to
    that moment, which the orders deadline may bring closer.
    """
    due = offer_due(state, service)
    if due is None or not service.offer_deadline:
        return None
    made = parse_iso(service.offer_deadline) - timedelta(hours=service.timing.response_hours)
    return _first_reminder(service, due, due - made)


def _window_reminder(service: GameService, window: Window) -> datetime | None:
    """The moment the players asked in ``window`` who have not answered are reminded: the
    first reminder time before it closes; None without reminders."""
    return _first_reminder(service, parse_iso(window.deadline),
                           timedelta(hours=service.timing.response_hours))


def _first_reminder(service: GameService, deadline: datetime,
                    period: timedelta) -> datetime | None:
    """The moment of the one reminder a window or an offer gets, at the first (longest)
    reminder lead before ``deadline``; None without reminders."""
    first = max(service.timing.reminders, default=0.0)
    return reminder_time(deadline, first, period) if first else None


def _remind_offer(table: Table) -> None:
    """One reminder to the receiver of a group offered and still unanswered, with the lines
    to answer it, at the first reminder time."""
    state, service = table.state, table.service
    moment = _offer_reminder(state, service)
    if (state.offer is None or service.offer_reminded or moment is None
            or table.now < moment):
        return
    table.service = replace(service, offer_reminded=True)
    table.notify(Reminder(state.offer.receiver, "offer"))


def _remind_window(table: Table, window: Window) -> None:
    """One reminder to each player asked who has not answered, at the first reminder time."""
    moment = _window_reminder(table.service, window)
    if moment is None or table.now < moment:
        return
    late = [p for p in window.asked if not window.answered(p) and p not in window.reminded]
    for player in late:
        table.notify(Reminder(player, "response"))
    if late:
        table.service = replace(table.service,
                                window=replace(window, reminded=(*window.reminded, *late)))


def still_quiet(mark: object, stamp: list[int] | None, now: datetime) -> bool:
    """True when the due index's ``mark`` of a game says that, as long as its stamp is
    ``stamp`` (None: known not to have changed since the mark), the game has nothing due
    at ``now``: a tick at the mark's time found nothing, and its next due moment is later
    than ``now``."""
    if not isinstance(mark, dict) or (stamp is not None and mark.get("stamp") != stamp):
        return False
    try:
        checked, due = parse_iso(mark["checked"]), mark["due"]
        return checked <= now and (due is None or now < parse_iso(due))
    except (KeyError, TypeError, ValueError):  # a damaged index, or naive and aware times
        return False
