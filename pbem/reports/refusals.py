"""Refusals in the reader's language: the one place an error's key becomes words.

An error a player can read carries a ``key`` and the values of its wording (``words``);
its class names the catalogue that words it (``catalogue``): the rules engine's
(``_engine_refusals``), the order parser's (``_parser_refusals``), the service's own
checks of an order (``_refusals``) or an unreadable mail's (``_mail_refusals``): one template
each, ``templates/<catalogue>.txt.j2``, whose reasons and suggestions are messages of the
translation catalogues (``pbem/locale/<lang>/LC_MESSAGES/pbem.po``), rendered in the
reader's language. A key the template lacks is an error in every language, never a blank;
a message a language lacks is found by ``pbem catalogue check``. The order words stay
English (the order language is).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from pbem.errors import install_english_wording
from pbem.reports.languages import LANGUAGES
from pbem.reports.templating import template


class Refusal(Protocol):
    """What an error a player can read carries (``pbem.errors.PbemError``)."""

    @property
    def key(self) -> str | None: ...
    @property
    def hint(self) -> str | None: ...
    @property
    def words(self) -> Mapping[str, Any]: ...
    @property
    def catalogue(self) -> str | None: ...
    @property
    def own_words(self) -> tuple[str, str] | None: ...


class UnknownRefusal(LookupError):
    """A catalogue has no wording for a key: a mistyped key, or a language that lacks it."""


def worded(error: Refusal, lang: str, site_dir: Path | None = None) -> tuple[str, str]:
    """The reason and the suggestion (or ``""``) of ``error`` for a reader of ``lang``,
    from the error's catalogue by its key. An error with no key is no player's (the game
    master's words, in English); one whose raising code wrote its English (the order
    parser's, until its English joins the catalogue) keeps it for an English reader."""
    lang = lang if lang in LANGUAGES else "en"
    own = error.own_words
    if error.key is None or error.catalogue is None or (own is not None and lang == "en"):
        return own or ("", "")
    return wording(lang, error.catalogue, error.key, error.words, error.hint, site_dir)


def wording(lang: str, refusals: str, key: str, words: Mapping[str, Any],
            hint: str | None = None, site_dir: Path | None = None) -> tuple[str, str]:
    """The reason and the suggestion (or ``""``) that catalogue ``refusals`` of ``lang``
    gives ``key`` with ``words``; ``hint`` names the suggestion when it is not ``key``.
    Raises ``UnknownRefusal`` when the catalogue has no reason for ``key``."""
    module: Any = template(f"{refusals}.txt.j2", lang, site_dir).module
    message = str(module.message(key, words)).strip()
    if not message:
        raise UnknownRefusal(f"{refusals} has no wording for {key!r} ({lang})")
    return message, str(module.suggestion(hint or key, words)).strip()


install_english_wording(lambda error: worded(error, "en"))
