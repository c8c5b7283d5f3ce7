"""Files of JSON lines added to at the end, for what the store writes once per mail.

Creating a file costs the file system far more than adding to one (here 0.3-0.9 ms of kernel
time, against about 0.1 ms to add a line and flush it to disk), so what is written for
every mail (a sent record, where a mail's step sits in the log, a mail taken off the inbox)
is a line in a journal, not a file of its own: one file per game (``sent.log``,
``applied.log``), or one for the whole store (``done.log``). Lines are only ever added,
except that a journal may be emptied whole (``clear``: ``done.log``, once no mail waiting
needs it).

A line counts once it ends in a newline. A writer killed mid-write, or a power cut, may
leave a partial last line: readers skip it, the next writer cuts it off.
"""

from __future__ import annotations

import json
import logging
import os
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from pbem.atomicfile import dump_json, fsync_dir

_TAIL = 65536  # bytes read back to find the last whole line (a line is far shorter)
_HEAD = 64  # bytes of the first line kept to tell the file read so far from a new one

log = logging.getLogger(__name__)


class Journal:
    """One journal file, read incrementally into ``key`` -> ``value`` of each record (a later
    line with the same key wins): only those two fields are kept in memory. Its writers
    must hold a lock that keeps them apart; readers need none."""

    def __init__(self, path: Path, key: str, value: str) -> None:
        self.path = path
        self._key, self._value = key, value
        # The file read so far: (device, inode) and its first bytes (an inode number freed
        # by a removed file may come back), and the bytes read, always up to a line's end.
        self._file: tuple[int, int] | None = None
        self._head = b""
        self._offset = 0
        self._values: dict[str, Any] = {}
        self._synced_dir = False  # this object made sure the file's name is on disk

    def __len__(self) -> int:
        return len(self._values)

    def values(self) -> dict[str, Any]:
        """Give every record's value by key, reading only the lines added since the last
        call (all again if the file was replaced or removed)."""
        try:
            with open(self.path, "rb") as handle:
                info = os.fstat(handle.fileno())
                if info.st_size < self._offset or not self._is_read(handle.fileno(), info):
                    self._file, self._head, self._offset = (info.st_dev, info.st_ino), b"", 0
                    self._values = {}
                if info.st_size == self._offset:
                    return self._values
                handle.seek(self._offset)
                data = handle.read()
        except FileNotFoundError:
            self._file, self._head, self._offset, self._values = None, b"", 0, {}
            return self._values
        whole = data[:data.rfind(b"\n") + 1]
        self._take(self._records(whole), whole)
        return self._values

    def _records(self, whole: bytes) -> Iterator[dict[str, Any]]:
        """Give the records of whole lines; a damaged line is skipped (and logged once per
        read): a journal is a hint or a record whose loss repeats at most a little work
        (a mail sent again under its Message-ID, a mail found applied by the log)."""
        damaged = 0
        for line in whole.splitlines():
            try:
                record = json.loads(line)
                if isinstance(record, dict) and self._key in record and self._value in record:
                    yield record
                    continue
            except ValueError:
                pass
            damaged += 1
        if damaged:
            log.error("the journal %s has %d damaged line(s) after byte %d; they are skipped "
                      "(see `pbem doctor`)", self.path, damaged, self._offset)

    def append(self, records: Sequence[dict[str, Any]], *, flush: bool = True) -> bool:
        """Add records at the end, on disk before this returns (only in the file system's
        memory with ``flush=False``: kept if the process is killed, not if power is cut,
        until ``sync``). Give whether ``values_read`` holds the whole file now (it did up
        to the end before: nothing needs reading back while writers stay kept apart)."""
        if not records:
            return False
        data = b"".join(dump_json(record) + b"\n" for record in records)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            info = os.fstat(fd)
            size = info.st_size
            # The file as read so far, nothing added since (writers are kept apart): what is
            # written here is then known without reading it back.
            known = size == self._offset and self._is_read(fd, info)
            if size and os.pread(fd, 1, size - 1) != b"\n":  # a killed writer's partial line
                tail = os.pread(fd, min(size, _TAIL), max(0, size - _TAIL))
                os.ftruncate(fd, size - len(tail) + tail.rfind(b"\n") + 1)
            written = data
            while data:
                data = data[os.write(fd, data):]
            if flush:
                os.fdatasync(fd)
        finally:
            os.close(fd)
        if known:
            self._take(records, written)
        if flush:
            self._sync_dir()
        return known

    def _is_read(self, fd: int, info: os.stat_result) -> bool:
        """Tell whether the open file ``fd`` (``info`` its stat) is the one read so far: the
        same (device, inode) and first bytes."""
        return ((info.st_dev, info.st_ino) == self._file
                and os.pread(fd, len(self._head), 0) == self._head)

    def _take(self, records: Iterable[dict[str, Any]], data: bytes) -> None:
        """Keep the records of ``data``, the whole lines that follow those read so far."""
        for record in records:
            self._values[record[self._key]] = record[self._value]
        if not self._offset:
            self._head = data[:_HEAD]
        self._offset += len(data)

    def clear(self) -> None:
        """Empty the file in place (creating none), its records forgotten; readers read it
        again from the start. Not flushed: a power cut may bring the records back."""
        try:
            fd = os.open(self.path, os.O_WRONLY)
        except FileNotFoundError:
            return
        try:
            os.ftruncate(fd, 0)
            info = os.fstat(fd)
        finally:
            os.close(fd)
        self._file, self._head, self._offset = (info.st_dev, info.st_ino), b"", 0
        self._values = {}

    def values_read(self) -> dict[str, Any]:
        """Give the records' values as last read or written, without looking at the file."""
        return self._values

    def sync(self) -> None:
        """Make sure what is in the file is on disk (a writer killed before its flush may
        have left a line only in memory)."""
        fd = os.open(self.path, os.O_RDONLY)
        try:
            os.fdatasync(fd)
        finally:
            os.close(fd)
        self._sync_dir()

    def _sync_dir(self) -> None:
        # Whoever created the file may have died before making its name durable.
        if not self._synced_dir:
            fsync_dir(self.path.parent)
            self._synced_dir = True


class Journals:
    """The journals one store object reads, the most recently used kept in memory as long
    as they hold no more than ``kept`` records in all (a daemon serves many games; a game's
    journals grow with its length). A journal's records are counted when it is taken."""

    def __init__(self, kept: int = 200_000) -> None:
        self._kept = kept
        self._open: OrderedDict[Path, tuple[Journal, int]] = OrderedDict()  # with its count
        self._total = 0

    def get(self, path: Path, key: str, value: str) -> Journal:
        entry = self._open.pop(path, None)
        journal, counted = entry if entry is not None else (Journal(path, key, value), 0)
        self._open[path] = (journal, len(journal))
        self._total += len(journal) - counted
        while len(self._open) > 1 and self._total > self._kept:
            self._total -= self._open.popitem(last=False)[1][1]
        return journal
