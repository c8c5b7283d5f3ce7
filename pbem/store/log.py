"""A game's log on disk: read by segments, appended by commits, cut by rollbacks."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any

from pbem.atomicfile import read_json, write_json_atomic
from pbem.errors import StoreError
from pbem.store.games import GameFiles
from pbem.store.items import JSON_HINT, OutboxItem, check_mail_id
from pbem.store.journal import Journal, Journals
from pbem.store.lock import Locks
from pbem.store.outbox import OutboxFiles
from pbem.store.tinyfile import HotFile


class LogFiles:
    """A game's log, and the commit that appends a step to it with its outbox.

    The open segment of the log is in the game's hot file; each closed one is a file of
    its own (``segments/<start>.json``) that never changes (a rollback past it reopens it
    in the hot file). Where each applied mail's step sits is a line in ``applied.log``.
    """

    def __init__(self, locks: Locks, games: GameFiles, outbox: OutboxFiles,
                 journals: Journals) -> None:
        self._locks = locks
        self._games = games
        self._outbox = outbox
        self._journals = journals

    def log_length(self, game_id: str) -> int:
        """Give the number of entries in the game's log."""
        hot = self._games.hot(game_id)
        return int(hot.state()["base"]) + len(hot.log)

    def _segment(self, game_id: str, start: int) -> dict[str, Any]:
        path = self._games.folder(game_id) / "segments" / f"{start:010d}.json"
        try:
            value: dict[str, Any] = read_json(path)
        except (FileNotFoundError, ValueError) as error:
            raise StoreError(f"The log segment {path} is missing or damaged ({error}).",
                             suggestion="Restore it from a backup.") from error
        return value

    def log(self, game_id: str, since: int = 0) -> Iterator[dict[str, Any]]:
        """Give the log entries with index >= since, in order, one segment file at a time."""
        if since < 0:
            raise StoreError("A log index cannot be negative.", text=str(since))
        hot = self._games.hot(game_id)
        state = hot.state()
        return self._stream(game_id, since, state["base"], state["segment_size"], hot.entries())

    def _stream(self, game_id: str, since: int, base: int, size: int,
                open_entries: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        # Closed segments below the base read here never change, except when a rollback
        # reopens one and the log regrows past it while a lock-less reader is still reading.
        for start in range(since // size * size, base, size):
            entries = self._segment(game_id, start)["entries"]
            yield from entries[max(0, since - start):]
        yield from open_entries[max(0, since - base):]

    def _applied_journal(self, game_id: str) -> Journal:
        """Give the game's journal of where each applied mail's step sits in the log."""
        return self._journals.get(self._games.folder(game_id) / "applied.log", "mail_id", "index")

    def applied_mails(self, game_id: str, mail_ids: Iterable[str]) -> set[str]:
        """Give those of ``mail_ids`` whose step is committed in the game's log."""
        return self._applied(game_id, self._games.hot(game_id), mail_ids)

    def every_applied_mail(self, game_id: str) -> set[str]:
        """Give every mail whose step is committed in the game's log (each closed segment
        read: for a game leaving the store, not for the mail flow)."""
        hot = self._games.hot(game_id)
        state = hot.state()
        found = set(hot.applied_ids())
        for start in range(0, state["base"], state["segment_size"]):
            found.update(self._segment(game_id, start)["applied"])
        return found

    def _applied(self, game_id: str, hot: HotFile, mail_ids: Iterable[str]) -> set[str]:
        state, in_open = hot.state(), hot.applied_ids()
        base, size = state["base"], state["segment_size"]
        hints = self._applied_journal(game_id).values()
        found = set()
        for mail_id in mail_ids:
            check_mail_id(mail_id)
            if mail_id in in_open:
                found.add(mail_id)
                continue
            index = hints.get(mail_id)
            if index is None:
                continue
            # The hint only says where to look: it may be left from a step that never
            # committed or was rolled back. Open-segment marks were checked above.
            if index < base and mail_id in self._segment(game_id, index // size * size)["applied"]:
                found.add(mail_id)
        return found

    # ---- commit -----------------------------------------------------------------------

    def commit(self, game_id: str, *, log_entries: Sequence[dict[str, Any]],
               snapshot: dict[str, Any] | None, meta: dict[str, Any] | None = None,
               mail_ids: Sequence[str] | Mapping[str, int] = (),
               outbox: Sequence[OutboxItem] = (),
               expect_length: int | None = None, cut_to: int | None = None,
               drop: Collection[str] = ()) -> None:
        """Append one step atomically: log entries, snapshot, meta, applied mails, outbox.

        ``snapshot`` or ``meta`` None keeps the current one. ``expect_length`` (if given) is
        the log length the step was computed against; StoreError if the log has moved.
        Outbox items already queued or sent under the same ``outbox_id`` are not queued again.
        ``cut_to`` (a rollback) first cuts the log to that many entries, in the same write.
        ``drop`` names queued mails of the game the step supersedes (or the game master
        drops, the step logging it): forgotten unsent in the same write.
        ``mail_ids`` may map each mail to the log length its step began at (several steps in
        one commit); a plain sequence puts them all at the log's length before this commit.
        """
        self._locks.require("commit a step")
        hot = self._games.hot(game_id, writing=True)
        if cut_to is not None:
            self._cut(game_id, hot, cut_to)
        state = hot.state()
        base, size = state["base"], state["segment_size"]
        entries = hot.entries()
        length = base + len(entries)
        if expect_length is not None and expect_length != length:
            raise StoreError(
                f"Game {game_id} has {length} log entries; this step was computed for "
                f"{expect_length}.", suggestion="Reload the game and redo the step.")
        at = dict(mail_ids) if isinstance(mail_ids, Mapping) else dict.fromkeys(mail_ids, length)
        if done := self._applied(game_id, hot, at):
            raise StoreError(f"Game {game_id} has already applied these mails.",
                             text=", ".join(sorted(done)))
        # Everything the hot file will point to is written first.
        queued = self._outbox.new_items(game_id, hot, outbox)
        for mail_id, index in at.items():
            if not length <= index <= length + len(log_entries):
                raise StoreError(f"Mail {mail_id} is put at log entry {index}, outside this "
                                 "commit.", text=mail_id)
        bundle = self._outbox.write_bundle(game_id, queued) if queued else ""
        self._applied_journal(game_id).append(
            [{"mail_id": mail_id, "index": index} for mail_id, index in at.items()])
        applied = {**hot.applied_ids(), **at}
        entries.extend(log_entries)
        while len(entries) >= size:
            end = base + size
            segment = {"start": base, "entries": entries[:size],
                       "applied": {m: i for m, i in applied.items() if i < end}}
            self._write_segment(game_id, base, segment)
            applied = {m: i for m, i in applied.items() if i >= end}
            entries, base = entries[size:], end
        hot.set_open(base, entries, applied)
        emptied = self._outbox.drop_sent(game_id, hot) | self._outbox.forget(hot, set(drop))
        changes: dict[str, Any] = {"fresh": False}
        if snapshot is not None:
            changes["snapshot"] = snapshot
        if meta is not None:
            changes["meta"] = meta
        hot.game.update(changes, doc_ids=[1])
        self._outbox.queue(hot, queued, bundle)
        self._games.save(game_id, hot)  # the commit point
        self._games.note_changed(game_id)
        self._outbox.remove_bundles(emptied)

    def _write_segment(self, game_id: str, start: int, segment: dict[str, Any]) -> None:
        path = self._games.folder(game_id) / "segments" / f"{start:010d}.json"
        try:
            write_json_atomic(path, segment)
        except (TypeError, ValueError) as error:
            raise StoreError(f"Cannot save a log entry: {error}.", suggestion=JSON_HINT) from error

    def truncate_log(self, game_id: str, length: int, snapshot: dict[str, Any]) -> None:
        """Cut the game's log to its first ``length`` entries and set the snapshot, atomically.

        Mails whose steps are cut off count as not applied any more.
        """
        self._locks.require("roll back a game")
        hot = self._games.hot(game_id, writing=True)
        self._cut(game_id, hot, length)
        hot.game.update({"snapshot": snapshot}, doc_ids=[1])
        emptied = self._outbox.drop_sent(game_id, hot)
        self._games.save(game_id, hot)
        self._games.note_changed(game_id)
        self._outbox.remove_bundles(emptied)

    def _cut(self, game_id: str, hot: HotFile, length: int) -> None:
        """Cut the hot file's log to ``length`` entries, in memory (the caller saves)."""
        state = hot.state()
        base, size = state["base"], state["segment_size"]
        entries = hot.entries()
        if not 0 <= length <= base + len(entries):
            raise StoreError(f"Game {game_id} has {base + len(entries)} log entries; cannot cut "
                             f"it to {length}.", text=str(length))
        if length >= base:
            applied = hot.applied_ids()
        else:
            # Reopen the closed segment holding the cut; later segment files become stale and
            # are ignored (nothing reads past the hot file's base) until rewritten.
            base = length // size * size
            segment = self._segment(game_id, base)
            entries, applied = segment["entries"], segment["applied"]
        hot.set_open(base, entries[:length - base],
                     {m: i for m, i in applied.items() if i < length})

