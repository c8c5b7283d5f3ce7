"""The store's inbox: mail received, kept durably, and taken off once done."""

from __future__ import annotations

import json
import logging
import os
import secrets
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from pbem.atomicfile import dump_json, make_dir, write_many_atomic
from pbem.errors import StoreError
from pbem.store.items import InboxItem, check_mail_id, file_key, mail_id_for, stored_time
from pbem.store.journal import Journal, Journals
from pbem.store.lock import Locks
from pbem.store.seen import SeenIndex

_GROUP = ".mails"  # a JSON header line (each mail's record), then the mails' bytes
_LEGACY = ".mail"  # layout 2: a file per mail, its record on the first line, then its bytes
# The bytes of mail done are kept this long, and at most this much of them (the oldest go
# first); then only their records stay (the header line: ids, Message-IDs, senders, when),
# which the seen index and the log's references need. Looked at once an hour at most.
MAIL_KEPT_SECONDS = 30 * 86400
MAIL_KEPT_BYTES = 64 * 1024 * 1024
_AGE_EVERY = 3600.0

_RECEIPT = ("mail_id", "message_id", "sender", "received_at")  # what moves with a game
Record = dict[str, Any]  # as written, plus "at": where the mail's bytes start in its file

log = logging.getLogger(__name__)


