"""The store's inbox: mail received, kept durably, and taken off once done."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from pbem.atomicfile import dump_json, make_dir, write_many_atomic
from pbem.errors import StoreError
from pbem.store.items import InboxItem, check_mail_id, file_key, mail_id_for, stored_time
from pbem.store.lock import Locked

_MAIL = ".mail"  # a JSON line (the inbox record), then the mail's bytes as received


class Inbox(Locked):
    """Receiving mail, and the inbox of mails not yet done.

    A received mail is one file, its record on the first line and its bytes after: in
    ``inbox/`` while it waits, moved to ``mail/<aa>/`` once done (a rename: creating a file
    is what costs the disk most, so each mail makes just one)."""

    # Plain strings: these are built several times per mail, and pathlib costs more.
    def _pending_path(self, mail_id: str) -> str:
        return f"{self.root}/inbox/{mail_id}{_MAIL}"

    def _done_path(self, mail_id: str) -> str:
        return f"{self.root}/mail/{mail_id[:2]}/{mail_id}{_MAIL}"

    def _paths(self, mail_id: str) -> Iterator[str]:
        """Give where a received mail is: waiting, else done (built only if looked at)."""
        yield self._pending_path(mail_id)
        yield self._done_path(mail_id)

    def _record(self, mail_id: str) -> dict[str, Any] | None:
        """Give the inbox record of a received mail (waiting or done), or None."""
        for path in self._paths(mail_id):
            try:
                with open(path, "rb") as handle:
                    record: dict[str, Any] = json.loads(handle.readline())
                    return record
            except FileNotFoundError:  # (done meanwhile, if it was waiting)
                continue
        return None

    def _received_as(self, message_id: str, sender: str) -> tuple[str, bool]:
        """Give the id a mail gets, and whether a mail with that id was received already.

        It is its Message-ID's, unless a mail from another sender came with that Message-ID
        first (a mail program that gives every mail the same one, say): then one made of the
        Message-ID and the sender, so the second sender's mail is not taken for a copy of
        the first. Records written before senders were kept count as the same sender.
        """
        mail_id = mail_id_for(message_id)
        first = self._record(mail_id)
        if first is None or first.get("sender", sender).lower() == sender.lower():
            return mail_id, first is not None
        mail_id = file_key(f"{mail_id} {sender.lower()}")
        return mail_id, self._record(mail_id) is not None

    def seen(self, message_id: str, sender: str = "") -> bool:
        """Tell whether this sender's mail with this Message-ID was received (waiting or
        done)."""
        return self._received_as(message_id, sender)[1]

    def receive(self, raw: bytes, *, message_id: str, received_at: str | datetime,
                sender: str = "") -> str | None:
        """Give the new mail's id after keeping it durably, or None if already received."""
        return self.receive_many([(raw, message_id, sender)], received_at=received_at)[0]

    def receive_many(self, mails: Sequence[tuple[bytes, str, str]], *,
                     received_at: str | datetime) -> list[str | None]:
        """``receive`` for several mails (bytes, Message-ID, sender), made durable together.

        Receiving takes the inbox's own lock, not the store's: mail comes in while a step is
        processed (it only adds files; processing reads the inbox once a round).
        """
        with self._small_lock("inbox.lock"):
            return self._receive_many(mails, received_at)

    def _receive_many(self, mails: Sequence[tuple[bytes, str, str]],
                      received_at: str | datetime) -> list[str | None]:
        ids: list[str | None] = []
        new: dict[str, tuple[bytes, str, str]] = {}
        for raw, message_id, sender in mails:
            mail_id, seen = self._received_as(message_id, sender)
            fresh = mail_id not in new and not seen
            ids.append(mail_id if fresh else None)
            if fresh:
                new[mail_id] = (raw, message_id, sender)
        if not new:
            return ids
        seq = 1 + max((i["seq"] for i in self._pending_records()), default=-1)
        records = {mail_id: {"mail_id": mail_id, "message_id": message_id, "sender": sender,
                             "received_at": stored_time(received_at), "seq": seq + n}
                   for n, (mail_id, (_, message_id, sender)) in enumerate(new.items())}
        write_many_atomic([(Path(self._pending_path(mail_id)),
                            b"%s\n%s" % (dump_json(records[mail_id]), raw))
                           for mail_id, (raw, _, _) in new.items()])
        # Known now: the next group's numbering need not read them back.
        self._records.update((f"{mail_id}{_MAIL}", record) for mail_id, record in records.items())
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
        for path in self._paths(mail_id):
            try:
                with open(path, "rb") as handle:
                    data = handle.read()
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
            try:
                os.replace(pending, done)
                continue
            except FileNotFoundError:  # done before, or the first mail of its folder
                pass
            if os.path.exists(pending):
                make_dir(Path(done).parent)
                os.replace(pending, done)
            elif not os.path.exists(done):
                raise StoreError("No received mail has this id.", text=mail_id)
