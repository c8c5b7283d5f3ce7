"""Reads and checks the card data file (``games/illuminati/cards.toml``) into a ``CardSet``.

Every problem is a ``CardDataError`` naming the card and the field, so a person editing
the file (a new printing, a house rule) can fix it without reading this code. Apart from
reading the one file this module is pure: no clock, no randomness, no network.
"""

from __future__ import annotations

import functools
import importlib.resources
import tomllib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pbem.engine.cardfields import Fields
from pbem.engine.cardreader import CardFileReader
from pbem.engine.cards import CardSet
from pbem.errors import CardDataError

if TYPE_CHECKING:  # only the caller's Path object is used; the module imports no file API
    from pathlib import Path

__all__ = ["CardDataError", "CardPack", "default_card_file", "load_cardset", "media_groups",
           "read_pack", "with_pack"]

PackMode = Literal["add", "replace"]
_PACK_KEYS = ("name", "mode")


@dataclass(frozen=True)
class CardPack:
    """A game master's own cards (docs/cards.md, "A game master's own cards"): a file that
    adds Illuminati, groups and special cards to the shipped set (``mode = "add"``) or is a
    whole card file that replaces it (``mode = "replace"``). ``text`` is the file as written,
    kept with the game so that its replay reads the same cards."""

    name: str
    mode: PackMode
    text: str


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
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CardDataError(f"{source} is not a valid TOML file: {exc}") from exc
    return CardFileReader(source).read(_toml(text, source))


def read_pack(text: str, source: str) -> CardPack:
    """The pack in ``text`` (its ``[pack]`` table checked; its cards are checked by
    ``with_pack``)."""
    data = _toml(text, source)
    table = data.get("pack")
    if not isinstance(table, dict):
        raise CardDataError(f'{source}: a card pack begins with a [pack] table: name = "...", '
                            'mode = "add" (cards added to the shipped set) or "replace" (a '
                            "whole card file)")
    fields = Fields(table, "[pack]", "", _PACK_KEYS)
    fields.check_keys()
    mode: PackMode = fields.word("mode", ("add", "replace"))
    return CardPack(name=fields.text("name"), mode=mode, text=text)


def with_pack(base: CardSet, pack: CardPack, source: str = "the card pack") -> CardSet:
    """The cards a game with ``pack`` plays with: ``base`` and the pack's cards, or the
    pack's cards alone; every problem a ``CardDataError`` naming the card and the field."""
    return _with_pack(base, pack, source)


@functools.lru_cache(maxsize=16)
def _with_pack(base: CardSet, pack: CardPack, source: str) -> CardSet:
    data = _toml(pack.text, source)
    del data["pack"]
    if pack.mode == "replace":
        return CardFileReader(source).read(data)
    return CardFileReader(source).read_added(data, base)


def _toml(text: str, source: str) -> dict[str, object]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CardDataError(f"{source} is not a valid TOML file: {exc}") from exc
