"""Reading the orders of fewer mails and absences: ``SET MAIL``, ``SET REPORT``,
``SET ABSENCE`` and ``CANCEL ABSENCE`` (docs/orders.md, "Settings" and "Absences").

A date is written as the players' guide writes deadlines, in the writer's own time zone:
``2026-12-24``, with a time if wanted (``2026-12-24 18:00``, or ``2026-12-24T18:00``). Only
its form is checked here; whether it is in the future, and within the game's limits, is the
service's business.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, datetime
from typing import Literal, cast

from pbem.orders.grammar import LineReader
from pbem.orders.model import CancelAbsence, Order, SetAbsence, SetMail, SetReport

__all__ = ["cancel_absence", "set_absence", "set_mail", "set_report"]

Reading = Iterator[tuple[Order, int]]

_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})(?:T(\d{1,2}:\d{2}))?")
_TIME = re.compile(r"\d{1,2}:\d{2}")


def set_mail(r: LineReader, pos: int) -> Reading:
    """``SET MAIL FULL|DIGEST``."""
    for choice, end in r.keyword(pos, "full", "digest", where="after SET MAIL"):
        yield SetMail(cast(Literal["full", "digest"], choice)), end


def set_report(r: LineReader, pos: int) -> Reading:
    """``SET REPORT SHORT|FULL``."""
    for choice, end in r.keyword(pos, "short", "full", where="after SET REPORT"):
        yield SetReport(cast(Literal["full", "short"], choice)), end


def set_absence(r: LineReader, pos: int) -> Reading:
    """``SET ABSENCE <date> [<time>] [TO <date> [<time>]]``."""
    for start, end in _moment(r, pos):
        if r.at_end(end):
            yield SetAbsence(start), end
            continue
        for _, after in r.keyword(end, "to", where="after the first day of the absence"):
            for last, stop in _moment(r, after):
                yield SetAbsence(start, last), stop


def cancel_absence(r: LineReader, pos: int) -> Reading:
    """``CANCEL ABSENCE [<n>|ALL]``."""
    if r.at_end(pos):
        yield CancelAbsence(), pos
    elif r.word(pos) == "all":
        yield CancelAbsence(), pos + 1
    else:
        for number, end in r.number(pos, "the number of the absence", minimum=1,
                                    money=False):
            yield CancelAbsence(number), end


def _moment(r: LineReader, pos: int) -> Iterator[tuple[str, int]]:
    """A date, and a time if one follows: ``YYYY-MM-DD`` or ``YYYY-MM-DDTHH:MM``."""
    text = r.tokens[pos].text if not r.at_end(pos) else ""
    found = _DATE.fullmatch(text)
    clock = found[2] if found else None
    end = pos + 1
    if found and clock is None and not r.at_end(end) and _TIME.fullmatch(r.tokens[end].text):
        clock, end = r.tokens[end].text, end + 1
    try:
        if found is None:
            raise ValueError(text)
        day = date.fromisoformat(found[1])
        if clock is None:
            yield day.isoformat(), end
            return
        hours, minutes = map(int, clock.split(":"))
        moment = datetime(day.year, day.month, day.day, hours, minutes)
    except ValueError:
        r.fail(pos, "date_expected", words={"shown": r.seen(pos)})
        return
    yield moment.isoformat(timespec="minutes"), end
