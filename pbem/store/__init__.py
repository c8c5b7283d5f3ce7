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
import os
from pathlib import Path

from pbem.atomicfile import temp_files
from pbem.store.games import STAMP_MARGIN, file_stamp
from pbem.store.inbox import Inbox
from pbem.store.items import InboxItem, OutboxItem, file_key, mail_id_for
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
            pending = ({file_key(doc["outbox_id"]) for doc in self._hot(game_id).outbox}
                       if hot_path.exists() else set())
            for key in keys:
                if self._sent_path(key, ".json").exists():
                    with contextlib.suppress(FileNotFoundError):  # mark_sent did it meanwhile
                        os.replace(self._queued_path(game_id, key),
                                   self._sent_path(key, ".eml"))
                elif key not in pending:
                    # Bytes of a step that never committed; a redo writes them again.
                    self._queued_path(game_id, key).unlink()
