"""Append-only files of JSON lines, for the records the store writes once per mail.

Creating a file costs the file system far more than appending to one (here about 0.3-0.9 ms
of kernel time against a few microseconds), so what is written for every mail (a sent
record, where a mail's step sits in the log) is a line in one file per game, not a file of
its own.

A line counts once it ends in a newline. A small write is not cut short by a signal, so
only a power cut can leave a partial last line: readers skip it, the next writer cuts it off.
"""

from __future__ import annotations

import json
import os
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pbem.atomicfile import dump_json, fsync_dir

_TAIL = 65536  # bytes read back to find the last whole line (a line is far shorter)


class Journal:
    """One journal file read incrementally into its records by ``key`` (a later line with
    the same key replaces an earlier one). Its writers must hold a lock that keeps them
    apart; readers need none."""

    def __init__(self, path: Path, key: str) -> None:
        self.path = path
        self._key = key
        self._file: tuple[int, int] | None = None  # (device, inode) of the file read so far
        self._offset = 0  # bytes read so far: always the end of a whole line
        self._records: dict[str, dict[str, Any]] = {}

    def records(self) -> dict[str, dict[str, Any]]:
        """Give every record, reading only the lines added since the last call (all again if
        the file was replaced or removed)."""
        try:
            with open(self.path, "rb") as handle:
                info = os.fstat(handle.fileno())
                if (info.st_dev, info.st_ino) != self._file or info.st_size < self._offset:
                    self._file, self._offset, self._records = (info.st_dev, info.st_ino), 0, {}
                if info.st_size == self._offset:
                    return self._records
                handle.seek(self._offset)
                data = handle.read()
        except FileNotFoundError:
            self._file, self._offset, self._records = None, 0, {}
            return self._records
        whole = data[:data.rfind(b"\n") + 1]
        self._offset += len(whole)
        for line in whole.splitlines():
            record = json.loads(line)
            self._records[record[self._key]] = record
        return self._records

    def append(self, records: Sequence[dict[str, Any]], *, durable: bool = True) -> None:
        """Add records at the end (``durable``: on disk before this returns)."""
        if not records:
            return
        data = b"".join(dump_json(record) + b"\n" for record in records)
        created = not self.path.exists()
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":  # a power cut's partial line
                tail = os.pread(fd, min(size, _TAIL), max(0, size - _TAIL))
                os.ftruncate(fd, size - len(tail) + tail.rfind(b"\n") + 1)
            while data:
                data = data[os.write(fd, data):]
            if durable:
                os.fdatasync(fd)
        finally:
            os.close(fd)
        if created and durable:
            fsync_dir(self.path.parent)


class Journals:
    """The journals one store object reads, the most recently used few kept in memory (a
    daemon serves many games; each journal holds its game's records)."""

    def __init__(self, kept: int = 64) -> None:
        self._kept = kept
        self._open: OrderedDict[Path, Journal] = OrderedDict()

    def get(self, path: Path, key: str) -> Journal:
        journal = self._open.pop(path, None) or Journal(path, key)
        self._open[path] = journal
        while len(self._open) > self._kept:
            self._open.popitem(last=False)
        return journal
