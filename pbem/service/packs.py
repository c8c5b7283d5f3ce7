"""A game's own cards: the game master's card pack kept in the game's setup record, and
the card set the game plays with (docs/cards.md, "A game master's own cards").

The pack is kept as written (its text), in the setup the game was created with, which
never changes: a replay, ``verify``, an export and a move to another daemon read the same
cards as the game was played with. A game without a pack plays with the daemon's cards.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.engine.carddata import CardPack, with_pack
from pbem.engine.cards import CardSet

__all__ = ["game_cards", "pack_of", "pack_record"]


def pack_record(pack: CardPack) -> dict[str, str]:
    """The pack as the setup record keeps it (under ``"cards"``)."""
    return {"name": pack.name, "mode": pack.mode, "text": pack.text}


def pack_of(setup_record: Mapping[str, Any]) -> CardPack | None:
    """The pack a game was created with, or None (the daemon's cards)."""
    kept = setup_record.get("cards")
    if not kept:
        return None
    return CardPack(name=str(kept["name"]), mode="replace" if kept["mode"] == "replace"
                    else "add", text=str(kept["text"]))


def game_cards(base: CardSet, setup_record: Mapping[str, Any]) -> CardSet:
    """The cards the game of ``setup_record`` plays with: ``base`` with its pack, if any."""
    pack = pack_of(setup_record)
    return base if pack is None else with_pack(base, pack, f'the card pack "{pack.name}"')
