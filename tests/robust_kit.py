"""Helpers for the tests of what the daemon survives (a full disk, damaged files, a backlog,
umasks): a configuration on folders of the test's own, games with cheap passwords, order
mails, and the daemon run as a real process (``pbem run``), ended by its process id."""

from __future__ import annotations

import contextlib
import email
import email.message
import email.policy
import os
import signal
import smtplib
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from daemons import port_answers
from servers import free_port, wait_until

from pbem.daemon.config import DaemonConfig, load_config
from pbem.service.service import Service
from pbem.store import SEGMENT_SIZE, Store

T0 = datetime(2024, 5, 1, 10, 0, tzinfo=UTC)
CHEAP_PASSWORDS = 10  # scrypt N = 2^10: the passwords' cost is not under test
GM = "gm@example.org"
HANG = 600.0  # seconds: only a hang takes this long, however loaded the machine


def write_config(folder: Path, store: Path, *, port: int = 0, extra: str = "") -> Path:
    """Write a configuration (the listener on ``port``, mail out into Maildirs under
    folder/maildirs, the GM at ``GM``); give its path."""
    path = folder / "pbem.toml"
    path.write_text(f"""[store]
path = "{store}"
[mail]
mails_per_hour = 1000000
gm_address = "{GM}"
{extra}
[listener]
port = {port}
[maildir]
path = "{folder / 'maildirs'}"
[daemon]
tick_seconds = 3600
log_level = "DEBUG"
""")
    return path


def config(path: Path) -> DaemonConfig:
    return load_config(path, env={})


def new_game(cfg: DaemonConfig, game: str, now: datetime | None = None, *,
             segment_size: int = SEGMENT_SIZE, cost: int = CHEAP_PASSWORDS) -> dict[str, str]:
    """Create and start a game of three (Alice, Bob, Carol at <name>.<game>@example.org),
    now unless told when (a daemon on the real clock then finds no deadline past); give the
    players' passwords."""
    players = tuple((name, f"{name.lower()}.{game}@example.org", "")
                    for name in ("Alice", "Bob", "Carol"))
    service = Service(Store(cfg.store, segment_size=segment_size),
                      replace(cfg.service_config(), password_cost=cost))
    service.create_game(game, players, seed="5eed" * 8)
    return service.start_game(game, now or datetime.now(UTC))


def order(key: str, game: str, player: str, password: str, body: str = "STANDING LIST") -> bytes:
    """Give an order mail with Message-ID <key@example.org>."""
    sender = f"{player.lower()}.{game}@example.org"
    return (f"From: {player} <{sender}>\r\nTo: pbem@localhost\r\nSubject: orders {key}\r\n"
            f"Message-ID: <{key}@example.org>\r\n\r\n"
            f"GAME {game} PLAYER {player} PASSWORD {password}\r\n{body}\r\nEND\r\n").encode()


def send(port: int, raw: bytes) -> int:
    """Send one mail to the listener; give the SMTP code its DATA got (250 when taken)."""
    sender = email.message_from_bytes(raw, policy=email.policy.default)["From"].addresses[0]
    with smtplib.SMTP("127.0.0.1", port, local_hostname="test", timeout=120) as smtp:
        try:
            smtp.sendmail(sender.addr_spec, ["pbem@localhost"], raw)
        except smtplib.SMTPDataError as error:
            return error.smtp_code
        except smtplib.SMTPRecipientsRefused as error:
            return next(iter(error.recipients.values()))[0]
    return 250


def replies(maildirs: Path, to: str = "*") -> list[email.message.EmailMessage]:
    """Give every mail delivered under the Maildir root (to ``to`` only, if given)."""
    found = []
    for path in sorted(maildirs.glob(f"{to}/new/*")):
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        assert isinstance(message, email.message.EmailMessage)
        found.append(message)
    return found


def answers(maildirs: Path) -> dict[str, int]:
    """Give how many replies each mail got, by the Message-ID they answer."""
    counted: dict[str, int] = {}
    for message in replies(maildirs):
        if (answered := message["In-Reply-To"]) is not None:
            counted[str(answered)] = counted.get(str(answered), 0) + 1
    return counted


def to_gm(maildirs: Path) -> list[email.message.EmailMessage]:
    """Give the mails delivered to the game master."""
    return replies(maildirs, GM)


@contextlib.contextmanager
def running_daemon(config_path: Path, port: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``pbem run`` on the configuration until the block ends (SIGTERM, then SIGKILL by
    its process id should it hang); its log goes to ``log``."""
    with open(log, "ab") as out:
        process = subprocess.Popen(
            [sys.executable, "-c", "from pbem.cli.main import main; main()", "run",
             "--config", str(config_path)], stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True)
    try:
        assert wait_until(lambda: port_answers(port) or process.poll() is not None,
                          timeout=HANG), "the daemon did not start"
        assert process.poll() is None, log.read_text()
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(HANG)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def settled(store: Path) -> bool:
    """Tell whether the store has no mail waiting in or out."""
    s = Store(store)
    return not s.inbox() and not s.outbox()


def wait_settled(store: Path, timeout: float = HANG) -> bool:
    return wait_until(lambda: settled(store), timeout=timeout, step=0.1)


def new_port() -> int:
    return free_port()


def pause(seconds: float) -> None:
    time.sleep(seconds)
