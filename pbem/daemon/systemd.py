"""The systemd notify protocol (sd_notify(3)), the few lines of it a ``Type=notify`` unit with
a watchdog needs: ``READY=1`` once the daemon takes and sends mail, ``WATCHDOG=1`` from its
main loop, ``STOPPING=1`` as it stops, and a ``STATUS=`` line for ``systemctl status``.

Outside systemd (no ``$NOTIFY_SOCKET``) every call does nothing. A datagram that cannot be
sent is logged once and never stops the daemon: the watchdog then restarts it, which is what
a daemon that cannot talk to its manager deserves.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping

log = logging.getLogger("pbem.daemon.server")

NOTIFY_SOCKET = "NOTIFY_SOCKET"
WATCHDOG_USEC = "WATCHDOG_USEC"
WATCHDOG_PID = "WATCHDOG_PID"


class Notifier:
    """Tells the service manager how the daemon is; built from the environment systemd
    gives the unit's main process."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        self.address = _socket_address(env.get(NOTIFY_SOCKET, ""))
        self.watchdog_seconds = _watchdog_seconds(env)
        self._failed = False

    @property
    def interval(self) -> float | None:
        """Give how often the main loop must say it is alive (half the watchdog's time, as
        sd_watchdog_enabled(3) advises), None without a watchdog."""
        return None if self.watchdog_seconds is None else self.watchdog_seconds / 2

    def ready(self, status: str) -> None:
        """Say the daemon takes and sends mail now."""
        self._send(f"READY=1\nSTATUS={status}")

    def alive(self) -> None:
        """Say the main loop came round again (the watchdog's keep-alive)."""
        if self.watchdog_seconds is not None:
            self._send("WATCHDOG=1")

    def stopping(self) -> None:
        """Say the daemon is stopping (it finishes the step in progress first)."""
        self._send("STOPPING=1\nSTATUS=stopping")

    def _send(self, message: str) -> None:
        if self.address is None:
            return
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.connect(self.address)
                sock.sendall(message.encode())
        except OSError as error:
            if not self._failed:
                log.warning("cannot tell systemd how the daemon is (%s): %s",
                            self.address, error)
                self._failed = True


def _socket_address(value: str) -> str | None:
    """Give the notify socket's address: a path, or an abstract name (written ``@name``)."""
    if not value or not value.startswith(("/", "@")):
        return None
    return "\0" + value[1:] if value.startswith("@") else value


def _watchdog_seconds(env: Mapping[str, str]) -> float | None:
    """Give the watchdog's time, when it is set and meant for this process."""
    usec = env.get(WATCHDOG_USEC, "")
    pid = env.get(WATCHDOG_PID, "")
    if not usec.isdigit() or int(usec) == 0:
        return None
    if pid and pid != str(os.getpid()):
        return None
    return int(usec) / 1_000_000
