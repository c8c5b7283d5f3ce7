"""Clocks for daemons whose parts run in child processes: a plain function each, which the
children import by name (see ``pbem.daemon.children.crosses``); kept apart so a child
imports nothing else of the tests."""

from __future__ import annotations

from datetime import UTC, datetime

T0 = datetime(2024, 5, 1, 10, 0, tzinfo=UTC)


def pinned() -> datetime:
    """Give T0, always."""
    return T0
