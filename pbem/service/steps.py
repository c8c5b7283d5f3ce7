"""A round's steps of one game, sealed one by one and written to the store together."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from pbem.service.table import Table
from pbem.store import OutboxItem


class Steps:
    """Steps of one game sealed but not yet written: the table carries their log entries,
    the rest waits here for the one commit."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.mail_ids: dict[str, int] = {}  # each mail: the log length its step began at
        self.began = table.base  # the log length the step under way began at
        self.sent: list[tuple[str, OutboxItem]] = []

    @contextmanager
    def undone_on_error(self) -> Iterator[None]:
        """Whatever a step did before it raised is taken back; the steps before it stay."""
        table = self.table
        kept = (table.state, table.service, len(table.entries), len(table.events),
                dict(self.mail_ids), len(self.sent))
        try:
            yield
        except BaseException:
            table.state, table.service, self.mail_ids = kept[0], kept[1], kept[4]
            del table.entries[kept[2]:], table.events[kept[3]:], self.sent[kept[5]:]
            table.notices.clear()
            raise
