"""Reads and checks the card data file (``games/illuminati/cards.toml``) into a ``CardSet``.

Every problem is a ``CardDataError`` naming the card and the field, so a person editing
the file (a new printing, a house rule) can fix it without reading this code. Apart from
reading the one file this module is pure: no clock, no randomness, no network.
"""

from __future__ import annotations

import functools
import importlib.resources
import tomllib
from typing import TYPE_CHECKING

from pbem.engine.cardreader import Reader
from pbem.engine.cards import CardSet
from pbem.errors import CardDataError

if TYPE_CHECKING:  # only the caller's Path object is used; the module imports no file API
    from pathlib import Path

__all__ = ["CardDataError", "default_card_file", "load_cardset", "media_groups"]


def default_card_file() -> str:
    """Gives a readable name for the card file shipped in the package (for messages)."""
    return str(importlib.resources.files("pbem.games") / "illuminati" / "cards.toml")


def load_cardset(path: Path | None = None) -> CardSet:
    """Gives the checked card set read from ``path``, or the shipped one (read once)."""
    if path is None:
        return _shipped_cardset()
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CardDataError(f"cannot read the card file {path}: {exc.strerror}") from exc
    return _parse(raw, str(path))


def media_groups(cardset: CardSet) -> frozenset[str]:
    """Gives the names of the groups that gain the Media alignment under ``media_alignment``."""
    return frozenset(g.name for g in cardset.groups if g.media)


@functools.cache
def _shipped_cardset() -> CardSet:
    resource = importlib.resources.files("pbem.games") / "illuminati" / "cards.toml"
    return _parse(resource.read_bytes(), "the shipped cards.toml")


def _parse(raw: bytes, source: str) -> CardSet:
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise CardDataError(f"{source} is not a valid TOML file: {exc}") from exc
    return Reader(source).read(data)
