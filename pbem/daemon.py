"""The mail daemon: mail in through the intakes, turns played by the service, mail out.

Threads and who may touch what, each with store objects of its own (a store object counts
its lock holds per object, not per thread):

- the intakes (the SMTP listener's worker thread, the IMAP thread) only *store* mail, with
  ``Service.accept``: a mail is durable before the SMTP 250 or the IMAP move. Storing takes
  the inbox's own lock, so mail comes in while a round of mail is being processed;
- the main thread processes the inbox and ticks the deadlines, holding the store's lock for
  one round at a time, so the GM's command line (another process) interleaves between them;
- the sending thread sends the outbox (``run_once`` sends from the main thread): reading
  the outbox takes no lock and marking a mail sent only the outbox's own, so sending goes on
  during a round.

Anyone else in the process uses store objects of their own (see ``Daemon.store``).

A crash anywhere loses nothing and repeats nothing: the inbox is processed again from the
store, a mail whose step committed is not applied again (the store knows), and a mail sent
but not yet marked sent is sent again under the same Message-ID, which a Maildir and any
mail client recognise.
"""

from __future__ import annotations

import fcntl
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pbem.atomicfile import make_dir
from pbem.config import DaemonConfig
from pbem.daemon_outbox import Flush, Outbox, make_sender
from pbem.engine.cards import CardSet
from pbem.errors import StoreError
from pbem.mail.imap import ImapIntake, JsonFileCursor, UnprocessableMail
from pbem.mail.listener import SmtpListener
from pbem.mail.sender import MaildirSender, Sender, SmtpSender
from pbem.service.postmaster import Postmaster
from pbem.service.service import Service
from pbem.store import Store

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]

# After a failure of the main loop itself (not of one mail), wait this long, doubling.
_LOOP_RETRY_BASE, _LOOP_RETRY_CAP = 1.0, 300.0
# The longest the main loop sleeps with nothing due: a bound, not a schedule.
_MAX_WAIT = 60.0
# Mail arriving this close together is processed together, up to this long after the first.
_GATHER, _GATHER_MAX = 0.02, 0.25


def utc_now() -> datetime:
    """Give the current time, timezone-aware in UTC."""
    return datetime.now(UTC)


def with_return_path(raw: bytes, envelope_from: str) -> bytes:
    """Give the mail with its envelope sender on top as ``Return-Path``.

    That is what a delivering server writes, and the only Return-Path the loop guard trusts
    (the topmost): a bounce arrives with the null sender and so reads ``Return-Path: <>``.
    """
    bare = "".join(c for c in envelope_from if c.isprintable() and c not in "<>")
    newline = b"\r\n" if b"\r\n" in raw[:2048] else b"\n"
    return b"Return-Path: <" + bare.encode("utf-8", "replace") + b">" + newline + raw


@dataclass(frozen=True)
class Pass:
    """What one pass of the main loop did."""

    processed: int
    ticked: bool
    flush: Flush
    problems: tuple[str, ...] = ()


