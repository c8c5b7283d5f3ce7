"""The store's twin in memory: a ``GameStore`` that behaves as ``pbem.store.Store`` does,
without files (as TinyDB's ``MemoryStorage`` is to its ``JSONStorage``).

The service's tests run on it: nothing is written or flushed to disk. It keeps what the
file store keeps, as the file store gives it back: values as JSON text (what is not plain
JSON is refused, and every read gives a fresh copy), a game's mails applied by where
their step sits in the log, outbox ids queued once, the lock required where the file
store requires it. What only files have (crashes half way, other processes, layouts,
stamps that cannot be told yet) it has not. ``tests/store/test_store_contract.py`` runs the
same tests against both.
"""

from __future__ import annotations

import difflib
import itertools
import json
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pbem.atomicfile import dump_json
from pbem.errors import StoreError
from pbem.store.items import (
    JSON_HINT,
    Departure,
    InboxItem,
    OutboxItem,
    check_game_id,
    check_mail_id,
    file_key,
    mail_id_for,
    stored_time,
)

if TYPE_CHECKING:
    from pbem.store.interface import GameStore


def _json(value: Any, what: str) -> bytes:
    """Give a value's JSON text; StoreError if it is not plain JSON (as a file would)."""
    try:
        return dump_json(value)
    except (TypeError, ValueError) as error:
        raise StoreError(f"Cannot save {what}: {error}.", suggestion=JSON_HINT) from error


@dataclass
class _Game:
    setup: bytes
    snapshot: bytes
    meta: bytes = b"{}"
    entries: list[bytes] = field(default_factory=list)
    applied: dict[str, int] = field(default_factory=dict)  # mail id: log length its step began
    queued: dict[str, dict[str, Any]] = field(default_factory=dict)  # by outbox id, in order
    sent: dict[str, str] = field(default_factory=dict)  # when each was marked sent
    stamp: int = 0


@dataclass(frozen=True)
class _Mail:
    message_id: str
    sender: str
    received_at: str
    raw: bytes


