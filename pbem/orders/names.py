"""Matching a name a person typed to a card or player name.

Players write names by hand in email, so case, punctuation, accents, "&" for "and" and a
leading "the" do not matter, a unique beginning is enough, and common short names
("OMCL", "UN", "Cthulhu") work. The stages, first hit wins:

1. the whole name ("cia" is "C.I.A.", "murphys law" is "Murphy's Law");
2. an alias, the short names the card data gives (``aliases``: "UN" is The United Nations;
   before prefixes, since "un" begins two names);
3. the beginning of one name ("bavarian" is The Bavarian Illuminati);
4. the beginnings of some of its words, in order ("fed res" is Federal Reserve,
   "tobacco liquor" is Tobacco & Liquor Companies).

A query that fits several names at a stage is ambiguous; one that fits none gets "did you
mean" from ``difflib``.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from pbem.engine.cards import CardSet
from pbem.errors import AmbiguousNameError, UnknownNameError

__all__ = [
    "NameMatcher",
    "card_matcher",
    "match_name",
    "normalize_name",
]

_NO_ALIASES: Mapping[str, str] = MappingProxyType({})
_JOINERS = re.compile(r"['’.]")  # dropped, not spaced: "C.I.A." -> "cia", "Murphy's" -> "murphys"
_WORD = re.compile(r"[^\W_]+")  # a run of letters or digits
_MAX_LISTED = 6


def normalize_name(name: str) -> str:
    """Gives the comparable form of a name: lower case words, no punctuation, no leading "the"."""
    return " ".join(_words(name))


def _words(name: str) -> tuple[str, ...]:
    decomposed = unicodedata.normalize("NFKD", name.casefold())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))  # Zürich = Zurich
    words = _WORD.findall(_JOINERS.sub("", plain.replace("&", " and ")))
    if len(words) > 1 and words[0] == "the":
        words = words[1:]
    return tuple(words)


def _starts_words(query: tuple[str, ...], words: tuple[str, ...]) -> bool:
    # Taking the earliest word each query word begins leaves the most words for the rest.
    at = 0
    for part in query:
        while at < len(words) and not words[at].startswith(part):
            at += 1
        if at == len(words):
            return False
        at += 1
    return True


class NameMatcher:
    """Matches queries against a fixed list of names; build it once, match many times."""

    def __init__(
        self, names: Iterable[str], *, aliases: Mapping[str, str] = _NO_ALIASES, what: str = "card"
    ) -> None:
        self.names: tuple[str, ...] = tuple(dict.fromkeys(names))
        self.what = what
        self._words = {name: _words(name) for name in self.names}
        self._keys = {name: "".join(words) for name, words in self._words.items()}
        known = set(self.names)
        self._aliases = {
            "".join(_words(alias)): name for alias, name in aliases.items() if name in known
        }

    def match(self, query: str) -> str:
        """Gives the one name ``query`` means; raises UnknownNameError or AmbiguousNameError."""
        words = _words(query)
        if not words:
            raise UnknownNameError(text=query, key="no_name_given", what=self.what)
        key = "".join(words)
        stages = (
            lambda name: self._keys[name] == key,
            lambda name: self._aliases.get(key) == name,
            lambda name: self._keys[name].startswith(key),
            lambda name: _starts_words(words, self._words[name]),
        )
        for fits in stages:
            found = [name for name in self.names if fits(name)]
            if len(found) == 1:
                return found[0]
            if found:
                raise AmbiguousNameError(
                    text=query,
                    key="ambiguous_name", hint="say_which",
                    what=self.what, names=found[:_MAX_LISTED],
                    more=max(0, len(found) - _MAX_LISTED),
                )
        names = self._close(key)
        raise UnknownNameError(
            text=query, key="unknown_name", hint="did_you_mean" if names else "no_such_name",
            what=self.what, names=names)

    def _close(self, key: str) -> list[str]:
        """Gives up to three names close to ``key``, for "did you mean"."""
        # Aliases take part, so "cthulu" finds The Servants of Cthulhu through "cthulhu".
        by_key = {**{k: n for n, k in self._keys.items()}, **self._aliases}
        close = difflib.get_close_matches(key, list(by_key), n=3, cutoff=0.6)
        return list(dict.fromkeys(by_key[k] for k in close))


def match_name(
    query: str,
    names: Iterable[str],
    *,
    aliases: Mapping[str, str] = _NO_ALIASES,
    what: str = "card",
) -> str:
    """Gives the one name in ``names`` that ``query`` means (see the module docstring)."""
    return NameMatcher(names, aliases=aliases, what=what).match(query)


def card_matcher(cardset: CardSet) -> NameMatcher:
    """Gives a matcher for every card name of ``cardset``, with the usual short names."""
    return NameMatcher(cardset.names(), aliases=cardset.aliases(), what="card")
