"""The daemon's child processes, seen from the daemon: started, woken, restarted, stopped.

Each child is a fresh interpreter (``python -m pbem.daemon.child``, never a fork of this
process and its threads) and gets, besides its stdin (what to do, pickled):

- the *control* pipe's read end: a byte wakes it, end of file stops it (after the step in
  progress). The daemon closes its end to stop the child; its death closes it as well;
- the *notify* pipe's write end: ``READY`` once the child is set up, ``STORED`` each time
  it stored mail (the intake);
- the daemon's instance lock (an open file with a ``flock``): the lock is held until the
  daemon and every one of its children have ended, so a new daemon never works alongside
  an old daemon's child still finishing a send.

The child inherits stderr and logs there in the daemon's level and format. A child that
ends while the daemon runs is started again, after a delay that doubles with each early end.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import subprocess
import sys
import threading
import time
import types
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

from pbem.daemon.config import DaemonConfig
from pbem.transport.backoff import backoff_delay

log = logging.getLogger("pbem.daemon.server")

Role = Literal["sending", "intake"]
# A child that ran this long before ending starts again after the shortest delay.
_STEADY_SECONDS = 60.0
_RESTART_BASE, _RESTART_CAP = 1.0, 300.0
# How long stopping waits for a child to finish what it does before killing it.
_STOP_SECONDS = 60.0
# A child that stopped cleanly on its own was most likely signalled with the whole process
# group (systemd, Ctrl-C): the daemon's own stop follows within this long.
_GROUP_STOP_SECONDS = 1.0
READY, STORED = b"r", b"."
"""What a child writes on the notify pipe: set up and at work; mail stored."""


@dataclass(frozen=True)
class ChildOrders:
    """What a child is told on its stdin: its part, the configuration and the clock."""

    role: Role
    config: DaemonConfig
    clock: Callable[[], datetime]
    parent: int  # the daemon's process id: a child whose parent is another one ends
    control: int  # fds, as numbered in the child
    notify: int
    log_level: int  # pbem's level in the daemon (the format is the configuration's)


def crosses(clock: Callable[[], datetime]) -> bool:
    """Tell whether ``clock`` can be handed to a child process: a plain function named in a
    module the child can import (``utc_now``, a test's pinned clock), not a clock object the
    caller moves (a test's), which a copy would not follow. Pickle finds a function by its
    module and name: one it cannot find (a lambda, a nested function) does not cross."""
    if not isinstance(clock, types.FunctionType) or clock.__module__ == "__main__":
        return False
    try:
        pickle.dumps(clock)
    except (pickle.PicklingError, AttributeError, TypeError):
        return False
    return True


def _log_level() -> int:
    """Give the level pbem logs at in the daemon."""
    return logging.getLogger("pbem").getEffectiveLevel()


def _child_environment() -> dict[str, str]:
    """Give this process's environment, with the folder this ``pbem`` came from first on
    the child's path: the child runs the same code, wherever it was found."""
    here = str(Path(__file__).resolve().parents[2])
    paths = [here, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(paths))


class ChildProcess:
    """One child process of the daemon, watched by a thread of its own from ``start`` until
    the daemon stops (the thread that starts a child must outlive it: the child's
    parent-death signal follows that thread). ``notified`` is called when the child says mail
    was stored."""

    def __init__(self, role: Role, config: DaemonConfig, clock: Callable[[], datetime],
                 lock_fd: int, stopping: threading.Event,
                 notified: Callable[[], None] = lambda: None) -> None:
        self.role = role
        self._config = config
        self._clock = clock
        self._lock_fd = lock_fd
        self._stopping = stopping
        self._notified = notified
        self._guard = threading.Lock()  # the control pipe and the process, between threads
        self._control: int | None = None  # our end of the control pipe
        self._process: subprocess.Popen[bytes] | None = None
        self._ready = threading.Event()  # a child said it is at work
        self._thread = threading.Thread(target=self._watch, name=f"{role}-process",
                                        daemon=True)

    @property
    def pid(self) -> int | None:
        """Give the running child's process id, None between two of them."""
        process = self._process
        return process.pid if process is not None and process.returncode is None else None

    def start(self) -> None:
        """Start the child, and start it again whenever it ends until the daemon stops."""
        self._thread.start()

    def wait_ready(self, timeout: float) -> bool:
        """Give True once a child said it is at work, False at ``timeout`` or on stopping."""
        until = time.monotonic() + timeout
        while not self._ready.wait(0.05):
            if self._stopping.is_set() or time.monotonic() >= until:
                return False
        return True

    def wake(self) -> None:
        """Make the child pass again now (a byte on the control pipe; one waiting will do)."""
        with self._guard:
            if self._control is not None:
                with contextlib.suppress(BlockingIOError, BrokenPipeError):
                    os.write(self._control, b".")

    def stop(self) -> None:
        """Tell the child to end after the step in progress (``stopping`` is set already)."""
        with self._guard:
            if self._control is not None:
                os.close(self._control)
                self._control = None

    def join(self) -> None:
        """Wait for the child to end; kill it if it does not within a minute."""
        self._thread.join(_STOP_SECONDS)
        process = self._process
        if self._thread.is_alive() and process is not None:
            log.error("the %s process (%d) did not stop; killing it", self.role, process.pid)
            process.kill()
            self._thread.join(_STOP_SECONDS)

    def _watch(self) -> None:
        failures = 0
        while not self._stopping.is_set():
            began = time.monotonic()
            try:
                ended = self._run_one()
            except Exception as error:  # e.g. no more processes: try again later
                log.exception("the %s process could not be started", self.role)
                ended = (f"could not start ({error})", False)
            if ended is None or self._stopping.wait(_GROUP_STOP_SECONDS if ended[1] else 0):
                return
            failures = 1 if time.monotonic() - began >= _STEADY_SECONDS else failures + 1
            delay = backoff_delay(failures, base=_RESTART_BASE, cap=_RESTART_CAP)
            log.error("the %s process %s; starting it again in %.0f s", self.role, ended[0],
                      delay)
            self._stopping.wait(delay)

    def _run_one(self) -> tuple[str, bool] | None:
        """Run one child until it ends; give how it ended, and whether it stopped cleanly
        (None: not started, stopping)."""
        control_read, control_write = os.pipe()
        notify_read, notify_write = os.pipe()
        try:
            # Pickled first: a clock that cannot cross fails here, not in the child.
            orders = pickle.dumps((sys.path, pickle.dumps(ChildOrders(
                self.role, self._config, self._clock, os.getpid(), control_read, notify_write,
                _log_level()))))
            with self._guard:
                if self._stopping.is_set():
                    return None
                process = subprocess.Popen(
                    [sys.executable, "-m", "pbem.daemon.child"], stdin=subprocess.PIPE,
                    pass_fds=(control_read, notify_write, self._lock_fd), close_fds=True,
                    env=_child_environment())
                os.set_blocking(control_write, False)
                self._process, self._control = process, control_write
                control_write = -1
            os.close(control_read)
            os.close(notify_write)
            control_read = notify_write = -1
            assert process.stdin is not None
            with contextlib.suppress(BrokenPipeError), process.stdin:  # a child died at once
                process.stdin.write(orders)
            log.info("%s process %d started", self.role, process.pid)
            while said := os.read(notify_read, 512):  # until the child ends (its end closes)
                if READY in said:
                    self._ready.set()
                if STORED in said:
                    self._notified()
            code = process.wait()
        finally:
            self.stop()
            for fd in (control_read, control_write, notify_read, notify_write):
                if fd >= 0:
                    os.close(fd)
        if code == 0:
            ended = f"{process.pid} stopped"
        elif code > 0:
            ended = f"{process.pid} ended with code {code}"
        else:
            ended = f"{process.pid} was killed by signal {-code}"
        if self._stopping.is_set():
            if code == 0:
                log.info("%s process %s", self.role, ended)
            else:
                log.error("the %s process %s while the daemon stopped", self.role, ended)
        return ended, code == 0
