"""What the daemon tests share: a configured store with a game, order mails, a clock moved
by hand, a daemon serving on a thread, and what reached the players' Maildirs.
"""

from __future__ import annotations

import email
import email.policy
import os
import re
import signal
import smtplib
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from clocks import T0
from servers import Account, MailServer, SmtpCatcher, children_of, wait_until
from support import REPO, delivery_order

from pbem.daemon.config import DaemonConfig, load_config
from pbem.daemon.outbox import GIVEN_UP
from pbem.daemon.server import Daemon
from pbem.service.service import Service
from pbem.store import Store

GAME = "g1"
PLAYERS = (("Alice", "alice@example.org", ""), ("Bob", "bob@example.org", ""),
           ("Carol", "carol@example.org", ""))
SEED = "5eed" * 8
CHEAP_PASSWORDS = 10


# ---- helpers shared by the daemon tests ------------------------------------------------

def configure(folder: Path, toml: str = "") -> DaemonConfig:
    """Give the configuration read from a file holding ``toml`` (store: folder/store)."""
    path = folder / "pbem.toml"
    text = toml if "[store]" in toml else f'[store]\npath = "store"\n{toml}'
    path.write_text(text)
    return load_config(path, env={})


def smtp_relay(port: int, extra: str = "") -> str:
    """A configuration with the listener on any free port and mail out through the SMTP
    server on ``port`` (plain), with ``extra`` TOML."""
    return f"""[listener]
port = 0
{extra}[smtp]
host = "127.0.0.1"
port = {port}
security = "plain"
"""


def new_game(config: DaemonConfig, game: str = GAME,
             players: tuple[tuple[str, str, str], ...] = PLAYERS,
             now: datetime = T0) -> dict[str, str]:
    """Create and start a game in the configured store; give the players' passwords.

    The password hashes are made cheap (scrypt N = 2^10): their cost is not under test.
    """
    service = Service(Store(config.store),
                      replace(config.service_config(), password_cost=CHEAP_PASSWORDS))
    service.create_game(game, players, seed=SEED)
    return service.start_game(game, now)


def order_mail(n: int, player: str, password: str, body: str, *, game: str = GAME,
               address: str | None = None, to: str = "pbem@localhost",
               headers: str = "") -> bytes:
    """Give an order mail with Message-ID <order-n@example.org>."""
    sender = address or f"{player.lower()}@example.org"
    return (f"From: {player} <{sender}>\r\nTo: {to}\r\nSubject: orders {n}\r\n"
            f"Message-ID: <order-{n}@example.org>\r\n{headers}\r\n"
            f"GAME {game} PLAYER {player} PASSWORD {password}\r\n{body}\r\nEND\r\n").encode()


def parse(raw: bytes) -> email.message.EmailMessage:
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, email.message.EmailMessage)
    return message


def maildir(root: Path) -> dict[str, list[email.message.EmailMessage]]:
    """Give the mails delivered under a Maildir root, by address folder."""
    found: dict[str, list[email.message.EmailMessage]] = {}
    if not root.is_dir():
        return found
    for folder in sorted(root.iterdir()):
        if folder.name.startswith(".") or not (folder / "new").is_dir():
            continue  # (a Maildir the sender is creating right now)
        delivered = sorted((folder / "new").iterdir(), key=delivery_order)
        found[folder.name] = [parse(path.read_bytes()) for path in delivered]
    return found


def delivered(root: Path) -> int:
    return sum(len(mails) for mails in maildir(root).values())


@contextmanager
def serving(daemon: Daemon) -> Iterator[Daemon]:
    """Run ``daemon.serve()`` on a thread; stop it (and check it stopped) afterwards."""
    ready = threading.Event()
    failure: list[BaseException] = []

    def serve() -> None:
        try:
            daemon.serve(ready=ready.set)
        except BaseException as error:
            failure.append(error)
            ready.set()

    thread = threading.Thread(target=serve, name="daemon")
    thread.start()
    assert ready.wait(20), "the daemon did not start"
    if failure:
        thread.join()
        raise failure[0]
    try:
        yield daemon
    finally:
        daemon.request_stop()
        thread.join(30)
        assert not thread.is_alive(), "the daemon did not stop"
    if failure:
        raise failure[0]


def send(port: int, raw: bytes, *, sender: str = "alice@example.org",
         to: str = "pbem@localhost") -> None:
    with smtplib.SMTP("127.0.0.1", port, local_hostname="test", timeout=30) as smtp:
        smtp.sendmail(sender, [to], raw)


def outbox_settled(daemon: Daemon) -> bool:
    """True when nothing is waiting: inbox empty, outbox empty (or given up).

    Read through a store object of the test's own: the daemon's counts its lock holds per
    process, not per thread.
    """
    store = Store(daemon.config.store)
    with store.lock():
        return not store.inbox() and all(
            (item.last_error or "").startswith(GIVEN_UP) for item in store.outbox())


def port_answers(port: int) -> bool:
    """Tell whether an SMTP server on ``port`` greets (220). A closed port is refused at
    once; an open one may greet slowly on a loaded machine, hence the long timeout."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            return sock.recv(3) == b"220"
    except OSError:
        return False


@contextmanager
def pbem_run(folder: Path, port: int | None) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``pbem run`` on ``folder/pbem.toml`` in a session of its own (as systemd would),
    logging to ``folder/daemon.log``; give it once its listener answers on ``port`` (None:
    once its IMAP intake logged in). Ends what is left of it afterwards: SIGTERM to its
    group, then SIGKILL to it and its children."""
    with (folder / "daemon.log").open("ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "pbem.cli.daemon", "run", "--config",
             str(folder / "pbem.toml")], env=dict(os.environ, PYTHONPATH=str(REPO)),
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    children: set[int] = set()
    try:
        if port is None:
            assert wait_until(lambda: b"logged in to" in (folder / "daemon.log").read_bytes(),
                              timeout=30, step=0.1), "the daemon's IMAP intake did not log in"
        else:  # its own greeting: its log names the port once it listens there
            listening = re.compile(rb"SMTP listener on \S+:%d\b" % port)
            assert wait_until(lambda: port_answers(port) and listening.search(
                (folder / "daemon.log").read_bytes()) is not None, timeout=30), \
                "the daemon did not listen"
        children = children_of(process.pid)
        yield process
    except BaseException:  # the daemon's side of a failure, shown with the test's
        sys.stderr.write("daemon.log:\n" + (folder / "daemon.log").read_text(
            errors="replace")[-20000:])
        raise
    finally:
        if process.poll() is None:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
        process.wait()
        for child in children:  # only if the test failed
            with suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)


def imap_section(dovecot: MailServer, account: Account) -> str:
    """Give the TOML section that takes mail from the account over plain IMAP (answering
    the mail there on the first start: the tests deliver it just before)."""
    return f"""[imap]
host = "127.0.0.1"
port = {dovecot.imap_port}
security = "plain"
username = "{account.username}"
password = "{account.password}"
poll_seconds = 2
answer_earlier_mail = true
"""


def imap_config(folder: Path, dovecot: MailServer, account: Account, catcher: SmtpCatcher,
                extra: str = "", mail: str = "") -> DaemonConfig:
    return configure(folder, f"""
[mail]
address = "game@pbem.test"
{mail}
{imap_section(dovecot, account)}[smtp]
host = "127.0.0.1"
port = {catcher.port}
security = "plain"
{extra}""")
