"""Crash safety: a burst of order mails into a daemon process killed with SIGKILL again and
again, compared with an uninterrupted run fed the same mails.

The daemon runs in child processes forked from a multiprocessing fork server that imported
pbem and warmed its caches once (the card set, the compiled templates), so a restart costs
milliseconds instead of the second a cold interpreter needs; each child is a real process,
killed by its own process id with SIGKILL at a moment drawn from a seeded generator.
The daemon's sending runs in a child process of its own (a fresh interpreter): half the
kills take that process down at the same moment (as the OOM killer or ``systemctl kill -s
KILL`` would, cutting a send short), the other half leave it to end with the daemon (it
finishes the mail it sends and holds the instance lock until it has, so the next daemon
waits for it).

Mails go in over SMTP to the daemon's listener, one at a time and in order, each sent again
until it is answered 250, as a sending mail server does. The clock is pinned (the same in
both runs) and the rate limit lifted, so the outcome of each mail depends only on the mails
before it: the two runs must end in the same place whatever the kills cut.

The store lives in /dev/shm when there is one: a SIGKILL ends the process, not the machine,
so what the store wrote is in the page cache either way and fsync is not under test here;
on tmpfs it costs nothing, keeping the test within its time budget.
"""

from __future__ import annotations

import contextlib
import email.parser
import email.policy
import json
import logging
import multiprocessing
import os
import random
import shutil
import signal
import smtplib
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from clocks import pinned
from daemons import GAME, new_game, port_answers
from servers import children_of, free_port, sent_message_ids, wait_until
from support import TESTS

from pbem.daemon.config import load_config
from pbem.daemon.server import Daemon
from pbem.service.service import Service
from pbem.store import Store, mail_id_for

MAILS = 520
KILLS = 55
SEED = 20240501
_WARM = "PBEM_CRASH_TEST_WARM"
HANG = 900.0  # seconds: only a hang takes this long, however loaded the machine
HERE = Path(__file__).resolve().parent
ForkServer = multiprocessing.context.ForkServerContext
_HEADERS = email.parser.BytesHeaderParser(policy=email.policy.default)


def _config_text(root: Path, port: int) -> str:
    return f"""
[store]
path = "{root / 'store'}"
[mail]
mails_per_hour = 1000000
[listener]
port = {port}
[maildir]
path = "{root / 'maildirs'}"
[daemon]
tick_seconds = 3600
"""


def _daemon(root: Path) -> Daemon:
    return Daemon(load_config(root / "pbem.toml", env={}), clock=pinned)


def _serve(root: str) -> None:
    """A daemon child: serve until SIGTERM (or until killed)."""
    logging.basicConfig(filename=str(Path(root) / "daemon.log"), level=logging.INFO,
                        format=f"%(asctime)s {os.getpid()} %(levelname)s %(message)s",
                        force=True)
    daemon = _daemon(Path(root))
    signal.signal(signal.SIGTERM, lambda signum, frame: daemon.request_stop())
    daemon.serve()


def _uninterrupted(root: str) -> None:
    """The reference: the same mails, stored and processed one by one, never killed."""
    daemon = _daemon(Path(root))
    mails = json.loads((Path(root) / "mails.json").read_text())
    for sender, text in mails:
        daemon.deliver_smtp(text.encode(), sender, ["pbem@localhost"])
        daemon.step()
    daemon.run_once()


