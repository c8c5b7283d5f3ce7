"""The daemon's child processes (the sending loop, the IMAP intake): they end with the
daemon however it ends, hold its instance lock until they have, and are started again when
one dies alone. ``pbem run`` runs as a real process here, on real time."""

from __future__ import annotations

import email.parser
import email.policy
import fcntl
import os
import re
import signal
from datetime import UTC, datetime
from pathlib import Path

from daemons import (
    configure,
    delivered,
    imap_section,
    maildir,
    new_game,
    order_mail,
    pbem_run,
    send,
    serving,
)
from servers import Account, Dovecot, children_of, free_port, sent_message_ids, wait_until

from pbem.daemon.config import DaemonConfig
from pbem.daemon.server import Daemon
from pbem.store import Store

_HEADERS = email.parser.BytesHeaderParser(policy=email.policy.default)


def _config(folder: Path, dovecot: Dovecot, account: Account, port: int) -> DaemonConfig:
    """Listener on ``port``, IMAP from the account, answers into Maildirs."""
    return configure(folder, f"""[listener]
enabled = true
port = {port}
{imap_section(dovecot, account)}""")


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z"
    except OSError:
        return True


def _lock_free(config: DaemonConfig) -> bool:
    fd = os.open(config.store / "daemon" / "running.lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


def _answered(config: DaemonConfig) -> list[str]:
    return sorted(str(m["In-Reply-To"]) for box in maildir(config.maildir).values()
                  for m in box if m["In-Reply-To"])


def _delivered_ids(config: DaemonConfig) -> list[str]:
    return [str(_HEADERS.parsebytes(path.read_bytes())["Message-ID"])
            for path in config.maildir.glob("*/new/*")]


def test_sigterm_to_the_process_group_ends_every_process_cleanly(
        tmp_path: Path, dovecot: Dovecot, account: Account) -> None:
    """systemd stops the service with SIGTERM to each of its processes: each ends cleanly."""
    port = free_port()
    config = _config(tmp_path, dovecot, account, port)
    passwords = new_game(config, now=datetime.now(UTC))
    with pbem_run(tmp_path, port) as daemon:
        assert wait_until(lambda: len(children_of(daemon.pid)) == 2, timeout=20)
        children = children_of(daemon.pid)
        send(port, order_mail(1, "Alice", passwords["Alice"], "STATUS"))
        dovecot.deliver(account, order_mail(2, "Bob", passwords["Bob"], "STATUS"))
        assert wait_until(lambda: len(_answered(config)) == 2, timeout=30), _answered(config)
        os.killpg(daemon.pid, signal.SIGTERM)
        assert daemon.wait(timeout=60) == 0
    assert all(_gone(child) for child in children)
    log = (tmp_path / "daemon.log").read_text()
    assert "sent mail" in log  # the sending process logs into the daemon's log
    assert "sending process" in log and "intake process" in log
    assert re.search(r"sending process \d+ stopped", log), log
    assert re.search(r"intake process \d+ stopped", log), log
    assert "daemon stopped" in log
    assert "ERROR" not in log and "Traceback" not in log, log


def test_children_end_with_a_killed_daemon_and_the_next_one_sends_nothing_twice(
        tmp_path: Path, dovecot: Dovecot, account: Account) -> None:
    """SIGKILL of the daemon: its children end too; until they have, the instance lock is
    theirs (no new daemon sends beside them); the next daemon answers the rest, once."""
    port = free_port()
    config = _config(tmp_path, dovecot, account, port)
    passwords = new_game(config, now=datetime.now(UTC))
    players = ("Alice", "Bob", "Carol")
    with pbem_run(tmp_path, port) as daemon:
        assert wait_until(lambda: len(children_of(daemon.pid)) == 2, timeout=20)
        children = children_of(daemon.pid)
        for n in range(1, 31):
            player = players[n % 3]
            send(port, order_mail(n, player, passwords[player], "STANDING LIST"),
                 sender=f"{player.lower()}@example.org")
        assert wait_until(lambda: len(_answered(config)) >= 3, timeout=30)
        # One child held still: the daemon's death cannot end it yet.
        held = min(children)
        os.kill(held, signal.SIGSTOP)
        try:
            daemon.kill()
            daemon.wait()
            assert wait_until(lambda: all(_gone(c) for c in children - {held}), timeout=20)
            assert not _lock_free(config)
        finally:
            os.kill(held, signal.SIGCONT)  # the parent-death signal it holds now ends it
        assert wait_until(lambda: _gone(held), timeout=20)
        assert _lock_free(config)
    for n in range(31, 41):
        player = players[n % 3]
        dovecot.deliver(account, order_mail(n, player, passwords[player], "STANDING LIST"))
    with pbem_run(tmp_path, port) as daemon:
        expected = sorted(f"<order-{n}@example.org>" for n in range(1, 41))
        assert wait_until(lambda: _answered(config) == expected, timeout=60), \
            _answered(config)
        assert wait_until(lambda: not Store(config.store).outbox(), timeout=30)
        os.killpg(daemon.pid, signal.SIGTERM)
        assert daemon.wait(timeout=60) == 0
    ids = _delivered_ids(config)
    assert len(ids) == len(set(ids)), "a mail was delivered twice"
    assert sorted(ids) == sorted(sent_message_ids(config.store))


def test_a_killed_child_is_started_again_and_mail_still_flows(
        tmp_path: Path, dovecot: Dovecot, account: Account) -> None:
    config = _config(tmp_path, dovecot, account, 0)
    passwords = new_game(config, now=datetime.now(UTC))
    with serving(Daemon(config)) as daemon:
        assert daemon.in_processes
        port = daemon.listener_port
        assert port
        assert wait_until(lambda: len(daemon.child_pids()) == 2, timeout=20)
        assert wait_until(lambda: delivered(config.maildir) == 6, timeout=20)  # the welcomes
        first = daemon.child_pids()
        os.kill(first["sending"], signal.SIGKILL)
        os.kill(first["intake"], signal.SIGKILL)
        assert wait_until(lambda: _gone(first["sending"]) and _gone(first["intake"]))
        send(port, order_mail(1, "Alice", passwords["Alice"], "STATUS"))
        dovecot.deliver(account, order_mail(2, "Bob", passwords["Bob"], "STATUS"))
        assert wait_until(lambda: _answered(config) == ["<order-1@example.org>",
                                                        "<order-2@example.org>"],
                          timeout=30), _answered(config)
        again = daemon.child_pids()
        assert set(again) == {"sending", "intake"}
        assert not set(again.values()) & set(first.values())
