"""The service's own refusals of an order: a key and its values, worded in the reader's
language by ``pbem.reports.refusals`` from ``templates/<lang>/_refusals.txt.j2``."""

from __future__ import annotations

from typing import Any

from pbem.errors import IllegalCommandError


class ServiceRefusal(IllegalCommandError):
    """An order the service refuses before the rules see it (no attack waits for answers,
    a card not held, ...)."""

    catalogue = "_refusals"


def refused(key: str, text: str = "", **words: Any) -> ServiceRefusal:
    """The service's refusal ``key`` with ``words`` (``text`` quotes the input at fault)."""
    return ServiceRefusal(key=key, text=text or None, **words)
