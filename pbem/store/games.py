"""The store's games: the index of games, their hot files, stamps and the due index."""

from __future__ import annotations

import difflib
import json
import logging
import os
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tinydb import where
from tinydb.table import Document

from pbem.atomicfile import make_dir, read_json, write_atomic, write_json_atomic
from pbem.errors import StoreError
from pbem.store.items import JSON_HINT, Departure, check_game_id
from pbem.store.lock import Locks
from pbem.store.tinyfile import HotFile, TinyFile

_HOT_CACHED = 8  # hot files kept in memory during one lock hold
SEGMENT_SIZE = 64  # log entries per segment file, for games created from now on
STAMP_MARGIN = 2.0  # seconds: a file changed more recently has no stamp yet (file_stamp)
_CHANGED_KEPT = 1 << 20  # bytes of the journal of games changed before it is emptied
JournalMark = tuple[int, int]  # where a reader of the journal of games changed is: inode, offset

_TO = "to.json"  # in a game's move mark: the IMAP folder its mail is refiled into
log = logging.getLogger(__name__)


def file_stamp(path: Path | str) -> list[int] | None:
    """Give a value that changes whenever ``path`` is replaced or written (its inode, size,
    and the times of its last write and change), or None if it is missing or was changed
    less than ``STAMP_MARGIN`` seconds ago.

    Every store file is replaced whole by a rename, so its inode changes, but a freed inode
    number may come back, and a file system's clock ticks coarsely (1 s on some). A stamp
    taken this long after the last change still tells any later change apart (git calls
    this the "racy" case): that change bears a later time.
    """
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    if time.time_ns() - max(info.st_mtime_ns, info.st_ctime_ns) < STAMP_MARGIN * 1e9:
        return None
    return [info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


@dataclass(frozen=True)
class NewGame:
    """A game to create: its setup, first snapshot and log entries."""

    game_id: str
    setup: dict[str, Any]
    snapshot: dict[str, Any] | None = None
    log_entries: Sequence[dict[str, Any]] = ()


class GameFiles:
    """The games on disk: the index of games (``index.json``), each game's folder with its
    setup and hot file, and the due index. The other parts reach a game's hot file through
    ``hot`` and ``save``."""

    def __init__(self, root: Path, locks: Locks, segment_size: int) -> None:
        if segment_size < 1:
            raise StoreError("The log segment size must be at least 1.", text=str(segment_size))
        self.root = root
        self._games_dir = str(root / "games")
        self._changed = str(root / "changed.log")
        self._locks = locks
        self._segment_size = segment_size  # for games created from now on; each keeps its own
        self._hot_files: dict[str, HotFile] = {}  # read during this lock hold; see hot()
        # (the index file's stamp, the ids, the ids by case-folded name); see _game_index
        self._index_cache: tuple[list[int] | None, tuple[str, ...], dict[str, str]] | None = None
        self._index_held = False  # the index cache was read during this lock hold
        self._due_cache: tuple[list[int], dict[str, Any]] | None = None  # see due_index
        self._index_told: set[str] = set()  # the index's damage, logged once
        locks.on_release(self._forget_held)

    def _forget_held(self) -> None:
        """Forget what was read as unchanging while the lock was held."""
        self._hot_files.clear()
        self._index_held = False

    def forget_index(self) -> None:
        """Read the index of games again next time (it was changed behind the store)."""
        self._index_cache = None

    def folder(self, game_id: str) -> Path:
        """Give the game's folder."""
        return self.root / "games" / game_id

    def has_hot(self, game_id: str) -> bool:
        """Tell whether the game has a hot file (not so if its creation never finished)."""
        return (self.folder(game_id) / "hot.json").exists()

    def hot(self, game_id: str, *, writing: bool = False) -> HotFile:
        """Give a game's hot file, read once per lock hold (nobody else writes meanwhile).

        ``writing``: the caller changes it in memory, so it leaves the cache until
        ``save`` wrote it; should the write fail, the next reader reads the file again.
        """
        cached = self._hot_files.pop(game_id, None) if writing else self._hot_files.get(game_id)
        if cached is not None:
            return cached
        check_game_id(game_id)
        path = self.folder(game_id) / "hot.json"
        if not path.exists():
            if game_id in self.games():
                raise StoreError(f"The record of game {game_id}, {path}, is missing.",
                                 suggestion="Restore it from a backup (deploy/BACKUPS.md).")
            close = difflib.get_close_matches(game_id, self.games(), n=3)
            hint = f"Did you mean {', '.join(close)}?" if close else "See `pbem games`."
            raise StoreError("There is no game with this id.", text=game_id, suggestion=hint)
        hot = HotFile(path)
        if not writing:
            self._keep_hot(game_id, hot)
        return hot

    def save(self, game_id: str, hot: HotFile) -> None:
        """Write a hot file changed in memory; it is the cached one again."""
        hot.save()
        self._keep_hot(game_id, hot)

    def _keep_hot(self, game_id: str, hot: HotFile) -> None:
        """Cache a hot file while the lock is held: the last few read (a tick reads them all,
        and memory must not grow with the number of games)."""
        if not self._locks.held:
            return
        self._hot_files.pop(game_id, None)
        self._hot_files[game_id] = hot
        while len(self._hot_files) > _HOT_CACHED:
            del self._hot_files[next(iter(self._hot_files))]

    def create_game(self, game_id: str, setup: dict[str, Any], *,
                    snapshot: dict[str, Any] | None = None,
                    log_entries: Sequence[dict[str, Any]] = ()) -> None:
        """Create a game with its first snapshot and log entries (by default none: an empty
        game), all or nothing; StoreError if it exists."""
        self.create_games([NewGame(game_id, setup, snapshot, log_entries)])

    def create_games(self, games: Sequence[NewGame]) -> None:
        """Create games, listed in the index by one write (its commit point: all or none of
        them); StoreError if one exists. The index is rewritten whole on each creation, so
        a store of thousands is made this way (bench/growth.py)."""
        self._locks.require("create a game")
        known = set(self.games())
        for new in games:
            check_game_id(new.game_id)
            if new.game_id in known:
                raise StoreError("A game with this id already exists.", text=new.game_id)
            known.add(new.game_id)
            self._write_new(new)
        if self._index_read(self.root / "index.json")[1] is not None:  # written again whole
            write_json_atomic(self.root / "index.json", {"games": {
                str(n): {"game_id": each} for n, each in enumerate(self.games(), 1)}})
        index = TinyFile(self.root / "index.json")
        index.table("games").insert_multiple({"game_id": new.game_id} for new in games)
        self._index_cache = None
        index.save()  # the commit point of the creation
        for new in games:
            self._unmark(new.game_id)  # moved out once, and in again

    def _write_new(self, new: NewGame) -> None:
        """Write a new game's folder (not listed in the index yet)."""
        folder = self.folder(new.game_id)
        # Not in the index but on disk: an earlier create_game died before listing it, and
        # it is safe to start over only if nothing was ever committed to it.
        if (folder / "hot.json").exists() and not self.hot(new.game_id).state().get("fresh"):
            raise StoreError(
                f"The folder {folder} holds a game the index does not list.",
                suggestion="The index may be damaged: restore index.json from a backup.")
        self._hot_files.pop(new.game_id, None)
        shutil.rmtree(folder, ignore_errors=True)
        make_dir(folder / "segments")
        try:
            write_json_atomic(folder / "setup.json", new.setup)
        except (TypeError, ValueError) as error:
            raise StoreError(f"Cannot save the setup: {error}.", suggestion=JSON_HINT) from error
        hot = HotFile(folder / "hot.json")
        # "fresh" until the first commit: a creation that died before listing the game
        # leaves a folder that may be created again.
        hot.game.insert(Document({"snapshot": new.snapshot, "meta": {}, "base": 0,
                                  "fresh": True, "segment_size": self._segment_size},
                                 doc_id=1))
        hot.set_open(0, new.log_entries, {})  # the next commit closes segments if it is long
        try:
            hot.save()
        except (TypeError, ValueError) as error:
            raise StoreError(f"Cannot save the game: {error}.", suggestion=JSON_HINT) from error

    def moving(self, game_id: str, on: bool = True, *, to_folder: str | None = None) -> None:
        """Mark the game as moving out of this store (its own address's mail is held at the
        sending server from now on: see ``retired``), or, ``on`` False, as staying after
        all. The mark is the folder ``moved/<game_id>``; ``to_folder`` is kept in it
        (``to.json``, see ``departure``)."""
        check_game_id(game_id)
        mark = self.root / "moved" / game_id
        if on:
            make_dir(mark)
            if to_folder is not None:
                write_json_atomic(mark / _TO, {"folder": to_folder})
        else:
            (mark / _TO).unlink(missing_ok=True)
            if mark.is_dir() and not any(mark.iterdir()):
                mark.rmdir()

    def retire_game(self, game_id: str) -> None:
        """Take a game out of the store (it moved to another store): the index stops listing
        it, and its folder goes to ``moved/<game_id>/game``, kept for reference."""
        self._locks.require("retire a game")
        index = self._unlisted(game_id)
        self.moving(game_id)
        index.save()  # the commit point: the game is no longer this store's
        self.folder(game_id).rename(self.root / "moved" / game_id / "game")

    def retired(self, name: str) -> bool:
        """Tell whether the game called ``name`` (letter case aside) is moving or moved out
        of this store (``moving``, ``retire_game``) and was not created here again since."""
        return self._mark(name) is not None

    def departure(self, name: str) -> Departure | None:
        """Give how the game called ``name`` (letter case aside) leaves or left this store,
        or None if it is not moving out."""
        game_id = self._mark(name)
        if game_id is None:
            return None
        mark = self.root / "moved" / game_id
        try:
            folder = read_json(mark / _TO).get("folder")
        except (FileNotFoundError, ValueError, AttributeError):
            folder = None
        # Gone once no longer listed (the index is the commit point of retire_game).
        return Departure(game_id, gone=self.game_named(game_id) is None,
                         to_folder=folder if isinstance(folder, str) else None)

    def departures(self) -> list[Departure]:
        """Give every game moving or moved out of this store, by id (the marks set aside by
        ``_unmark``, of games that came back, are not)."""
        try:
            marks = os.listdir(self.root / "moved")
        except FileNotFoundError:
            return []
        found = (self.departure(mark) for mark in sorted(marks) if not mark.endswith(".old"))
        return [d for d in found if d is not None]

    def _mark(self, name: str) -> str | None:
        """Give the game id of the move mark of the game called ``name``, or None."""
        try:
            marks = os.listdir(self.root / "moved")
        except FileNotFoundError:
            return None
        folded = name.casefold()
        return next((mark for mark in marks if mark.casefold() == folded), None)

    def _unmark(self, game_id: str) -> None:
        """The game is this store's again: its move mark, and what it holds, go aside."""
        mark = self.root / "moved" / game_id
        if mark.exists():
            mark.rename(mark.with_name(f"{game_id}.{time.time_ns()}.old"))

    def delete_game(self, game_id: str) -> None:
        """Delete a game and its folder; StoreError if there is none. The index written
        without it is the commit point: a folder left by a writer killed after it is
        not listed, and a later create_game of that id clears it."""
        self._locks.require("delete a game")
        check_game_id(game_id)
        self._unlisted(game_id).save()
        shutil.rmtree(self.folder(game_id), ignore_errors=True)

    def _unlisted(self, game_id: str) -> TinyFile:
        """The index without ``game_id``, not yet saved (saving it is the caller's commit
        point); StoreError if there is no such game."""
        if game_id not in self.games():
            raise StoreError("There is no game with this id.", text=game_id)
        index = TinyFile(self.root / "index.json")
        index.table("games").remove(where("game_id") == game_id)
        self._index_cache = None
        self._hot_files.pop(game_id, None)
        return index

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
        cached = self._index_cache
        # Read during this lock hold: only a holder writes the index (``create_game``, which
        # forgets this), so it is as read until the lock goes, however new the file is.
        if cached is None or not self._index_held:
            stamp = file_stamp(path)
            if cached is None or stamp is None or cached[0] != stamp:
                ids = self._read_index(path)
                # The newest of a name wins.
                named = {game_id.casefold(): game_id for game_id in ids}
                cached = self._index_cache = (stamp, ids, named)
            self._index_held = self._locks.held
        return cached[1], cached[2]

    def _read_index(self, path: Path) -> tuple[str, ...]:
        """Give the games' ids as the index lists them; if it is damaged, or missing while
        game folders are on disk, those folders' games, oldest first, and say so once."""
        ids, damage = self._index_read(path)
        if damage is None:
            return ids
        ids = tuple(self.folders())
        if damage not in self._index_told:
            self._index_told.add(damage)
            log.error("%s: the games are taken from the folders in %s (%d); restore the file "
                      "from a backup if one is missing (see `pbem doctor`)", damage,
                      self.root / "games", len(ids))
        return ids

    def _index_read(self, path: Path) -> tuple[tuple[str, ...], str | None]:
        """Give the games' ids the index lists, and what is wrong with it (None if nothing
        is)."""
        try:
            ids = tuple(doc["game_id"] for doc in TinyFile(path).table("games"))
        except StoreError as error:
            return (), str(error)
        except (KeyError, TypeError, AttributeError):
            return (), f"The store file {path} is damaged (a game without an id)."
        if not ids and not path.exists() and self.folders():
            return (), f"The index of games {path} is missing."
        return ids, None

    def folders(self) -> list[str]:
        """Give the games whose folders hold a record (hot.json), oldest first (by when
        their setup was written)."""
        found = []
        try:
            names = os.listdir(self.root / "games")
        except FileNotFoundError:
            return []
        for name in names:
            try:
                found.append(((self.folder(name) / "setup.json").stat().st_mtime_ns, name))
            except (FileNotFoundError, NotADirectoryError):
                continue
        return [name for _, name in sorted(found)
                if (self.folder(name) / "hot.json").exists()]

    def game_stamp(self, game_id: str) -> list[int] | None:
        """Give a value that changes whenever anything of the game that a step reads is
        rewritten (its hot file), or None when that cannot be told yet (see
        ``file_stamp``)."""
        check_game_id(game_id)
        # A string, not a Path: a deadline tick takes the stamp of every game (pathlib's
        # joins cost more than the stat itself: 10,000 games, bench/growth.py).
        return file_stamp(f"{self._games_dir}/{game_id}/hot.json")

    def note_changed(self, game_id: str) -> None:
        """Add the game to the journal of games changed (``changed.log``), after a commit;
        the store's lock is held. Not synced: a line a crash loses is made up for by the
        deadline tick's sweep of every game's stamp at its start (``changed_games``)."""
        fd = os.open(self._changed, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with open(fd, "a", encoding="utf-8") as journal:
            journal.write(json.dumps(game_id) + "\n")  # a JSON line, as every journal's

    def changed_games(self, since: JournalMark | None,
                      keep_bytes: int = _CHANGED_KEPT) -> tuple[set[str] | None, JournalMark]:
        """Give the games committed since the mark ``since`` gave (None: not known, every
        game may have changed) and the mark to give next time. Needs the lock; empties the
        journal once it holds ``keep_bytes``, so a reader holding an older mark is told
        nothing is known."""
        self._locks.require("read the journal of games changed")
        try:
            with open(self._changed, "rb") as journal:
                info = os.fstat(journal.fileno())
                same = since is not None and since[0] == info.st_ino and since[1] <= info.st_size
                start = since[1] if same and since is not None else 0
                journal.seek(start)
                text = journal.read(info.st_size - start)
        except FileNotFoundError:
            return None, self._empty_journal()
        whole = text[:text.rfind(b"\n") + 1]  # a line being written is read next time
        try:
            changed = {str(json.loads(line)) for line in whole.splitlines()} if same else None
        except ValueError:  # a line a crash cut short, and one added after it: not known
            changed = None
        if info.st_size >= keep_bytes:
            return changed, self._empty_journal()
        return changed, (info.st_ino, start + len(whole))

    def _empty_journal(self) -> JournalMark:
        """Start the journal of games changed anew (a new file: older marks are stale)."""
        write_atomic(Path(self._changed), b"")
        return os.stat(self._changed).st_ino, 0

    def due_index(self) -> dict[str, Any]:
        """Give the deadline tick's own record of the games (empty if there is none yet):
        what the service keeps there is its business; losing it only costs time.

        It grows with the games (1 MB with 10,000), so it is kept parsed: read again only
        when the file is not the one last read or written here. A file read less than
        ``STAMP_MARGIN`` seconds after it was written is not kept (``file_stamp``); one
        written here is, as only the lock's holder writes it, and another writer's file
        is a new one (its own inode, while this one's is still taken)."""
        path = self.root / "due.json"
        try:
            info = os.stat(path)
        except FileNotFoundError:
            return {}
        key = [info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]
        if self._due_cache is not None and self._due_cache[0] == key:
            return dict(self._due_cache[1])
        try:
            value = read_json(path)
        except (FileNotFoundError, ValueError):
            return {}
        if not isinstance(value, dict):
            return {}
        self._due_cache = (key, value) if file_stamp(path) == key else None
        return dict(value)

    def set_due_index(self, value: dict[str, Any]) -> None:
        """Replace the deadline tick's record of the games (see ``due_index``)."""
        self._locks.require("write the due index")
        path = self.root / "due.json"
        try:
            write_json_atomic(path, value)
        except (TypeError, ValueError) as error:
            raise StoreError(f"Cannot save the due index: {error}.",
                             suggestion=JSON_HINT) from error
        info = os.stat(path)
        self._due_cache = ([info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns],
                           dict(value))

    def setup(self, game_id: str) -> dict[str, Any]:
        """Give the setup the game was created with."""
        self.hot(game_id)
        value: dict[str, Any] = read_json(self.folder(game_id) / "setup.json")
        return value

    def meta(self, game_id: str) -> dict[str, Any]:
        """Give the game's small mutable record (empty until a commit sets it)."""
        value: dict[str, Any] = self.hot(game_id).state()["meta"]
        return value

    def snapshot(self, game_id: str) -> dict[str, Any] | None:
        """Give the snapshot of the last commit, or None before the first."""
        value = self.hot(game_id).state().get("snapshot")
        if value is not None and not isinstance(value, dict):
            raise StoreError(f"The store file {self.folder(game_id) / 'hot.json'} is damaged "
                             "(its snapshot is not a record).",
                             suggestion="Restore it from a backup (deploy/BACKUPS.md).")
        return value
