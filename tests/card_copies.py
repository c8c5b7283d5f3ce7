"""Copies of the shipped card file, edited as a person editing the data would: a reprint
added, every card renamed, a house pack beside it (docs/cards.md)."""

from __future__ import annotations

import re
from pathlib import Path

from pbem.engine.carddata import default_card_file, load_cardset
from pbem.engine.cards import CardSet

SHIPPED = Path(default_card_file())

# Murphy's Law printed again under another name: the same effect, timing and behaviour.
SODS_LAW = """
[[special]]
name = "Sod's Law"
effect = "murphys_law"
timing = "after_roll"
text = "right after the dice are rolled on any attack: the roll becomes a 12"
asked = "any_attack"
helps = "defender"
conditional = "succeeds"
targets = "attack"
"""


def shipped_text() -> str:
    return SHIPPED.read_text(encoding="utf-8")


def with_specials(text: str, added: int) -> str:
    """The card file's text with its [deck] count of special cards raised by ``added``."""
    found = re.search(r"^special_cards = (\d+)", text, re.MULTILINE)
    assert found is not None
    return text.replace(found.group(0), f"special_cards = {int(found.group(1)) + added}", 1)


def reprinted(tmp_path: Path, extra: str = SODS_LAW, added: int = 1) -> CardSet:
    """The shipped cards and ``extra`` (one more special card, by default Sod's Law)."""
    path = tmp_path / "reprint.toml"
    path.write_text(with_specials(shipped_text(), added) + extra, encoding="utf-8")
    return load_cardset(path)


def renamed(tmp_path: Path) -> tuple[CardSet, dict[str, str]]:
    """Every card of the shipped file under a new name (name fields and the group names the
    ability filters list alike), and the map from each old name to its new one."""
    cards = load_cardset()
    text = shipped_text()
    # Numbered in the old names' order, so that whatever sorts cards by name sorts the same.
    names = {name: f"Renamed {i:03d} {name[::-1].title()}" for i, name in
             enumerate(sorted(cards.names()))}
    # Every quoted occurrence of a whole card name is that card (a name or a filter's entry).
    pattern = re.compile("|".join(re.escape(f'"{n}"') for n in
                                  sorted(names, key=len, reverse=True)))
    text = pattern.sub(lambda m: f'"{names[m.group(0)[1:-1]]}"', text)
    path = tmp_path / "renamed.toml"
    path.write_text(text, encoding="utf-8")
    return load_cardset(path), names
