"""The TinyDB files of the store: written whole in one atomic write, or not at all."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from tinydb import TinyDB
from tinydb.middlewares import CachingMiddleware
from tinydb.storages import Storage
from tinydb.table import Table

from pbem.atomicfile import dump_json, write_atomic
from pbem.errors import StoreError
from pbem.store.items import JSON_HINT


class _AtomicJSONStorage(Storage):
    """TinyDB storage that never leaves a half-written file: temp file, fsync, rename."""

    def __init__(self, path: str) -> None:
        self._path = Path(path)

    def read(self) -> dict[str, dict[str, Any]] | None:
        try:
            data = self._path.read_bytes()
        except FileNotFoundError:
            return None
        try:
            value = json.loads(data)
        except ValueError as error:
            raise StoreError(
                f"The store file {self._path} is damaged ({error}).",
                suggestion="Restore it from a backup.",
            ) from error
        if not isinstance(value, dict):
            raise StoreError(f"The store file {self._path} is damaged (not a JSON object).")
        return value

    def write(self, data: dict[str, dict[str, Any]]) -> None:
        try:
            payload = dump_json(data)
        except (TypeError, ValueError) as error:
            message = f"Cannot save {self._path}: {error}."
            raise StoreError(message, suggestion=JSON_HINT) from error
        write_atomic(self._path, payload)


class _WriteOnSave(CachingMiddleware):
    """TinyDB's caching middleware, flushed only by an explicit ``flush()``."""

    # CachingMiddleware also flushes by itself after this many writes and on close(); a
    # commit must land whole or not at all, so neither may happen.
    WRITE_CACHE_SIZE = sys.maxsize

    def close(self) -> None:
        self.storage.close()


class TinyFile:
    """One TinyDB file, read at most once; all changes land in one atomic write on save()."""

    def __init__(self, path: Path) -> None:
        self._cache = _WriteOnSave(_AtomicJSONStorage)  # type: ignore[no-untyped-call]
        self._db = TinyDB(str(path), storage=self._cache)

    def table(self, name: str) -> Table:
        return self._db.table(name)

    def save(self) -> None:
        self._cache.flush()  # type: ignore[no-untyped-call]


class HotFile(TinyFile):
    """A game's hot file: state record, open log segment, its applied mails, pending outbox."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.game = self.table("game")
        self.log = self.table("log")
        self.applied = self.table("applied")
        self.outbox = self.table("outbox")
        self._applied_ids: Mapping[str, int] | None = None  # read once: looked up per mail

    def state(self) -> dict[str, Any]:
        doc = self.game.get(doc_id=1)
        if doc is None:
            raise StoreError("A game's hot file has no state record.", suggestion="Restore it.")
        return dict(doc)

    def entries(self) -> list[dict[str, Any]]:
        return [doc["entry"] for doc in sorted(self.log.all(), key=lambda d: d["index"])]

    def applied_ids(self) -> Mapping[str, int]:
        """Give the mails applied in the open segment, with the log index of each."""
        if self._applied_ids is None:
            self._applied_ids = MappingProxyType(
                {doc["mail_id"]: doc["index"] for doc in self.applied.all()})
        return self._applied_ids

    def set_open(self, base: int, entries: Sequence[dict[str, Any]],
                 applied: dict[str, int]) -> None:
        self.game.update({"base": base}, doc_ids=[1])
        self.log.truncate()
        self.log.insert_multiple({"index": base + i, "entry": e} for i, e in enumerate(entries))
        self.applied.truncate()
        self.applied.insert_multiple({"mail_id": m, "index": i} for m, i in applied.items())
        self._applied_ids = None
