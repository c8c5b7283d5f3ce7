"""The game store: inbox, games (setup, snapshot, log, meta) and outbox on disk, crash-safe.

Layout under the root folder::

    lock                          flock'ed by the one process that may write games
    inbox.lock, outbox.lock       flock'ed while mail is received / marked sent: those add
                                  files only, so they go on while a game is written; whoever
                                  takes more than one takes them in the order listed here
    index.json                    TinyDB: the list of games
    due.json                      the deadline tick's note of when each game is next due
    inbox/<mail_id>.json          a received mail not yet done (its seq keeps arrival order)
    mail/<aa>/<mail_id>.eml       raw received mail; <mail_id>.json once it is done
    outbox/<game_id>.<key>.eml    bytes of a queued mail, written before the commit naming it
    sent/<aa>/<key>.json          a sent mail's record (the hot file forgets it at next commit)
    sent/<aa>/<key>.eml           a sent mail's bytes
    games/<game_id>/setup.json    written once
    games/<game_id>/hot.json      TinyDB: snapshot, meta, open log segment, its applied mail
                                  ids, pending outbox; the one file written on every commit
    games/<game_id>/segments/<start>.json   a closed log segment with its applied mail ids
    games/<game_id>/applied/<mail_id>.json  where a mail's step sits in the log (a hint:
                                  the hot file or the segment it points to is the truth)

Every file is replaced whole (see ``pbem.atomicfile``), and the hot file is written last in
each change, so it is the commit point: files it points to exist before it does, and files
nobody points to yet are ignored (and tidied by ``recover``).
"""

from __future__ import annotations

import contextlib
import difflib
import fcntl
import hashlib
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from tinydb import TinyDB, where
from tinydb.middlewares import CachingMiddleware
from tinydb.storages import Storage
from tinydb.table import Document, Table

from pbem.atomicfile import (
    dump_json,
    fsync_dir,
    make_dir,
    read_json,
    temp_files,
    write_atomic,
    write_json_atomic,
    write_many_atomic,
)
from pbem.errors import StoreError

SEGMENT_SIZE = 64
STAMP_MARGIN = 2.0  # seconds: a file changed more recently has no stamp yet (file_stamp)
_TEMP_AGE = 600.0  # seconds: a temp file this old was left by a killed writer
_HOT_CACHED = 8  # hot files kept in memory during one lock hold
_GAME_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_MAIL_ID = re.compile(r"[0-9a-f]{32}")
_JSON_HINT = "Store only JSON values: dicts with string keys, lists, strings, numbers, None."


@dataclass(frozen=True)
class InboxItem:
    """A received mail waiting to be processed."""

    mail_id: str
    message_id: str
    received_at: str


@dataclass(frozen=True)
class OutboxItem:
    """A mail to send; ``outbox_id`` is chosen by the caller and stable across a redo."""

    outbox_id: str
    game_id: str
    to: str
    message_id: str
    raw: bytes
    created_at: str
    attempts: int = 0
    retry_at: str | None = None
    last_error: str | None = None


def mail_id_for(message_id: str) -> str:
    """Give the store's id for a Message-ID (angle brackets and spaces do not count)."""
    bare = message_id.strip().removeprefix("<").removesuffix(">").strip()
    if not bare:
        raise StoreError(
            "A mail without a Message-ID cannot be received.",
            suggestion="Derive one from a hash of the raw mail.",
        )
    return _key(bare)


