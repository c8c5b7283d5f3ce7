"""What the service, the daemon and the CLI ask of the store: ``GameStore``.

Two implementations keep the same behaviour: ``pbem.store.Store``, the crash-safe files of
a store folder (what the daemon and the CLI use), and ``pbem.store.memory.MemoryStore``, its
twin in memory (what the service's tests use: nothing reaches the disk).
``tests/store/test_store_contract.py`` runs the same tests against both.

The interface is made of one small part per concern; the file store is built the same way,
one object per part (``pbem.store.games``, ``log``, ``outbox``, ``inbox``, ``lock``).

Values the store keeps (setups, snapshots, meta, log entries, the due index) are plain JSON:
what comes back is what JSON makes of what went in (tuples come back as lists). A reader
must not change what it is given: the file store gives what it keeps in memory while its
lock is held (the twin in memory gives copies).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol

from pbem.store.items import Departure, InboxItem, OutboxItem


class Games(Protocol):
    """The games: created, listed, found by name, and their small records."""

    def create_game(self, game_id: str, setup: dict[str, Any], *,
                    snapshot: dict[str, Any] | None = None,
                    log_entries: Sequence[dict[str, Any]] = ()) -> None:
        """Create a game with its first snapshot and log entries, all or nothing; needs the
        lock; StoreError if it exists."""

    def moving(self, game_id: str, on: bool = True, *, to_folder: str | None = None) -> None:
        """Mark the game as moving out of the store (``on`` False: as staying after all);
        ``to_folder``: the IMAP folder its mail is refiled into once it left."""

    def retire_game(self, game_id: str) -> None:
        """Take the game out of the store (it moved to another); needs the lock."""

    def retired(self, name: str) -> bool:
        """Tell whether the game called ``name`` is moving or moved out of the store."""

    def departure(self, name: str) -> Departure | None:
        """Give how the game called ``name`` (letter case aside) leaves or left the store,
        or None if it is not moving out."""

    def departures(self) -> list[Departure]:
        """Give every game moving or moved out of the store (and not created here again),
        by id."""

    def delete_game(self, game_id: str) -> None:
        """Delete a game (the caller checks it may go: one never started)."""

    def games(self) -> list[str]:
        """Give the ids of all games, oldest first."""

    def game_named(self, name: str) -> str | None:
        """Give the id of the game called ``name``, letter case aside, or None."""

    def game_stamp(self, game_id: str) -> list[int] | None:
        """Give a value that changes whenever the game is written, or None when that cannot
        be told yet."""

    def setup(self, game_id: str) -> dict[str, Any]:
        """Give the setup the game was created with."""

    def meta(self, game_id: str) -> dict[str, Any]:
        """Give the game's small mutable record (empty until a commit sets it)."""

    def snapshot(self, game_id: str) -> dict[str, Any] | None:
        """Give the snapshot of the last commit, or None before the first."""

    def changed_games(self, since: tuple[int, int] | None,
                      ) -> tuple[set[str] | None, tuple[int, int]]:
        """Give the games committed since the mark ``since`` (None: not known, any may have
        changed) and the next mark; needs the lock."""

    def due_index(self) -> dict[str, Any]:
        """Give the deadline tick's own record of the games (empty if none yet)."""

    def set_due_index(self, value: dict[str, Any]) -> None:
        """Replace the deadline tick's record of the games; needs the lock."""


