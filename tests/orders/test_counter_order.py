"""COUNTER plays the card the card data says cancels another (``timing = "counter"``), by
whatever name the set gives it; in a game whose cards have none it is refused with its key,
never read as a counter with a card the game does not have."""

from __future__ import annotations

import re
from pathlib import Path

from card_copies import renamed, shipped_text, with_specials
from support import refuses

from pbem.engine.carddata import load_cardset
from pbem.engine.commands import Counter
from pbem.errors import OrderSyntaxError
from pbem.orders import parse_order

PLAYERS = ("Alice", "Bob")


def test_counter_plays_the_set_s_counter_card_by_its_name(tmp_path: Path) -> None:
    cards, names = renamed(tmp_path)
    assert parse_order("COUNTER", cards, "Alice", PLAYERS) == Counter(
        "Alice", names["Secrets Man Was Not Meant To Know"])


def test_counter_in_a_game_without_a_counter_card_is_refused(tmp_path: Path) -> None:
    block = re.compile(r'\[\[special\]\]\nname = "Secrets Man Was Not Meant To Know"\n.*?\n\n',
                       re.DOTALL)
    text, removed = block.subn("", with_specials(shipped_text(), -1))
    assert removed == 1
    path = tmp_path / "no-secrets.toml"
    path.write_text(text, encoding="utf-8")
    cards = load_cardset(path)
    with refuses("no_counter_card", OrderSyntaxError):
        parse_order("COUNTER", cards, "Alice", PLAYERS)