def _warm_up() -> None:
    """Load the card set and compile the templates once, in the fork server."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "pbem.toml").write_text(_config_text(root, 0))
        passwords = new_game(load_config(root / "pbem.toml", env={}))
        daemon = _daemon(root)
        for sender, text in _burst(passwords, random.Random(0), 16):
            daemon.deliver_smtp(text.encode(), sender, ["pbem@localhost"])
        daemon.run_once()


def _burst(passwords: dict[str, str], rng: random.Random, count: int) -> list[tuple[str, str]]:
    """Give (envelope sender, mail) for ``count`` valid order mails, each changing the game:
    standing orders, settings and press from all three, reports asked for, and now and then
    the player whose turn it is passing (income, cards drawn, the next turn begins)."""
    players = ("Carol", "Alice", "Bob")  # the order of turns in this seeded game
    zones = ("Europe/Paris", "America/New_York", "Asia/Tokyo", "UTC")
    passes = {count * k // 7 for k in range(1, 7)}  # six turns: two rounds, nobody eliminated
    active = 0
    mails = []
    for n in range(1, count + 1):
        if n in passes:
            player, body = players[active], "PASS"
            active = (active + 1) % len(players)
        else:
            player = rng.choice(players)
            other = rng.choice([p for p in players if p != player])
            body = rng.choice((
                "STANDING NEVER INTERFERE",
                f"STANDING DEFEND ANY UPTO {rng.randint(1, 9)}",
                "STANDING CLEAR ALL",
                f"SET HTML {rng.choice(('ON', 'OFF'))}",
                f"SET TIMEZONE {rng.choice(zones)}",
                f"PRESS TO {other}\r\nNote {n}: watch the Gnomes.\r\nEND PRESS",
                f"PRESS TO {other}\r\nNote {n}: an offer.\r\nEND PRESS",
                "STATUS" if rng.random() < 0.3 else "STANDING LIST",
            ))
        address = f"{player.lower()}@example.org"
        text = (f"From: {player} <{address}>\r\nTo: pbem@localhost\r\nSubject: orders {n}\r\n"
                f"Message-ID: <order-{n}@example.org>\r\n\r\n"
                f"GAME {GAME} PLAYER {player} PASSWORD {passwords[player]}\r\n{body}\r\nEND\r\n")
        mails.append((address, text))
    return mails


class _Burst:
    """The burst's sender: a thread sending every mail in order, each again until the daemon
    answers 250, as a sending mail server does. Each mail waits for a permit, so the burst
    lasts as long as the killing, however fast or slow the machine; ``taken`` counts the
    mails answered 250."""

    def __init__(self, port: int, mails: list[tuple[str, str]]) -> None:
        self.port, self.mails = port, mails
        self.taken = 0
        self.done, self.stop = threading.Event(), threading.Event()
        self.errors: list[BaseException] = []
        self._permits = threading.Semaphore(0)
        self._thread = threading.Thread(target=self._send_all, name="burst", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def allow(self, n: int) -> None:
        self._permits.release(n)

    def end(self) -> None:
        """Stop sending (the test is over, or failed) and wait for the thread."""
        self.stop.set()
        self._permits.release(len(self.mails))
        self._thread.join(60)

    def _send_all(self) -> None:
        smtp: smtplib.SMTP | None = None
        try:
            for sender, text in self.mails:
                self._permits.acquire()
                while not self.stop.is_set():
                    try:
                        if smtp is None:
                            smtp = smtplib.SMTP("127.0.0.1", self.port, local_hostname="test",
                                                timeout=60)
                        smtp.sendmail(sender, ["pbem@localhost"], text.encode())
                        self.taken += 1
                        break
                    except (OSError, smtplib.SMTPException):
                        if smtp is not None:
                            smtp.close()
                        smtp = None
                        time.sleep(0.01)
                if self.stop.is_set():
                    return
        except BaseException as error:  # reported by the test
            self.errors.append(error)
        finally:
            if smtp is not None:
                smtp.close()
            self.done.set()


def _delivered(maildirs: Path) -> tuple[set[str], int]:
    """Give the distinct Message-IDs in the Maildirs and the number of files."""
    ids: set[str] = set()
    files = 0
    for path in maildirs.glob("*/new/*"):
        files += 1
        ids.add(str(_HEADERS.parsebytes(path.read_bytes())["Message-ID"]))
    return ids, files


def _settled(root: Path) -> bool:
    store = Store(root / "store")
    return not store.inbox() and not store.outbox()


def _end(pid: int) -> None:
    """SIGKILL ``pid`` and the processes it started (a daemon's sending process)."""
    for each in (*children_of(pid), pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(each, signal.SIGKILL)


def _is_fork_server(pid: int) -> bool:
    try:
        return b"forkserver" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


@pytest.fixture
def fork_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ForkServer]:
    """A fork server of this test's own, warmed up; ended, with every process it forked,
    by their process ids when the test ends, passed or failed."""
    context = multiprocessing.get_context("forkserver")
    assert isinstance(context, multiprocessing.context.ForkServerContext)
    monkeypatch.setenv(_WARM, "1")
    # Python 3.11's fork server ignores the sys.path it is handed: give it this test's folder
    # and the tests' (their helpers') so.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [
        str(HERE), str(TESTS), os.environ.get("PYTHONPATH")])))
    context.set_forkserver_preload(["test_crash"])
    before = children_of(os.getpid())
    try:
        yield context
    finally:
        for server in children_of(os.getpid()) - before:
            if _is_fork_server(server):  # not multiprocessing's resource tracker
                for child in children_of(server):
                    _end(child)
                _end(server)  # multiprocessing reaps it, and starts another when asked


