"""The game master's commands wake a running daemon: a named pipe in the store's daemon folder.

A command of ``pbem`` changes a game under the store's lock and queues its mail (welcomes,
announcements, a seat given to a bot and the bot's answer) in the store. The daemon would
find that mail at its next pass, which may be a whole tick away (60 s by default). So once
the command has committed and let the lock go, it pokes the daemon (``poke``): one byte
written, without waiting, into the pipe ``<store>/daemon/wake``. The daemon reads that pipe
on a thread of its own (``WakeListener``) and, on each poke, makes its main loop pass at once
(the inbox processed, the bot seats' answers with it) and wakes its sending loop.

Why a named pipe: nothing to clean up after a crash (no pid file to go stale, no pid that
another process may have taken since, as a signal would risk), no limit on the store's path
(a Unix socket's is 108 bytes), and writing to it without a reader fails at once (ENXIO):
a command run while no daemon runs loses nothing, the mail waits in the store as before.
The pipe is the owner's only (0600), as the store is.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import stat
import threading
from collections.abc import Callable
from pathlib import Path

from pbem.atomicfile import make_dir

log = logging.getLogger("pbem.daemon.server")

# How often the listening thread looks whether it should stop (it is also woken at once).
_STOP_CHECK_SECONDS = 1.0


def wake_path(store: Path) -> Path:
    """Give the path of the pipe that wakes the daemon running on ``store``."""
    return store / "daemon" / "wake"


def poke(store: Path) -> bool:
    """Wake the daemon running on ``store``, if one runs; never waits. Give whether one was
    told (False: no daemon reads the pipe, or the store has none)."""
    try:
        fd = os.open(wake_path(store), os.O_WRONLY | os.O_NONBLOCK)
    except OSError:  # no pipe (no daemon ever ran), or none reads it now (ENXIO)
        return False
    try:
        os.write(fd, b"!")
    except BlockingIOError:  # the pipe is full of pokes not read yet: it is woken already
        pass
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


class WakeListener:
    """Reads the wake pipe of a store on a thread, calling ``woken`` once per batch of
    pokes, from ``start`` to ``stop``."""

    def __init__(self, store: Path, woken: Callable[[], None]) -> None:
        self.path = wake_path(store)
        self._woken = woken
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._read = -1
        self._write = -1  # our own writer: the pipe never reads as ended between pokes

    def start(self) -> None:
        """Make the pipe (a file of another kind in its place is replaced) and listen. A
        folder that holds no named pipe is no reason to stop: the daemon then finds the
        commands' mail at its next look, as before, and the log says so."""
        try:
            self._open()
        except OSError as error:
            log.warning("the wake pipe %s cannot be made (%s): mail made by a command of the "
                        "game master leaves at the daemon's next look", self.path, error)
            return
        self._thread = threading.Thread(target=self._listen, name="wake", daemon=True)
        self._thread.start()

    def _open(self) -> None:
        make_dir(self.path.parent)
        try:
            if not stat.S_ISFIFO(os.lstat(self.path).st_mode):
                self.path.unlink()
        except FileNotFoundError:
            pass
        if not self.path.exists():
            os.mkfifo(self.path, 0o600)
        self._read = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        self._write = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)

    def _listen(self) -> None:
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([self._read], [], [], _STOP_CHECK_SECONDS)
                if not ready:
                    continue
                while os.read(self._read, 4096):  # every poke waiting counts as one
                    pass
            except BlockingIOError:
                pass
            except OSError as error:  # the pipe is gone: the daemon is closing
                if not self._stop.is_set():
                    log.error("the wake pipe %s cannot be read: %s", self.path, error)
                return
            if not self._stop.is_set():
                log.debug("woken by a command of the game master")
                self._woken()

    def stop(self) -> None:
        """Stop listening and close the pipe (the file stays, for the next daemon)."""
        self._stop.set()
        if self._thread is not None:
            with contextlib.suppress(OSError):  # the thread wakes now, not at its check
                os.write(self._write, b"!")
            self._thread.join(timeout=10)
            self._thread = None
        for fd in (self._read, self._write):
            if fd >= 0:
                os.close(fd)
        self._read = self._write = -1
