"""The store folder's layout check, and its locks: the store lock, and the small ones of the
inbox and the outbox."""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pbem.atomicfile import make_dir, note_holder, write_atomic
from pbem.errors import NewerStoreError, StoreError

# The store's format version, in the file ``format`` (its first line). It goes up whenever
# what the store keeps changes so that an older pbem would misread it or, rewriting a record
# it does not know whole, drop what it does not know (observers, absences, mail settings,
# house rules, resend records were added under 3, and an older pbem dropped them): a pbem
# reads the versions up to its own and refuses a newer store, untouched.
# 4: the version that started to refuse newer stores; what it keeps is what 3 kept last.
# 3 kept a file per group of mails received (see pbem.store.inbox); 2 a file per received
# mail, and a journal per game (see pbem.store.journal); 1 a file per mail for everything. A
# store of layout 2 is taken over as it is: its format file says 4, then 2 (its mail files
# are read where they are).
VERSION = 4
FORMAT = f"{VERSION}\n".encode()
_FROM_2 = FORMAT + b"2\n"
_OLDEST = 2  # the oldest version this one reads
_WAITING = "lock.waiting"  # touched while a process polls for the store's lock
_WAITER_FRESH = 1.0  # seconds: an older mark is a poller gone (or one that got the lock)
_WAITER_TURN = 0.1  # seconds a taker waits for a poller (which tries every 0.02 s)


def open_layout(root: Path) -> bool:
    """Check the format version of the store folder ``root`` (StoreError unless one this
    version reads, NewerStoreError if a newer pbem wrote it: nothing is written then), make
    its folders, and write its format file if it has none or an older one; give whether it
    is a store of layout 2 taken over (its mail files are read where they are)."""
    found = _check_format(root)
    for folder in ("inbox", "mail", "outbox", "games"):
        make_dir(root / folder)
    lines = (found or b"").split()
    legacy = lines[:1] == [b"2"] or lines[1:2] == [b"2"]
    wanted = _FROM_2 if legacy else FORMAT
    if found != wanted:
        # An older pbem would not see the mail received from now on, or drop what this one
        # keeps: from now on it refuses the store.
        write_atomic(root / "format", wanted)
    return legacy


def _check_format(root: Path) -> bytes | None:
    """Give the format file's bytes (None for a new folder); StoreError unless a version
    this one reads, NewerStoreError for a newer one."""
    try:
        found = (root / "format").read_bytes()
    except FileNotFoundError:
        # Older stores have no format file: the first layout had these from the start.
        if not any((root / name).exists() for name in ("index.json", "sent")):
            return None
        found = b"1\n"
    first = (found.split() or [b"?"])[0].decode(errors="replace")
    version = int(first) if first.isascii() and first.isdigit() else None
    if version is not None and version > VERSION:
        raise NewerStoreError(
            f"The store {root} has format version {version}, written by a newer pbem; this "
            f"one ({VERSION}) would misread it or drop what that one keeps, so it leaves the "
            f"store untouched.",
            suggestion="Run the pbem that wrote it (or a newer one): upgrade this "
                       "installation (`pipx upgrade pbem`).",
            text=first, found=version, reads=VERSION)
    if version is None or version < _OLDEST:
        raise StoreError(
            f"The store {root} has layout {first},"
            f" written by another version of pbem; this one reads format versions "
            f"{_OLDEST} to {VERSION} only.",
            suggestion="Finish its games with the pbem that wrote it (its `pbem export` "
                       "keeps a record of each), and give this one a new store folder.")
    return found


class Locks:
    """The locks of one store folder: the store's own (held by whoever writes games), and
    the small ones of the inbox and the outbox. Parts that cache what they read while the
    store's lock is held register to forget it when the lock goes (``on_release``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._depth = 0
        self._on_release: list[Callable[[], None]] = []

    @property
    def held(self) -> bool:
        """Tell whether this store object holds the store's lock."""
        return self._depth > 0

    def on_release(self, forget: Callable[[], None]) -> None:
        """Call ``forget`` whenever the store's lock is released (others may write then)."""
        self._on_release.append(forget)

    @contextmanager
    def lock(self, timeout: float | None = None) -> Iterator[None]:
        """Give exclusive write access to the store; re-entrant; StoreError on timeout."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        fd = os.open(self.root / "lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            self._acquire(fd, timeout)
            note_holder(fd)
        except BaseException:
            os.close(fd)
            raise
        self._depth = 1
        try:
            yield
        finally:
            self._depth = 0
            for forget in self._on_release:
                forget()
            os.close(fd)  # closing the descriptor releases the flock

    def _acquire(self, fd: int, timeout: float | None) -> None:
        if timeout is None:
            self._let_waiter_in()
            fcntl.flock(fd, fcntl.LOCK_EX)
            return
        # flock has no timeout of its own: poll it. Meanwhile the file ``lock.waiting`` says
        # someone polls, so that a process taking the lock round after round (the daemon's
        # bots answering bots) lets it in between two rounds rather than starve it.
        deadline = time.monotonic() + timeout
        waiting = self.root / _WAITING
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return
                except BlockingIOError:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        raise StoreError(
                            f"The game store {self.root} is in use by {_holder(fd)}.",
                            suggestion="Wait for it to finish (or stop the pbem daemon) and "
                                       "retry.",
                        ) from None
                    _touch(waiting)
                    time.sleep(min(0.02, remaining))
        finally:
            with contextlib.suppress(OSError):
                waiting.unlink()

    def _let_waiter_in(self) -> None:
        """Wait a moment before taking the lock if another process polls for it (a command
        of the game master): the poller's next try then finds it free."""
        try:
            since = time.time() - (self.root / _WAITING).stat().st_mtime
        except OSError:
            return
        if since < _WAITER_FRESH:
            time.sleep(_WAITER_TURN)

    @contextmanager
    def small(self, name: str) -> Iterator[None]:
        """A lock of one part of the store, held for one short write (see the package
        docstring for the order locks are taken in)."""
        fd = os.open(self.root / name, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the flock

    def require(self, action: str) -> None:
        """StoreError unless the store's lock is held."""
        if not self._depth:
            raise StoreError(
                f"Cannot {action} without holding the store lock.",
                suggestion="Do it inside `with store.lock():`.",
            )


def _holder(fd: int) -> str:
    """Name who holds the lock: the pbem process that wrote its id in the lock file, if it
    still runs; a backup's flock(1), say, writes none."""
    text = os.pread(fd, 32, 0).decode(errors="replace").strip()
    if text.isdigit():
        try:
            os.kill(int(text), 0)
            return f"process {text}"
        except ProcessLookupError:
            pass
        except PermissionError:  # it runs, as another user
            return f"process {text}"
    return "another program (a backup, perhaps: see deploy/BACKUPS.md)"


def _touch(path: Path) -> None:
    """Mark ``path`` as written now (made if need be); a failure is no matter."""
    with contextlib.suppress(OSError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
        os.utime(path)
