"""A game's options in one table: the rules' variants and the service's house rules, each
with its documented choices (or range of whole numbers) and its default.

The rules' variants are declared with the cards, as data (``[[option]]`` in
``pbem/games/illuminati/cards.toml``, read into ``CardSet.options``); the house rules are the
fields of ``HouseRules`` (``pbem.service.model``), their words in ``HOUSE_CHOICES`` and the
range of their numbers in ``HOUSE_RANGES`` (docs/service.md, "Press" and "Absences").
``pbem game create``, ``pbem game open`` and ``pbem import`` read and check a game's options
here: a value outside its choices is an :class:`~pbem.errors.OptionError` naming the option
and its choices. (``Service.create_game`` itself takes any value the engine can play, so the
tests and the simulations may play a short game of five groups.)
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import MISSING, dataclass, fields
from typing import Any

from pbem.engine.cards import CardSet
from pbem.errors import OptionError
from pbem.service.model import HOUSE_CHOICES, HOUSE_DOCS, HOUSE_RANGES, HouseRules

__all__ = ["BY_PLAYERS", "GameOption", "check_options", "option_table", "read_options"]

Value = int | bool | str

BY_PLAYERS = "by_players"  # victory_groups: the rules' table by the number of players
_YES = ("yes", "true", "on", "1")
_NO = ("no", "false", "off", "0")


@dataclass(frozen=True)
class GameOption:
    """One option of a game: its name, default and documented choices; with no choices, a
    whole number from ``low`` to ``high`` (None: no highest)."""

    name: str
    default: Value
    choices: tuple[Value, ...] = ()
    low: int = 0
    high: int | None = None
    house: bool = False  # a house rule of the service, else a variant of the rules
    doc: str = ""

    @property
    def yes_no(self) -> bool:
        """True for an option that is on or off."""
        return bool(self.choices) and all(isinstance(c, bool) for c in self.choices)

    def allows(self, value: object) -> bool:
        """Tell whether ``value`` (as stored: a number, true/false, a word) is one of the
        documented choices."""
        if self.choices:
            return any(type(value) is type(c) and value == c for c in self.choices)
        return (isinstance(value, int) and not isinstance(value, bool) and self.low <= value
                and (self.high is None or value <= self.high))

    def read(self, word: str) -> Value:
        """The value ``word`` gives, as the game master writes it (yes or no, a number, a
        word, in any case); OptionError when it is none of the choices."""
        text = word.strip().lower()
        value: Value | None = None
        if self.yes_no:
            value = True if text in _YES else False if text in _NO else None
        elif self.choices:
            value = next((c for c in self.choices if str(c).lower() == text), None)
        elif re.fullmatch(r"[+-]?\d{1,9}", text):
            value = int(text)
        if value is None or not self.allows(value):
            raise self.refusal(word.strip())
        return value

    def described(self) -> str:
        """The choices in words: ``20 or 25``, ``yes or no``, ``by_players or a whole number
        from 8 to 13``, ``a whole number from 0 to 365``."""
        if self.yes_no:
            return "yes or no"
        if not self.choices:
            return (f"a whole number from {self.low} to {self.high}" if self.high is not None
                    else f"a whole number of {self.low} or more")
        words = [str(c) for c in self.choices if not isinstance(c, int)]
        numbers = sorted(c for c in self.choices if isinstance(c, int))
        if len(numbers) >= 3 and numbers == list(range(numbers[0], numbers[-1] + 1)):
            words.append(f"a whole number from {numbers[0]} to {numbers[-1]}")
        else:
            words += map(str, numbers)
        return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]

    def shown(self, value: object) -> str:
        """A value as the game master writes it (``yes`` for true)."""
        if isinstance(value, bool):
            return "yes" if value else "no"
        return str(value)

    def refusal(self, value: str) -> OptionError:
        return OptionError(f"{self.name} is {self.described()}, not {value!r}",
                           suggestion=f"Write --option {self.name}=VALUE with one of those "
                           f"(default {self.shown(self.default)}).", text=self.name,
                           key="option_value",
                           option=self.name, value=value, choices=self.described())


def option_table(cards: CardSet) -> tuple[GameOption, ...]:
    """Every option a game may be given: the rules' variants (the card set's), then the
    service's house rules."""
    rules = tuple(GameOption(o.name, o.default, o.choices, doc=o.doc) for o in cards.options)
    house: list[GameOption] = []
    for f in fields(HouseRules):
        assert f.default is not MISSING, "a house rule has a default"
        default: Value = f.default
        doc = HOUSE_DOCS.get(f.name, "")
        if f.name in HOUSE_CHOICES:
            house.append(GameOption(f.name, default, HOUSE_CHOICES[f.name], house=True,
                                    doc=doc))
        elif isinstance(default, bool):
            house.append(GameOption(f.name, default, (True, False), house=True, doc=doc))
        elif f.name in HOUSE_RANGES:
            low, high = HOUSE_RANGES[f.name]
            house.append(GameOption(f.name, default, low=low, high=high, house=True,
                                    doc=doc))
        else:  # a house rule added without its choices: no game could be given it
            raise TypeError(f"the house rule {f.name} has no choices: give them in "
                            "HOUSE_CHOICES or HOUSE_RANGES (pbem.service.model)")
    return rules + tuple(house)


def _named(table: tuple[GameOption, ...], key: str) -> GameOption:
    """The option ``key`` names (case and ``-`` for ``_`` aside); OptionError if none."""
    name = key.strip().lower().replace("-", "_")
    found = next((o for o in table if o.name == name), None)
    if found is not None:
        return found
    names = [o.name for o in table]
    close = difflib.get_close_matches(name, names, n=1)
    raise OptionError(f"{key.strip()!r} is no game option",
                      suggestion=(f"Did you mean {close[0]}? " if close else "")
                      + f"The options are {', '.join(names)}.", text=key.strip(),
                      key="unknown_option",
                      option=key.strip(), options=names)


def read_options(cards: CardSet, items: Iterable[str]) -> dict[str, Value]:
    """The options ``KEY=VALUE`` texts give (``--option``), checked against the table; the
    last of an option given twice wins. ``victory_groups=by_players`` (the default) is left
    out: the setup then takes the rules' number for its players."""
    table = option_table(cards)
    chosen: dict[str, Value] = {}
    for item in items:
        key, sep, word = item.partition("=")
        option = _named(table, key)
        if not sep:
            raise option.refusal("")
        value = option.read(word)
        chosen.pop(option.name, None)
        if value != BY_PLAYERS:
            chosen[option.name] = value
    return chosen


def check_options(cards: CardSet, options: Mapping[str, Any]) -> None:
    """Refuse (OptionError) a stored value none of its option's choices allows, or a name
    that is no option: the options a game brings along (``pbem import``)."""
    table = option_table(cards)
    for name, value in options.items():
        option = _named(table, name)
        if not option.allows(value):
            raise option.refusal(option.shown(value))
