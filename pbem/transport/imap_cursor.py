"""IMAP intake position: where the intake stopped, kept so a restart neither skips nor repeats;
and the filing under way, kept so one cut short is finished without a second copy."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

from pbem.atomicfile import make_dir, read_json, write_json_atomic
from pbem.errors import StoreError


@dataclass(frozen=True)
class Filing:
    """Mails of the intake's folder being filed into another, kept from just before the
    COPY (or MOVE) until they are gone from the intake's folder: a filing cut short there
    (the connection, the server or the daemon dying between COPY and EXPUNGE, or inside a
    server's MOVE, which Cyrus does as a copy then an expunge) leaves the mails in both
    folders, and the next pass finishes it rather than copying them again.

    ``uidvalidity`` and ``uids``: of the intake's folder; ``folder``: the server's name of
    the folder filed into, with its UIDVALIDITY and UIDNEXT just before the copy (the
    copies, if made, have UIDs from there on)."""

    uidvalidity: int
    uids: tuple[int, ...]
    folder: str
    folder_uidvalidity: int
    folder_uidnext: int


class CursorStore(Protocol):
    """Keeps the intake's position: the folder's UIDVALIDITY and the last UID handled; and
    the filing under way (:class:`Filing`), if any."""

    def load(self) -> tuple[int | None, int]: ...

    def save(self, uidvalidity: int, last_uid: int) -> None: ...

    def filing(self) -> Filing | None: ...

    def save_filing(self, filing: Filing | None) -> None: ...


class JsonFileCursor:
    """A :class:`CursorStore` in a small JSON file, replaced atomically on every save."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    def load(self) -> tuple[int | None, int]:
        """Give (uidvalidity, last_uid); (None, 0) when nothing was saved yet."""
        data = self._read()
        if data is None:
            return None, 0
        try:
            return (
                None if data["uidvalidity"] is None else int(data["uidvalidity"]),
                int(data["last_uid"]),
            )
        except (ValueError, KeyError, TypeError) as error:
            raise self._damaged(error) from error

    def save(self, uidvalidity: int, last_uid: int) -> None:
        """Write the position (the filing under way kept) to a temporary file, fsync it and
        rename it over the old one."""
        data = self._read() or {}
        self._write({**data, "uidvalidity": uidvalidity, "last_uid": last_uid})

    def filing(self) -> Filing | None:
        """Give the filing under way, None when none is."""
        found = (self._read() or {}).get("filing")
        if found is None:
            return None
        try:
            return Filing(int(found["uidvalidity"]), tuple(int(uid) for uid in found["uids"]),
                          str(found["folder"]), int(found["folder_uidvalidity"]),
                          int(found["folder_uidnext"]))
        except (ValueError, KeyError, TypeError) as error:
            raise self._damaged(error) from error

    def save_filing(self, filing: Filing | None) -> None:
        """Keep the filing under way (None: it is over), the position as it was."""
        data = {key: value for key, value in (self._read() or {}).items() if key != "filing"}
        data.setdefault("uidvalidity", None)
        data.setdefault("last_uid", 0)
        if filing is not None:
            data["filing"] = {**asdict(filing), "uids": list(filing.uids)}
        self._write(data)

    def _read(self) -> dict[str, Any] | None:
        try:
            data = read_json(self.path)
        except FileNotFoundError:
            return None
        except ValueError as error:
            raise self._damaged(error) from error
        if not isinstance(data, dict):
            raise self._damaged(TypeError(f"not an object: {data!r}"))
        return data

    def _write(self, data: dict[str, Any]) -> None:
        make_dir(self.path.parent)
        write_json_atomic(self.path, data)

    def _damaged(self, error: Exception) -> StoreError:
        return StoreError(
            f"the IMAP cursor file {self.path} is damaged ({error})",
            suggestion="Delete it: the intake then re-reads the mail still in the folder.",
        )
