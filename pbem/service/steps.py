"""The unit of work on one game: a ``Step`` is opened on the game as stored, changed through
its ``Table``, sealed (its number, its mails composed) and written in one store write.

``Service.step(game_id, now)`` is the way in for a tick or an override of the game master:
load under the store's lock, apply, advance, seal, commit, or write nothing on an error. A
round of mail uses the same ``Step``: each mail is sealed as a step of its own, undone alone
if it fails (``undone_on_error``), and a game's steps of one round are written together.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from pbem.service.dispatch import advance
from pbem.service.table import Table
from pbem.store import OutboxItem


class Step:
    """Steps of one game under way or sealed but not yet written: the table carries their log
    entries, the rest waits here for the one commit."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.mail_ids: dict[str, int] = {}  # each mail: the log length its step began at
        self.began = table.base  # the log length the step under way began at
        self.sent: list[tuple[str, OutboxItem]] = []
        # The bot seats' one-time passwords for their answers (memory only: the record
        # keeps their hashes), by seat.
        self.bot_passwords: dict[str, str] = {}
        self.cut_to: int | None = None  # the log cut to this many entries first (a rollback)
        self.dropped: list[str] = []  # queued mails forgotten unsent in the same write
        self.discarded = False

    def advance(self) -> None:
        """Carry the game forward as far as it goes without anyone's answer."""
        advance(self.table)

    def rewind(self, table: Table) -> None:
        """Go on from ``table``, the game as it stood after its first ``table.base`` log
        entries: the entries after are cut off in the same write (a rollback)."""
        self.table, self.began, self.cut_to = table, table.base, table.base
        self.bot_passwords = {}  # their hashes were in the table left behind

    def drop(self, outbox_ids: Sequence[str]) -> None:
        """Forget these queued mails, unsent, in the same write."""
        self.dropped += outbox_ids

    def discard(self) -> None:
        """Write nothing: the step changed nothing, or was only a rehearsal."""
        self.discarded = True

    @contextmanager
    def undone_on_error(self) -> Iterator[None]:
        """Whatever a step did before it raised is taken back; the steps before it stay."""
        table = self.table
        kept = (table.state, table.service, len(table.entries), len(table.events),
                dict(self.mail_ids), len(self.sent), dict(self.bot_passwords))
        try:
            yield
        except BaseException:
            table.state, table.service, self.mail_ids = kept[0], kept[1], kept[4]
            self.bot_passwords = kept[6]
            del table.entries[kept[2]:], table.events[kept[3]:], self.sent[kept[5]:]
            table.notices.clear()
            raise
