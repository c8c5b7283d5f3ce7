"""The seen index: the group file each mail that left ``inbox/`` is in, in an SQLite file.

The intake looks up every mail it receives (was it received before, ever?): an index on
disk answers in a B-tree descent, whatever the number of mails the store ever received,
and keeps nothing in memory per mail (SQLite's page cache is bounded, ``_CACHE_KIB``).

Several processes open it (the daemon, its intake, the GM's commands). In WAL mode readers
never wait for the writer; only the holder of the store's lock writes (``inbox_done``), one
transaction per call, durable on disk (``synchronous=FULL``) before it returns. No
transaction is held open across calls: each lookup is a statement of its own, so it sees
every row committed before it began.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path

from pbem.atomicfile import fsync_dir
from pbem.errors import StoreError

_BUSY_SECONDS = 60.0  # a writer's commit or a checkpoint, or a reader's WAL recovery
_CACHE_KIB = 2048  # SQLite's page cache per connection, outside Python's heap
_SCHEMA = ("CREATE TABLE IF NOT EXISTS seen (mail_id TEXT PRIMARY KEY, grp TEXT NOT NULL)"
           " WITHOUT ROWID")


class SeenIndex:
    """The seen index of one store, its connection opened on first use (a store object
    that never looks a mail up opens none)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None
        # A store object may be used from several threads, one at a time (the daemon's
        # intake, from the SMTP listener's and the IMAP intake's): the connection follows.
        self._opening = threading.Lock()

    def _connection(self) -> sqlite3.Connection:
        if self._db is not None:
            return self._db
        with self._opening:
            if self._db is None:
                self._db = self._open()
        return self._db

    def _open(self) -> sqlite3.Connection:
        new = not self.path.exists()
        if new:  # made here, its owner's only: SQLite gives its -wal and -shm its mode
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        try:
            # isolation_level=None: no implicit transaction; add() opens its own.
            db = sqlite3.connect(self.path, timeout=_BUSY_SECONDS, isolation_level=None,
                                 check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")  # kept in the file: a no-op once set
            db.execute("PRAGMA synchronous=FULL")  # each commit on disk before it returns
            db.execute(f"PRAGMA cache_size=-{_CACHE_KIB}")
            db.execute(_SCHEMA)
        except sqlite3.Error as error:
            raise _damaged(self.path, error) from error
        if new:
            fsync_dir(self.path.parent)  # the file's name durable, as its rows will be
        return db

    def group(self, mail_id: str) -> str | None:
        """Give the group file the mail left ``inbox/`` in, or None."""
        try:
            row = self._connection().execute(
                "SELECT grp FROM seen WHERE mail_id = ?", (mail_id,)).fetchone()
        except sqlite3.Error as error:
            raise _damaged(self.path, error) from error
        return None if row is None else str(row[0])

    def add(self, rows: Iterable[tuple[str, str]]) -> None:
        """Name each mail's group (mail id, group file name), on disk before this returns:
        one transaction. Naming a mail again (a move ``recover`` redoes) is harmless."""
        db = self._connection()
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany("INSERT OR REPLACE INTO seen (mail_id, grp) VALUES (?, ?)",
                               rows)
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        except sqlite3.Error as error:
            raise _damaged(self.path, error) from error


def _damaged(path: Path, error: sqlite3.Error) -> StoreError:
    return StoreError(f"The seen index {path} cannot be used ({error}).",
                      suggestion="Check the disk and the file's permissions; restore the "
                                 "store from a backup if the file is damaged.")