class MemoryStore:
    """A ``GameStore`` in memory; see the module docstring."""

    def __init__(self) -> None:
        self._depth = 0
        self._games: dict[str, _Game] = {}  # in the order created
        self._moving: dict[str, str | None] = {}  # games moving or moved out: to_folder
        self._due = b"{}"
        self._mails: dict[str, _Mail] = {}  # every mail received, by id
        self._waiting: dict[str, None] = {}  # the inbox, in arrival order
        self._writes = itertools.count(1)  # game stamps: one number per write

    # ---- the lock ---------------------------------------------------------------------

    @contextmanager
    def lock(self, timeout: float | None = None) -> Iterator[None]:
        """Give exclusive write access to the store (nobody else shares it); re-entrant."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1

    def _require_lock(self, action: str) -> None:
        if not self._depth:
            raise StoreError(f"Cannot {action} without holding the store lock.",
                             suggestion="Do it inside `with store.lock():`.")

    def recover(self) -> None:
        """Take off the inbox the mails a committed step applied (as the file store does
        after a crash; here nothing is ever half done)."""
        self._require_lock("recover the store")
        for game_id in self._games:
            if done := self.applied_mails(game_id, list(self._waiting)):
                self.inbox_done(*done)

    # ---- games ------------------------------------------------------------------------

    def _game(self, game_id: str) -> _Game:
        check_game_id(game_id)
        game = self._games.get(game_id)
        if game is None:
            close = difflib.get_close_matches(game_id, self.games(), n=3)
            hint = f"Did you mean {', '.join(close)}?" if close else "See `pbem games`."
            raise StoreError("There is no game with this id.", text=game_id, suggestion=hint)
        return game

    def create_game(self, game_id: str, setup: dict[str, Any], *,
                    snapshot: dict[str, Any] | None = None,
                    log_entries: Sequence[dict[str, Any]] = ()) -> None:
        """Create a game with its first snapshot and log entries, all or nothing."""
        self._require_lock("create a game")
        check_game_id(game_id)
        if game_id in self._games:
            raise StoreError("A game with this id already exists.", text=game_id)
        game = _Game(_json(setup, "the setup"), _json(snapshot, "the game"),
                     entries=[_json(entry, "the game") for entry in log_entries],
                     stamp=next(self._writes))
        self._games[game_id] = game
        self._moving.pop(game_id, None)

    def moving(self, game_id: str, on: bool = True, *, to_folder: str | None = None) -> None:
        """Mark the game as moving out of the store (``on`` False: as staying after all)."""
        if on:
            self._moving[game_id] = to_folder or self._moving.get(game_id)
        else:
            self._moving.pop(game_id, None)

    def retire_game(self, game_id: str) -> None:
        """Take the game out of the store (it moved to another)."""
        self._require_lock("retire a game")
        self._game(game_id)
        del self._games[game_id]
        self.moving(game_id)

    def retired(self, name: str) -> bool:
        """Tell whether the game called ``name`` is moving or moved out of the store."""
        return self.departure(name) is not None

    def departure(self, name: str) -> Departure | None:
        """Give how the game called ``name`` leaves or left the store, or None."""
        game_id = next((g for g in self._moving if g.casefold() == name.casefold()), None)
        if game_id is None:
            return None
        return Departure(game_id, gone=game_id not in self._games,
                         to_folder=self._moving[game_id])

    def departures(self) -> list[Departure]:
        """Give every game moving or moved out of the store, by id."""
        found = (self.departure(g) for g in sorted(self._moving))
        return [d for d in found if d is not None]

    def delete_game(self, game_id: str) -> None:
        """Delete a game; StoreError if there is none."""
        self._require_lock("delete a game")
        self._game(game_id)
        del self._games[game_id]

    def games(self) -> list[str]:
        """Give the ids of all games, oldest first."""
        return list(self._games)

    def game_named(self, name: str) -> str | None:
        """Give the id of the game called ``name``, letter case aside (the newest of a name)."""
        return {game_id.casefold(): game_id for game_id in self._games}.get(name.casefold())

    def changed_games(self, since: tuple[int, int] | None,
                      ) -> tuple[set[str] | None, tuple[int, int]]:
        """Give None (not known: every game may have changed), as no journal is kept."""
        return None, (0, 0)

    def game_stamp(self, game_id: str) -> list[int] | None:
        """Give a value that changes whenever the game is written (None if there is none)."""
        check_game_id(game_id)
        game = self._games.get(game_id)
        return None if game is None else [game.stamp]

    def setup(self, game_id: str) -> dict[str, Any]:
        """Give the setup the game was created with."""
        value: dict[str, Any] = json.loads(self._game(game_id).setup)
        return value

    def meta(self, game_id: str) -> dict[str, Any]:
        """Give the game's small mutable record (empty until a commit sets it)."""
        value: dict[str, Any] = json.loads(self._game(game_id).meta)
        return value

    def snapshot(self, game_id: str) -> dict[str, Any] | None:
        """Give the snapshot of the last commit, or None before the first."""
        value: dict[str, Any] | None = json.loads(self._game(game_id).snapshot)
        return value

    def due_index(self) -> dict[str, Any]:
        """Give the deadline tick's own record of the games (empty if none yet)."""
        value: dict[str, Any] = json.loads(self._due)
        return value

    def set_due_index(self, value: dict[str, Any]) -> None:
        """Replace the deadline tick's record of the games."""
        self._require_lock("write the due index")
        self._due = _json(value, "the due index")

    # ---- the log ----------------------------------------------------------------------

    def log_length(self, game_id: str) -> int:
        """Give the number of entries in the game's log."""
        return len(self._game(game_id).entries)

    def log(self, game_id: str, since: int = 0) -> Iterator[dict[str, Any]]:
        """Give the log entries with index >= since, in order."""
        if since < 0:
            raise StoreError("A log index cannot be negative.", text=str(since))
        entries = self._game(game_id).entries[since:]
        return (json.loads(entry) for entry in entries)

    def every_applied_mail(self, game_id: str) -> set[str]:
        """Give every mail whose step is committed in the game's log."""
        return set(self._game(game_id).applied)

    def applied_mails(self, game_id: str, mail_ids: Iterable[str]) -> set[str]:
        """Give those of ``mail_ids`` whose step is committed in the game's log."""
        applied = self._game(game_id).applied
        found = set()
        for mail_id in mail_ids:
            check_mail_id(mail_id)
            if mail_id in applied:
                found.add(mail_id)
        return found

    def commit(self, game_id: str, *, log_entries: Sequence[dict[str, Any]],
               snapshot: dict[str, Any] | None, meta: dict[str, Any] | None = None,
               mail_ids: Sequence[str] | Mapping[str, int] = (),
               outbox: Sequence[OutboxItem] = (),
               expect_length: int | None = None, cut_to: int | None = None,
               drop: Collection[str] = ()) -> None:
        """Append one step atomically, as ``pbem.store.log.LogFiles.commit`` does: all is
        checked and made JSON before anything changes."""
        self._require_lock("commit a step")
        game = self._game(game_id)
        entries, applied = game.entries, game.applied
        if cut_to is not None:
            entries, applied = self._cut(game_id, game, cut_to)
        length = len(entries)
        if expect_length is not None and expect_length != length:
            raise StoreError(
                f"Game {game_id} has {length} log entries; this step was computed for "
                f"{expect_length}.", suggestion="Reload the game and redo the step.")
        at = dict(mail_ids) if isinstance(mail_ids, Mapping) else dict.fromkeys(mail_ids, length)
        for mail_id in at:
            check_mail_id(mail_id)
        if done := set(at) & set(applied):
            raise StoreError(f"Game {game_id} has already applied these mails.",
                             text=", ".join(sorted(done)))
        queued: dict[str, dict[str, Any]] = {}
        for item in outbox:
            if item.game_id != game_id:
                raise StoreError(f"An outbox item of game {item.game_id} was committed to game "
                                 f"{game_id}.", text=item.outbox_id)
            if item.outbox_id in game.queued or item.outbox_id in game.sent:
                continue
            queued.setdefault(item.outbox_id, {
                "outbox_id": item.outbox_id, "to": item.to, "message_id": item.message_id,
                "raw": item.raw, "created_at": stored_time(item.created_at),
                "attempts": item.attempts, "retry_at": item.retry_at,
                "last_error": item.last_error})
        for mail_id, index in at.items():
            if not length <= index <= length + len(log_entries):
                raise StoreError(f"Mail {mail_id} is put at log entry {index}, outside this "
                                 "commit.", text=mail_id)
        new_entries = [_json(entry, "a log entry") for entry in log_entries]
        new_snapshot = game.snapshot if snapshot is None else _json(snapshot, "the game")
        new_meta = game.meta if meta is None else _json(meta, "the game")
        # The commit point: nothing above changed the game.
        game.entries, game.applied = [*entries, *new_entries], {**applied, **at}
        game.snapshot, game.meta = new_snapshot, new_meta
        for outbox_id in drop:
            game.queued.pop(outbox_id, None)
        game.queued.update(queued)
        game.stamp = next(self._writes)

    def truncate_log(self, game_id: str, length: int, snapshot: dict[str, Any]) -> None:
        """Cut the game's log to its first ``length`` entries and set the snapshot; mails
        whose steps are cut off count as not applied any more."""
        self._require_lock("roll back a game")
        game = self._game(game_id)
        entries, applied = self._cut(game_id, game, length)
        game.snapshot = _json(snapshot, "the game")
        game.entries, game.applied = entries, applied
        game.stamp = next(self._writes)

    @staticmethod
    def _cut(game_id: str, game: _Game, length: int) -> tuple[list[bytes], dict[str, int]]:
        """Give the game's log and applied mails cut to ``length`` entries."""
        if not 0 <= length <= len(game.entries):
            raise StoreError(f"Game {game_id} has {len(game.entries)} log entries; cannot cut "
                             f"it to {length}.", text=str(length))
        return game.entries[:length], {m: i for m, i in game.applied.items() if i < length}

    # ---- the inbox --------------------------------------------------------------------

    def _received_as(self, message_id: str, sender: str) -> tuple[str, bool]:
        """Give the id a mail gets, and whether a mail with that id was received already
        (see ``pbem.store.inbox.InboxFiles``: the id counts per sender)."""
        mail_id = mail_id_for(message_id)
        first = self._mails.get(mail_id)
        if first is None or first.sender.lower() == sender.lower():
            return mail_id, first is not None
        mail_id = file_key(f"{mail_id} {sender.lower()}")
        return mail_id, mail_id in self._mails

    def receive(self, raw: bytes, *, message_id: str, received_at: str | datetime,
                sender: str = "") -> str | None:
        """Give the new mail's id, or None if already received."""
        return self.receive_many([(raw, message_id, sender)], received_at=received_at)[0]

    def receive_many(self, mails: Sequence[tuple[bytes, str, str]], *,
                     received_at: str | datetime) -> list[str | None]:
        """``receive`` for several mails (bytes, Message-ID, sender) together."""
        ids: list[str | None] = []
        new: dict[str, _Mail] = {}
        when = stored_time(received_at)
        for raw, message_id, sender in mails:
            mail_id, seen = self._received_as(message_id, sender)
            fresh = mail_id not in new and not seen
            ids.append(mail_id if fresh else None)
            if fresh:
                new[mail_id] = _Mail(message_id, sender, when, raw)
        self._mails.update(new)
        self._waiting.update(dict.fromkeys(new))
        return ids

    def seen(self, message_id: str, sender: str = "") -> bool:
        """Tell whether this sender's mail with this Message-ID was received."""
        return self._received_as(message_id, sender)[1]

    def inbox(self) -> list[InboxItem]:
        """Give the received mails not yet done, oldest first."""
        return [InboxItem(mail_id, self._mails[mail_id].message_id,
                          self._mails[mail_id].received_at, self._mails[mail_id].sender)
                for mail_id in self._waiting]

    def receipts(self, mail_ids: Iterable[str]) -> list[dict[str, str]]:
        """Give the records of those of ``mail_ids`` this store received."""
        return [{"mail_id": mail_id, "message_id": mail.message_id, "sender": mail.sender,
                 "received_at": mail.received_at}
                for mail_id in mail_ids if (mail := self._mails.get(mail_id)) is not None]

    def take_receipts(self, receipts: Sequence[dict[str, str]], *,
                      at: str | datetime) -> int:
        """Keep mails another store received as seen and done here (without their bytes);
        give how many were new here."""
        self._require_lock("take the records of mails received elsewhere")
        new = {r["mail_id"]: _Mail(r["message_id"], r.get("sender", ""), r["received_at"], b"")
               for r in receipts if r["mail_id"] not in self._mails}
        self._mails.update(new)
        return len(new)

    def raw_mail(self, mail_id: str) -> bytes:
        """Give the raw bytes of a received mail (waiting or done)."""
        check_mail_id(mail_id)
        if mail_id not in self._mails:
            raise StoreError("No received mail has this id.", text=mail_id)
        return self._mails[mail_id].raw

    def mask_mail(self, mail_id: str, mask: Callable[[bytes], bytes]) -> bool:
        """Keep the bytes of a received mail as ``mask`` gives them (as many: passwords
        blanked); give whether they changed."""
        mail = self._mails[mail_id]
        masked = mask(mail.raw)
        if masked == mail.raw:
            return False
        if len(masked) != len(mail.raw):
            raise ValueError("a mail's bytes are masked in place: as many as before")
        self._mails[mail_id] = replace(mail, raw=masked)
        return True

    def inbox_done(self, *mail_ids: str) -> None:
        """Take mails off the inbox for good (they stay seen); doing it twice is harmless."""
        self._require_lock("mark a mail done")
        for mail_id in mail_ids:
            check_mail_id(mail_id)
        for mail_id in mail_ids:
            if mail_id not in self._mails:
                raise StoreError("No received mail has this id.", text=mail_id)
        for mail_id in mail_ids:
            self._waiting.pop(mail_id, None)

    # ---- the outbox -------------------------------------------------------------------

    def outbox(self) -> list[OutboxItem]:
        """Give the committed mails not yet sent, oldest first, across games."""
        found = [(doc["created_at"], game_id, n, self._item(game_id, doc))
                 for game_id in sorted(self._games)
                 for n, doc in enumerate(self._games[game_id].queued.values())]
        return [entry[3] for entry in sorted(found, key=lambda e: e[:3])]

    @staticmethod
    def _item(game_id: str, doc: dict[str, Any]) -> OutboxItem:
        return OutboxItem(doc["outbox_id"], game_id, doc["to"], doc["message_id"], doc["raw"],
                          doc["created_at"], doc["attempts"], doc["retry_at"],
                          doc["last_error"])

    def unsent(self) -> int:
        """Give how many mails wait to be sent."""
        return sum(len(game.queued) for game in self._games.values())

    def sent_at(self, outbox_id: str) -> str | None:
        """Give when a mail was marked sent, or None if it was not."""
        for game in self._games.values():
            if (value := game.sent.get(outbox_id)) is not None:
                return value
        return None

    def mark_sent(self, mail: OutboxItem | str, *, sent_at: str | datetime) -> None:
        """Record that the SMTP server accepted a queued mail; doing it twice is harmless."""
        outbox_id = mail if isinstance(mail, str) else mail.outbox_id
        if self.sent_at(outbox_id) is not None:
            return
        game_id = self._queued(outbox_id)
        if game_id is None:
            raise StoreError("No queued mail has this id.", text=outbox_id)
        game = self._games[game_id]
        del game.queued[outbox_id]
        game.sent[outbox_id] = stored_time(sent_at)

    def _queued(self, outbox_id: str) -> str | None:
        """Give the game of a mail queued and not sent, or None."""
        return next((game_id for game_id, game in self._games.items()
                     if outbox_id in game.queued), None)

    def mark_failed(self, outbox_id: str, *, error: str, retry_at: str | datetime,
                    attempts: int) -> None:
        """Record a failed send attempt and when to retry."""
        self._require_lock("mark a mail failed")
        self._update_queued(outbox_id, {"last_error": error, "retry_at": stored_time(retry_at),
                                        "attempts": attempts})

    def requeue(self, outbox_id: str) -> None:
        """Make a queued mail due now as if never tried."""
        self._require_lock("queue a mail again")
        self._update_queued(outbox_id, {"last_error": None, "retry_at": None, "attempts": 0},
                            suggestion="`pbem outbox list` shows the ids")

    def queued_game(self, outbox_id: str) -> str:
        """Give the game a mail still queued belongs to; StoreError if sent or unknown."""
        return self._still_queued(outbox_id, "`pbem outbox list` shows the ids")

    def _update_queued(self, outbox_id: str, changes: dict[str, Any],
                       suggestion: str = "") -> None:
        game = self._games[self._still_queued(outbox_id, suggestion)]
        game.queued[outbox_id].update(changes)
        game.stamp = next(self._writes)

    def _still_queued(self, outbox_id: str, suggestion: str) -> str:
        """Give the game of a mail still queued; StoreError if sent or unknown."""
        game_id = self._queued(outbox_id)
        if game_id is not None:
            return game_id
        if self.sent_at(outbox_id) is not None:
            raise StoreError("This mail was already sent.", text=outbox_id)
        raise StoreError("No queued mail has this id.", text=outbox_id,
                         suggestion=suggestion or None)


if TYPE_CHECKING:  # mypy checks that the twin keeps to the interface
    _TWIN: GameStore = MemoryStore()