@pytest.fixture
def roots() -> Iterator[tuple[Path, Path]]:
    base = Path("/dev/shm") if Path("/dev/shm").is_dir() else None
    folder = Path(tempfile.mkdtemp(prefix="pbem-crash-", dir=base))
    try:
        yield folder / "killed", folder / "reference"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_sigkill_at_random_moments_loses_and_repeats_nothing(
        fork_server: ForkServer, roots: tuple[Path, Path]) -> None:
    """It fails only when a mail is lost or doubled, or the game differs from the run never
    killed; the deadlines only bound a hang (a daemon that never starts or never catches
    up), however loaded the machine. Each kill comes after the daemon took a mail of the
    burst in, at a seeded moment after that, so every kill meets a daemon at work."""
    killed, reference = roots
    port = free_port()
    killed.mkdir()
    (killed / "pbem.toml").write_text(_config_text(killed, port))
    passwords = new_game(load_config(killed / "pbem.toml", env={}))
    shutil.copytree(killed, reference)
    (reference / "pbem.toml").write_text(_config_text(reference, 0))
    mails = _burst(passwords, random.Random(SEED), MAILS)
    (reference / "mails.json").write_text(json.dumps(mails))

    burst = _Burst(port, mails)
    # The uninterrupted run works on its copy alongside (the machine has two cores).
    uninterrupted = fork_server.Process(target=_uninterrupted, args=(str(reference),))
    daemons: list[multiprocessing.process.BaseProcess] = []
    try:
        uninterrupted.start()
        burst.start()
        rng = random.Random(SEED)
        met_a_child = 0
        began = time.monotonic()
        for _ in range(KILLS):
            child = fork_server.Process(target=_serve, args=(str(killed),))
            daemons.append(child)
            taken = burst.taken
            child.start()
            burst.allow(MAILS // KILLS)
            assert wait_until(lambda taken=taken, child=child: (
                burst.taken > taken or not child.is_alive()),
                              timeout=HANG), "the daemon took no mail in"
            time.sleep(rng.uniform(0, 0.3))
            assert child.pid is not None and child.is_alive(), "the daemon died by itself"
            sending = children_of(child.pid)
            met_a_child += bool(sending)
            for pid in ([child.pid, *sending] if rng.random() < 0.5 else [child.pid]):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            child.join()
            assert child.exitcode == -signal.SIGKILL
        killing = time.monotonic() - began
        burst.allow(MAILS)  # the rest of the burst, for the daemon left alone

        # Then one daemon left alone to catch up, and stopped the polite way.
        child = fork_server.Process(target=_serve, args=(str(killed),))
        daemons.append(child)
        child.start()
        # Listening means serving, with its SIGTERM handler in place.
        assert wait_until(lambda: port_answers(port), timeout=HANG), "the daemon did not start"
        assert burst.done.wait(HANG), "the burst was not taken in"
        assert not burst.errors, burst.errors
        assert wait_until(lambda: _settled(killed), timeout=HANG), "the daemon did not catch up"
        caught_up = time.monotonic() - began
        child.terminate()
        child.join(HANG)
        assert child.exitcode == 0
        uninterrupted.join(HANG)
        assert uninterrupted.exitcode == 0
        print(f"{KILLS} kills in {killing:.1f} s; caught up at {caught_up:.1f} s; "
              f"uninterrupted run done at {time.monotonic() - began:.1f} s; "
              f"{met_a_child} kills met a sending process")
    finally:
        burst.end()
        for process in (*daemons, uninterrupted):
            if process.pid is not None:
                _end(process.pid)
            with contextlib.suppress(ValueError, AssertionError):
                process.join(HANG)

    store, ref_store = Store(killed / "store"), Store(reference / "store")
    cut, whole = Service(store), Service(ref_store)
    # Every order applied exactly once: each mail is applied, each made exactly one step.
    ids = [mail_id_for(f"<order-{n}@example.org>") for n in range(1, MAILS + 1)]
    assert store.applied_mails(GAME, ids) == set(ids)
    assert store.inbox() == [] and store.outbox() == []
    steps = cut.service_record(GAME).steps
    assert steps == 1 + MAILS == whole.service_record(GAME).steps  # the start, then a mail each
    # The same game as the uninterrupted run: engine state, service record and log.
    assert cut.state(GAME) == whole.state(GAME)
    assert cut.service_record(GAME) == whole.service_record(GAME)
    assert list(store.log(GAME)) == list(ref_store.log(GAME))
    assert cut.state(GAME).turn_number == 7  # the six passes played out
    assert cut.replay_check(GAME)
    # No outgoing mail lost or sent twice: what the store marked sent is exactly what was
    # delivered, and exactly what the uninterrupted run delivered.
    sent = sent_message_ids(killed / "store")
    delivered, files = _delivered(killed / "maildirs")
    ref_delivered, ref_files = _delivered(reference / "maildirs")
    assert len(sent) == len(set(sent)) == len(delivered)
    assert set(sent) == delivered == ref_delivered
    assert ref_files == len(ref_delivered)
    # A kill between writing a mail into the Maildir and noting its Message-ID leaves one
    # more file with the same Message-ID (the sender's documented window), never a lost one.
    assert files - len(delivered) <= KILLS


if os.environ.get(_WARM):  # only in the fork server the test starts
    try:
        _warm_up()
    except Exception:  # only a speed-up: a fork server that dies would hang the test
        logging.getLogger(__name__).exception("warming up the fork server failed")