class InboxFiles:
    """Receiving mail, and the inbox of mails not yet done.

    Creating a file is what costs the disk most, so the mails received together are one
    group file (``inbox/<seq>.<token>.mails``), and taking a mail off creates none: a line
    in ``done.log``, then, once every mail of its group is done, a row per mail in the seen
    index (``seen.sqlite``, see ``pbem.store.seen``) naming the group, and the group file
    moved to ``mail/``. A mail is seen if the index names it or a group file in ``inbox/``
    holds it (in a store of layout 2, also its own mail file).
    """

    def __init__(self, root: Path, locks: Locks, journals: Journals, *, legacy: bool) -> None:
        self.root = root
        self._locks = locks
        self._journals = journals
        self._legacy = legacy  # a store of layout 2: its mail files are looked for too
        # The records of the files in inbox/ by name, and by mail id with their file's; the
        # index of the mails whose file left inbox/
        self._groups: dict[str, list[dict[str, Any]]] = {}
        self._waiting: dict[str, tuple[str, dict[str, Any]]] = {}
        self._seen_index = SeenIndex(root / "seen.sqlite")
        self._damage_told: set[str] = set()  # damaged files in inbox/, logged once each
        self._aged_at = 0.0  # monotonic time mail/ was last looked at (age_out)

    # ---- reading ---------------------------------------------------------------------

    def _refresh(self) -> dict[str, list[Record]]:
        """Give the records of the mails in ``inbox/`` (done or not) by file name, listing
        the folder again; a file's header is read once (it never changes, its name is never
        used again). Whoever looks up the seen index does it after this: a group that left
        ``inbox/`` since had its rows committed first."""
        known, self._groups = self._groups, {}
        folder = f"{self.root}/inbox"
        for name in os.listdir(folder):
            if name in known:
                self._groups[name] = known[name]
                continue
            if not name.endswith(_GROUP) and not (self._legacy and name.endswith(_LEGACY)):
                continue
            try:
                self._groups[name] = _read_header(f"{folder}/{name}")
            except FileNotFoundError:  # done meanwhile by the writing process
                continue
            except (ValueError, KeyError, TypeError, IndexError) as error:
                # Damaged: its mails cannot be told apart; the rest of the inbox goes on.
                self._tell_once(name, StoreError(
                    f"The received mails file {folder}/{name} is damaged ({error}): its mails "
                    "wait until it is restored from a backup."))
                continue
        if self._groups.keys() != known.keys():
            self._waiting = {r["mail_id"]: (name, r)
                             for name, records in self._groups.items() for r in records}
        return self._groups

    def _done_group(self, mail_id: str) -> str | None:
        """Give the group file a mail left ``inbox/`` in, by the seen index, or None (also
        while the index cannot be read: a mail sent again is then taken for a new one, whose
        orders the game's log finds applied, rather than all mail refused)."""
        try:
            return self._seen_index.group(mail_id)
        except StoreError as error:
            self._tell_once("seen.sqlite", error)
            return None

    def _tell_once(self, name: str, error: Exception) -> None:
        """Log a damaged file once (``pbem doctor`` names it too)."""
        if name not in self._damage_told:
            self._damage_told.add(name)
            log.error("%s (see `pbem doctor`)", error)

    def _record(self, mail_id: str) -> tuple[str, Record] | None:
        """Give the file of a received mail (waiting or done) and its record, or None."""
        if (waiting := self._waiting.get(mail_id)) is not None:
            return f"{self.root}/inbox/{waiting[0]}", waiting[1]
        if (name := self._done_group(mail_id)) is not None:
            # A group only ever moves from inbox/ to mail/ (its index rows written first):
            # looked for in this order, it is found even if it moves meanwhile.
            for path in (f"{self.root}/inbox/{name}", f"{self.root}/mail/{name}"):
                try:
                    return path, next(r for r in _read_header(path) if r["mail_id"] == mail_id)
                except FileNotFoundError:
                    continue
            raise StoreError(f"The received mails of {name} are missing.",
                             suggestion="Restore the store's mail/ folder from a backup.")
        if self._legacy:
            path = self._legacy_done_path(mail_id)
            try:
                return path, _read_header(path)[0]
            except FileNotFoundError:
                pass
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
        if first is None or first[1].get("sender", sender).lower() == sender.lower():
            return mail_id, first is not None
        mail_id = file_key(f"{mail_id} {sender.lower()}")
        return mail_id, self._record(mail_id) is not None

    def seen(self, message_id: str, sender: str = "") -> bool:
        """Tell whether this sender's mail with this Message-ID was received (waiting or
        done)."""
        self._refresh()
        return self._received_as(message_id, sender)[1]

    def _done_marks(self) -> Journal:
        return self._journals.get(self.root / "done.log", "mail_id", "group")

    def inbox(self) -> list[InboxItem]:
        """Give the received mails not yet done, oldest first."""
        done = self._done_marks().values()  # before the listing: see inbox_done's end
        records = sorted((r for records in self._refresh().values() for r in records
                          if r["mail_id"] not in done), key=lambda r: r["seq"])
        return [InboxItem(r["mail_id"], r["message_id"], r["received_at"],
                          r.get("sender", "")) for r in records]

    def receipts(self, mail_ids: Iterable[str]) -> list[dict[str, str]]:
        """Give the records of those of ``mail_ids`` this store received (mail id,
        Message-ID, sender, when received), in order."""
        self._refresh()
        found = []
        for mail_id in mail_ids:
            check_mail_id(mail_id)
            if (known := self._record(mail_id)) is not None:
                found.append({key: known[1][key] for key in _RECEIPT if key in known[1]})
        return found

    def take_receipts(self, receipts: Sequence[dict[str, str]], *,
                      at: str | datetime) -> int:
        """Keep mails another store received (their records: ``receipts``) as seen and done
        here: a group file of their records alone in ``mail/`` (their bytes stayed in the
        other store), named by the seen index; give how many were new here."""
        self._locks.require("take the records of mails received elsewhere")
        self._refresh()
        new: dict[str, Record] = {}
        for receipt in receipts:
            mail_id = receipt["mail_id"]
            check_mail_id(mail_id)
            if mail_id not in new and self._record(mail_id) is None:
                new[mail_id] = ({key: receipt[key] for key in _RECEIPT if key in receipt}
                                | {"seq": 0, "size": 0})
        if not new:
            return 0
        name = f"moved.{secrets.token_hex(8)}{_GROUP}"
        header = {"mails": list(new.values()), "moved_in": stored_time(at)}
        write_many_atomic([(Path(f"{self.root}/mail/{name}"), dump_json(header) + b"\n")])
        self._seen_index.add([(mail_id, name) for mail_id in new])
        return len(new)

    def raw_mail(self, mail_id: str) -> bytes:
        """Give the raw bytes of a received mail."""
        check_mail_id(mail_id)
        for fresh in (False, True):
            found = self._record(mail_id)
            if found is not None:
                path, record = found
                try:
                    return _read_bytes(path, record)
                except FileNotFoundError:  # done meanwhile: its group moved
                    pass
            if not fresh:
                self._refresh()
        raise StoreError("No received mail has this id.", text=mail_id)

    # ---- writing ---------------------------------------------------------------------

    def receive(self, raw: bytes, *, message_id: str, received_at: str | datetime,
                sender: str = "") -> str | None:
        """Give the new mail's id after keeping it durably, or None if already received."""
        return self.receive_many([(raw, message_id, sender)], received_at=received_at)[0]

    def receive_many(self, mails: Sequence[tuple[bytes, str, str]], *,
                     received_at: str | datetime) -> list[str | None]:
        """``receive`` for several mails (bytes, Message-ID, sender), kept durably together
        in one file.

        Receiving takes the inbox's own lock, not the store's: mail comes in while a step is
        processed (it only adds files; processing reads the inbox once a round).
        """
        with self._locks.small("inbox.lock"):
            return self._receive_many(mails, received_at)

    def _receive_many(self, mails: Sequence[tuple[bytes, str, str]],
                      received_at: str | datetime) -> list[str | None]:
        groups = self._refresh()
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
        seq = 1 + max((r["seq"] for records in groups.values() for r in records), default=-1)
        when = stored_time(received_at)
        records: list[Record] = [
            {"mail_id": mail_id, "message_id": message_id, "sender": sender,
             "received_at": when, "seq": seq + n, "size": len(raw)}
            for n, (mail_id, (raw, message_id, sender)) in enumerate(new.items())]
        header = dump_json({"mails": records})
        name = f"{seq:010d}.{secrets.token_hex(8)}{_GROUP}"
        write_many_atomic([(Path(f"{self.root}/inbox/{name}"),
                            b"".join([header, b"\n", *(raw for raw, _, _ in new.values())]))])
        # Known now: the next group's numbering need not read it back.
        _place(records, len(header) + 1)
        self._groups[name] = records
        self._waiting.update((r["mail_id"], (name, r)) for r in records)
        return ids  # from here on they are "seen"

    def inbox_done(self, *mail_ids: str) -> None:
        """Take mails off the inbox for good (they stay seen); doing it twice is harmless.

        Nothing is flushed to disk here but the seen rows of a group leaving ``inbox/`` (a
        flush per mail cost more than the rest of taking it off): a mark or a move a power
        cut undoes leaves the mail waiting, and ``recover`` finds its step committed and
        takes it off again."""
        self._locks.require("mark a mail done")
        for mail_id in mail_ids:
            check_mail_id(mail_id)
        marks = self._done_marks()
        done = marks.values()
        self._refresh()
        new: dict[str, str] = {}
        for mail_id in mail_ids:
            waiting = self._waiting.get(mail_id)
            if waiting is None:
                if self._record(mail_id) is None:
                    raise StoreError("No received mail has this id.", text=mail_id)
            elif waiting[0].endswith(_LEGACY):
                self._legacy_done(mail_id)
            elif mail_id not in done:
                new[mail_id] = waiting[0]
        if marks.append([{"mail_id": m, "group": name} for m, name in new.items()],
                        flush=False):
            done = marks.values_read()
        elif new:
            done = marks.values()
        leaving: list[str] = []
        marked = False  # a mail marked done in a group that stays in inbox/
        for name, records in self._groups.items():
            done_here = [r["mail_id"] in done for r in records]
            if name.endswith(_GROUP) and all(done_here):
                leaving.append(name)
            else:
                marked = marked or any(done_here)
        if leaving and not self._leave(leaving):
            marked = True  # they stay in inbox/: their marks are still needed
        # No group in inbox/ has a mail marked done any more: the marks are of no use.
        # (Readers read the marks before listing inbox/, so none takes a group left in it
        # for one whose marks are gone.) Not flushed: marks a power cut brings back name
        # mails no group in inbox/ holds.
        if done and not marked:
            marks.clear()
        if time.monotonic() >= self._aged_at + _AGE_EVERY:
            self._aged_at = time.monotonic()
            self.age_out()

    def mask_mail(self, mail_id: str, mask: Callable[[bytes], bytes]) -> bool:
        """Keep the bytes of a received mail as ``mask`` gives them, written over the old in
        its file (as many bytes: passwords blanked, so a kept mail does not hold them); give
        whether they changed. Its file may move from ``inbox/`` to ``mail/`` meanwhile: the
        open file is the moved one."""
        for fresh in (False, True):
            found = self._record(mail_id)
            if found is None or found[1]["size"] is None:  # (a layout 2 file: left as is)
                return False
            path, record = found
            try:
                fd = os.open(path, os.O_RDWR)
            except FileNotFoundError:  # done meanwhile: its group moved
                if not fresh:
                    self._refresh()
                continue
            try:
                raw = os.pread(fd, record["size"], record["at"])
                masked = mask(raw)
                if masked == raw:
                    return False
                if len(masked) != len(raw):
                    raise ValueError("a mail's bytes are masked in place: as many as before")
                os.pwrite(fd, masked, record["at"])
                return True
            finally:
                os.close(fd)
        raise StoreError("No received mail has this id.", text=mail_id)

    def age_out(self, now: float | None = None) -> int:
        """Drop the bytes of done mail older than ``MAIL_KEPT_SECONDS``, and of the oldest
        beyond ``MAIL_KEPT_BYTES`` in all, keeping each group file's header line (the mails'
        records); give how many files were cut. Holding the store's lock."""
        self._locks.require("age out mail")
        now = time.time() if now is None else now
        found = []
        for entry in os.scandir(f"{self.root}/mail"):
            if entry.name.endswith(_GROUP) and not entry.name.startswith("."):
                info = entry.stat()
                found.append((info.st_mtime, info.st_size, entry.path))
        found.sort(reverse=True)  # newest first
        kept = cut = 0
        for mtime, size, path in found:
            kept += size
            if now - mtime < MAIL_KEPT_SECONDS and kept <= MAIL_KEPT_BYTES:
                continue
            with open(path, "rb") as handle:
                header = json.loads(handle.readline())
            if header.get("aged_out"):
                continue
            for record in header["mails"]:
                record.pop("at", None)
                record["size"] = 0
            header["aged_out"] = stored_time(datetime.fromtimestamp(now).astimezone())
            write_many_atomic([(Path(path), dump_json(header) + b"\n")])
            os.utime(path, (mtime, mtime))  # its age stays the mail's
            cut += 1
        if cut:
            log.info("dropped the bytes of the mails in %d file(s) of mail/ (older than %d "
                     "days, or beyond %d MB); their records stay", cut,
                     MAIL_KEPT_SECONDS // 86400, MAIL_KEPT_BYTES // 2**20)
        return cut

    def _leave(self, names: Sequence[str]) -> bool:
        """Move group files all of whose mails are done out of ``inbox/``, their seen rows
        on disk first (one transaction); give False if the seen index cannot take them (they
        stay)."""
        try:
            self._seen_index.add([(record["mail_id"], name)
                                  for name in names for record in self._groups[name]])
        except StoreError as error:  # the groups stay in inbox/, their mails marked done
            self._tell_once("seen.sqlite", error)
            return False
        for name in names:
            os.replace(f"{self.root}/inbox/{name}", f"{self.root}/mail/{name}")
            self._forget_file(name)
        return True

    def _legacy_done(self, mail_id: str) -> None:
        """Take off a mail a pbem of layout 2 received: its file moves to ``mail/<aa>/``."""
        done = Path(self._legacy_done_path(mail_id))
        make_dir(done.parent)
        name = f"{mail_id}{_LEGACY}"
        os.replace(f"{self.root}/inbox/{name}", done)
        self._forget_file(name)

    def _legacy_done_path(self, mail_id: str) -> str:
        """Give where a mail a pbem of layout 2 received is once done."""
        return f"{self.root}/mail/{mail_id[:2]}/{mail_id}{_LEGACY}"

    def _forget_file(self, name: str) -> None:
        """Forget a file that left ``inbox/``, and the mails it holds as waiting."""
        for record in self._groups.pop(name, []):
            self._waiting.pop(record["mail_id"], None)


def _read_header(path: str) -> list[Record]:
    """Give the records of the mails in a group file (or a layout 2 mail file)."""
    with open(path, "rb") as handle:
        line = handle.readline()
    header = json.loads(line)
    if path.endswith(_LEGACY):
        return [header | {"at": len(line), "size": None}]
    records: list[Record] = header["mails"]
    _place(records, len(line))
    for mark in ("aged_out", "moved_in"):
        if header.get(mark):
            for record in records:
                record[mark] = header[mark]
    return records


def _place(records: list[Record], at: int) -> None:
    """Note where each mail's bytes start, the header taking ``at`` bytes."""
    for record in records:
        record["at"] = at
        at += record["size"]


def _read_bytes(path: str, record: Record) -> bytes:
    if record.get("aged_out"):
        raise StoreError(f"The bytes of mail {record['mail_id']} were dropped on "
                         f"{record['aged_out']}, as mail done is after "
                         f"{MAIL_KEPT_SECONDS // 86400} days (its record stays).")
    if record.get("moved_in"):
        raise StoreError(f"Mail {record['mail_id']} was received by another store, whose "
                         f"game moved here on {record['moved_in']}: its bytes stayed there.")
    with open(path, "rb") as handle:
        if record["size"] is None:
            handle.seek(record["at"])
            return handle.read()
        data = os.pread(handle.fileno(), record["size"], record["at"])
    if len(data) < record["size"]:
        raise StoreError(f"The received mails file {path} is cut short: mail "
                         f"{record['mail_id']} has {len(data)} of its {record['size']} bytes.",
                         suggestion="Restore the file from a backup; the mail waits meanwhile.")
    return data
