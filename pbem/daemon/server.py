"""The mail daemon: mail in through the intakes, turns played by the service, mail out.

Its parts, and who may touch what, each with store objects of its own (a store object
counts its lock holds per object, not per thread):

- the intakes only *store* mail, with ``Service.accept``: a mail is durable before the SMTP
  250 or the IMAP move. Storing takes the inbox's own lock, so mail comes in while a round
  of mail is being processed. The SMTP listener stores from its worker thread; the IMAP
  intake runs in a child process of its own and wakes the main loop through a pipe;
- the main thread processes the inbox and ticks the deadlines, holding the store's lock for
  one round at a time, so the GM's command line (another process) interleaves between them;
- the sending loop runs in a child process of its own, woken through a pipe after each
  round that made mail: reading the outbox takes no lock and marking a mail sent only the
  outbox's own, so sending goes on during a round;
- a command of the game master, once it has committed, pokes the daemon through the named
  pipe ``<store>/daemon/wake`` (``pbem.daemon.wakeup``): a thread reading it makes the main
  loop pass at once (the bot seats' answers processed) and wakes the sending loop, so the
  mail the command made leaves within moments, not at the next tick.

The children (``pbem.daemon.children``) let the daemon's Python work spread over several
cores. They need the way out built from the configuration and a clock a child can import:
with a ``sender`` object, or a clock object a test moves, the IMAP intake and the sending
loop run as threads of the daemon's process instead, as does ``run_once`` (sending from the
main thread). Anyone else in the process uses store objects of their own (``Daemon.store``).

A disk that fails as a whole (out of space or quota, read-only: ``pbem.errors.disk_trouble``)
is no mail's fault: the pass stops with the mail waiting, the listener answers new mail 452
(try later) and the IMAP intake leaves it on the server, the log says so once, and the main
loop tries again every few seconds; once a write succeeds the game master is told by mail
and the waiting mail is applied, each once.

A crash anywhere loses nothing and repeats nothing: the inbox is processed again from the
store, a mail whose step committed is not applied again (the store knows), and a mail sent
but not yet marked sent is sent again under the same Message-ID, which a Maildir and any
mail client recognise. The instance lock is held until the daemon and all its children have
ended, so a new daemon never sends alongside an old one's child: a new daemon waits up to a
minute for the children of one that died, and a few seconds for one that looks alive (killed
or stopped a moment ago, still ending or not yet reaped) before it refuses to start.
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

from pbem.atomicfile import make_dir, note_holder
from pbem.daemon.children import ChildProcess, crosses
from pbem.daemon.config import DaemonConfig
from pbem.daemon.intake import make_mail_intake, make_polled_intakes, polled
from pbem.daemon.loop import MAX_WAIT, run_loop
from pbem.daemon.metrics import STORE_SECONDS, Figures, read_store_figures
from pbem.daemon.outbox import Flush, make_outbox, make_sender, read_hold
from pbem.daemon.systemd import Notifier
from pbem.daemon.wakeup import WakeListener
from pbem.engine.cards import CardSet
from pbem.errors import StoreError, disk_trouble
from pbem.mail.address import address_detail
from pbem.service.service import BATCH, Service
from pbem.store import Store
from pbem.transport import dkimcheck
from pbem.transport.intake import Intake
from pbem.transport.listener import SmtpListener, server_tls
from pbem.transport.sender import MaildirSender, Sender, SmtpSender

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]

# Mail arriving this close together is processed together, up to this long after the first.
_GATHER, _GATHER_MAX = 0.02, 0.25
# A round of mail takes no more of its mails after this long, so that the answers to its
# first leave at once (bots answering bots make long rounds: bench/latency.py).
ROUND_SECONDS = 0.1
# How long a new daemon waits for the children of a dead one to end (they finish a send).
_ORPHANS_SECONDS = 60.0
# How long a new daemon waits for a holder of the instance lock that looks alive to be gone
# before refusing to start beside it: a daemon killed or stopped a moment ago may still be
# ending (its files closed last), or be a process its parent has not reaped yet.
_DYING_SECONDS = 5.0
# How long ``serve`` waits for its children to be at work before it says it is ready.
_CHILDREN_START_SECONDS = 60.0
# How often the main loop tries the store again while its disk fails (full, read-only).
DISK_RETRY_SECONDS = 5.0


def utc_now() -> datetime:
    """Give the current time, timezone-aware in UTC."""
    return datetime.now(UTC)


@dataclass(frozen=True)
class LoopPass:
    """What one pass of the main loop did."""

    processed: int
    ticked: bool
    flush: Flush
    problems: tuple[str, ...] = ()


class Daemon:
    """One daemon over one store: build it, then ``serve()`` until stopped, or ``run_once()``.

    ``clock`` gives the time every step is stamped with (tests pin it); ``sender`` replaces
    the configured way out (tests and benches count what leaves). ``serve`` runs the IMAP
    intake and the sending in child processes unless either is given an object a child
    process cannot share (see the module's docstring); ``in_processes`` says which.

    ``store`` and ``service`` are for the caller's own thread (to create a game, or read
    one, while the daemon serves): they are objects of their own on the same folder, so the
    store's file lock keeps them and the daemon's threads apart. The daemon's threads never
    use them.
    """

    def __init__(self, config: DaemonConfig, *, clock: Clock = utc_now,
                 cards: CardSet | None = None, sender: Sender | None = None) -> None:
        self.config = config
        self._clock = clock
        self.in_processes = sender is None and crosses(clock)
        self._instance = _InstanceLock(config.store / "daemon" / "running.lock")
        self._store = Store(config.store)
        self._service = Service(self._store, config.service_config(), cards)
        self.store = Store(config.store)
        self._listener_store = Store(config.store)  # the listener's recipient checks
        self.service = Service(self.store, config.service_config(), self._service.cards)
        self._wake = threading.Event()
        self._send_wake = threading.Event()  # wakes the sending loop when it is a thread
        # Since when, and why, the store's disk fails (None while it writes).
        self._disk_failing: tuple[datetime, str] | None = None
        self._intake = make_mail_intake(config, clock, stored=self._wake.set,
                                        refusing=self.disk_failing)
        self.sender: Sender = sender if sender is not None else make_sender(config)
        self.outbox = make_outbox(config, self.sender, clock)
        self._stop = threading.Event()
        self._listener: SmtpListener | None = None
        self._threads: list[threading.Thread] = []
        self._children: list[ChildProcess] = []
        # The game master's commands wake the loops through it (pbem.daemon.wakeup).
        self._waker = WakeListener(config.store, self.wake)
        self._next_tick = 0.0  # monotonic time of the next deadline tick
        # The main process's figures for monitoring ([daemon] metrics_file), if wanted.
        self._figures = (Figures(config.metrics_file, "main")
                         if config.metrics_file is not None else None)
        self._store_read = float("-inf")  # monotonic time the store's figures were read

    # ---- intake -------------------------------------------------------------------------

    def deliver_smtp(self, raw: bytes, envelope_from: str, rcpt_tos: list[str]) -> None:
        """Store a mail the SMTP listener took; returns once it is durable. With
        ``[listener] check_dkim``, its DKIM signatures are checked first and the verdict
        written on top (``pbem.transport.dkimcheck``)."""
        listener = self.config.listener
        if listener is not None and listener.check_dkim:
            raw = dkimcheck.stamp(raw, self.config.trusted_authserv_id)
        self._intake.deliver_smtp(raw, envelope_from, rcpt_tos)

    def deliver_imap_group(self, raws: Sequence[bytes]) -> list[BaseException | None]:
        """Store mails fetched together over IMAP, durable together; gives each one's fate
        (see ``pbem.transport.imap.GroupDelivery``)."""
        return self._intake.deliver_imap_group(raws)

    def _start_intakes(self, lock_fd: int) -> None:
        config = self.config
        if config.listener is not None:
            settings = config.listener
            tls = (server_tls(settings.tls_cert, settings.tls_key)
                   if settings.tls_cert and settings.tls_key else None)
            listener = SmtpListener(self.deliver_smtp, host=config.listener.host,
                                    port=config.listener.port, tls=tls,
                                    max_bytes=config.max_mail_bytes,
                                    accept_recipient=config.listener.accepts,
                                    held_recipient=self._moved_away)
            listener.start()
            self._listener = listener
        # Sending has a loop of its own: it waits on the mail server while mail is processed.
        if self.in_processes:
            self._children = [ChildProcess("sending", config, self._clock, lock_fd, self._stop)]
            if polled(config):
                self._children.append(ChildProcess("intake", config, self._clock, lock_fd,
                                                   self._stop, notified=self._wake.set))
            for child in self._children:
                child.start()
            for child in self._children:
                if not child.wait_ready(_CHILDREN_START_SECONDS) and not self._stop.is_set():
                    log.warning("the %s process is not at work yet; going on", child.role)
            return
        for intake in self._polled_intakes():
            self._threads.append(threading.Thread(
                target=intake.run, args=(self._stop,), name="intake", daemon=True))
        self._threads.append(threading.Thread(
            target=run_loop, args=(self.outbox.send_pass, self._send_wake, self._stop,
                                   "sending"), name="outbox", daemon=True))
        for thread in self._threads:
            thread.start()

    def _moved_away(self, address: str) -> bool:
        """Tell whether ``address`` is the own address of a game moved out of this store
        (``pbem export --move``): its mail waits at the sending server (450) until the
        route to the game's new daemon is in place."""
        game = address_detail(address)
        return bool(game) and self._listener_store.retired(game)

    def _polled_intakes(self) -> list[Intake]:
        return make_polled_intakes(self.config, self._intake, self._clock)

    @property
    def loop_service(self) -> Service:
        """The service the daemon's own loop processes and ticks with (``service``, over
        another ``Store`` object, is for the other threads); a benchmark times its calls."""
        return self._service

    @property
    def listener_port(self) -> int | None:
        """Give the port the SMTP listener is bound to, None when it is not running."""
        return self._listener.port if self._listener is not None else None

    def child_pids(self) -> dict[str, int]:
        """Give the process id of each child process running now, by its part."""
        return {child.role: pid for child in self._children if (pid := child.pid) is not None}

    # ---- the steps ----------------------------------------------------------------------

    def process(self) -> int:
        """Give the number of stored mails processed now (every one waiting)."""
        figures = self._figures
        waiting = ({item.mail_id: item.received_at for item in self._store.inbox()}
                   if figures is not None else {})
        count = self._service.process(self._clock(), after_round=self._wake_sending,
                                      round_seconds=ROUND_SECONDS, stopping=self._stop.is_set)
        if count:
            log.info("processed %d mail(s)", count)
        if figures is not None and count:
            figures.count("pbem_mails_processed_total", "Mails taken off the inbox and "
                          "processed (answered, applied, or set aside).", count)
            now, left = self._clock(), {item.mail_id for item in self._store.inbox()}
            for mail_id, received in waiting.items():
                if mail_id not in left:
                    figures.observe("pbem_processing_latency_seconds", "From a mail stored to "
                                    "its answer queued.",
                                    (now - datetime.fromisoformat(received)).total_seconds())
        return count

    def _report_figures(self) -> None:
        """Write the figures for monitoring, reading the store's own every few seconds."""
        figures = self._figures
        if figures is None:
            return
        if time.monotonic() - self._store_read >= STORE_SECONDS:
            self._store_read = time.monotonic()
            read_store_figures(figures, self._store, read_hold(self.config.store),
                               self._clock())
        figures.write()

    def tick(self) -> None:
        """Run the deadlines of every game, then process the mail that made (a bot seat's)."""
        self._service.tick(self._clock(), then_process=False)
        self._next_tick = time.monotonic() + self.config.tick_seconds
        if self._store.inbox():  # as Service.tick did: no pass over an empty inbox
            self.process()

    def flush(self) -> Flush:
        """Give what sending the due outbox mail did (see ``pbem.daemon.outbox``)."""
        return self.outbox.send_due()

    def step(self) -> LoopPass:
        """Give what one pass did: process the inbox, tick when due, send what is due."""
        processed = self.process()
        ticked = time.monotonic() >= self._next_tick
        if ticked:
            self.tick()
        return LoopPass(processed, ticked, self.flush())

    # ---- running ------------------------------------------------------------------------

    def run_once(self) -> LoopPass:
        """Give what one pass did over the mail waiting now (IMAP fetched once); no listener."""
        problems: list[str] = []
        with self._instance.held():
            for kind, intake in zip(polled(self.config), self._polled_intakes(), strict=True):
                what = kind.name.upper()
                try:
                    fetched = intake.fetch_new()
                    log.info("fetched %d mail(s) over %s", fetched, what)
                except Exception as error:  # the inbox is still worth processing
                    log.error("%s intake failed: %s", what, error)
                    problems.append(f"{what} intake failed: {error}")
                finally:
                    intake.close()
            try:
                done = self.step()
            finally:
                self.outbox.close()
        if done.flush.failed:
            problems.append(f"{done.flush.failed} mail(s) could not be sent yet")
        return LoopPass(done.processed, done.ticked, done.flush, tuple(problems))

    def serve(self, ready: Callable[[], None] | None = None) -> None:
        """Run until ``request_stop``: intakes on, then pass after pass; closes everything.

        Under systemd (``Type=notify``) it says ``READY=1`` once the intakes and the sending
        are at work, and ``WATCHDOG=1`` each time the main loop comes round, which it then
        does at least twice in the watchdog's time (``pbem.daemon.systemd``)."""
        notifier = Notifier()

        def work() -> float:
            wait = self._work()
            self._report_figures()
            notifier.alive()
            return wait if notifier.interval is None else min(wait, notifier.interval)

        if self._figures is not None:
            logging.getLogger().addHandler(self._figures)
        with self._instance.held() as lock_fd:
            try:
                self._start_intakes(lock_fd)
                self._waker.start()
                log.info("daemon running: store %s, %s; mail out %s%s", self.config.store,
                         self._intakes(), self._way_out(), "".join(
                             f"; {child.role} in a process of its own"
                             for child in self._children))
                notifier.ready(f"taking mail: {self._intakes()}; mail out {self._way_out()}")
                if ready is not None:
                    ready()
                run_loop(work, self._wake, self._stop, "a pass")
            finally:
                notifier.stopping()
                self.close()
                if self._figures is not None:
                    logging.getLogger().removeHandler(self._figures)
                    self._figures.write()
        log.info("daemon stopped")

    def _work(self) -> float:
        """Process and tick, wake the sending loop if that made mail; give the wait."""
        self._gather()
        try:
            processed = self.process()
            ticked = self._tick_if_due()
            if self._disk_failing is not None:
                self._disk_mended()
        except Exception as error:
            if not disk_trouble(error):
                raise
            self._disk_fails(error)
            return DISK_RETRY_SECONDS
        if ticked or processed:  # (both run: mail never holds up a deadline)
            self._wake_sending()
        return min(MAX_WAIT, max(0.0, self._next_tick - time.monotonic()))

    def disk_failing(self) -> bool:
        """Tell whether the store's disk failed at the last try (new mail is then refused
        for later)."""
        return self._disk_failing is not None

    def _disk_fails(self, error: BaseException) -> None:
        """Note that the store's disk fails; say so in the log once, not at every try."""
        if self._disk_failing is None:
            self._disk_failing = (self._clock(), f"{type(error).__name__}: {error}")
            log.error("the store %s cannot be written (%s): the mail received waits, new "
                      "mail is refused for later; trying again every %.0f s",
                      self.config.store, error, DISK_RETRY_SECONDS)
        else:
            log.debug("the store still cannot be written: %s", error)

    def _disk_mended(self) -> None:
        """The store wrote again: tell the game master (that write is the proof), go on."""
        assert self._disk_failing is not None
        since, error = self._disk_failing
        with self._store.lock():
            self._service.postmaster.disk_mended(since, error, self._clock())
        self._disk_failing = None
        log.warning("the store %s can be written again; the mail that waited is applied",
                    self.config.store)
        self._wake_sending()
        self._wake.set()

    def _gather(self) -> None:
        """While mail keeps coming in, wait for it a moment (``_GATHER``, never longer than
        ``_GATHER_MAX``): the mails then share one round and its store write. A round's worth
        waiting (a burst, an IMAP group) goes at once: a round is all it would share."""
        until = time.monotonic() + _GATHER_MAX
        while not self._stop.is_set() and self._wake.wait(
                min(_GATHER, max(0.0, until - time.monotonic()))):
            self._wake.clear()
            if time.monotonic() >= until or len(self._store.inbox()) >= BATCH:
                return

    def _tick_if_due(self) -> bool:
        if time.monotonic() < self._next_tick:
            return False
        self.tick()
        return True

    def _wake_sending(self) -> None:
        self._send_wake.set()
        for child in self._children:
            if child.role == "sending":
                child.wake()

    def wake(self) -> None:
        """Make the main loop pass again now (new mail, or a test moved the clock)."""
        self._wake.set()
        self._wake_sending()

    def request_stop(self) -> None:
        """Ask the loop to stop after the step in progress; safe from a signal handler."""
        self._stop.set()
        self._wake.set()
        self._send_wake.set()

    def close(self) -> None:
        """Stop the intakes and the sending (waiting for a mail being stored or sent) and
        close connections."""
        self._stop.set()
        self._waker.stop()
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.stop()
        self._send_wake.set()
        for child in self._children:
            child.stop()
        for child in self._children:
            child.join()
        for thread in self._threads:
            thread.join(timeout=60)
        self._threads, self._children = [], []
        self.outbox.close()

    def _intakes(self) -> str:
        parts = []
        if self._listener is not None and self.config.listener is not None:
            parts.append(f"SMTP listener on {self.config.listener.host}:{self._listener.port}")
        parts += [kind.describe(self.config) for kind in polled(self.config)]
        return ", ".join(parts)

    def _way_out(self) -> str:
        if isinstance(self.sender, SmtpSender):
            return f"through SMTP {self.sender.where}"
        if isinstance(self.sender, MaildirSender):
            return f"into Maildirs under {self.sender.root}"
        return f"through {type(self.sender).__name__}"


