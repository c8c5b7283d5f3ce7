"""Clocks for daemons whose parts run in child processes: a plain function each, which the
children import by name (see ``pbem.daemon.children.crosses``); kept apart so a child
imports nothing else of the tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

T0 = datetime(2024, 5, 1, 10, 0, tzinfo=UTC)


def pinned() -> datetime:
    """Give T0, always."""
    return T0


class Clock:
    """A clock the test moves by hand (the daemon's parts then run as threads: a copy in a
    child process would not follow it)."""

    def __init__(self, now: datetime = T0) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)
