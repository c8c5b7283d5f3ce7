"""``pbem run`` under systemd's ``Type=notify`` with a watchdog: the notify protocol spoken to
a socket of the test's own, as systemd would listen (sd_notify(3)); and the unit file in
deploy/ rated by ``systemd-analyze security --offline`` where systemd is installed."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from daemons import port_answers
from servers import free_port
from support import REPO

from pbem.daemon.systemd import Notifier

UNIT = REPO / "deploy" / "pbem.service"


def _datagrams(sock: socket.socket, timeout: float, until: str | None = None) -> list[str]:
    """Give every datagram received within ``timeout`` seconds, or until one holding
    ``until``."""
    got: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            got.append(sock.recv(4096).decode())
        except TimeoutError:
            break
        if until is not None and until in got[-1]:
            break
    return got


def test_the_daemon_says_ready_once_it_takes_mail_then_keeps_the_watchdog_fed(
        tmp_path: Path) -> None:
    """READY=1 comes once the listener answers, WATCHDOG=1 at least twice in the watchdog's
    time, and STOPPING=1 on SIGTERM."""
    port = free_port()
    (tmp_path / "pbem.toml").write_text(
        f'[store]\npath = "store"\n[listener]\nport = {port}\n')
    address = tmp_path / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(address))
        env = dict(os.environ, PYTHONPATH=str(REPO), NOTIFY_SOCKET=str(address),
                   WATCHDOG_USEC="2000000")
        env.pop("WATCHDOG_PID", None)
        with (tmp_path / "daemon.log").open("ab") as log:
            daemon = subprocess.Popen(
                [sys.executable, "-m", "pbem.cli.daemon", "run", "--config",
                 str(tmp_path / "pbem.toml")], env=env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True)
        try:
            first = _datagrams(sock, 60, until="READY=1")
            assert first and "READY=1" in first[-1], (first, (tmp_path / "daemon.log")
                                                      .read_text())
            assert port_answers(port), "READY=1 came before the listener took mail"
            assert "STATUS=" in first[-1]
            # The main loop comes round at least once a second (half the watchdog's 2 s).
            beats = [d for d in _datagrams(sock, 3.5) if d == "WATCHDOG=1"]
            assert len(beats) >= 2, beats
            os.killpg(daemon.pid, signal.SIGTERM)
            last = _datagrams(sock, 60, until="STOPPING=1")
            assert any("STOPPING=1" in d for d in last), last
            assert daemon.wait(60) == 0
        finally:
            if daemon.poll() is None:
                os.killpg(daemon.pid, signal.SIGKILL)
                daemon.wait()


def test_without_notify_socket_nothing_is_sent_and_nothing_fails() -> None:
    """Outside systemd the notifier is silent."""
    notifier = Notifier({})
    assert notifier.address is None and notifier.interval is None
    notifier.ready("x")
    notifier.alive()
    notifier.stopping()


def test_an_abstract_socket_and_a_watchdog_meant_for_another_process(tmp_path: Path) -> None:
    """``@name`` is an abstract socket; WATCHDOG_PID of another process means no watchdog
    here (sd_watchdog_enabled(3))."""
    name = f"pbem-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        notifier = Notifier({"NOTIFY_SOCKET": "@" + name, "WATCHDOG_USEC": "10000000",
                             "WATCHDOG_PID": str(os.getpid())})
        assert notifier.interval == 5.0
        notifier.alive()
        sock.settimeout(5)
        assert sock.recv(100) == b"WATCHDOG=1"
    other = Notifier({"NOTIFY_SOCKET": "@" + name, "WATCHDOG_USEC": "10000000",
                      "WATCHDOG_PID": "1"})
    assert other.interval is None


def test_a_notify_socket_that_is_gone_is_logged_once_and_never_stops_the_daemon(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    notifier = Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone"), "WATCHDOG_USEC": "1000000"})
    for _ in range(3):
        notifier.alive()
    assert len([r for r in caplog.records if "cannot tell systemd" in r.getMessage()]) == 1


def test_the_unit_is_type_notify_with_a_watchdog_and_a_state_directory() -> None:
    text = UNIT.read_text()
    assert re.search(r"^Type=notify$", text, re.M)
    assert re.search(r"^WatchdogSec=\d+", text, re.M)
    assert re.search(r"^StateDirectory=pbem$", text, re.M)


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd is not installed")
def test_the_unit_rates_ok_or_better_in_systemd_analyze_security(tmp_path: Path) -> None:
    """systemd's own hardening check rates the unit's exposure at 2.0 or less ("OK")."""
    unit = tmp_path / "pbem.service"
    unit.write_text(UNIT.read_text())
    done = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", "--no-pager", str(unit)],
        capture_output=True, text=True, timeout=120, check=False)
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+) (\w+)", done.stdout)
    assert found, done.stdout + done.stderr
    assert float(found.group(1)) <= 2.0, done.stdout
