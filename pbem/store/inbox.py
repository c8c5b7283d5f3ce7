"""The store's inbox: mail received, kept durably, and taken off once done."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from pbem.atomicfile import dump_json, make_dir, write_many_atomic
from pbem.errors import StoreError
from pbem.store.items import InboxItem, check_mail_id, mail_id_for, stored_time
from pbem.store.lock import Locked

_MAIL = ".mail"  # a JSON line (the inbox record), then the mail's bytes as received


class Inbox(Locked):
    """Receiving mail, and the inbox of mails not yet done.

    A received mail is one file, its record on the first line and its bytes after: in
    ``inbox/`` while it waits, moved to ``mail/<aa>/`` once done (a rename: creating a file
    is what costs the disk most, so each mail makes just one)."""

    def _pending_path(self, mail_id: str) -> Path:
        return self.root / "inbox" / f"{mail_id}{_MAIL}"

    def _done_path(self, mail_id: str) -> Path:
        return self.root / "mail" / mail_id[:2] / f"{mail_id}{_MAIL}"

    def seen(self, message_id: str) -> bool:
        """Tell whether a mail with this Message-ID was received (waiting or done)."""
        mail_id = mail_id_for(message_id)
        return self._pending_path(mail_id).exists() or self._done_path(mail_id).exists()

    def receive(self, raw: bytes, *, message_id: str, received_at: str | datetime) -> str | None:
        """Give the new mail's id after keeping it durably, or None if already received."""
        return self.receive_many([(raw, message_id)], received_at=received_at)[0]

    def receive_many(self, mails: Sequence[tuple[bytes, str]], *,
                     received_at: str | datetime) -> list[str | None]:
        """``receive`` for several mails (bytes, Message-ID), made durable together.

        Receiving takes the inbox's own lock, not the store's: mail comes in while a step is
        processed (it only adds files; processing reads the inbox once a round).
        """
        with self._small_lock("inbox.lock"):
            return self._receive_many(mails, received_at)

    def _receive_many(self, mails: Sequence[tuple[bytes, str]],
                      received_at: str | datetime) -> list[str | None]:
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
        seq = 1 + max((i["seq"] for i in self._pending_records()), default=-1)
        write_many_atomic([(self._pending_path(mail_id), b"%s\n%s" % (dump_json({
            "mail_id": mail_id, "message_id": message_id, "received_at": stored_time(received_at),
            "seq": seq + n}), raw)) for n, (mail_id, (raw, message_id)) in enumerate(new.items())])
        return ids  # from here on they are "seen"

    def _pending_records(self) -> list[dict[str, Any]]:
        # A record never changes once written (the file is only moved), so each is read once.
        folder = self.root / "inbox"
        known, self._records = self._records, {}
        for name in os.listdir(folder):
            if not name.endswith(_MAIL):
                continue
            if name in known:
                self._records[name] = known[name]
                continue
            try:
                with open(folder / name, "rb") as handle:
                    self._records[name] = json.loads(handle.readline())
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
        for path in (self._pending_path(mail_id), self._done_path(mail_id)):
            try:
                data = path.read_bytes()
            except FileNotFoundError:  # (done meanwhile, if it was waiting)
                continue
            return data[data.index(b"\n") + 1:]
        raise StoreError("No received mail has this id.", text=mail_id)

    def inbox_done(self, *mail_ids: str) -> None:
        """Take mails off the inbox for good (they stay seen); doing it twice is harmless.

        The moves are not flushed to disk (a folder flush each cost more than the rest of
        taking a mail off): one a power cut undoes leaves the mail waiting, and ``recover``
        finds its step committed and takes it off again."""
        self._require_lock("mark a mail done")
        for mail_id in mail_ids:
            check_mail_id(mail_id)
            pending, done = self._pending_path(mail_id), self._done_path(mail_id)
            if pending.exists():
                make_dir(done.parent)
                os.replace(pending, done)
            elif not done.exists():
                raise StoreError("No received mail has this id.", text=mail_id)
