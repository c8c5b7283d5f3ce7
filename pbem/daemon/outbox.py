"""The daemon's way out: sends the store's outbox, marks each mail sent once the server took
it, and spaces retries.

A mail refused for now waits for its own retry time (30 s doubling to an hour, see
``retry_delay``), so one troubled recipient holds up nobody else; two refusals in a row mean
the server itself refuses, and sending pauses until the first retry is due. A mail refused
for good, or refused for now too many times, is given up: it stays in the store with its
last error starting with ``GIVEN_UP``, for the game master to see, and is not tried again.

A provider's sending limits (``[smtp] max_per_minute``, ``max_per_day``) hold the mail past
the cap in the store and send it later, in order. A login the provider refuses for good (an
OAuth login revoked) pauses all sending without counting against any mail, and tells the
game master. Why sending is held is kept in ``daemon/outbox-hold.json`` for ``pbem outbox
list``.
"""

from __future__ import annotations

import json
import logging
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pbem.atomicfile import write_json_atomic
from pbem.daemon.config import DaemonConfig
from pbem.daemon.loop import MAX_WAIT
from pbem.service.postmaster import Postmaster
from pbem.store import GameStore, OutboxItem, Store
from pbem.transport.sender import (
    LoginImpossible,
    MaildirSender,
    PermanentSendError,
    Sender,
    SmtpSender,
    TransientSendError,
    retry_delay,
)

log = logging.getLogger("pbem.daemon.server")

GIVEN_UP = "given up: "
"""Starts the last error of a mail the daemon will not try again (the store keeps it)."""

# Refusals for now in a row that mean the server, not one mail, is the trouble.
_REFUSALS_BEFORE_PAUSE = 2
_MINUTE, _DAY = timedelta(minutes=1), timedelta(days=1)


def hold_file(store: Path) -> Path:
    """Give the file saying why sending is held (absent while it is not)."""
    return store / "daemon" / "outbox-hold.json"


