"""The store's outbox: committed mail waiting to be sent, marked sent or failed."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from tinydb import where
from tinydb.table import Document

from pbem.atomicfile import dump_json, write_many_atomic
from pbem.errors import StoreError, disk_trouble
from pbem.store.games import GameFiles
from pbem.store.items import OutboxItem, stored_time
from pbem.store.journal import Journal, Journals
from pbem.store.lock import Locks
from pbem.store.tinyfile import HotFile

_BUNDLE = ".mails"
_BUNDLES_KEPT = 256  # bundles whose ids are kept in memory (marking sent reads them per mail)

log = logging.getLogger(__name__)
_T = TypeVar("_T")


class OutboxFiles:
    """The mail games queued: sending, failing and retrying it.

    A commit queues its mails' bytes in one bundle file (``outbox/<game_id>.<token>.mails``:
    a JSON header line naming each mail and its size, then the bytes one after another);
    the hot file lists the queued mails and the bundle of each. Marking a mail sent adds a
    line to the game's ``sent.log``; a bundle goes once every mail in it is sent.
    """

    def __init__(self, root: Path, locks: Locks, games: GameFiles, journals: Journals) -> None:
        self.root = root
        self._locks = locks
        self._games = games
        self._journals = journals
        self._bundle_ids_read: dict[str, list[str]] = {}  # bundles' mail ids, by name
        self._damage_told: set[str] = set()  # damage logged (once each, not every pass)

    def _sent_journal(self, game_id: str) -> Journal:
        return self._journals.get(self._games.folder(game_id) / "sent.log", "outbox_id",
                                  "sent_at")

    def sent(self, game_id: str) -> dict[str, str]:
        """Give when each of the game's mails marked sent was, by outbox id."""
        return self._sent_journal(game_id).values()

    def _bundles(self) -> dict[str, list[str]]:
        """Give the names of the bundle files on disk, by game (cost: one folder listing)."""
        found: dict[str, list[str]] = {}
        for name in os.listdir(self.root / "outbox"):
            if name.endswith(_BUNDLE):  # not the temp files of a write
                found.setdefault(name.rsplit(".", 2)[0], []).append(name)
        return found

    def _bundle_ids(self, name: str) -> list[str]:
        """Give the outbox ids of the mails in a bundle (FileNotFoundError if it went before
        they were read: a bundle never changes, and its name is never used again)."""
        ids = self._bundle_ids_read.get(name)
        if ids is None:
            with open(self.root / "outbox" / name, "rb") as handle:
                ids = json.loads(handle.readline())["ids"]
            if len(self._bundle_ids_read) >= _BUNDLES_KEPT:
                self._bundle_ids_read.clear()
            self._bundle_ids_read[name] = ids
        return ids

    def _bundle(self, name: str) -> dict[str, bytes]:
        """Give the mails' bytes in a bundle by outbox id (FileNotFoundError once it went)."""
        data = (self.root / "outbox" / name).read_bytes()
        header_end = data.index(b"\n") + 1
        header = json.loads(data[:header_end])
        mails, at = {}, header_end
        for outbox_id, size in zip(header["ids"], header["sizes"], strict=True):
            mails[outbox_id] = data[at:at + size]
            at += size
        if at > len(data):
            raise StoreError(f"The queued mails file {self.root / 'outbox' / name} is cut "
                             f"short ({len(data) - header_end} of {at - header_end} bytes).",
                             suggestion="Restore it from a backup, or drop the game's queued "
                             "mails that are in it (`pbem outbox drop`).")
        return mails

    def write_bundle(self, game_id: str, items: Sequence[OutboxItem]) -> str:
        """Write the bytes of mails about to be queued durably; give the bundle's name."""
        name = f"{game_id}.{secrets.token_hex(8)}{_BUNDLE}"
        header = dump_json({"ids": [i.outbox_id for i in items],
                            "sizes": [len(i.raw) for i in items]})
        write_many_atomic([(self.root / "outbox" / name,
                            b"".join([header, b"\n", *(i.raw for i in items)]))])
        return name

    def new_items(self, game_id: str, hot: HotFile,
                  items: Sequence[OutboxItem]) -> list[OutboxItem]:
        """Give those of a commit's mails not queued or sent before under the same outbox
        id; StoreError if one is another game's."""
        sent = self.sent(game_id)
        pending = {doc["outbox_id"] for doc in hot.outbox}
        new = []
        for item in items:
            if item.game_id != game_id:
                raise StoreError(f"An outbox item of game {item.game_id} was committed to game "
                                 f"{game_id}.", text=item.outbox_id)
            if item.outbox_id in pending or item.outbox_id in sent:
                continue
            pending.add(item.outbox_id)
            new.append(item)
        return new

    @staticmethod
    def queue(hot: HotFile, items: Sequence[OutboxItem], bundle: str) -> None:
        """List mails whose bytes are in ``bundle`` as queued, in a hot file about to be
        saved."""
        hot.outbox.insert_multiple(
            {"outbox_id": i.outbox_id, "to": i.to, "message_id": i.message_id,
             "created_at": stored_time(i.created_at), "attempts": i.attempts,
             "retry_at": i.retry_at, "last_error": i.last_error, "bundle": bundle}
            for i in items)

    def _pending(self, game_id: str) -> list[Document]:
        """Give the queued mails of a game not marked sent, as the hot file lists them."""
        sent = self.sent(game_id)
        return [doc for doc in self._games.hot(game_id).outbox if doc["outbox_id"] not in sent]

    def _queueing(self) -> Iterator[str]:
        """Give each game with a bundle on disk and a hot file, in the order of their ids
        (cost: the games with mail queued)."""
        for game_id in sorted(self._bundles()):
            if self._games.has_hot(game_id):
                yield game_id

    def unsent(self) -> int:
        """Give how many mails wait to be sent (cost: the games with mail queued; a game
        whose files are damaged counts none)."""
        none: list[Document] = []
        return sum(len(self._readable(game_id, self._pending, none))
                   for game_id in self._queueing())

    def outbox(self) -> list[OutboxItem]:
        """Give the committed mails not yet sent, oldest first, across games. A game whose
        files are damaged (its hot file, a bundle) gives none: the others' mail still goes,
        and the damage is logged once (``pbem doctor`` names the file)."""
        found: list[tuple[str, str, int, OutboxItem]] = []
        for game_id in self._queueing():
            found += self._readable(game_id, self._queued_mail, [])
        return [entry[3] for entry in sorted(found, key=lambda e: e[:3])]

    def _queued_mail(self, game_id: str) -> list[tuple[str, str, int, OutboxItem]]:
        """Give a game's queued mails not yet sent, each with what orders them."""
        found = []
        bundles: dict[str, dict[str, bytes]] = {}
        for doc in self._pending(game_id):
            outbox_id, name = doc["outbox_id"], doc["bundle"]
            try:
                if name not in bundles:
                    bundles[name] = self._readable(game_id, self._bundle_of, {}, name)
                raw = bundles[name][outbox_id]
            except KeyError:  # its bundle is damaged (logged) or went
                if outbox_id in self.sent(game_id):
                    continue  # sent by the writing process meanwhile
                bundles[name] = self._readable(game_id, self._bundle_of, {}, name)
                if outbox_id not in bundles[name]:
                    continue  # the mails of a missing or damaged bundle wait
                raw = bundles[name][outbox_id]
            item = OutboxItem(outbox_id, game_id, doc["to"], doc["message_id"], raw,
                              doc["created_at"], doc["attempts"], doc["retry_at"],
                              doc["last_error"], name)
            found.append((item.created_at, game_id, doc.doc_id, item))
        return found

    def _bundle_of(self, game_id: str, name: str) -> dict[str, bytes]:
        """``_bundle``, a missing bundle named as the game's damage."""
        try:
            return self._bundle(name)
        except FileNotFoundError:
            sent = self.sent(game_id)
            if all(doc["outbox_id"] in sent for doc in self._games.hot(game_id).outbox
                   if doc["bundle"] == name):
                return {}  # all sent meanwhile, by the writing process
            raise StoreError(f"The queued mails file {self.root / 'outbox' / name} of game "
                             f"{game_id} is missing.",
                             suggestion="Restore it from a backup, or drop the game's queued "
                             "mails that are in it (`pbem outbox drop`).") from None

    def _readable(self, game_id: str, read: Callable[..., _T], otherwise: _T,
                  *args: Any) -> _T:
        """Give what ``read`` gives for the game (and ``args``), or ``otherwise`` if a file
        it reads is damaged (logged once)."""
        try:
            return read(game_id, *args)
        except Exception as error:
            if disk_trouble(error):
                raise
            if str(error) not in self._damage_told:
                self._damage_told.add(str(error))
                log.error("the mail game %s queued cannot be read, the other games' goes on: "
                          "%s (see `pbem doctor`)", game_id, error)
            return otherwise

    def _queued_doc(self, outbox_id: str) -> tuple[str, Document] | None:
        """Give the game and record of a committed mail the hot file still lists (sent or
        not)."""
        def listed(game_id: str) -> Document | None:
            found = self._games.hot(game_id).outbox.get(where("outbox_id") == outbox_id)
            return found if isinstance(found, Document) else None

        for game_id in self._queueing():
            doc = self._readable(game_id, listed, None)
            if doc is not None:
                return game_id, doc
        return None

    def sent_at(self, outbox_id: str) -> str | None:
        """Give when a mail was marked sent, or None if it was not (cost: every game)."""
        for game_id in self._games.games():
            if (value := self.sent(game_id).get(outbox_id)) is not None:
                return value
        return None

    def sent_times(self, since: datetime) -> list[datetime]:
        """Give when each mail marked sent after ``since`` was, oldest first (cost: every
        game's sent journal; the daemon asks once, at start, to keep a daily cap)."""
        found = []
        for game_id in self._games.games():
            for value in self.sent(game_id).values():
                moment = datetime.fromisoformat(value)
                moment = moment if moment.tzinfo else moment.replace(tzinfo=since.tzinfo)
                if moment > since:
                    found.append(moment)
        return sorted(found)

    def mark_sent(self, mail: OutboxItem | str, *, sent_at: str | datetime) -> None:
        """Record that the SMTP server accepted a queued mail, given as ``outbox()`` gave it
        (or by its id); doing it twice is harmless.

        Takes only the outbox's own lock, so sending never waits for a step being
        processed: it only adds a line to the game's sent journal (and removes the bundle
        once it holds no mail left to send).
        """
        outbox_id = mail if isinstance(mail, str) else mail.outbox_id
        if isinstance(mail, OutboxItem) and mail.bundle:
            game_id, bundle, record = mail.game_id, mail.bundle, {
                "outbox_id": outbox_id, "to": mail.to, "message_id": mail.message_id,
                "created_at": stored_time(mail.created_at)}
        else:
            queued = self._queued_doc(outbox_id)
            if queued is None:
                if self.sent_at(outbox_id) is not None:
                    return
                raise StoreError("No queued mail has this id.", text=outbox_id)
            game_id, doc = queued
            bundle = doc["bundle"]
            record = {key: doc[key] for key in ("outbox_id", "to", "message_id", "created_at")}
        journal = self._sent_journal(game_id)
        with self._locks.small("outbox.lock"):
            if outbox_id in journal.values():
                journal.sync()  # its writer may have died before flushing it
                return
            bundle_path = self.root / "outbox" / bundle
            if not bundle_path.exists():
                raise StoreError("No queued mail has this id.", text=outbox_id)
            whole = journal.append([record | {"sent_at": stored_time(sent_at)}], flush=False)
            sent = journal.values_read() if whole else journal.values()
            # Tidying, redone by the next commit or recover() if lost. The marks go to disk
            # before their mails' bytes go.
            with contextlib.suppress(FileNotFoundError):
                if all(i in sent for i in self._bundle_ids(bundle)):
                    journal.sync()
                    bundle_path.unlink()

    def mark_failed(self, outbox_id: str, *, error: str, retry_at: str | datetime,
                    attempts: int) -> None:
        """Record a failed send attempt and when to retry."""
        self._locks.require("mark a mail failed")
        self._update_queued(outbox_id, {"last_error": error, "retry_at": stored_time(retry_at),
                                        "attempts": attempts})

    def requeue(self, outbox_id: str) -> None:
        """Make a queued mail due now as if never tried (the game master retrying a mail the
        daemon gave up on)."""
        self._locks.require("queue a mail again")
        self._update_queued(outbox_id, {"last_error": None, "retry_at": None, "attempts": 0},
                            suggestion="`pbem outbox list` shows the ids")

    def queued_game(self, outbox_id: str) -> str:
        """Give the game (or record) a mail still queued belongs to; StoreError if sent or
        unknown. (``commit(drop=...)`` forgets it, in the write that logs why.)"""
        return self._queued(outbox_id, "`pbem outbox list` shows the ids")[0]

    def forget(self, hot: HotFile, outbox_ids: set[str]) -> set[str]:
        """Drop these queued mails from a hot file about to be saved; give the bundles no
        mail left in it is in (to remove once it is saved)."""
        gone = [doc for doc in hot.outbox if doc["outbox_id"] in outbox_ids]
        hot.outbox.remove(doc_ids=[doc.doc_id for doc in gone])
        return {doc["bundle"] for doc in gone} - {doc["bundle"] for doc in hot.outbox}

    def _update_queued(self, outbox_id: str, changes: dict[str, Any],
                       suggestion: str = "") -> None:
        """Change the record of a mail still queued; StoreError if sent or unknown."""
        game_id, doc = self._queued(outbox_id, suggestion)
        hot = self._games.hot(game_id, writing=True)
        hot.outbox.update(changes, doc_ids=[doc.doc_id])
        self._games.save(game_id, hot)

    def _queued(self, outbox_id: str, suggestion: str = "") -> tuple[str, Document]:
        """Give the game and record of a mail still queued; StoreError if sent or unknown."""
        queued = self._queued_doc(outbox_id)
        if queued is None:
            if self.sent_at(outbox_id) is not None:
                raise StoreError("This mail was already sent.", text=outbox_id)
            raise StoreError("No queued mail has this id.", text=outbox_id,
                             suggestion=suggestion or None)
        if outbox_id in self.sent(queued[0]):
            raise StoreError("This mail was already sent.", text=outbox_id)
        return queued

    def drop_sent(self, game_id: str, hot: HotFile) -> set[str]:
        """Drop the mails already sent from a hot file about to be saved; give the bundles
        no mail left in it is in (to remove once it is saved)."""
        sent = self.sent(game_id)
        done = {doc["outbox_id"] for doc in hot.outbox if doc["outbox_id"] in sent}
        if done:
            self._sent_journal(game_id).sync()  # before the hot file forgets them
        return self.forget(hot, done)

    def remove_bundles(self, names: set[str]) -> None:
        """Remove bundles that hold no mail left to send (``mark_sent`` may have already)."""
        for name in names:
            with contextlib.suppress(FileNotFoundError):
                (self.root / "outbox" / name).unlink()

    def recover(self) -> None:
        """Remove the bundles with no mail left to send: all sent, or written by a step that
        never committed (or for a game whose creation never finished)."""
        for game_id, names in self._bundles().items():
            if not self._games.has_hot(game_id):
                if game_id not in self._games.games():  # its creation never finished
                    self.remove_bundles(set(names))
                continue  # else its record is missing: restored, it sends them
            pending: list[Document] | None = self._readable(game_id, self._pending, None)
            if pending is not None:  # a damaged game's bundles are left as they are
                self.remove_bundles(set(names) - {doc["bundle"] for doc in pending})
