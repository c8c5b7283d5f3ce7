"""The service's own refusals of an order: a key and its values, worded in the reader's
language by ``pbem.reports.refusals`` from ``templates/_refusals.txt.j2``."""

from __future__ import annotations

from typing import Any

from pbem.errors import IllegalCommandError, PbemError
from pbem.refusal_keys import ServiceKey


class ServiceRefusal(IllegalCommandError):
    """An order the service refuses before the rules see it (no attack waits for answers,
    a card not held, ...)."""

    catalogue = "_refusals"
    key: ServiceKey | None  # type: ignore[assignment]  # its own catalogue's keys

    def __init__(self, message: str = "", *, key: ServiceKey | None = None, **given: Any) -> None:
        # (worded by its own catalogue, so by the base's keyword, not the rules engine's)
        PbemError.__init__(self, message, key=key, **given)


def refused(key: ServiceKey, text: str = "", **words: Any) -> ServiceRefusal:
    """The service's refusal ``key`` with ``words`` (``text`` quotes the input at fault)."""
    return ServiceRefusal(key=key, text=text or None, **words)
