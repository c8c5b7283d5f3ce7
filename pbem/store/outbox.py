"""The store's outbox: committed mail waiting to be sent, marked sent or failed."""

from __future__ import annotations

import contextlib
import os
from datetime import datetime
from pathlib import Path
from typing import Any

from tinydb import where
from tinydb.table import Document

from pbem.atomicfile import make_dir, read_json, write_json_atomic
from pbem.errors import StoreError
from pbem.store.games import Games
from pbem.store.items import OutboxItem, file_key, stored_time
from pbem.store.tinyfile import HotFile


class Outbox(Games):
    """The mail games queued: sending, failing and retrying it."""

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

    def unsent(self) -> int:
        """Give how many mails wait to be sent, as cheaply as listing one folder (a mail
        marked sent a moment ago may still count)."""
        return sum(len(keys) for keys in self._queued().values())

    def outbox(self) -> list[OutboxItem]:
        """Give the committed mails not yet sent, oldest first, across games."""
        found: list[tuple[str, str, int, OutboxItem]] = []
        for game_id, keys in sorted(self._queued().items()):
            if not (self._game_dir(game_id) / "hot.json").exists():
                continue  # bytes of a game whose creation never finished
            for doc in self._hot(game_id).outbox:
                key = file_key(doc["outbox_id"])
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

    def _queued_doc(self, outbox_id: str) -> tuple[str, HotFile, Document] | None:
        """Give the game, hot file and record of a committed, queued mail."""
        key = file_key(outbox_id)
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
            value: str = read_json(self._sent_path(file_key(outbox_id), ".json"))["sent_at"]
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
        key = file_key(outbox_id)
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
                "created_at": stored_time(mail.created_at), "attempts": mail.attempts,
                "retry_at": mail.retry_at, "last_error": mail.last_error}
            if not self._queued_path(game_id, key).exists():
                raise StoreError("No queued mail has this id.", text=outbox_id)
        make_dir(record.parent)
        with self._small_lock("outbox.lock"):  # a backup sees both files or neither moved
            # The record alone makes the mail sent: one small write, whatever the game's size.
            write_json_atomic(record, fields | {"game_id": game_id,
                                                "sent_at": stored_time(sent_at)})
            # Tidying, redone by recover() if lost: so no fsync.
            with contextlib.suppress(FileNotFoundError):  # recover() did it meanwhile
                os.replace(self._queued_path(game_id, key), self._sent_path(key, ".eml"))

    def mark_failed(self, outbox_id: str, *, error: str, retry_at: str | datetime,
                    attempts: int) -> None:
        """Record a failed send attempt and when to retry."""
        self._require_lock("mark a mail failed")
        self._update_queued(outbox_id, {"last_error": error, "retry_at": stored_time(retry_at),
                                        "attempts": attempts})

    def requeue(self, outbox_id: str) -> None:
        """Make a queued mail due now as if never tried (the game master retrying a mail the
        daemon gave up on)."""
        self._require_lock("queue a mail again")
        self._update_queued(outbox_id, {"last_error": None, "retry_at": None, "attempts": 0},
                            suggestion="`pbem outbox list` shows the ids")

    def _update_queued(self, outbox_id: str, changes: dict[str, Any],
                       suggestion: str = "") -> None:
        """Change the record of a mail still queued; StoreError if sent or unknown."""
        if self.sent_at(outbox_id) is not None:
            raise StoreError("This mail was already sent.", text=outbox_id)
        queued = self._queued_doc(outbox_id)
        if queued is None:
            raise StoreError("No queued mail has this id.", text=outbox_id,
                             suggestion=suggestion or None)
        game_id, _, doc = queued
        hot = self._hot(game_id, writing=True)
        hot.outbox.update(changes, doc_ids=[doc.doc_id])
        self._save(game_id, hot)

    def _drop_sent(self, hot: HotFile) -> None:
        """Drop the mails already sent from a hot file about to be saved."""
        sent_dir = f"{self.root}/sent/"
        sent = [doc.doc_id for doc in hot.outbox  # os.path: this runs for every queued mail
                if os.path.exists(
                    f"{sent_dir}{(key := file_key(doc['outbox_id']))[:2]}/{key}.json")]
        if sent:
            hot.outbox.remove(doc_ids=sent)

