"""The store's inbox: mail received, kept durably, and taken off once done."""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from pbem.atomicfile import dump_json, fsync_dir, make_dir, read_json, write_many_atomic
from pbem.errors import StoreError
from pbem.store.items import InboxItem, check_mail_id, mail_id_for, stored_time
from pbem.store.lock import Locked


class Inbox(Locked):
    """Receiving mail, and the inbox of mails not yet done."""

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
            "mail_id": mail_id, "message_id": message_id, "received_at": stored_time(received_at),
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
        check_mail_id(mail_id)
        try:
            return self._mail_path(mail_id, ".eml").read_bytes()
        except FileNotFoundError:
            raise StoreError("No received mail has this id.", text=mail_id) from None

    def inbox_done(self, *mail_ids: str) -> None:
        """Take mails off the inbox for good (they stay seen); doing it twice is harmless."""
        self._require_lock("mark a mail done")
        moved = False
        for mail_id in mail_ids:
            check_mail_id(mail_id)
            pending, done = self._pending_path(mail_id), self._mail_path(mail_id, ".json")
            if pending.exists():
                os.replace(pending, done)
                moved = True
            elif not done.exists():
                raise StoreError("No received mail has this id.", text=mail_id)
        if moved:  # the renames made durable: each folder fsynced once, for all of them
            for folder in {self._mail_path(m, "").parent for m in mail_ids}:
                fsync_dir(folder)
            fsync_dir(self.root / "inbox")
