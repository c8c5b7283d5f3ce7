"""The store's shared state and its locks: the store lock, and the small ones of the inbox
and the outbox."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pbem.atomicfile import make_dir, write_atomic
from pbem.errors import StoreError
from pbem.store.journal import Journals
from pbem.store.seen import SeenIndex
from pbem.store.tinyfile import HotFile

SEGMENT_SIZE = 64
# The layout's version, in the file ``format``: 3 keeps a file per group of mails received
# (see pbem.store.inbox); 2 kept a file per received mail, and a journal per game (see
# pbem.store.journal); 1 kept a file per mail for everything. A store of layout 2 is taken
# over as it is: its format file says 3, then 2 (its mail files are read where they are).
FORMAT = b"3\n"
_FROM_2 = b"3\n2\n"


class Locked:
    """The store's shared state, set up once, and its locks."""

    def __init__(self, root: Path, *, segment_size: int = SEGMENT_SIZE) -> None:
        if segment_size < 1:
            raise StoreError("The log segment size must be at least 1.", text=str(segment_size))
        self.root = Path(root)
        self._segment_size = segment_size  # for games created from now on; each game keeps its own
        self._lock_depth = 0
        self._hot_files: dict[str, HotFile] = {}  # read during this lock hold; see _hot
        # The inbox: the records of the files in inbox/ by name, and by mail id with their
        # file's; the index of the mails whose file left inbox/ (see pbem.store.inbox)
        self._groups: dict[str, list[dict[str, Any]]] = {}
        self._waiting: dict[str, tuple[str, dict[str, Any]]] = {}
        self._seen_index = SeenIndex(self.root / "seen.sqlite")
        self._bundle_ids_read: dict[str, list[str]] = {}  # outbox bundles' mail ids, by name
        # (the index file's stamp, the ids, the ids by case-folded name); see _game_index
        self._index_cache: tuple[list[int] | None, tuple[str, ...], dict[str, str]] | None = None
        self._index_held = False  # the index cache was read during this lock hold
        self._journals = Journals()
        found = self._check_format()
        for folder in ("inbox", "mail", "outbox", "games"):
            make_dir(self.root / folder)
        # Mail files of layout 2 may be in inbox/ and mail/<aa>/: looked for there too.
        self._legacy = found in (b"2\n", _FROM_2)
        wanted = _FROM_2 if self._legacy else FORMAT
        if found != wanted:
            # Its pbem (of layout 2) would not see the mail received from now on.
            write_atomic(self.root / "format", wanted)

    def _check_format(self) -> bytes | None:
        """Give the format file's bytes (None for a new folder); StoreError unless this
        layout, or the one before, which this one reads."""
        try:
            found = (self.root / "format").read_bytes()
        except FileNotFoundError:
            # Older stores have no format file: the first layout had these from the start.
            if not any((self.root / name).exists() for name in ("index.json", "sent")):
                return None
            found = b"1\n"
        if found not in (FORMAT, _FROM_2, b"2\n"):
            layout = (found.split() or [b"?"])[0].decode(errors="replace")
            raise StoreError(
                f"The store {self.root} has layout {layout},"
                f" written by another version of pbem; this one reads layouts 2 and "
                f"{FORMAT.decode().strip()} only.",
                suggestion="Finish its games with the pbem that wrote it (its `pbem export` "
                           "keeps a record of each), and give this one a new store folder.")
        return found

    @contextmanager
    def lock(self, timeout: float | None = None) -> Iterator[None]:
        """Give exclusive write access to the store; re-entrant; StoreError on timeout."""
        if self._lock_depth:
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
            return
        fd = os.open(self.root / "lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            self._acquire(fd, timeout)
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except BaseException:
            os.close(fd)
            raise
        self._lock_depth = 1
        try:
            yield
        finally:
            self._lock_depth = 0
            self._hot_files.clear()  # others may write once the lock is released
            self._index_held = False
            os.close(fd)  # closing the descriptor releases the flock

    def _acquire(self, fd: int, timeout: float | None) -> None:
        if timeout is None:
            fcntl.flock(fd, fcntl.LOCK_EX)
            return
        # flock has no timeout of its own: poll it.
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise StoreError(
                        f"The game store {self.root} is in use by {_holder(fd)}.",
                        suggestion="Wait for it to finish (or stop the pbem daemon) and retry.",
                    ) from None
                time.sleep(min(0.02, remaining))

    @contextmanager
    def _small_lock(self, name: str) -> Iterator[None]:
        """A lock of one part of the store, held for one short write (see the package
        docstring for the order locks are taken in)."""
        fd = os.open(self.root / name, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the flock

    def _require_lock(self, action: str) -> None:
        if not self._lock_depth:
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
