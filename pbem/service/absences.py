"""Absences (``SET ABSENCE``, ``CANCEL ABSENCE``, the GM's ``pbem absences``): a player says
when they are away, and their turns wait, pass or are played by a bot meanwhile, as the game's
house rule ``stand_in`` says (docs/service.md, "Absences").

- **wait** (the default, as njudge does): an orders deadline of the absent player that falls
  in the absence moves to its end.
- **pass**: a turn that begins while its player is away passes at once (5 MB, no miss).
- **bot**: a bot plays the seat from the absence's start to its end (``Seat.away_hash`` keeps
  the player's own password, which goes on working: CANCEL ABSENCE gives the seat back).

Under every rule an absence never costs the player the game: a turn a stand-in plays (pass,
bot) is not one of the player's own three for elimination (``Table.stands_in``), a bot seat
never gives up its last group (``pbem.service.bot_seats.keeps_a_group``), and response
windows do not ask an absent player (``Table.excuse_absent``): their standing orders answer,
or nothing. ``SET ABSENCE`` is acknowledged with what the rule may still cost (``risk``).

Every absence set or cancelled is logged as a GM entry (``absence``, ``absence_cancelled``),
so it holds its place in the timeline and the reports' news; the other players are mailed.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

from pbem.engine.commands import Pass
from pbem.orders.model import CancelAbsence, Located, SetAbsence, StandingDefend
from pbem.reports.context import utc_minute, zone
from pbem.service.entries import GmAbsence, GmAbsenceCancelled
from pbem.service.model import Absence, GameService, Seat, iso, parse_iso
from pbem.service.notices import Absent, StoodIn
from pbem.service.order_refusals import refused
from pbem.service.table import Table

__all__ = ["absent_at", "add_absence", "boundaries", "cancel", "cancel_absence",
           "moved_deadline", "risk", "turn_begun", "upkeep", "wait_for_absent"]

Note = tuple[str, dict[str, object]]


def add_absence(table: Table, player: str, located: Located) -> Note:
    """``SET ABSENCE``: checked against the house rules, kept, logged, told to the others."""
    order = located.order
    assert isinstance(order, SetAbsence)
    seat = table.service.seat(player)
    start = _moment(order.start, seat.tz, end=False)
    end = _moment(order.end or order.start, seat.tz, end=True)
    rules = table.service.house
    if end <= start:
        raise refused("absence_backwards")
    if end <= table.now:
        raise refused("absence_past")
    start = max(start, table.now)
    days = _days(end - start)
    if days > rules.absence_days:
        raise refused("absence_too_long", days=days, most=rules.absence_days)
    used = sum(_days(parse_iso(a.end) - parse_iso(a.start)) for a in seat.absences)
    if used + days > rules.absence_days_per_game:
        raise refused("absence_over_game", days=days, used=used,
                      most=rules.absence_days_per_game)
    if any(parse_iso(a.start) < end and start < parse_iso(a.end) for a in seat.absences):
        raise refused("absence_overlaps")
    absence = Absence(iso(start), iso(end))
    absences = tuple(sorted((*seat.absences, absence), key=lambda a: a.start))
    _set(table, replace(seat, absences=absences))
    _logged_and_told(table, player, absence, cancelled=False)
    wait_for_absent(table)
    upkeep(table)
    table.excuse_absent()
    return risk(table, player)


def risk(table: Table, player: str) -> Note:
    """The acknowledgement's warning of what the game's house rule may still cost the
    player while away: their turns out of their hands (pass, bot) or a deadline that runs
    out as they come back (wait), and attacks answered by no standing DEFEND order."""
    defends = any(isinstance(o, StandingDefend) for o in table.service.standing_of(player))
    return "absence_risk", {"stand_in": table.service.house.stand_in, "defends": defends}


def cancel_absence(table: Table, player: str, located: Located) -> Note:
    """``CANCEL ABSENCE [<n>|ALL]``."""
    order = located.order
    assert isinstance(order, CancelAbsence)
    cancel(table, player, order.number)
    return NO_NOTE


def cancel(table: Table, player: str, number: int | None, *,
           by_gm: bool = False) -> tuple[Absence, ...]:
    """Forget absence ``number`` of ``player`` (1: the first listed; None: all), as the
    player or the game master (``by_gm``: the player is told too) asks; gives those
    forgotten. A deadline an absence moved stays where it is."""
    seat = table.service.seat(player)
    if number is not None and not 1 <= number <= len(seat.absences):
        raise refused("no_absence", number=number)
    gone = seat.absences if number is None else (seat.absences[number - 1],)
    if not gone:
        raise refused("no_absence", number=0)
    _set(table, replace(seat, absences=tuple(a for a in seat.absences if a not in gone)))
    for absence in gone:
        _logged_and_told(table, player, absence, cancelled=True, by_gm=by_gm)
    upkeep(table)
    return gone


def absent_at(seat: Seat, moment: datetime) -> Absence | None:
    """The absence of ``seat`` ``moment`` falls in, if any."""
    return seat.absence_at(moment)


def moved_deadline(seat: Seat, deadline: datetime) -> datetime:
    """``deadline`` moved to the end of the absence it falls in, and of the next one if the
    end falls in that too."""
    while (absence := absent_at(seat, deadline)) is not None:
        deadline = parse_iso(absence.end)
    return deadline


def turn_begun(table: Table) -> None:
    """A turn just began: its player's absence makes its deadline wait, or passes it."""
    if table.state.phase != "actions":
        return
    active = table.state.active_player.name
    seat = table.service.seat(active)
    rule = table.service.house.stand_in
    present = [p.name for p in table.state.players if p.playing
               and absent_at(table.service.seat(p.name), table.now) is None]
    # Passed unless nobody is here to play: then the turns wait their deadlines as usual.
    if rule == "pass" and active not in present and present and not seat.bot:
        table.do(Pass(active))  # no miss: the player said they would be away
    elif rule == "wait":
        wait_for_absent(table)


