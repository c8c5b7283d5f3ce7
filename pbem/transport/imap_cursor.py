"""IMAP intake position: where the intake stopped, kept so a restart neither skips nor repeats;
and the filing under way, kept so one cut short is finished without a second copy."""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol

from pbem.atomicfile import dump_json, make_dir, read_json, write_json_atomic, write_quick
from pbem.errors import StoreError

log = logging.getLogger(__name__)


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
    """A :class:`CursorStore` in a small JSON file, replaced atomically on every save; the
    filing under way in another beside it (``imap-cursor.filing.json`` beside
    ``imap-cursor.json``), written without fsync and removed when the filing is over: one
    per fetched group, it is cheap, and lost to a power cut it costs at most a mail filed
    twice, as before it was kept."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.filing_path = self.path.with_suffix(".filing.json")

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

    def filing(self) -> Filing | None:
        """Give the filing under way, None when none is (or its file is damaged: a power
        cut; then a mail may be filed twice, said in the log)."""
        try:
            found = read_json(self.filing_path)
            return Filing(int(found["uidvalidity"]), tuple(int(uid) for uid in found["uids"]),
                          str(found["folder"]), int(found["folder_uidvalidity"]),
                          int(found["folder_uidnext"]))
        except FileNotFoundError:
            return None
        except (ValueError, KeyError, TypeError) as error:
            log.warning("the IMAP filing file %s is damaged (%s): a mail being filed when it "
                        "was written may be filed twice", self.filing_path, error)
            return None

    def save_filing(self, filing: Filing | None) -> None:
        """Keep the filing under way; None: it is over."""
        if filing is None:
            self.filing_path.unlink(missing_ok=True)
            return
        make_dir(self.path.parent)
        write_quick(self.filing_path, dump_json({**asdict(filing), "uids": list(filing.uids)}))
