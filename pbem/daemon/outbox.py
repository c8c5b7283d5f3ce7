"""The daemon's way out: sends the store's outbox, marks each mail sent once the server took
it, and spaces retries.

A mail refused for now (a 4xx, a dropped connection) is kept and retried with backoff (30 s
doubling to an hour, see ``retry_delay``) for as long as a mail server would keep it
(``[daemon] queue_lifetime_days``, 5 days by default, as Postfix's
``maximal_queue_lifetime``). A refusal of one recipient (a 4xx at RCPT or after DATA) holds
up that recipient's mail alone: the other mail queued for them waits for its retry, and
everyone else's mail goes on. Two refusals of the session in a row (at the greeting, the
login, MAIL FROM, a connection lost) mean the server itself refuses, and sending pauses
until the first retry is due. Only a mail refused for good (a 5xx) or kept past the
lifetime is given up: it stays in the store with its last error starting with
``GIVEN_UP``, for the game master to see, and is not tried again. The game master is told
of each give-up among their alerts: at once, then grouped with the others at most once
every half hour (``pbem.service.postmaster``); ``pbem outbox list`` shows them all.

A provider's sending limits (``[smtp] max_per_minute``, ``max_per_day``) hold the mail past
the cap in the store and send it later, in order. A login the provider refuses for good (an
OAuth login revoked) pauses all sending without counting against any mail, and tells the
game master. Why sending is held is kept in ``daemon/outbox-hold.json`` for ``pbem outbox
list``. Once the game master has mended the cause (the password, the relay's settings),
``pbem outbox retry --waiting`` makes every mail due again and leaves the file
``daemon/outbox-retry-now``, which the next pass takes (it removes it) as the word to lift
the pause at once instead of waiting it out; a poke of the daemon makes that pass now.

A game's chat posts (recipient ``chat:<game>``, ``pbem.service.chat``) are queued in the same
outbox but never go through the mail server: the mail outbox leaves them to an outbox of
chat posts of its own (``Outbox.chat``), which posts them through the chat poster
(``pbem.transport.chat``) on a thread of its own, started by the mail outbox's pass when
none runs. A webhook that fails, answers slowly or not at all holds up nothing but that
game's next posts, each retried on the same schedule as mail; no mail waits behind them.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pbem.atomicfile import write_json_atomic
from pbem.daemon.alarms import SMTP_LOGIN, SMTP_SENDING, Alarm, Alarms
from pbem.daemon.config import DaemonConfig
from pbem.daemon.loop import MAX_WAIT
from pbem.daemon.metrics import CountedSender, Figures
from pbem.service.notices import chat_game
from pbem.service.postmaster import Postmaster
from pbem.store import GameStore, OutboxItem, Store
from pbem.transport.chat import ChatPoster
from pbem.transport.sender import (
    LoginImpossible,
    MaildirSender,
    PermanentSendError,
    RecipientDeferred,
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
SENDING_ALARM_AFTER = timedelta(minutes=15)
"""The server refusing every session this long (no mail sent meanwhile) raises the alarm
(``pbem.daemon.alarms``): past a blip, before the mail is given up."""
_MINUTE, _DAY = timedelta(minutes=1), timedelta(days=1)


def hold_file(store: Path) -> Path:
    """Give the file saying why sending is held (absent while it is not)."""
    return store / "daemon" / "outbox-hold.json"


def retry_request_file(store: Path) -> Path:
    """Give the file by which the game master asks the daemon to lift its pause now."""
    return store / "daemon" / "outbox-retry-now"


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
                clock: Callable[[], datetime]) -> OutboxSender:
    """Give the outbox of the configured store, sending through ``sender``, with a store
    object of its own."""
    sending = Store(config.store)
    if config.metrics_file is not None:
        sender = CountedSender(sender, Figures(config.metrics_file, "sending"))
    postmaster = Postmaster(sending, config.service_config().sender, config.mails_per_hour)
    limits = None
    smtp = config.smtp
    if smtp is not None and (smtp.max_per_minute or smtp.max_per_day):
        limits = SendingLimits(smtp.max_per_minute, smtp.max_per_day,
                               sending.sent_times(clock() - _DAY))
    return OutboxSender(sending, sender, clock, envelope_from=config.envelope_from,
                  queue_lifetime=config.queue_lifetime, given_up=postmaster.given_up,
                  login_refused=postmaster.login_refused, limits=limits,
                  hold_file=hold_file(config.store),
                  retry_request=retry_request_file(config.store),
                  chat=make_chat_outbox(config, clock),
                  alarms=Alarms(config),
                  way_out=f"the SMTP server {smtp.host}:{smtp.port}" if smtp is not None
                  else f"the Maildirs in {config.maildir}")


def make_chat_outbox(config: DaemonConfig, clock: Callable[[], datetime]) -> OutboxSender:
    """Give the outbox of the store's chat posts, with a store object of its own (it posts
    on a thread of its own)."""
    posting = Store(config.store)
    postmaster = Postmaster(posting, config.service_config().sender, config.mails_per_hour)
    return OutboxSender(posting, ChatPoster(chat_url_of(posting)), clock,
                  envelope_from=config.envelope_from, queue_lifetime=config.queue_lifetime,
                  given_up=postmaster.given_up, posts=True)


def chat_url_of(store: GameStore) -> Callable[[str], str | None]:
    """Give the function from a chat post's recipient to its game's webhook as it stands
    (None: the game posts to no chat now, or is gone). Reads the game's last snapshot, no
    lock needed: the store writes it atomically."""
    def url_of(to: str) -> str | None:
        game = chat_game(to)
        snapshot = store.snapshot(game) if game and game in store.games() else None
        if not snapshot:
            return None
        audience = snapshot.get("service", {}).get("audience", {})
        return str(audience.get("chat", "")) or None
    return url_of


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
    error: str = ""  # what refused it, when it was refused


class OutboxSender:
    """Sends a store's outbox through a sender. ``store`` is its own: the outbox may send from
    a thread of its own while another thread processes mail."""

    def __init__(self, store: GameStore, sender: Sender, clock: Callable[[], datetime], *,
                 envelope_from: str, queue_lifetime: timedelta = timedelta(days=5),
                 given_up: Callable[[OutboxItem, str, datetime], None] | None = None,
                 login_refused: Callable[[str, str, str, datetime], None] | None = None,
                 limits: SendingLimits | None = None,
                 hold_file: Path | None = None, retry_request: Path | None = None,
                 chat: OutboxSender | None = None,
                 posts: bool = False, alarms: Alarms | None = None,
                 way_out: str = "SMTP") -> None:
        self.store = store
        self.sender = sender
        self._clock = clock
        self._envelope_from = envelope_from
        self._queue_lifetime = queue_lifetime
        self._given_up = given_up  # tells the game master of a mail given up (held lock)
        self._pause_until: datetime | None = None  # no sending before this (server refusing)
        self._login_refused = login_refused  # tells the game master (takes the lock)
        self._logins_refused = 0  # in a row; 0 once a mail went
        self._limits = limits
        self._hold_file = hold_file
        self._held: tuple[str, str] | None = None  # (until, why) as written in the hold file
        self._retry_request = retry_request  # its presence: the game master lifts the pause
        self._posts = posts  # this outbox sends the chat posts, and only them
        self.chat = chat  # the outbox of the chat posts, run on a thread of its own
        self._chat_thread: threading.Thread | None = None
        self._chat_retry: datetime | None = None  # when its last pass said to try again
        self._alarms = alarms  # the second way to the game master, and the status file
        self._failing_since: datetime | None = None  # the session refused since, none sent
        self._way_out = way_out  # the server mail goes through, for the alarm

    def send_due(self) -> Flush:
        """Give what sending the due outbox mail did.

        A mail is marked sent only after the server took it; a crash in between sends it
        again under the same Message-ID. A mail refused for now waits for its own retry
        time, and the other mail to its recipient waits with it, so one troubled recipient
        holds up nobody else; after two refusals of the session in a row the server itself
        is taken to refuse, and sending pauses until the first retry.
        """
        now = self._clock()
        self._post_chat()
        if self._retry_asked() and self._pause_until is not None:
            log.info("outbox: the game master asked to send now; the pause until %s is lifted",
                     self._pause_until.isoformat(timespec="seconds"))
            self._pause_until = None
        if self._pause_until is not None and now < self._pause_until:
            return Flush(retry_at=_earliest(self._pause_until, self._chat_retry))
        self._pause_until = None
        items = [item for item in self.store.outbox()  # needs no lock: its writes are atomic
                 if not (item.last_error or "").startswith(GIVEN_UP)
                 and (chat_game(item.to) is not None) == self._posts]
        # A recipient with mail waiting for a retry gets no other mail before it.
        waiting: dict[str, datetime] = {}
        for item in items:
            due = _parse_time(item.retry_at)
            if due is not None and due > now:
                waiting[item.to] = min(due, waiting.get(item.to, due))
        sent = failed = given_up = in_a_row = 0
        retry_at: datetime | None = None
        held: tuple[datetime, str] | None = None
        for item in items:
            due = _parse_time(item.retry_at)
            if due is None and item.to in waiting:
                due = waiting[item.to]
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
            if outcome.refused_for_now:
                self._sending_failed(now, outcome.error)
            if outcome.retry_at is not None:
                failed += 1
                retry_at = outcome.retry_at if retry_at is None else min(retry_at,
                                                                        outcome.retry_at)
                waiting.setdefault(item.to, outcome.retry_at)
            if in_a_row >= _REFUSALS_BEFORE_PAUSE:
                self._pause_until = retry_at
                break
        if sent or failed or given_up:
            log.info("outbox: %d sent, %d to retry, %d given up", sent, failed, given_up)
        self._say_held(held)
        return Flush(sent, failed, given_up, _earliest(retry_at, self._chat_retry))

    def _retry_asked(self) -> bool:
        """Take the game master's request to send now, if one waits (``pbem outbox retry
        --waiting``): it is answered once."""
        if self._retry_request is None:
            return False
        try:
            self._retry_request.unlink()
        except FileNotFoundError:
            return False
        return True

    def _post_chat(self) -> None:
        """Start a pass of the chat posts' outbox on its thread, unless one is under way:
        the mail's pass never waits for a webhook."""
        chat = self.chat
        if chat is None or (self._chat_thread is not None and self._chat_thread.is_alive()):
            return

        def post() -> None:
            try:
                self._chat_retry = chat.send_due().retry_at
            except Exception:  # the next pass tries again
                log.exception("posting to chats failed")

        self._chat_thread = threading.Thread(target=post, name="chat-posts", daemon=True)
        self._chat_thread.start()

    def wait_chat(self, timeout: float | None = None) -> bool:
        """Wait for the chat posts' pass under way, if any; give whether none is left."""
        if self._chat_thread is not None:
            self._chat_thread.join(timeout)
            return not self._chat_thread.is_alive()
        return True

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
            # Only the session's refusals count towards taking the server to refuse.
            session = not isinstance(error, RecipientDeferred)
            kept = now - _queued_at(item, now)
            if kept >= self._queue_lifetime:
                log.error("mail %s to %s given up after %d attempts in %s: %s",
                          item.message_id, item.to, attempts, _span(kept), error)
                self._give_up(item, f"{attempts} attempts in {_span(kept)}; last: {error}",
                              now, attempts)
                return _Outcome(given_up=True, refused_for_now=session, error=str(error))
            retry_at = now + timedelta(seconds=retry_delay(attempts))
            log.warning("mail %s to %s not sent (%s); retry at %s", item.message_id, item.to,
                        error, retry_at.isoformat(timespec="seconds"))
            self._mark_failed(item, str(error), retry_at, attempts)
            return _Outcome(refused_for_now=session, retry_at=retry_at, error=str(error))
        self.store.mark_sent(item, sent_at=now)  # no lock: a step may be under way
        log.info("sent mail %s to %s", item.message_id, item.to,
                 extra={"message_id": item.message_id, "game": item.game_id})
        self._logins_refused = 0
        self._failing_since = None
        if self._alarms is not None:
            self._alarms.clear(SMTP_LOGIN, "SMTP", now)
            self._alarms.clear(SMTP_SENDING, self._way_out, now)
        if self._limits is not None:
            self._limits.record(now)
        return _Outcome(sent=True)

    def _login_impossible(self, error: LoginImpossible, now: datetime) -> _Outcome:
        """Hold every mail, none charged an attempt, until the login works; tell the game
        master the first time."""
        self._logins_refused += 1
        until = now + timedelta(seconds=retry_delay(self._logins_refused))
        if self._logins_refused > 1:  # said in full the first time
            log.info("SMTP login still impossible; trying again at %s",
                     until.isoformat(timespec="seconds"))
            return _Outcome(login_refused=(until, f"the SMTP login is refused: {error}"))
        log.error("SMTP login impossible: %s. %s Every mail waits; trying again at %s",
                  error.message, error.suggestion or "", until.isoformat(timespec="seconds"))
        if self._alarms is not None:
            try:
                self._alarms.raise_alarm(Alarm(SMTP_LOGIN, "SMTP", error.message,
                                               error.suggestion or "",
                                               now.isoformat(timespec="seconds")), now)
            except OSError:
                log.exception("could not keep the alarm in the store")
        if self._login_refused is not None:
            with self.store.lock():
                self._login_refused("SMTP", error.message, error.suggestion or "", now)
        return _Outcome(login_refused=(until, f"the SMTP login is refused: {error}"))

    def _sending_failed(self, now: datetime, error: str) -> None:
        """Count a session refused; the server refusing every session for
        ``SENDING_ALARM_AFTER`` raises the alarm (once: it is kept until a mail goes)."""
        if self._failing_since is None:
            self._failing_since = now
        if self._alarms is None or now - self._failing_since < SENDING_ALARM_AFTER:
            return
        try:
            self._alarms.raise_alarm(Alarm(
                SMTP_SENDING, self._way_out, error,
                "Check that the server is up and reachable from this machine (pbem doctor).",
                self._failing_since.isoformat(timespec="seconds")), now)
        except OSError:
            log.exception("could not keep the alarm in the store")

    def _mark_failed(self, item: OutboxItem, error: str, retry_at: datetime,
                     attempts: int) -> None:
        with self.store.lock():
            self.store.mark_failed(item.outbox_id, error=error, retry_at=retry_at,
                                   attempts=attempts)

    def _give_up(self, item: OutboxItem, error: str, now: datetime, attempts: int) -> None:
        """Keep the mail unsent for good, and tell the game master (among their grouped
        alerts), in one lock hold."""
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


def _earliest(a: datetime | None, b: datetime | None) -> datetime | None:
    return b if a is None else a if b is None else min(a, b)


def _parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    moment = datetime.fromisoformat(value)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _queued_at(item: OutboxItem, now: datetime) -> datetime:
    """Give when a mail was queued (``now`` if the store's record says nothing readable)."""
    try:
        return _parse_time(item.created_at) or now
    except ValueError:
        return now


def _span(kept: timedelta) -> str:
    """Give a time a mail was kept in words for the log and the game master: 5 d 2 h."""
    hours = int(kept.total_seconds() // 3600)
    if hours >= 24:
        return f"{hours // 24} d {hours % 24} h"
    return f"{hours} h {int(kept.total_seconds() % 3600 // 60)} min"