def _key(text: str) -> str:
    """Give a file-name-safe fixed-length key for any string."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _when(value: str | datetime) -> str:
    """Give a time as the ISO string the store keeps."""
    return value.isoformat() if isinstance(value, datetime) else value


def file_stamp(path: Path) -> list[int] | None:
    """Give a value that changes whenever ``path`` is replaced or written (its inode, size,
    and the times of its last write and change), or None if it is missing or was changed
    less than ``STAMP_MARGIN`` seconds ago.

    Every store file is replaced whole by a rename, so its inode changes, but a freed inode
    number may come back, and a file system's clock ticks coarsely (1 s on some). A stamp
    taken this long after the last change still tells any later change apart (git calls
    this the "racy" case): that change bears a later time.
    """
    try:
        info = path.stat()
    except FileNotFoundError:
        return None
    if time.time_ns() - max(info.st_mtime_ns, info.st_ctime_ns) < STAMP_MARGIN * 1e9:
        return None
    return [info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def _check_game_id(game_id: str) -> None:
    if not _GAME_ID.fullmatch(game_id):
        raise StoreError(
            "A game id is 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit.",
            text=game_id)


def _check_mail_id(mail_id: str) -> None:
    if not _MAIL_ID.fullmatch(mail_id):
        raise StoreError("This is not a mail id given by the store.", text=mail_id)


class _AtomicJSONStorage(Storage):
    """TinyDB storage that never leaves a half-written file: temp file, fsync, rename."""

    def __init__(self, path: str) -> None:
        self._path = Path(path)

    def read(self) -> dict[str, dict[str, Any]] | None:
        try:
            data = self._path.read_bytes()
        except FileNotFoundError:
            return None
        try:
            value = json.loads(data)
        except ValueError as error:
            raise StoreError(
                f"The store file {self._path} is damaged ({error}).",
                suggestion="Restore it from a backup.",
            ) from error
        if not isinstance(value, dict):
            raise StoreError(f"The store file {self._path} is damaged (not a JSON object).")
        return value

    def write(self, data: dict[str, dict[str, Any]]) -> None:
        try:
            payload = dump_json(data)
        except (TypeError, ValueError) as error:
            message = f"Cannot save {self._path}: {error}."
            raise StoreError(message, suggestion=_JSON_HINT) from error
        write_atomic(self._path, payload)


class _WriteOnSave(CachingMiddleware):
    """TinyDB's caching middleware, flushed only by an explicit ``flush()``."""

    # CachingMiddleware also flushes by itself after this many writes and on close(); a
    # commit must land whole or not at all, so neither may happen.
    WRITE_CACHE_SIZE = sys.maxsize

    def close(self) -> None:
        self.storage.close()


class _TinyFile:
    """One TinyDB file, read at most once; all changes land in one atomic write on save()."""

    def __init__(self, path: Path) -> None:
        self._cache = _WriteOnSave(_AtomicJSONStorage)  # type: ignore[no-untyped-call]
        self._db = TinyDB(str(path), storage=self._cache)

    def table(self, name: str) -> Table:
        return self._db.table(name)

    def save(self) -> None:
        self._cache.flush()  # type: ignore[no-untyped-call]