class GameLog(Protocol):
    """A game's log, and the commit that appends a step to it with the mail it queues."""

    def log_length(self, game_id: str) -> int:
        """Give the number of entries in the game's log."""

    def log(self, game_id: str, since: int = 0) -> Iterator[dict[str, Any]]:
        """Give the log entries with index >= since, in order."""

    def applied_mails(self, game_id: str, mail_ids: Iterable[str]) -> set[str]:
        """Give those of ``mail_ids`` whose step is committed in the game's log."""

    def every_applied_mail(self, game_id: str) -> set[str]:
        """Give every mail whose step is committed in the game's log."""

    def commit(self, game_id: str, *, log_entries: Sequence[dict[str, Any]],
               snapshot: dict[str, Any] | None, meta: dict[str, Any] | None = None,
               mail_ids: Sequence[str] | Mapping[str, int] = (),
               outbox: Sequence[OutboxItem] = (),
               expect_length: int | None = None, cut_to: int | None = None,
               drop: Collection[str] = ()) -> None:
        """Append one step atomically; needs the lock (see ``pbem.store.log.LogFiles``)."""

    def truncate_log(self, game_id: str, length: int, snapshot: dict[str, Any]) -> None:
        """Cut the game's log to its first ``length`` entries and set the snapshot."""


class Inbox(Protocol):
    """Mail received, kept until a step applied it, and remembered as seen for good."""

    def receive(self, raw: bytes, *, message_id: str, received_at: str | datetime,
                sender: str = "") -> str | None:
        """Give the new mail's id after keeping it durably, or None if already received."""

    def receive_many(self, mails: Sequence[tuple[bytes, str, str]], *,
                     received_at: str | datetime) -> list[str | None]:
        """``receive`` for several mails (bytes, Message-ID, sender) together."""

    def seen(self, message_id: str, sender: str = "") -> bool:
        """Tell whether this sender's mail with this Message-ID was received."""

    def inbox(self) -> list[InboxItem]:
        """Give the received mails not yet done, oldest first."""

    def receipts(self, mail_ids: Iterable[str]) -> list[dict[str, str]]:
        """Give the records of those of ``mail_ids`` this store received (mail id,
        Message-ID, sender, when received), for ``take_receipts`` in another store."""

    def take_receipts(self, receipts: Sequence[dict[str, str]], *,
                      at: str | datetime) -> int:
        """Keep the records of mails another store received (``receipts``) as mails seen
        and done here, so a copy sent again is ignored as it would have been there; give
        how many were new here. Needs the lock."""

    def raw_mail(self, mail_id: str) -> bytes:
        """Give the raw bytes of a received mail (waiting or done)."""

    def inbox_done(self, *mail_ids: str) -> None:
        """Take mails off the inbox for good (they stay seen); needs the lock."""

    def mask_mail(self, mail_id: str, mask: Callable[[bytes], bytes]) -> bool:
        """Keep the bytes of a received mail as ``mask`` gives them (as many: passwords
        blanked); give whether they changed."""


class Outbox(Protocol):
    """The mail commits queued: sending it, failing and retrying."""

    def outbox(self) -> list[OutboxItem]:
        """Give the committed mails not yet sent, oldest first, across games."""

    def unsent(self) -> int:
        """Give how many mails wait to be sent."""

    def sent_at(self, outbox_id: str) -> str | None:
        """Give when a mail was marked sent, or None if it was not."""

    def mark_sent(self, mail: OutboxItem | str, *, sent_at: str | datetime) -> None:
        """Record that the SMTP server accepted a queued mail; needs no store lock."""

    def mark_failed(self, outbox_id: str, *, error: str, retry_at: str | datetime,
                    attempts: int) -> None:
        """Record a failed send attempt and when to retry; needs the lock."""

    def requeue(self, outbox_id: str) -> None:
        """Make a queued mail due now as if never tried; needs the lock."""

    def queued_game(self, outbox_id: str) -> str:
        """Give the game a mail still queued belongs to; StoreError if sent or unknown."""


class GameStore(Games, GameLog, Inbox, Outbox, Protocol):
    """The whole store: its parts, and the lock of whoever writes games."""

    def lock(self, timeout: float | None = None) -> AbstractContextManager[None]:
        """Give exclusive write access to the store; re-entrant; StoreError on timeout."""

    def recover(self) -> None:
        """Finish what a killed writer left half done; run it at start, holding the lock."""
