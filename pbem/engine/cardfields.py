"""Typed reads of one TOML table of the card file, whose errors name the card and the field.

Split from ``pbem.engine.carddata``: what the card-file reader (``cardreader``) reads a
card with, public to it, though no engine API.
"""

from __future__ import annotations

import difflib
from typing import NoReturn, TypeVar

from pbem.errors import CardDataError

_L = TypeVar("_L", bound=str)


def fail_field(card: str, field: str, problem: str) -> NoReturn:
    """Raise the CardDataError that names the card and the field with the problem."""
    raise CardDataError(f"card {card}, field {quoted(field)}: {problem}")


def quoted(text: str) -> str:
    """Give ``text`` in double quotes, as a card-file error names a field or a value."""
    return f'"{text}"'


def kind_of(value: object) -> str:
    """Give the kind of a TOML value in TOML's words, which the person reading the error
    wrote."""
    kinds = {
        bool: "true/false",
        int: "a whole number",
        float: "a decimal number",
        str: "a text",
        list: "a list",
        dict: "a table",
    }
    return kinds.get(type(value), type(value).__name__)


class Fields:
    """One TOML table of a card: typed reads whose errors name the card and the field."""

    def __init__(self, raw: object, card: str, where: str, known: tuple[str, ...]) -> None:
        if not isinstance(raw, dict):
            fail_field(card, where.rstrip("."), f"expected a table, got {kind_of(raw)}")
        self.raw: dict[str, object] = raw
        self.card = card
        self.where = where
        self.known = known

    def path(self, key: str) -> str:
        return f"{self.where}{key}"

    def fail(self, key: str, problem: str) -> NoReturn:
        fail_field(self.card, self.path(key), problem)

    def check_keys(self) -> None:
        """Refuses keys this table does not know (a typo would otherwise be ignored)."""
        for key in self.raw:
            if key not in self.known:
                close = difflib.get_close_matches(key, self.known, n=1)
                hint = f"; did you mean {quoted(close[0])}?" if close else ""
                self.fail(key, f"unknown field{hint}")

    def value(self, key: str, expected: type, what: str, default: object = None) -> object:
        if key not in self.raw:
            if default is None:
                self.fail(key, "missing")
            return default
        found = self.raw[key]
        # bool is an int in Python but not in TOML: `power = true` is a mistake.
        if not isinstance(found, expected) or (expected is int and isinstance(found, bool)):
            self.fail(key, f"expected {what}, got {kind_of(found)} {found!r}")
        return found

    def text(self, key: str, default: str | None = None) -> str:
        found = self.value(key, str, "a text", default)
        assert isinstance(found, str)
        return found

    def integer(self, key: str, *, minimum: int | None = None, default: int | None = None) -> int:
        found = self.value(key, int, "a whole number", default)
        assert isinstance(found, int)
        if minimum is not None and found < minimum:
            self.fail(key, f"must be at least {minimum}, got {found}")
        return found

    def flag(self, key: str, default: bool) -> bool:
        found = self.value(key, bool, "true or false", default)
        assert isinstance(found, bool)
        return found

    def word(self, key: str, allowed: tuple[_L, ...], default: _L | None = None) -> _L:
        return self.pick(key, self.text(key, default), allowed)

    def words(self, key: str, allowed: tuple[_L, ...], *, required: bool = False) -> tuple[_L, ...]:
        found = self.value(key, list, "a list", None if required else [])
        assert isinstance(found, list)
        picked: list[_L] = []
        for i, item in enumerate(found):
            if not isinstance(item, str):
                self.fail(f"{key}[{i}]", f"expected a text, got {kind_of(item)} {item!r}")
            choice = self.pick(f"{key}[{i}]", item, allowed)
            if choice in picked:
                self.fail(key, f"{quoted(choice)} is listed twice")
            picked.append(choice)
        return tuple(picked)

    def pick(self, key: str, word: str, allowed: tuple[_L, ...]) -> _L:
        if word in allowed:
            return allowed[allowed.index(word)]
        close = difflib.get_close_matches(word, allowed, n=1)
        hint = (f"; did you mean {quoted(str(close[0]))}?" if close
                else f"; one of: {', '.join(allowed)}")
        self.fail(key, f"unknown value {quoted(word)}{hint}")

    def tables(self, key: str, known: tuple[str, ...]) -> list[Fields]:
        found = self.value(key, list, "a list of tables", [])
        assert isinstance(found, list)
        return [
            Fields(item, self.card, f"{self.path(key)}[{i}].", known)
            for i, item in enumerate(found)
        ]

    def table(self, key: str, known: tuple[str, ...], *, required: bool) -> Fields | None:
        if key not in self.raw:
            if required:
                self.fail(key, "missing")
            return None
        return Fields(self.raw[key], self.card, f"{self.path(key)}.", known)
