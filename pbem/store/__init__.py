"""The game store: inbox, games (setup, snapshot, log, meta) and outbox on disk, crash-safe.

``Store`` is the file store; ``pbem.store.interface.GameStore`` is what its users may ask of
it, and ``pbem.store.memory.MemoryStore`` its twin in memory, for tests. docs/store.md says
what each kind of file is for and why.

Layout under the root folder::

    format                        the store's format version ("4"; "4" then "2" for a store
                                  of layout 2 taken over); a newer one is refused untouched
                                  (NewerStoreError), and so is a store without it
    lock                          flock'ed by the one process that may write games
    inbox.lock, outbox.lock       flock'ed while mail is received / marked sent: those touch
                                  no file a commit writes, so they go on while a game is
                                  written; whoever takes more than one takes them in the
                                  order listed here
    index.json                    TinyDB: the list of games
    due.json                      the deadline tick's note of when each game is next due
    changed.log                   a line per commit naming its game, appended by the lock's
                                  holder, not synced: the games a tick must look at again
                                  (``changed_games``; emptied once it grows to 1 MB)
    inbox/<seq>.<token>.mails     the mails received together: a JSON header line with each
                                  mail's record (id, Message-ID, sender, when, seq: arrival
                                  order, size), then their bytes one after another; a mail's
                                  id is its Message-ID's (with its sender's if another took
                                  it first)
    done.log                      a line per mail taken off the inbox whose group file is
                                  still in inbox/ (emptied when none is); not flushed: a
                                  line a power cut loses is redone by ``recover``
    seen.sqlite (-wal, -shm)      SQLite, in WAL mode: a row per mail whose group file left
                                  inbox/, naming it (``pbem.store.seen``); committed to disk
                                  before it leaves, written only by the store lock's holder
    mail/<seq>.<token>.mails      a group file all of whose mails are done, moved from inbox/
                                  (a move a power cut undoes is redone by ``recover``); after
                                  30 days, or beyond 64 MB of them, only its header line stays
    mail/moved.<token>.mails      the records alone (no bytes) of the mails a game applied in
                                  the store it moved in from (``take_receipts``), seen here
    inbox/<mail_id>.mail, mail/<aa>/<mail_id>.mail   a mail received by layout 2, waiting or
                                  done: its record on a line, then its bytes
    outbox/<game_id>.<token>.mails   bytes of the mails one commit queued, written before the
                                  commit naming them; removed once every one is sent
    moved/<game_id>/              a game moving or moved to another store: the mark that
                                  holds its own address's mail (``moving``), ``to.json``:
                                  the IMAP folder its mail is refiled into (``departure``),
                                  then its folder as it was, in ``game/``, for reference
    games/<game_id>/setup.json    written once
    games/<game_id>/hot.json      TinyDB: snapshot, meta, open log segment, its applied mail
                                  ids, pending outbox; the one file written on every commit
    games/<game_id>/segments/<start>.json   a closed log segment with its applied mail ids
    games/<game_id>/applied.log   a line per applied mail: where its step sits in the log (a
                                  hint: the hot file or the segment it points to is the truth)
    games/<game_id>/sent.log      a line per mail the SMTP server took (the hot file forgets
                                  the mail at the next commit); flushed to disk before the
                                  mail's bundle goes or the hot file forgets it, not each line

Every file is replaced whole (see ``pbem.atomicfile``) or, the ``.log`` files, only ever
appended to (see ``pbem.store.journal``; ``done.log`` is also emptied), except the seen
index, which SQLite keeps whole through crashes its own way. The hot file is written last in
each change, so it is the commit point: what it points to is on disk before it is, and what
nobody points to yet is ignored (and tidied by ``recover``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import Any

from pbem.atomicfile import temp_files
from pbem.errors import disk_trouble
from pbem.store.games import (
    SEGMENT_SIZE,
    STAMP_MARGIN,
    GameFiles,
    JournalMark,
    NewGame,
    file_stamp,
)
from pbem.store.inbox import InboxFiles
from pbem.store.interface import GameStore
from pbem.store.items import Departure, InboxItem, OutboxItem, mail_id_for
from pbem.store.journal import Journals
from pbem.store.lock import Locks, open_layout
from pbem.store.log import LogFiles
from pbem.store.outbox import OutboxFiles

__all__ = [
    "SEGMENT_SIZE",
    "STAMP_MARGIN",
    "Departure",
    "GameStore",
    "InboxItem",
    "JournalMark",
    "NewGame",
    "OutboxItem",
    "Store",
    "file_stamp",
    "mail_id_for",
]

_TEMP_AGE = 600.0  # seconds: a temp file this old was left by a killed writer

log = logging.getLogger(__name__)


class Store:
    """The game store under one root folder (see the module docstring for the layout): a
    ``GameStore`` made of one object per part, which share the folder's locks and the
    journals read (``Journals``: a bound on the memory they take)."""

    def __init__(self, root: Path, *, segment_size: int = SEGMENT_SIZE) -> None:
        self.root = Path(root)
        locks = self._locks = Locks(self.root)
        journals = Journals()
        # Checked before any folder is made: a store of another layout is left untouched.
        games = self._games = GameFiles(self.root, locks, segment_size)
        legacy = open_layout(self.root)
        self._inbox = InboxFiles(self.root, locks, journals, legacy=legacy)
        outbox = self._outbox = OutboxFiles(self.root, locks, games, journals)
        self._log = LogFiles(locks, games, outbox, journals)

    def lock(self, timeout: float | None = None) -> AbstractContextManager[None]:
        """Give exclusive write access to the store; re-entrant; StoreError on timeout."""
        return self._locks.lock(timeout)

    def recover(self) -> None:
        """Finish what a killed writer left half done; run it at start, holding the lock."""
        self._locks.require("recover the store")
        # Whoever writes games/, outbox/, moved/ or the mail holds the store's lock (held
        # here) or the inbox's (taken now): their temp files are a killed writer's. The
        # writers elsewhere hold neither: the daemon's own files (the IMAP cursor, the
        # sending process's alarms and hold, in daemon/ and below) and a new store's first
        # write (in the store's own folder). Of theirs, only those older than any write go.
        with self._locks.small("inbox.lock"):
            for temp in temp_files(self.root, older_than=_TEMP_AGE, young_in=[
                    self.root / name for name in ("games", "outbox", "moved", "inbox",
                                                  "mail")]):
                temp.unlink(missing_ok=True)
        waiting = [item.mail_id for item in self.inbox()]
        for game_id in self.games():
            if not waiting:
                break
            # A step committed, the process died before taking its mails off the inbox.
            try:
                done = self.applied_mails(game_id, waiting)
            except Exception as error:  # a damaged game holds up its own mail only
                if disk_trouble(error):
                    raise
                log.warning("game %s cannot be read (%s): its mail waits", game_id, error)
                continue
            if done:
                self.inbox_done(*done)
                waiting = [mail_id for mail_id in waiting if mail_id not in done]
        self.inbox_done()  # groups all done whose move out of inbox/ never happened
        self._outbox.recover()

    # ---- the games (pbem.store.games) ---------------------------------------------------

    def create_game(self, game_id: str, setup: dict[str, Any], *,
                    snapshot: dict[str, Any] | None = None,
                    log_entries: Sequence[dict[str, Any]] = ()) -> None:
        self._games.create_game(game_id, setup, snapshot=snapshot, log_entries=log_entries)

    def create_games(self, games: Sequence[NewGame]) -> None:
        """Create games, listed by one write of the index (a store of thousands, quickly)."""
        self._games.create_games(games)

    def moving(self, game_id: str, on: bool = True, *, to_folder: str | None = None) -> None:
        self._games.moving(game_id, on, to_folder=to_folder)

    def retire_game(self, game_id: str) -> None:
        self._games.retire_game(game_id)

    def retired(self, name: str) -> bool:
        return self._games.retired(name)

    def departure(self, name: str) -> Departure | None:
        return self._games.departure(name)

    def departures(self) -> list[Departure]:
        return self._games.departures()

    def delete_game(self, game_id: str) -> None:
        self._games.delete_game(game_id)

    def games(self) -> list[str]:
        return self._games.games()

    def game_named(self, name: str) -> str | None:
        return self._games.game_named(name)

    def game_stamp(self, game_id: str) -> list[int] | None:
        return self._games.game_stamp(game_id)

    def setup(self, game_id: str) -> dict[str, Any]:
        return self._games.setup(game_id)

    def meta(self, game_id: str) -> dict[str, Any]:
        return self._games.meta(game_id)

    def snapshot(self, game_id: str) -> dict[str, Any] | None:
        return self._games.snapshot(game_id)

    def changed_games(self, since: JournalMark | None) -> tuple[set[str] | None, JournalMark]:
        return self._games.changed_games(since)

    def due_index(self) -> dict[str, Any]:
        return self._games.due_index()

    def set_due_index(self, value: dict[str, Any]) -> None:
        self._games.set_due_index(value)

    def forget_index(self) -> None:
        """Read the index of games again next time (a test changed it behind the store)."""
        self._games.forget_index()

    # ---- the log (pbem.store.log) -------------------------------------------------------

    def log_length(self, game_id: str) -> int:
        return self._log.log_length(game_id)

    def log(self, game_id: str, since: int = 0) -> Iterator[dict[str, Any]]:
        return self._log.log(game_id, since)

    def applied_mails(self, game_id: str, mail_ids: Iterable[str]) -> set[str]:
        return self._log.applied_mails(game_id, mail_ids)

    def every_applied_mail(self, game_id: str) -> set[str]:
        return self._log.every_applied_mail(game_id)

    def commit(self, game_id: str, *, log_entries: Sequence[dict[str, Any]],
               snapshot: dict[str, Any] | None, meta: dict[str, Any] | None = None,
               mail_ids: Sequence[str] | Mapping[str, int] = (),
               outbox: Sequence[OutboxItem] = (),
               expect_length: int | None = None, cut_to: int | None = None,
               drop: Collection[str] = ()) -> None:
        self._log.commit(game_id, log_entries=log_entries, snapshot=snapshot, meta=meta,
                         mail_ids=mail_ids, outbox=outbox, expect_length=expect_length,
                         cut_to=cut_to, drop=drop)

    def truncate_log(self, game_id: str, length: int, snapshot: dict[str, Any]) -> None:
        self._log.truncate_log(game_id, length, snapshot)

    # ---- the inbox (pbem.store.inbox) ---------------------------------------------------

    def receive(self, raw: bytes, *, message_id: str, received_at: str | datetime,
                sender: str = "") -> str | None:
        return self._inbox.receive(raw, message_id=message_id, received_at=received_at,
                                        sender=sender)

    def receive_many(self, mails: Sequence[tuple[bytes, str, str]], *,
                     received_at: str | datetime) -> list[str | None]:
        return self._inbox.receive_many(mails, received_at=received_at)

    def seen(self, message_id: str, sender: str = "") -> bool:
        return self._inbox.seen(message_id, sender)

    def inbox(self) -> list[InboxItem]:
        return self._inbox.inbox()

    def receipts(self, mail_ids: Iterable[str]) -> list[dict[str, str]]:
        return self._inbox.receipts(mail_ids)

    def take_receipts(self, receipts: Sequence[dict[str, str]], *,
                      at: str | datetime) -> int:
        return self._inbox.take_receipts(receipts, at=at)

    def raw_mail(self, mail_id: str) -> bytes:
        return self._inbox.raw_mail(mail_id)

    def inbox_done(self, *mail_ids: str) -> None:
        self._inbox.inbox_done(*mail_ids)

    def mask_mail(self, mail_id: str, mask: Callable[[bytes], bytes]) -> bool:
        return self._inbox.mask_mail(mail_id, mask)

    def age_out_mail(self) -> int:
        """Drop the bytes of old mail done now (``inbox_done`` does it once an hour; see
        ``pbem.store.inbox.MAIL_KEPT_SECONDS``); give how many files were cut."""
        return self._inbox.age_out()

    # ---- the outbox (pbem.store.outbox) -------------------------------------------------

    def outbox(self) -> list[OutboxItem]:
        return self._outbox.outbox()

    def unsent(self) -> int:
        return self._outbox.unsent()

    def sent_at(self, outbox_id: str) -> str | None:
        return self._outbox.sent_at(outbox_id)

    def mark_sent(self, mail: OutboxItem | str, *, sent_at: str | datetime) -> None:
        self._outbox.mark_sent(mail, sent_at=sent_at)

    def sent_times(self, since: datetime) -> list[datetime]:
        return self._outbox.sent_times(since)

    def mark_failed(self, outbox_id: str, *, error: str, retry_at: str | datetime,
                    attempts: int) -> None:
        self._outbox.mark_failed(outbox_id, error=error, retry_at=retry_at, attempts=attempts)

    def requeue(self, outbox_id: str) -> None:
        self._outbox.requeue(outbox_id)

    def queued_game(self, outbox_id: str) -> str:
        return self._outbox.queued_game(outbox_id)