def read_hold(store: Path) -> tuple[str, str] | None:
    """Give (until, why) when the daemon holds back sending, else None."""
    try:
        value = json.loads(hold_file(store).read_bytes())
        return str(value["until"]), str(value["why"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


class SendingLimits:
    """A provider's limits: at most ``per_minute`` mails in any minute and ``per_day`` in
    any 24 hours (Google counts a rolling day). ``sent`` are the times of mails sent
    already (the store's, at start)."""

    def __init__(self, per_minute: int | None, per_day: int | None,
                 sent: Iterable[datetime] = ()) -> None:
        self.per_minute, self.per_day = per_minute, per_day
        self._sent: deque[datetime] = deque(sorted(sent))

    def record(self, moment: datetime) -> None:
        """Count a mail sent at ``moment``."""
        self._sent.append(moment)

    def held_until(self, now: datetime) -> tuple[datetime, str] | None:
        """Give when the next mail may go and why it waits, or None if it may go now."""
        while self._sent and self._sent[0] <= now - _DAY:
            self._sent.popleft()
        for limit, span, name in ((self.per_day, _DAY, "daily"),
                                  (self.per_minute, _MINUTE, "per-minute")):
            if limit is None:
                continue
            within = [t for t in self._sent if t > now - span] if span == _MINUTE \
                else list(self._sent)
            if len(within) >= limit:
                return (within[len(within) - limit] + span,
                        f"the provider's {name} sending limit ({limit}) is reached")
        return None


def make_sender(config: DaemonConfig) -> SmtpSender | MaildirSender:
    """Give the configured way out: the SMTP relay, or else the local Maildirs."""
    smtp = config.smtp
    if smtp is None:
        return MaildirSender(config.maildir)
    return SmtpSender(smtp.host, smtp.port, smtp.security,
                      smtp.username, smtp.password, smtp.timeout, ca_file=smtp.ca_file,
                      oauth=smtp.oauth)


def make_outbox(config: DaemonConfig, sender: Sender,
                clock: Callable[[], datetime]) -> Outbox:
    """Give the outbox of the configured store, sending through ``sender``, with a store
    object of its own."""
    sending = Store(config.store)
    postmaster = Postmaster(sending, config.service_config().sender, config.mails_per_hour)
    limits = None
    smtp = config.smtp
    if smtp is not None and (smtp.max_per_minute or smtp.max_per_day):
        limits = SendingLimits(smtp.max_per_minute, smtp.max_per_day,
                               sending.sent_times(clock() - _DAY))
    return Outbox(sending, sender, clock, envelope_from=config.envelope_from,
                  give_up_after=config.give_up_after, given_up=postmaster.given_up,
                  login_refused=postmaster.login_refused, limits=limits,
                  hold_file=hold_file(config.store))


@dataclass(frozen=True)
class Flush:
    """What one pass over the outbox did."""

    sent: int = 0
    failed: int = 0  # transient failures, to be retried
    given_up: int = 0
    retry_at: datetime | None = None  # when sending may be tried again after a failure


@dataclass(frozen=True)
class _Outcome:
    """What one attempt to send one mail came to."""

    sent: bool = False
    given_up: bool = False
    refused_for_now: bool = False  # a transient refusal (even the one that made us give up)
    retry_at: datetime | None = None
    login_refused: tuple[datetime, str] | None = None  # no mail goes until then, and why


class Outbox:
    """Sends a store's outbox through a sender. ``store`` is its own: the outbox may send from
    a thread of its own while another thread processes mail."""

    def __init__(self, store: GameStore, sender: Sender, clock: Callable[[], datetime], *,
                 envelope_from: str, give_up_after: int,
                 given_up: Callable[[OutboxItem, str, datetime], None] | None = None,
                 login_refused: Callable[[str, str, str, datetime], None] | None = None,
                 limits: SendingLimits | None = None,
                 hold_file: Path | None = None) -> None:
        self.store = store
        self.sender = sender
        self._clock = clock
        self._envelope_from = envelope_from
        self._give_up_after = give_up_after
        self._given_up = given_up  # tells the game master of a mail given up (held lock)
        self._pause_until: datetime | None = None  # no sending before this (server refusing)
        self._login_refused = login_refused  # tells the game master (takes the lock)
        self._logins_refused = 0  # in a row; 0 once a mail went
        self._limits = limits
        self._hold_file = hold_file
        self._held: tuple[str, str] | None = None  # (until, why) as written in the hold file

    def send_due(self) -> Flush:
        """Give what sending the due outbox mail did.

        A mail is marked sent only after the server took it; a crash in between sends it
        again under the same Message-ID. A mail refused for now waits for its own retry
        time, so one troubled recipient holds up nobody else; after two refusals in a row
        the server itself is taken to refuse, and sending pauses until the first retry.
        """
        now = self._clock()
        if self._pause_until is not None and now < self._pause_until:
            return Flush(retry_at=self._pause_until)
        self._pause_until = None
        items = self.store.outbox()  # needs no lock: every write it reads is atomic
        sent = failed = given_up = in_a_row = 0
        retry_at: datetime | None = None
        held: tuple[datetime, str] | None = None
        for item in items:
            if (item.last_error or "").startswith(GIVEN_UP):
                continue
            due = _parse_time(item.retry_at)
            if due is not None and due > now:
                retry_at = due if retry_at is None else min(retry_at, due)
                continue
            held = self._limits.held_until(now) if self._limits is not None else None
            if held is not None:  # this mail and all after it wait, in order
                retry_at = held[0] if retry_at is None else min(retry_at, held[0])
                break
            outcome = self._send(item, now)
            if outcome.login_refused is not None:
                held = outcome.login_refused
                self._pause_until = retry_at = held[0]
                break
            sent += outcome.sent
            given_up += outcome.given_up
            in_a_row = in_a_row + 1 if outcome.refused_for_now else 0
            if outcome.retry_at is not None:
                failed += 1
                retry_at = outcome.retry_at if retry_at is None else min(retry_at,
                                                                        outcome.retry_at)
            if in_a_row >= _REFUSALS_BEFORE_PAUSE:
                self._pause_until = retry_at
                break
        if sent or failed or given_up:
            log.info("outbox: %d sent, %d to retry, %d given up", sent, failed, given_up)
        self._say_held(held)
        return Flush(sent, failed, given_up, retry_at)

    def _say_held(self, held: tuple[datetime, str] | None) -> None:
        """Keep why sending is held (or that it is not) for ``pbem outbox list``."""
        if self._hold_file is None:
            return
        state = None if held is None else (held[0].isoformat(timespec="seconds"), held[1])
        if state == self._held:
            return
        if state is None:
            self._hold_file.unlink(missing_ok=True)
        else:
            log.info("outbox: sending held until %s: %s", *state)
            write_json_atomic(self._hold_file, {"until": state[0], "why": state[1]})
        self._held = state

    def send_pass(self) -> float:
        """Send what is due; give the seconds to wait until a retry is due (or a bound)."""
        retry_at = self.send_due().retry_at
        if retry_at is None:
            return MAX_WAIT
        return min(MAX_WAIT, max(0.05, (retry_at - self._clock()).total_seconds()))

    def _send(self, item: OutboxItem, now: datetime) -> _Outcome:
        """Give the outcome of sending one mail (and record it in the store)."""
        attempts = item.attempts + 1
        try:
            self.sender.send(item.to, item.raw, envelope_from=self._envelope_from)
        except LoginImpossible as error:
            return self._login_impossible(error, now)
        except PermanentSendError as error:
            log.error("mail %s to %s refused for good: %s", item.message_id, item.to, error)
            self._give_up(item, str(error), now, attempts)
            return _Outcome(given_up=True)
        except Exception as error:  # TransientSendError, or a fault of our own: retry later
            if not isinstance(error, TransientSendError):
                log.exception("sending mail %s failed unexpectedly", item.message_id)
            if attempts >= self._give_up_after:
                log.error("mail %s to %s given up after %d attempts: %s", item.message_id,
                          item.to, attempts, error)
                self._give_up(item, f"{attempts} attempts; last: {error}", now, attempts)
                return _Outcome(given_up=True, refused_for_now=True)
            retry_at = now + timedelta(seconds=retry_delay(attempts))
            log.warning("mail %s to %s not sent (%s); retry at %s", item.message_id, item.to,
                        error, retry_at.isoformat(timespec="seconds"))
            self._mark_failed(item, str(error), retry_at, attempts)
            return _Outcome(refused_for_now=True, retry_at=retry_at)
        self.store.mark_sent(item, sent_at=now)  # no lock: a step may be under way
        log.info("sent mail %s to %s", item.message_id, item.to)
        self._logins_refused = 0
        if self._limits is not None:
            self._limits.record(now)
        return _Outcome(sent=True)

    def _login_impossible(self, error: LoginImpossible, now: datetime) -> _Outcome:
        """Hold every mail, none charged an attempt, until the login works; tell the game
        master the first time."""
        self._logins_refused += 1
        until = now + timedelta(seconds=retry_delay(self._logins_refused))
        log.error("SMTP login impossible: %s. %s Every mail waits; trying again at %s",
                  error.message, error.suggestion or "", until.isoformat(timespec="seconds"))
        if self._logins_refused == 1 and self._login_refused is not None:
            with self.store.lock():
                self._login_refused("SMTP", error.message, error.suggestion or "", now)
        return _Outcome(login_refused=(until, f"the SMTP login is refused: {error}"))

    def _mark_failed(self, item: OutboxItem, error: str, retry_at: datetime,
                     attempts: int) -> None:
        with self.store.lock():
            self.store.mark_failed(item.outbox_id, error=error, retry_at=retry_at,
                                   attempts=attempts)

    def _give_up(self, item: OutboxItem, error: str, now: datetime, attempts: int) -> None:
        """Keep the mail unsent for good, and tell the game master, in one lock hold."""
        with self.store.lock():
            self.store.mark_failed(item.outbox_id, error=GIVEN_UP + error, retry_at=now,
                                   attempts=attempts)
            if self._given_up is not None:
                self._given_up(item, error, now)

    def close(self) -> None:
        """Close the sender's connection, if it keeps one."""
        close = getattr(self.sender, "close", None)
        if close is not None:
            close()


def _parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    moment = datetime.fromisoformat(value)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
