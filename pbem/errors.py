"""Typed errors: each carries what a person needs to act on it."""

from __future__ import annotations

import errno
from collections.abc import Callable
from typing import Any, ClassVar

from pbem.refusal_keys import EngineKey, MailKey, ParserHint, ParserKey


class PbemError(Exception):
    """Base of every error pbem raises on purpose.

    An error a player can read carries a ``key`` and the values of its wording only
    (``IllegalCommandError(key="money_short", card=..., have=3, amount=5)``): the words are
    the catalogue's, ``templates/<catalogue>.txt.j2``, rendered by
    ``pbem.reports.refusals`` in the reader's language; ``catalogue`` names the templates
    that word this kind of error, and ``hint`` names the suggestion when it is made apart
    from the message (the order parser's "did you mean"), else ``key`` names both.

    An error no player reads (the game master's, a data file's, a store's) is written as
    its ``message`` and ``suggestion`` in English. ``line`` and ``text`` locate the input at
    fault (an order line, a data field). Only the CLI and the mail layer turn these into
    exit codes or replies.
    """

    catalogue: ClassVar[str | None] = None

    def __init__(
        self,
        message: str = "",
        *,
        line: int | None = None,
        text: str | None = None,
        suggestion: str | None = None,
        key: str | None = None,
        hint: str | None = None,
        **words: Any,
    ) -> None:
        if key is not None and self.catalogue is not None and (message or suggestion):
            raise TypeError(f"{type(self).__name__}({key!r}) is worded by its catalogue, "
                            f"{self.catalogue}: give it values, not English")
        super().__init__(message or key)
        self.line = line
        self.text = text
        self.key = key
        self.words: dict[str, Any] = words
        self.hint = hint
        self._message = message
        self._suggestion = suggestion

    @property
    def own_words(self) -> tuple[str, str] | None:
        """The reason and suggestion in English as the raising code wrote them (an error no
        player reads), or None when the catalogue words this error (it has a key)."""
        if self.key is not None and self.catalogue is not None:
            return None
        return self._message, self._suggestion or ""

    @property
    def message(self) -> str:
        """The reason, in English."""
        return self._english()[0]

    @property
    def suggestion(self) -> str | None:
        """What to write instead, in English, or None."""
        return self._english()[1] or None

    def _english(self) -> tuple[str, str]:
        own = self.own_words
        if own is not None:
            return own
        # The English of a keyed error is its catalogue's, rendered when a log, the game
        # master or a test asks for it, by the wording pbem.reports installs when it is
        # loaded (errors sit below every layer, so they cannot import it).
        if _english_wording is None:
            return f"{self.key}: {self.words}", ""
        return _english_wording(self)

    def __str__(self) -> str:
        message, suggestion = self._english()
        where = f"line {self.line}: " if self.line is not None else ""
        quoted = f" ({self.text!r})" if self.text else ""
        hint = f" {suggestion}" if suggestion else ""
        return f"{where}{message}{quoted}{hint}"


_english_wording: Callable[[PbemError], tuple[str, str]] | None = None


def install_english_wording(wording: Callable[[PbemError], tuple[str, str]]) -> None:
    """Word keyed errors in English with ``wording`` (the catalogue's renderer, which
    ``pbem.reports.refusals`` installs as it is imported)."""
    global _english_wording
    _english_wording = wording


class CardDataError(PbemError, ValueError):
    """The game data file is wrong: names the card and the field."""


class ParserError(PbemError, ValueError):
    """An order line's words refused by the order parser: worded by its catalogue
    (``_parser_refusals``), the reason by ``key`` and the suggestion by ``hint``."""

    catalogue = "_parser_refusals"
    key: ParserKey | None
    hint: ParserHint | None

    def __init__(self, message: str = "", *, key: ParserKey | None = None,
                 hint: ParserHint | None = None, **given: Any) -> None:
        super().__init__(message, key=key, hint=hint, **given)


class UnknownNameError(ParserError):
    """A card or player name matched nothing; the suggestion lists close matches."""


class AmbiguousNameError(ParserError):
    """A card or player name matched more than one thing."""


class IllegalCommandError(PbemError, ValueError):
    """A command is well formed but the rules do not allow it now: worded by the rules
    engine's catalogue (``_engine_refusals``) when it has a key."""

    catalogue = "_engine_refusals"
    key: EngineKey | None

    def __init__(self, message: str = "", *, key: EngineKey | None = None,
                 **given: Any) -> None:
        super().__init__(message, key=key, **given)


class OrderSyntaxError(ParserError):
    """An order line could not be read."""


class MailFormatError(PbemError, ValueError):
    """An inbound mail could not be turned into order text: worded for its sender by the
    catalogue (``_mail_refusals``)."""

    catalogue = "_mail_refusals"
    key: MailKey | None

    def __init__(self, message: str = "", *, key: MailKey | None = None,
                 **given: Any) -> None:
        super().__init__(message, key=key, **given)


class StoreError(PbemError):
    """The game store is missing, locked or damaged."""


class NewerStoreError(StoreError):
    """The store was written by a newer pbem: its format version (``words["found"]``) is
    above the newest this one reads (``words["reads"]``), and reading or writing it could
    drop what that version keeps."""


class ConfigError(PbemError, ValueError):
    """The daemon's configuration is wrong."""


class OptionError(PbemError, ValueError):
    """A game option the game master gave is no option (key ``unknown_option``), or its value
    is none of the option's documented choices (key ``option_value``); ``words`` name the
    option, the value and the choices. No player reads it: its English is the raiser's."""


class AddressError(PbemError, ValueError):
    """A mail address we could not write to (or not deliver to with the sender configured)."""


# The errors of a disk or file system as a whole, not of one file: out of space or quota, a
# file system read-only or failing, out of file handles or memory.
_DISK_TROUBLE = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.EMFILE,
                           errno.ENFILE, errno.ENOMEM})


def disk_trouble(error: BaseException) -> bool:
    """Tell whether ``error`` (or the error it was raised from) is the store's disk failing as
    a whole (out of space, read-only, failing): no write can be expected to succeed until it
    mends, and it is never the fault of the mail being stored or applied."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno in _DISK_TROUBLE:
            return True
        seen = seen.__cause__ or seen.__context__
    return False