class _HotFile(_TinyFile):
    """A game's hot file: state record, open log segment, its applied mails, pending outbox."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.game = self.table("game")
        self.log = self.table("log")
        self.applied = self.table("applied")
        self.outbox = self.table("outbox")

    def state(self) -> dict[str, Any]:
        doc = self.game.get(doc_id=1)
        if doc is None:
            raise StoreError("A game's hot file has no state record.", suggestion="Restore it.")
        return dict(doc)

    def entries(self) -> list[dict[str, Any]]:
        return [doc["entry"] for doc in sorted(self.log.all(), key=lambda d: d["index"])]

    def applied_ids(self) -> dict[str, int]:
        return {doc["mail_id"]: doc["index"] for doc in self.applied.all()}

    def set_open(self, base: int, entries: Sequence[dict[str, Any]],
                 applied: dict[str, int]) -> None:
        self.game.update({"base": base}, doc_ids=[1])
        self.log.truncate()
        self.log.insert_multiple({"index": base + i, "entry": e} for i, e in enumerate(entries))
        self.applied.truncate()
        self.applied.insert_multiple({"mail_id": m, "index": i} for m, i in applied.items())


class Store:
    """The game store under one root folder; see the module docstring for the layout."""

    def __init__(self, root: Path, *, segment_size: int = SEGMENT_SIZE) -> None:
        if segment_size < 1:
            raise StoreError("The log segment size must be at least 1.", text=str(segment_size))
        self.root = Path(root)
        self._segment_size = segment_size  # for games created from now on; each game keeps its own
        self._lock_depth = 0
        self._hot_files: dict[str, _HotFile] = {}  # read during this lock hold; see _hot
        self._records: dict[str, dict[str, Any]] = {}  # inbox records read, by file name
        # (the index file's stamp, the ids, the ids by case-folded name); see _game_index
        self._index_cache: tuple[list[int], tuple[str, ...], dict[str, str]] | None = None
        for folder in ("inbox", "mail", "outbox", "sent", "games"):
            make_dir(self.root / folder)

    # ---- lock -------------------------------------------------------------------------

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
                    holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
                    raise StoreError(
                        f"The game store {self.root} is in use by process {holder}.",
                        suggestion="Wait for it to finish (or stop the pbem daemon) and retry.",
                    ) from None
                time.sleep(min(0.02, remaining))

    @contextmanager
    def _small_lock(self, name: str) -> Iterator[None]:
        """A lock of one part of the store, held for one short write (see the module
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

    # ---- inbox ------------------------------------------------------------------------

    def _pending_path(self, mail_id: str) -> Path:
        return self.root / "inbox" / f"{mail_id}.json"

    def _mail_path(self, mail_id: str, suffix: str) -> Path:
        return self.root / "mail" / mail_id[:2] / f"{mail_id}{suffix}"

    def seen(self, message_id: str) -> bool:
        """Tell whether a mail with this Message-ID was received (waiting or done)."""
        mail_id = mail_id_for(message_id)
        return self._pending_path(mail_id).exists() or self._mail_path(mail_id, ".json").exists()

    def keep_raw(self, *mails: tuple[bytes, str]) -> None:
        """Write mails' bytes (with their Message-IDs) durably where ``receive`` looks for
        them; needs no lock (each file is its mail's alone), so the locked part of receiving
        is small."""
        files = [(self._mail_path(mail_id_for(message_id), ".eml"), raw)
                 for raw, message_id in mails]
        for folder in {path.parent for path, _ in files}:
            make_dir(folder)
        write_many_atomic(files)

    def receive(self, raw: bytes, *, message_id: str, received_at: str | datetime,
                kept: bool = False) -> str | None:
        """Give the new mail's id after keeping it durably, or None if already received.
        ``kept``: ``keep_raw`` already wrote these bytes."""
        return self.receive_many([(raw, message_id)], received_at=received_at, kept=kept)[0]

    def receive_many(self, mails: Sequence[tuple[bytes, str]], *,
                     received_at: str | datetime, kept: bool = False) -> list[str | None]:
        """``receive`` for several mails (bytes, Message-ID), made durable together.

        Receiving takes the inbox's own lock, not the store's: mail comes in while a step is
        processed (it only adds files; processing reads the inbox once a round).
        """
        with self._small_lock("inbox.lock"):
            return self._receive_many(mails, received_at, kept)

    def _receive_many(self, mails: Sequence[tuple[bytes, str]], received_at: str | datetime,
                      kept: bool) -> list[str | None]:
        ids: list[str | None] = []
        new: dict[str, tuple[bytes, str]] = {}
        for raw, message_id in mails:
            mail_id = mail_id_for(message_id)
            fresh = mail_id not in new and not self.seen(message_id)
            ids.append(mail_id if fresh else None)
            if fresh:
                new[mail_id] = (raw, message_id)
        if not new:
            return ids
        if not kept:
            self.keep_raw(*new.values())
        seq = 1 + max((i["seq"] for i in self._pending_records()), default=-1)
        records = [(self._pending_path(mail_id), dump_json({
            "mail_id": mail_id, "message_id": message_id, "received_at": _when(received_at),
            "seq": seq + n})) for n, (mail_id, (_, message_id)) in enumerate(new.items())]
        write_many_atomic(records)  # the commit point: from here on they are "seen"
        return ids

    def _pending_records(self) -> list[dict[str, Any]]:
        # A record never changes once written (it is only removed), so each is read once.
        folder = self.root / "inbox"
        known, self._records = self._records, {}
        for name in os.listdir(folder):
            if not name.endswith(".json"):
                continue
            if name in known:
                self._records[name] = known[name]
                continue
            try:
                self._records[name] = read_json(folder / name)
            except FileNotFoundError:  # marked done meanwhile by the writing process
                continue
        return list(self._records.values())

    def inbox(self) -> list[InboxItem]:
        """Give the received mails not yet done, oldest first."""
        records = sorted(self._pending_records(), key=lambda r: r["seq"])
        return [InboxItem(r["mail_id"], r["message_id"], r["received_at"]) for r in records]

    def raw_mail(self, mail_id: str) -> bytes:
        """Give the raw bytes of a received mail."""
        _check_mail_id(mail_id)
        try:
            return self._mail_path(mail_id, ".eml").read_bytes()
        except FileNotFoundError:
            raise StoreError("No received mail has this id.", text=mail_id) from None

    def inbox_done(self, *mail_ids: str) -> None:
        """Take mails off the inbox for good (they stay seen); doing it twice is harmless."""
        self._require_lock("mark a mail done")
        moved = False
        for mail_id in mail_ids:
            _check_mail_id(mail_id)
            pending, done = self._pending_path(mail_id), self._mail_path(mail_id, ".json")
            if pending.exists():
                os.replace(pending, done)
                moved = True
            elif not done.exists():
                raise StoreError("No received mail has this id.", text=mail_id)
        if moved:  # one folder fsync for all of them, as move_atomic does for one
            for folder in {self._mail_path(m, "").parent for m in mail_ids}:
                fsync_dir(folder)
            fsync_dir(self.root / "inbox")

    # ---- games ------------------------------------------------------------------------

    def _game_dir(self, game_id: str) -> Path:
        return self.root / "games" / game_id

    def _hot(self, game_id: str, *, writing: bool = False) -> _HotFile:
        """Give a game's hot file, read once per lock hold (nobody else writes meanwhile).

        ``writing``: the caller changes it in memory, so it leaves the cache until
        ``_save`` wrote it; should the write fail, the next reader reads the file again.
        """
        cached = self._hot_files.pop(game_id, None) if writing else self._hot_files.get(game_id)
        if cached is not None:
            return cached
        _check_game_id(game_id)
        path = self._game_dir(game_id) / "hot.json"
        if not path.exists():
            close = difflib.get_close_matches(game_id, self.games(), n=3)
            hint = f"Did you mean {', '.join(close)}?" if close else "See `pbem games`."
            raise StoreError("There is no game with this id.", text=game_id, suggestion=hint)
        hot = _HotFile(path)
        if not writing:
            self._keep_hot(game_id, hot)
        return hot

    def _save(self, game_id: str, hot: _HotFile) -> None:
        """Write a hot file changed in memory; it is the cached one again."""
        hot.save()
        self._keep_hot(game_id, hot)

    def _keep_hot(self, game_id: str, hot: _HotFile) -> None:
        """Cache a hot file while the lock is held: the last few read (a tick reads them all,
        and memory must not grow with the number of games)."""
        if not self._lock_depth:
            return
        self._hot_files.pop(game_id, None)
        self._hot_files[game_id] = hot
        while len(self._hot_files) > _HOT_CACHED:
            del self._hot_files[next(iter(self._hot_files))]

    def create_game(self, game_id: str, setup: dict[str, Any]) -> None:
        """Create an empty game (no snapshot, empty log); StoreError if it exists."""
        self._require_lock("create a game")
        _check_game_id(game_id)
        if game_id in self.games():
            raise StoreError("A game with this id already exists.", text=game_id)
        folder = self._game_dir(game_id)
        # Not in the index but on disk: an earlier create_game died before listing it, and
        # it is safe to start over only if nothing was ever committed to it.
        if (folder / "hot.json").exists() and (
                self.log_length(game_id) or self.snapshot(game_id) is not None):
            raise StoreError(
                f"The folder {folder} holds a game the index does not list.",
                suggestion="The index may be damaged: restore index.json from a backup.")
        self._hot_files.pop(game_id, None)
        shutil.rmtree(folder, ignore_errors=True)
        for sub in ("segments", "applied"):
            make_dir(folder / sub)
        try:
            write_json_atomic(folder / "setup.json", setup)
        except (TypeError, ValueError) as error:
            raise StoreError(f"Cannot save the setup: {error}.", suggestion=_JSON_HINT) from error
        hot = _HotFile(folder / "hot.json")
        hot.game.insert(Document({"snapshot": None, "meta": {}, "base": 0,
                                  "segment_size": self._segment_size}, doc_id=1))
        hot.save()
        index = _TinyFile(self.root / "index.json")
        index.table("games").insert({"game_id": game_id})
        self._index_cache = None
        index.save()  # the commit point of the creation

    def games(self) -> list[str]:
        """Give the ids of all games, oldest first."""
        return list(self._game_index()[0])

    def game_named(self, name: str) -> str | None:
        """Give the id of the game called ``name``, letter case aside, or None if none is."""
        return self._game_index()[1].get(name.casefold())

    def _game_index(self) -> tuple[tuple[str, ...], dict[str, str]]:
        """Give the games' ids, and each by its case-folded name, reading the index file only
        when it changed: every mail is routed through here, and the file grows with the
        number of games."""
        path = self.root / "index.json"
        stamp = file_stamp(path)
        cached = self._index_cache
        if stamp is not None and cached is not None and cached[0] == stamp:
            return cached[1], cached[2]
        ids = tuple(doc["game_id"] for doc in _TinyFile(path).table("games"))
        named = {game_id.casefold(): game_id for game_id in ids}  # the newest of a name wins
        self._index_cache = (stamp, ids, named) if stamp is not None else None
        return ids, named

    def game_stamp(self, game_id: str) -> list[int] | None:
        """Give a value that changes whenever anything of the game that a step reads is
        rewritten (its hot file), or None when that cannot be told yet (see
        ``file_stamp``)."""
        _check_game_id(game_id)
        return file_stamp(self._game_dir(game_id) / "hot.json")

    def due_index(self) -> dict[str, Any]:
        """Give the deadline tick's own record of the games (empty if there is none yet):
        what the service keeps there is its business; losing it only costs time."""
        try:
            value = read_json(self.root / "due.json")
        except (FileNotFoundError, ValueError):
            return {}
        return value if isinstance(value, dict) else {}

    def set_due_index(self, value: dict[str, Any]) -> None:
        """Replace the deadline tick's record of the games (see ``due_index``)."""
        self._require_lock("write the due index")
        try:
            write_json_atomic(self.root / "due.json", value)
        except (TypeError, ValueError) as error:
            raise StoreError(f"Cannot save the due index: {error}.",
                             suggestion=_JSON_HINT) from error

    def setup(self, game_id: str) -> dict[str, Any]:
        """Give the setup the game was created with."""
        self._hot(game_id)
        value: dict[str, Any] = read_json(self._game_dir(game_id) / "setup.json")
        return value

    def meta(self, game_id: str) -> dict[str, Any]:
        """Give the game's small mutable record (empty until a commit sets it)."""
        value: dict[str, Any] = self._hot(game_id).state()["meta"]
        return value

    def snapshot(self, game_id: str) -> dict[str, Any] | None:
        """Give the snapshot of the last commit, or None before the first."""
        value: dict[str, Any] | None = self._hot(game_id).state()["snapshot"]
        return value

    def log_length(self, game_id: str) -> int:
        """Give the number of entries in the game's log."""
        hot = self._hot(game_id)
        return int(hot.state()["base"]) + len(hot.log)

    def _segment(self, game_id: str, start: int) -> dict[str, Any]:
        path = self._game_dir(game_id) / "segments" / f"{start:010d}.json"
        try:
            value: dict[str, Any] = read_json(path)
        except (FileNotFoundError, ValueError) as error:
            raise StoreError(f"The log segment {path} is missing or damaged ({error}).",
                             suggestion="Restore it from a backup.") from error
        return value

    def log(self, game_id: str, since: int = 0) -> Iterator[dict[str, Any]]:
        """Give the log entries with index >= since, in order, one segment file at a time."""
        if since < 0:
            raise StoreError("A log index cannot be negative.", text=str(since))
        hot = self._hot(game_id)
        state = hot.state()
        return self._stream(game_id, since, state["base"], state["segment_size"], hot.entries())

    def _stream(self, game_id: str, since: int, base: int, size: int,
                open_entries: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        # Closed segments below the base read here never change, except when a rollback
        # reopens one and the log regrows past it while a lock-less reader is still reading.
        for start in range(since // size * size, base, size):
            entries = self._segment(game_id, start)["entries"]
            yield from entries[max(0, since - start):]
        yield from open_entries[max(0, since - base):]

    def applied_mails(self, game_id: str, mail_ids: Iterable[str]) -> set[str]:
        """Give those of ``mail_ids`` whose step is committed in the game's log."""
        return self._applied(game_id, self._hot(game_id), mail_ids)

    def _applied(self, game_id: str, hot: _HotFile, mail_ids: Iterable[str]) -> set[str]:
        state, in_open = hot.state(), hot.applied_ids()
        base, size = state["base"], state["segment_size"]
        found = set()
        for mail_id in mail_ids:
            _check_mail_id(mail_id)
            if mail_id in in_open:
                found.add(mail_id)
                continue
            try:
                index = read_json(self._game_dir(game_id) / "applied" / f"{mail_id}.json")["index"]
            except FileNotFoundError:
                continue
            # The marker only says where to look: it may be left from a step that never
            # committed or was rolled back. Open-segment marks were checked above.
            if index < base and mail_id in self._segment(game_id, index // size * size)["applied"]:
                found.add(mail_id)
        return found

    # ---- commit -----------------------------------------------------------------------

    def commit(self, game_id: str, *, log_entries: Sequence[dict[str, Any]],
               snapshot: dict[str, Any] | None, meta: dict[str, Any] | None = None,
               mail_ids: Sequence[str] | Mapping[str, int] = (),
               outbox: Sequence[OutboxItem] = (),
               expect_length: int | None = None, cut_to: int | None = None) -> None:
        """Append one step atomically: log entries, snapshot, meta, applied mails, outbox.

        ``snapshot`` or ``meta`` None keeps the current one. ``expect_length`` (if given) is
        the log length the step was computed against; StoreError if the log has moved.
        Outbox items already queued or sent under the same ``outbox_id`` are not queued again.
        ``cut_to`` (a rollback) first cuts the log to that many entries, in the same write.
        ``mail_ids`` may map each mail to the log length its step began at (several steps in
        one commit); a plain sequence puts them all at the log's length before this commit.
        """
        self._require_lock("commit a step")
        hot = self._hot(game_id, writing=True)
        if cut_to is not None:
            self._cut(game_id, hot, cut_to)
        state = hot.state()
        base, size = state["base"], state["segment_size"]
        entries = hot.entries()
        length = base + len(entries)
        if expect_length is not None and expect_length != length:
            raise StoreError(
                f"Game {game_id} has {length} log entries; this step was computed for "
                f"{expect_length}.", suggestion="Reload the game and redo the step.")
        at = dict(mail_ids) if isinstance(mail_ids, Mapping) else dict.fromkeys(mail_ids, length)
        if done := self._applied(game_id, hot, at):
            raise StoreError(f"Game {game_id} has already applied these mails.",
                             text=", ".join(sorted(done)))
        # Everything the hot file will point to is written first.
        pending = {doc["outbox_id"] for doc in hot.outbox}
        queued = []
        files = []
        for item in outbox:
            if item.game_id != game_id:
                raise StoreError(f"An outbox item of game {item.game_id} was committed to game "
                                 f"{game_id}.", text=item.outbox_id)
            key = _key(item.outbox_id)
            if item.outbox_id in pending or self._sent_path(key, ".json").exists():
                continue
            files.append((self._queued_path(game_id, key), item.raw))
            pending.add(item.outbox_id)
            queued.append(item)
        for mail_id, index in at.items():
            if not length <= index <= length + len(log_entries):
                raise StoreError(f"Mail {mail_id} is put at log entry {index}, outside this "
                                 "commit.", text=mail_id)
            files.append((self._game_dir(game_id) / "applied" / f"{mail_id}.json",
                          dump_json({"mail_id": mail_id, "index": index})))
        write_many_atomic(files)
        applied = hot.applied_ids() | at
        entries.extend(log_entries)
        while len(entries) >= size:
            end = base + size
            segment = {"start": base, "entries": entries[:size],
                       "applied": {m: i for m, i in applied.items() if i < end}}
            self._write_segment(game_id, base, segment)
            applied = {m: i for m, i in applied.items() if i >= end}
            entries, base = entries[size:], end
        hot.set_open(base, entries, applied)
        self._drop_sent(hot)
        changes: dict[str, Any] = {}
        if snapshot is not None:
            changes["snapshot"] = snapshot
        if meta is not None:
            changes["meta"] = meta
        hot.game.update(changes, doc_ids=[1])
        hot.outbox.insert_multiple(
            {"outbox_id": i.outbox_id, "to": i.to, "message_id": i.message_id,
             "created_at": _when(i.created_at), "attempts": i.attempts,
             "retry_at": i.retry_at, "last_error": i.last_error} for i in queued)
        self._save(game_id, hot)  # the commit point

    def _write_segment(self, game_id: str, start: int, segment: dict[str, Any]) -> None:
        path = self._game_dir(game_id) / "segments" / f"{start:010d}.json"
        try:
            write_json_atomic(path, segment)
        except (TypeError, ValueError) as error:
            raise StoreError(f"Cannot save a log entry: {error}.", suggestion=_JSON_HINT) from error

    def truncate_log(self, game_id: str, length: int, snapshot: dict[str, Any]) -> None:
        """Cut the game's log to its first ``length`` entries and set the snapshot, atomically.

        Mails whose steps are cut off count as not applied any more.
        """
        self._require_lock("roll back a game")
        hot = self._hot(game_id, writing=True)
        self._cut(game_id, hot, length)
        hot.game.update({"snapshot": snapshot}, doc_ids=[1])
        self._drop_sent(hot)
        self._save(game_id, hot)

    def _cut(self, game_id: str, hot: _HotFile, length: int) -> None:
        """Cut the hot file's log to ``length`` entries, in memory (the caller saves)."""
        state = hot.state()
        base, size = state["base"], state["segment_size"]
        entries = hot.entries()
        if not 0 <= length <= base + len(entries):
            raise StoreError(f"Game {game_id} has {base + len(entries)} log entries; cannot cut "
                             f"it to {length}.", text=str(length))
        if length >= base:
            applied = hot.applied_ids()
        else:
            # Reopen the closed segment holding the cut; later segment files become stale and
            # are ignored (nothing reads past the hot file's base) until rewritten.
            base = length // size * size
            segment = self._segment(game_id, base)
            entries, applied = segment["entries"], segment["applied"]
        hot.set_open(base, entries[:length - base],
                     {m: i for m, i in applied.items() if i < length})

    # ---- outbox -----------------------------------------------------------------------

    def _sent_path(self, key: str, suffix: str) -> Path:
        return self.root / "sent" / key[:2] / f"{key}{suffix}"

    def _queued_path(self, game_id: str, key: str) -> Path:
        return self.root / "outbox" / f"{game_id}.{key}.eml"

    def _queued(self) -> dict[str, set[str]]:
        """Give the keys of the queued mail bytes on disk, by game (cost: pending mails)."""
        found: dict[str, set[str]] = {}
        for name in os.listdir(self.root / "outbox"):
            if name.endswith(".eml"):  # not the temp files of a write
                game_id, key = name.removesuffix(".eml").rsplit(".", 1)
                found.setdefault(game_id, set()).add(key)
        return found

    def outbox(self) -> list[OutboxItem]:
        """Give the committed mails not yet sent, oldest first, across games."""
        found: list[tuple[str, str, int, OutboxItem]] = []
        for game_id, keys in sorted(self._queued().items()):
            if not (self._game_dir(game_id) / "hot.json").exists():
                continue  # bytes of a game whose creation never finished
            for doc in self._hot(game_id).outbox:
                key = _key(doc["outbox_id"])
                if self._sent_path(key, ".json").exists():
                    continue  # sent; the next commit of the game drops it from the hot file
                try:
                    raw = self._queued_path(game_id, key).read_bytes()
                except FileNotFoundError:
                    if key not in keys or self._sent_path(key, ".json").exists():
                        continue  # sent by the writing process meanwhile
                    raise StoreError(f"The bytes of queued mail {doc['outbox_id']} of game "
                                     f"{game_id} are missing.") from None
                item = OutboxItem(doc["outbox_id"], game_id, doc["to"], doc["message_id"], raw,
                                  doc["created_at"], doc["attempts"], doc["retry_at"],
                                  doc["last_error"])
                found.append((item.created_at, game_id, doc.doc_id, item))
        return [entry[3] for entry in sorted(found, key=lambda e: e[:3])]

    def _queued_doc(self, outbox_id: str) -> tuple[str, _HotFile, Document] | None:
        """Give the game, hot file and record of a committed, queued mail."""
        key = _key(outbox_id)
        for game_id, keys in self._queued().items():
            if key in keys and (self._game_dir(game_id) / "hot.json").exists():
                hot = self._hot(game_id)
                doc = hot.outbox.get(where("outbox_id") == outbox_id)
                if doc is not None:
                    return game_id, hot, doc
        return None

    def sent_at(self, outbox_id: str) -> str | None:
        """Give when a mail was marked sent, or None if it was not."""
        try:
            value: str = read_json(self._sent_path(_key(outbox_id), ".json"))["sent_at"]
        except FileNotFoundError:
            return None
        return value

    def mark_sent(self, mail: OutboxItem | str, *, sent_at: str | datetime) -> None:
        """Record that the SMTP server accepted a queued mail, given as ``outbox()`` gave it
        (or by its id); doing it twice is harmless.

        Takes only the outbox's own lock, so sending never waits for a step being
        processed: it only adds the mail's own sent record, then moves its bytes, and every
        reader takes a mail with a sent record as sent, whether its bytes moved yet or not.
        """
        outbox_id = mail if isinstance(mail, str) else mail.outbox_id
        key = _key(outbox_id)
        record = self._sent_path(key, ".json")
        if record.exists():
            return
        if isinstance(mail, str):
            queued = self._queued_doc(outbox_id)
            if queued is None:
                raise StoreError("No queued mail has this id.", text=outbox_id)
            game_id, _hot, doc = queued
            fields = dict(doc)
        else:
            game_id, fields = mail.game_id, {
                "outbox_id": outbox_id, "to": mail.to, "message_id": mail.message_id,
                "created_at": _when(mail.created_at), "attempts": mail.attempts,
                "retry_at": mail.retry_at, "last_error": mail.last_error}
            if not self._queued_path(game_id, key).exists():
                raise StoreError("No queued mail has this id.", text=outbox_id)
        make_dir(record.parent)
        with self._small_lock("outbox.lock"):  # a backup sees both files or neither moved
            # The record alone makes the mail sent: one small write, whatever the game's size.
            write_json_atomic(record, fields | {"game_id": game_id, "sent_at": _when(sent_at)})
            # Tidying, redone by recover() if lost: so no fsync.
            with contextlib.suppress(FileNotFoundError):  # recover() did it meanwhile
                os.replace(self._queued_path(game_id, key), self._sent_path(key, ".eml"))

    def mark_failed(self, outbox_id: str, *, error: str, retry_at: str | datetime,
                    attempts: int) -> None:
        """Record a failed send attempt and when to retry."""
        self._require_lock("mark a mail failed")
        if self.sent_at(outbox_id) is not None:
            raise StoreError("This mail was already sent.", text=outbox_id)
        queued = self._queued_doc(outbox_id)
        if queued is None:
            raise StoreError("No queued mail has this id.", text=outbox_id)
        game_id, _, doc = queued
        hot = self._hot(game_id, writing=True)
        changes = {"last_error": error, "retry_at": _when(retry_at), "attempts": attempts}
        hot.outbox.update(changes, doc_ids=[doc.doc_id])
        self._save(game_id, hot)

    def requeue(self, outbox_id: str) -> None:
        """Make a queued mail due now as if never tried (the game master retrying a mail the
        daemon gave up on)."""
        self._require_lock("queue a mail again")
        if self.sent_at(outbox_id) is not None:
            raise StoreError("This mail was already sent.", text=outbox_id)
        queued = self._queued_doc(outbox_id)
        if queued is None:
            raise StoreError("No queued mail has this id.", text=outbox_id,
                             suggestion="`pbem outbox list` shows the ids")
        game_id, _, doc = queued
        hot = self._hot(game_id, writing=True)
        hot.outbox.update({"last_error": None, "retry_at": None, "attempts": 0},
                          doc_ids=[doc.doc_id])
        self._save(game_id, hot)

    def _drop_sent(self, hot: _HotFile) -> None:
        """Drop the mails already sent from a hot file about to be saved."""
        sent_dir = f"{self.root}/sent/"
        sent = [doc.doc_id for doc in hot.outbox  # os.path: this runs for every queued mail
                if os.path.exists(f"{sent_dir}{(key := _key(doc['outbox_id']))[:2]}/{key}.json")]
        if sent:
            hot.outbox.remove(doc_ids=sent)

    # ---- restart ----------------------------------------------------------------------

    def recover(self) -> None:
        """Finish what a killed writer left half done; run it at start, holding the lock."""
        self._require_lock("recover the store")
        # Writers that take no lock (mark_sent, keep_raw) may be writing a temp file right
        # now: only those older than any write leave them alone.
        for temp in temp_files(self.root, older_than=_TEMP_AGE):
            temp.unlink(missing_ok=True)
        games = self.games()
        for item in self.inbox():
            marker = Path("applied") / f"{item.mail_id}.json"
            for game_id in games:
                if (self._game_dir(game_id) / marker).exists() and self.applied_mails(
                        game_id, [item.mail_id]):
                    self.inbox_done(item.mail_id)
                    break
        for game_id, keys in self._queued().items():
            hot_path = self._game_dir(game_id) / "hot.json"
            pending = ({_key(doc["outbox_id"]) for doc in self._hot(game_id).outbox}
                       if hot_path.exists() else set())
            for key in keys:
                if self._sent_path(key, ".json").exists():
                    with contextlib.suppress(FileNotFoundError):  # mark_sent did it meanwhile
                        os.replace(self._queued_path(game_id, key),
                                   self._sent_path(key, ".eml"))
                elif key not in pending:
                    # Bytes of a step that never committed; a redo writes them again.
                    self._queued_path(game_id, key).unlink()