def upkeep(table: Table) -> None:
    """With the house rule ``bot``, a bot takes the seat of a player away now, and leaves it
    when they are back (``pbem.service.bot_seats.upkeep`` gives it its password); the
    player then finds a mail of what was done in their name (``StoodIn``)."""
    if table.service.house.stand_in != "bot":
        return
    for seat in table.service.seats:
        away = absent_at(seat, table.now) is not None and table.state.player(seat.name).playing
        if away and not seat.bot:
            _set(table, replace(seat, bot=True, away_hash=seat.password_hash,
                                stood_in_from=table.log_length))
        elif not away and seat.away_hash:
            _set(table, replace(seat, bot=False, stood_in_from=-1))
            if seat.stood_in_from >= 0:
                begun = [a for a in seat.absences if parse_iso(a.start) <= table.now]
                start = begun[-1].start if begun else iso(table.now)
                table.notify(StoodIn(seat.name, start, iso(table.now),
                                     since=seat.stood_in_from))


def boundaries(service: GameService, after: datetime) -> list[datetime]:
    """The moments later than ``after`` the deadline tick must look at the game for an
    absence: the starts and ends at which ``upkeep`` changes a seat (house rule ``bot``),
    and the starts that excuse a player asked in the open window (``Table.excuse_absent``).
    """
    window = service.window
    moments = [parse_iso(a.start) for s in service.seats for a in s.absences
               if window is not None and s.name in window.asked]
    if service.house.stand_in == "bot":
        moments += [parse_iso(t) for s in service.seats for a in s.absences
                    for t in (a.start, a.end)]
    return [m for m in moments if m > after]


def wait_for_absent(table: Table) -> None:
    """The active player's orders deadline moved out of their absence (house rule wait):
    as a turn begins, as an absence is given, and at each tick (a deadline the game master
    extended or resumed into an absence moves on when it comes)."""
    service = table.service
    if service.house.stand_in != "wait" or not service.deadline:
        return
    if table.state.phase != "actions":
        return
    seat = service.seat(table.state.active_player.name)
    deadline = parse_iso(service.deadline)
    later = moved_deadline(seat, deadline)
    if later != deadline:
        table.service = replace(service, deadline=iso(later), reminded=())


def _logged_and_told(table: Table, player: str, absence: Absence, *, cancelled: bool,
                     by_gm: bool = False) -> None:
    """The GM entry of an absence set or cancelled, and the mail telling the other players
    and the game master (and the player too, when the game master cancelled it)."""
    start, end = parse_iso(absence.start), parse_iso(absence.end)
    rule = table.service.house.stand_in
    facts = (player, absence.start, utc_minute(start), absence.end, utc_minute(end), rule)
    table.record(GmAbsenceCancelled(*facts, by_gm=by_gm or None) if cancelled
                 else GmAbsence(*facts))
    told = [p.name for p in table.state.players
            if not p.departed and (by_gm or p.name != player)]
    for name in (*told, ""):
        table.notify(Absent(name, player, absence.start, absence.end, rule, cancelled, by_gm))


def _moment(text: str, tz: str, *, end: bool) -> datetime:
    """A day or a time the player wrote, in their zone; a day alone starts at its midnight,
    and as an absence's end, ends at the next."""
    if "T" in text:
        return datetime.fromisoformat(text).replace(tzinfo=zone(tz)).astimezone(UTC)
    day = date.fromisoformat(text) + timedelta(days=1 if end else 0)
    return datetime(day.year, day.month, day.day, tzinfo=zone(tz)).astimezone(UTC)


def _days(span: timedelta) -> int:
    """Days an absence counts for: every day begun."""
    return -(-int(span.total_seconds()) // 86400)


def _set(table: Table, seat: Seat) -> None:
    seats = tuple(seat if s.name == seat.name else s for s in table.service.seats)
    table.service = replace(table.service, seats=seats)


NO_NOTE: Note = ("", {})
