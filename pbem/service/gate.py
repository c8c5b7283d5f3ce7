"""Who may be answered, and how often a seat's password may be tried: the limits that keep
forged mail from turning the service into a source of backscatter or a way to lock a
player out (docs/service.md, "Mail from outside").

Kept in memory, as the flood counter is: a restart forgets the counts, which lets at most
one more hour's worth through.

- ``Gate.verdict`` is the word of the trusted mail server on the mail being handled
  (``pbem.mail.authresults``), set by the service for each mail.
- Replies to addresses that are no seated player's (``may_answer_stranger``): to an
  authenticated sender, always (the per-address limits aside); else at most
  ``stranger_replies`` an hour in all, whatever answers them (the postmaster, the lobby,
  a game's OBSERVE, UNOBSERVE or TAKEOVER).
- Wrong passwords (``may_check`` / ``wrong``): counted per seat for mail whose sender is not
  authenticated, and per address for mail whose sender is, so a flood of forged mail
  slows the checks of its own kind only. Past ``WRONG_FREE`` wrong passwords in an hour, a
  seat's password is checked in full (scrypt) at most once every ``WRONG_PAUSE``; a
  password checked before and remembered is still taken at once.
"""

from __future__ import annotations

from collections import deque
from datetime import datetime, timedelta

from pbem.mail.authresults import Verdict

HOUR = timedelta(hours=1)
WRONG_FREE = 10  # wrong passwords an hour for one seat (or sender) before checks slow down
WRONG_PAUSE = timedelta(minutes=1)  # then one full check this often
KEPT = 20_000  # keys each table keeps at most (oldest forgotten first)


class Gate:
    """The limits of one service (see the module's words)."""

    def __init__(self, stranger_replies: int) -> None:
        self.stranger_replies = stranger_replies
        self.verdict = Verdict()
        self.known = False  # the sender of the mail handled is a seated player
        self._replied: deque[datetime] = deque()
        self._wrong: dict[str, deque[datetime]] = {}
        self._checked: dict[str, datetime] = {}
        self._told: dict[str, datetime] = {}
        self._once: dict[str, datetime] = {}

    def hear(self, verdict: Verdict, known: bool = False) -> None:
        """The mail handled next has this verdict (``known``: its sender is a seated
        player's address)."""
        self.verdict, self.known = verdict, known

    def may_answer_stranger(self, now: datetime) -> bool:
        """Give whether a reply may go to an address that is no seated player's, and count
        it: always to an authenticated sender; else while this hour's replies to
        strangers are not spent."""
        if self.strangers_answered(now):
            return False
        if not self.verdict.authenticated:
            self._replied.append(now)
        return True

    def strangers_answered(self, now: datetime) -> bool:
        """Give whether this hour's replies to strangers are spent (nothing counted), for a
        mail that is not vouched for: such a mail is then not acted on at all."""
        if self.verdict.authenticated:
            return False
        while self._replied and now - self._replied[0] >= HOUR:
            self._replied.popleft()
        return len(self._replied) >= self.stranger_replies

    def once_an_hour(self, key: str, now: datetime) -> bool:
        """Give whether the thing ``key`` names may be done now: once an hour."""
        return _once_every(self._once, key, now, HOUR)

    def tries_key(self, game: str, seat: str, sender: str) -> str:
        """What wrong passwords count against: the sender, if authenticated; else the
        seat."""
        return (f"sender {sender}" if self.verdict.authenticated
                else f"seat {game.casefold()} {seat.casefold()}")

    def may_check(self, key: str, now: datetime) -> bool:
        """Give whether a password counted against ``key`` may be checked in full now (and
        count the check): always until ``WRONG_FREE`` wrong ones this hour, then once
        every ``WRONG_PAUSE``."""
        return (len(self._recent(key, now)) < WRONG_FREE
                or _once_every(self._checked, key, now, WRONG_PAUSE))

    def wrong(self, key: str, now: datetime) -> bool:
        """Count a wrong password against ``key``; give whether the game master should be
        told now: the first time the checks slow down, once in an hour of them."""
        times = self._recent(key, now)
        times.append(now)
        _put(self._wrong, key, times)
        return len(times) >= WRONG_FREE and _once_every(self._told, key, now, HOUR)

    def wrong_count(self, key: str, now: datetime) -> int:
        return len(self._recent(key, now))

    def _recent(self, key: str, now: datetime) -> deque[datetime]:
        times = self._wrong.get(key, deque())
        while times and now - times[0] >= HOUR:
            times.popleft()
        return times


def _once_every(table: dict[str, datetime], key: str, now: datetime,
                interval: timedelta) -> bool:
    """Give whether the thing ``key`` names may be done now, and note it done: once every
    ``interval`` (``table`` keeps when it last was)."""
    last = table.get(key)
    if last is not None and now - last < interval:
        return False
    _put(table, key, now)
    return True


def _put(table: dict[str, object] | dict[str, datetime] | dict[str, deque[datetime]],
         key: str, value: object) -> None:
    """Set ``key`` last in ``table`` (the newest), forgetting the oldest past ``KEPT``."""
    table.pop(key, None)
    table[key] = value  # type: ignore[assignment]
    while len(table) > KEPT:
        del table[next(iter(table))]