class _InstanceLock:
    """One daemon per store: a file lock held while it runs, released by the kernel once the
    daemon and every child of it (they inherit the open file) have ended."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @contextmanager
    def held(self) -> Iterator[int]:
        """Hold the lock; gives the open file's descriptor, for the children to inherit."""
        make_dir(self.path.parent)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            self._take(fd)
            note_holder(fd)
            yield fd
        finally:
            os.close(fd)

    def _take(self, fd: int) -> None:
        """Take the lock; wait for it while the daemon holding it is dead (its children are
        finishing a send), up to ``_ORPHANS_SECONDS``, and while it looks alive only up to
        ``_DYING_SECONDS`` (a daemon killed or stopped a moment ago may still be ending, or
        be a process its parent has not reaped yet)."""
        began = time.monotonic()
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            waited = time.monotonic() - began
            if _alive(holder):
                if waited >= _DYING_SECONDS:
                    raise StoreError(f"Another pbem daemon (process {holder}) is running on "
                                     f"the store {self.path.parent.parent}.",
                                     suggestion="Stop it first, or give this one a store of "
                                     "its own.") from None
            elif waited >= _ORPHANS_SECONDS:
                raise StoreError(f"The processes of the pbem daemon {holder}, which ended, "
                                 f"still hold the store {self.path.parent.parent} after "
                                 f"{_ORPHANS_SECONDS:.0f} s.",
                                 suggestion=f"Find them with `fuser -v {self.path}` and stop "
                                 "them, then start again.") from None
            elif not told:
                log.info("waiting for the processes of the daemon %s, which ended, to end",
                         holder)
                told = True
            time.sleep(0.01)


def _alive(pid: str) -> bool:
    """Tell whether the process ``pid`` runs (a zombie does not; an unknown holder does)."""
    if not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # reaped since, or no /proc (then taken as running)
        return not Path("/proc/self/stat").exists()
    return stat.rpartition(")")[2].split()[0] != "Z"
