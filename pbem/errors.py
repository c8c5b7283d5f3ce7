"""Typed errors: each carries what a person needs to act on it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class PbemError(Exception):
    """Base of every error pbem raises on purpose.

    ``line`` and ``text`` locate the input at fault (an order line, a data field);
    ``suggestion`` says what to write instead. Only the CLI and the mail layer turn these
    into exit codes or replies.

    ``key`` names the refusal for the mail layer, which words it in the player's language
    (``pbem.service.refusals``) with ``words``, the values the message and the suggestion
    hold; ``hint`` names the suggestion when it is made apart from the message (the order
    parser's "did you mean"), else ``key`` names both. The message stays the English text.
    """

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        text: str | None = None,
        suggestion: str | None = None,
        key: str | None = None,
        words: Mapping[str, Any] | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.text = text
        self.suggestion = suggestion
        self.key = key
        self.words: dict[str, Any] = dict(words or {})
        self.hint = hint

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line is not None else ""
        quoted = f" ({self.text!r})" if self.text else ""
        hint = f" {self.suggestion}" if self.suggestion else ""
        return f"{where}{self.message}{quoted}{hint}"


class CardDataError(PbemError, ValueError):
    """The game data file is wrong: names the card and the field."""


class UnknownNameError(PbemError, ValueError):
    """A card or player name matched nothing; the suggestion lists close matches."""


class AmbiguousNameError(PbemError, ValueError):
    """A card or player name matched more than one thing."""


class IllegalCommandError(PbemError, ValueError):
    """A command is well formed but the rules do not allow it now."""


class OrderSyntaxError(PbemError, ValueError):
    """An order line could not be read."""


class MailFormatError(PbemError, ValueError):
    """An inbound mail could not be turned into order text."""


class StoreError(PbemError):
    """The game store is missing, locked or damaged."""


class ConfigError(PbemError, ValueError):
    """The daemon's configuration is wrong."""


class AddressError(PbemError, ValueError):
    """A mail address we could not write to (or not deliver to with the sender configured)."""
