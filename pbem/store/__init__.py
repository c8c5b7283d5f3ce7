"""The game store: inbox, games (setup, snapshot, log, meta) and outbox on disk, crash-safe.

Layout under the root folder::

    format                        the layout's version ("3"; "3" then "2" for a store of
                                  layout 2 taken over); a store without it is refused
    lock                          flock'ed by the one process that may write games
    inbox.lock, outbox.lock       flock'ed while mail is received / marked sent: those touch
                                  no file a commit writes, so they go on while a game is
                                  written; whoever takes more than one takes them in the
                                  order listed here
    index.json                    TinyDB: the list of games
    due.json                      the deadline tick's note of when each game is next due
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
                                  (a move a power cut undoes is redone by ``recover``)
    inbox/<mail_id>.mail, mail/<aa>/<mail_id>.mail   a mail received by layout 2, waiting or
                                  done: its record on a line, then its bytes
    outbox/<game_id>.<token>.mails   bytes of the mails one commit queued, written before the
                                  commit naming them; removed once every one is sent
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

from pbem.atomicfile import temp_files
from pbem.store.games import STAMP_MARGIN, file_stamp
from pbem.store.inbox import Inbox
from pbem.store.items import InboxItem, OutboxItem, mail_id_for
from pbem.store.lock import SEGMENT_SIZE
from pbem.store.log import Log

__all__ = [
    "SEGMENT_SIZE",
    "STAMP_MARGIN",
    "InboxItem",
    "OutboxItem",
    "Store",
    "file_stamp",
    "mail_id_for",
]

_TEMP_AGE = 600.0  # seconds: a temp file this old was left by a killed writer


class Store(Log, Inbox):
    """The game store under one root folder; see the module docstring for the layout.

    Its parts are this package's modules: ``Locked`` (the state they share, and the locks)
    under ``Inbox`` and ``Games``, then ``Outbox`` and ``Log`` on top of ``Games``."""

    def recover(self) -> None:
        """Finish what a killed writer left half done; run it at start, holding the lock."""
        self._require_lock("recover the store")
        # Whoever writes games/, outbox/ or the inbox holds the store's lock (held here) or
        # the inbox's (taken now): their temp files are a killed writer's. The IMAP
        # cursor's writer and a new store's first write hold neither (in daemon/ and the
        # store's own folder): of theirs, only those older than any write go.
        with self._small_lock("inbox.lock"):
            for temp in temp_files(self.root, older_than=_TEMP_AGE,
                                   aged_in=(self.root, self.root / "daemon")):
                temp.unlink(missing_ok=True)
        waiting = [item.mail_id for item in self.inbox()]
        for game_id in self.games():
            if not waiting:
                break
            # A step committed, the process died before taking its mails off the inbox.
            if done := self.applied_mails(game_id, waiting):
                self.inbox_done(*done)
                waiting = [mail_id for mail_id in waiting if mail_id not in done]
        self.inbox_done()  # groups all done whose move out of inbox/ never happened
        # Bundles with no mail left to send: all sent, or written by a step that never
        # committed (or for a game whose creation never finished).
        for game_id, names in self._bundles().items():
            pending = self._pending(game_id, self._hot(game_id)) if self._has_hot(game_id) else []
            self._remove_bundles(set(names) - {doc["bundle"] for doc in pending})