class Daemon:
    """One daemon over one store: build it, then ``serve()`` until stopped, or ``run_once()``.

    ``clock`` gives the time every step is stamped with (tests pin it); ``sender`` replaces
    the configured way out (tests and benches count what leaves).

    ``store`` and ``service`` are for the caller's own thread (to create a game, or read
    one, while the daemon serves): they are objects of their own on the same folder, so the
    store's file lock keeps them and the daemon's threads apart. The daemon's threads never
    use them.
    """

    def __init__(self, config: DaemonConfig, *, clock: Clock = utc_now,
                 cards: CardSet | None = None, sender: Sender | None = None) -> None:
        self.config = config
        self._clock = clock
        self._instance = _InstanceLock(config.store / "daemon" / "running.lock")
        self._store = Store(config.store)
        self._service = Service(self._store, config.service_config(), cards)
        self.store = Store(config.store)
        self.service = Service(self.store, config.service_config(), self._service.cards)
        # The intakes' own: storing mail never waits for the main thread's lock hold.
        self._intake = Service(Store(config.store), config.service_config(), self._service.cards)
        self.sender: Sender = sender if sender is not None else make_sender(config)
        sending = Store(config.store)
        self.outbox = Outbox(sending, self.sender, clock,
                             envelope_from=config.envelope_from,
                             give_up_after=config.give_up_after,
                             given_up=Postmaster(sending, config.service_config().sender,
                                                 config.mails_per_hour).given_up)
        self._wake = threading.Event()
        self._send_wake = threading.Event()  # wakes the sending thread of serve()
        self._stop = threading.Event()
        self._listener: SmtpListener | None = None
        self._imap: ImapIntake | None = None
        self._imap_thread: threading.Thread | None = None
        self._send_thread: threading.Thread | None = None
        self._next_tick = 0.0  # monotonic time of the next deadline tick

    # ---- intake -------------------------------------------------------------------------

    def deliver_smtp(self, raw: bytes, envelope_from: str, rcpt_tos: list[str]) -> None:
        """Store a mail the SMTP listener took; returns once it is durable."""
        self._accept(with_return_path(raw, envelope_from), f"SMTP from <{envelope_from}>")

    def deliver_imap_group(self, raws: Sequence[bytes]) -> list[BaseException | None]:
        """Store mails fetched together over IMAP, durable together; gives each one's fate
        (see ``pbem.mail.imap.GroupDelivery``)."""
        limit = self.config.max_mail_bytes
        # The listener refuses these with 552; here they go to the failed folder.
        fates: list[BaseException | None] = [
            UnprocessableMail(f"the mail is {len(raw)} bytes, more than the {limit} allowed")
            if len(raw) > limit else None for raw in raws]
        taken = [raw for raw, fate in zip(raws, fates, strict=True) if fate is None]
        if not taken:
            return fates
        try:
            mail_ids = self._intake.accept_many(taken, self._clock())
        except Exception as error:  # none of them is stored: the intake stops at the first
            return [*fates[:fates.index(None)], error]
        self._stored(mail_ids, "IMAP")
        return fates

    def _accept(self, raw: bytes, via: str) -> None:
        self._stored([self._intake.accept(raw, self._clock())], via)

    def _stored(self, mail_ids: Sequence[str | None], via: str) -> None:
        """Log what an intake stored (None: received before) and wake the main loop."""
        for mail_id in mail_ids:
            if mail_id is None:
                log.info("mail via %s was received before; ignored", via)
            else:
                log.info("stored mail %s via %s", mail_id, via)
        if any(mail_ids):
            self._wake.set()

    def _start_intakes(self) -> None:
        config = self.config
        if config.listener is not None:
            listener = SmtpListener(self.deliver_smtp, host=config.listener.host,
                                    port=config.listener.port,
                                    max_bytes=config.max_mail_bytes,
                                    accept_recipient=config.listener.accepts)
            listener.start()
            self._listener = listener
        if config.imap is not None:
            intake = self._imap_intake()
            thread = threading.Thread(target=intake.run, args=(self._stop,), name="imap-intake",
                                      daemon=True)
            thread.start()
            self._imap, self._imap_thread = intake, thread
        # Sending has a thread of its own: it waits on the mail server while mail is processed.
        self._send_thread = threading.Thread(
            target=self._loop, args=(self._send, self._send_wake, "sending"), name="outbox",
            daemon=True)
        self._send_thread.start()

    def _imap_intake(self) -> ImapIntake:
        assert self.config.imap is not None
        return ImapIntake(self.config.imap, None, JsonFileCursor(self.config.imap_cursor),
                          deliver_group=self.deliver_imap_group)

    @property
    def listener_port(self) -> int | None:
        """Give the port the SMTP listener is bound to, None when it is not running."""
        return self._listener.port if self._listener is not None else None

    # ---- the steps ----------------------------------------------------------------------

    def process(self) -> int:
        """Give the number of stored mails processed now (every one waiting)."""
        count = self._service.process(self._clock(), after_round=self._send_wake.set)
        if count:
            log.info("processed %d mail(s)", count)
        return count

    def tick(self) -> None:
        """Run the deadlines of every game."""
        self._service.tick(self._clock())
        self._next_tick = time.monotonic() + self.config.tick_seconds

    def flush(self) -> Flush:
        """Give what sending the due outbox mail did (see ``pbem.daemon_outbox``)."""
        return self.outbox.send_due()

    def step(self) -> Pass:
        """Give what one pass did: process the inbox, tick when due, send what is due."""
        processed = self.process()
        ticked = time.monotonic() >= self._next_tick
        if ticked:
            self.tick()
        return Pass(processed, ticked, self.flush())

    # ---- running ------------------------------------------------------------------------

    def run_once(self) -> Pass:
        """Give what one pass did over the mail waiting now (IMAP fetched once); no listener."""
        problems: list[str] = []
        with self._instance.held():
            if self.config.imap is not None:
                intake = self._imap_intake()
                try:
                    fetched = intake.fetch_new()
                    log.info("fetched %d mail(s) over IMAP", fetched)
                except Exception as error:  # the inbox is still worth processing
                    log.error("IMAP intake failed: %s", error)
                    problems.append(f"IMAP intake failed: {error}")
                finally:
                    intake.close()
            try:
                done = self.step()
            finally:
                self.outbox.close()
        if done.flush.failed:
            problems.append(f"{done.flush.failed} mail(s) could not be sent yet")
        return Pass(done.processed, done.ticked, done.flush, tuple(problems))

    def serve(self, ready: Callable[[], None] | None = None) -> None:
        """Run until ``request_stop``: intakes on, then pass after pass; closes everything."""
        with self._instance.held():
            try:
                self._start_intakes()
                log.info("daemon running: store %s, %s; mail out %s", self.config.store,
                         self._intakes(), self._way_out())
                if ready is not None:
                    ready()
                self._loop(self._work, self._wake, "a pass")
            finally:
                self.close()
        log.info("daemon stopped")

    def _work(self) -> float:
        """Process and tick, wake the sending thread if that made mail; give the wait."""
        self._gather()
        processed = self.process()
        if self._tick_if_due() or processed:  # (both run: mail never holds up a deadline)
            self._send_wake.set()
        return min(_MAX_WAIT, max(0.0, self._next_tick - time.monotonic()))

    def _gather(self) -> None:
        """While mail keeps coming in, wait for it a moment (``_GATHER``, never longer than
        ``_GATHER_MAX``): the mails then share one round and its store write."""
        until = time.monotonic() + _GATHER_MAX
        while not self._stop.is_set() and self._wake.wait(
                min(_GATHER, max(0.0, until - time.monotonic()))):
            self._wake.clear()
            if time.monotonic() >= until:
                return

    def _tick_if_due(self) -> bool:
        if time.monotonic() < self._next_tick:
            return False
        self.tick()
        return True

    def _send(self) -> float:
        """Send what is due; give the wait until a retry is due (or a bound)."""
        retry_at = self.flush().retry_at
        if retry_at is None:
            return _MAX_WAIT
        return min(_MAX_WAIT, max(0.05, (retry_at - self._clock()).total_seconds()))

    def _loop(self, work: Callable[[], float], wake: threading.Event, what: str) -> None:
        """Run ``work`` until stopped, waiting what it says or until woken; a failure waits
        longer each time it repeats."""
        failures = 0
        while not self._stop.is_set():
            wake.clear()
            try:
                wait = work()
                failures = 0
            except Exception:  # the daemon must outlive any one failure
                failures += 1
                wait = min(_LOOP_RETRY_CAP, _LOOP_RETRY_BASE * 2 ** (failures - 1))
                log.exception("%s failed; trying again in %.0f s", what, wait)
            if not self._stop.is_set():  # the stop's wake may have been taken by _gather
                wake.wait(wait)

    def wake(self) -> None:
        """Make the main loop pass again now (new mail, or a test moved the clock)."""
        self._wake.set()
        self._send_wake.set()

    def request_stop(self) -> None:
        """Ask the loop to stop after the step in progress; safe from a signal handler."""
        self._stop.set()
        self._wake.set()
        self._send_wake.set()

    def close(self) -> None:
        """Stop the intakes (waiting for a mail being stored) and close connections."""
        self._stop.set()
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.stop()
        self._send_wake.set()
        for thread in (self._imap_thread, self._send_thread):
            if thread is not None:
                thread.join(timeout=60)
        self._imap_thread = self._send_thread = None
        self._imap = None
        self.outbox.close()

    def _intakes(self) -> str:
        parts = []
        if self._listener is not None and self.config.listener is not None:
            parts.append(f"SMTP listener on {self.config.listener.host}:{self._listener.port}")
        if self.config.imap is not None:
            parts.append(f"IMAP {self.config.imap.username}@{self.config.imap.where} "
                         f"folder {self.config.imap.folder}")
        return ", ".join(parts)

    def _way_out(self) -> str:
        if isinstance(self.sender, SmtpSender):
            return f"through SMTP {self.sender.where}"
        if isinstance(self.sender, MaildirSender):
            return f"into Maildirs under {self.sender.root}"
        return f"through {type(self.sender).__name__}"


class _InstanceLock:
    """One daemon per store: a file lock held while it runs, released by the kernel on death."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @contextmanager
    def held(self) -> Iterator[None]:
        make_dir(self.path.parent)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
                raise StoreError(f"Another pbem daemon (process {holder}) is running on the "
                                 f"store {self.path.parent.parent}.",
                                 suggestion="Stop it first, or give this one a store of its "
                                 "own.") from None
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            yield
        finally:
            os.close(fd)
