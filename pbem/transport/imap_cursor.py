"""IMAP intake position: where the intake stopped, kept so a restart neither skips nor repeats."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from pbem.atomicfile import make_dir, read_json, write_json_atomic
from pbem.errors import StoreError


class CursorStore(Protocol):
    """Keeps the intake's position: the folder's UIDVALIDITY and the last UID handled."""

    def load(self) -> tuple[int | None, int]: ...

    def save(self, uidvalidity: int, last_uid: int) -> None: ...


class JsonFileCursor:
    """A :class:`CursorStore` in a small JSON file, replaced atomically on every save."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    def load(self) -> tuple[int | None, int]:
        """Give (uidvalidity, last_uid); (None, 0) when nothing was saved yet."""
        try:
            data = read_json(self.path)
            return (
                None if data["uidvalidity"] is None else int(data["uidvalidity"]),
                int(data["last_uid"]),
            )
        except FileNotFoundError:
            return None, 0
        except (ValueError, KeyError, TypeError) as error:
            raise StoreError(
                f"the IMAP cursor file {self.path} is damaged ({error})",
                suggestion="Delete it: the intake then re-reads the mail still in the folder.",
            ) from error

    def save(self, uidvalidity: int, last_uid: int) -> None:
        """Write the position to a temporary file, fsync it and rename it over the old one."""
        make_dir(self.path.parent)
        write_json_atomic(self.path, {"uidvalidity": uidvalidity, "last_uid": last_uid})
