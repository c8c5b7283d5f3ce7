"""Names an order may hold, by what the order expects there: a group, a special card, a player.

Matching itself is ``pbem.orders.names`` (case, punctuation, prefixes, aliases, "did you mean");
this module only picks the list to match against, so ``DROP Brib`` can say that Bribery is a
special card rather than "no such group".
"""

from __future__ import annotations

import difflib
import functools
import zoneinfo
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Literal

from pbem.engine.cards import ALIGNMENTS, CardSet
from pbem.errors import ParserError, PbemError, UnknownNameError
from pbem.orders.names import NameMatcher, normalize_name

__all__ = ["NameKind", "Vocabulary", "canonical_zone"]

NameKind = Literal["group", "card", "special", "gift", "player", "spied", "alignment"]

class _Names:
    """A NameMatcher, and a quick test that rules out queries none of its stages can match.

    Reading a line tries names that run past where they end ("Pentagon SPEND 3"); each
    miss would cost the matcher a "did you mean" search, so misses are ruled out here first.
    """

    def __init__(
        self, names: Iterable[str], *, aliases: Mapping[str, str] = MappingProxyType({}),
        what: str,
    ) -> None:
        self.matcher = NameMatcher(names, aliases=aliases, what=what)
        words = [normalize_name(n).split() for n in self.matcher.names]
        keys = ["".join(w) for w in words]
        self._words = {w[:i] for ws in words for w in ws for i in range(1, len(w) + 1)}
        self._keys = {k[:i] for k in keys for i in range(1, len(k) + 1)}
        self._aliases = {normalize_name(a).replace(" ", "") for a in aliases}

    def could_match(self, query: str) -> bool:
        """False when no stage of the matcher can match ``query`` (a necessary condition).

        Whole name and unique beginning: the query is the beginning of a name; alias: it is
        an alias; beginnings of words: each of its words begins some word of a name.
        """
        words = normalize_name(query).split()
        key = "".join(words)
        if not words or key in self._keys or key in self._aliases:
            return True
        return all(w in self._words for w in words)


class Vocabulary:
    """Resolves names for one card set and one list of players (empty: players unchecked)."""

    def __init__(self, cards: CardSet, players: Sequence[str] = ()) -> None:
        self.cards = cards
        self.players = tuple(players)
        self._names = _card_names(cards)
        if self.players:
            self._names = {**self._names, **_player_names(cards, self.players)}

    def resolve(self, kind: NameKind, query: str) -> str:
        """Gives the canonical name ``query`` means as a ``kind``; raises a name error if none."""
        if not self.checks(kind):  # a player, or a player or card, with no players given
            return self._as_written(kind, query)
        return self._names[kind].matcher.match(query)

    def checks(self, kind: NameKind) -> bool:
        """Whether a ``kind`` name is checked against a list (else taken as written)."""
        return kind in self._names

    def could_match(self, kind: NameKind, query: str) -> bool:
        """False when ``resolve`` would surely fail for ``query`` (cheap, no suggestions)."""
        return not self.checks(kind) or self._names[kind].could_match(query)

    def _as_written(self, kind: NameKind, query: str) -> str:
        if kind == "spied":
            # Without the players, a name that is no card is taken as a player's, as written.
            try:
                return self._names["card"].matcher.match(query)
            except UnknownNameError:
                pass
        return " ".join(query.split())

    def special_copies(self, name: str) -> int:
        return self.cards.special(name).copies

    def wrong_kind(self, kind: NameKind, query: str) -> ParserError | None:
        """Gives the error for a ``kind`` name that is a card of another kind, else None.

        Kept apart from ``resolve`` because it costs a second search, worth it only for the
        one error that is reported.
        """
        if kind not in self._names or kind in ("player", "spied"):
            return None
        wanted = self._names[kind].matcher.what
        try:
            found = self._names["any"].matcher.match(query)
        except PbemError:
            return None
        kind_found = self.cards.card(found).kind
        return UnknownNameError(
            text=query, key="wrong_kind", hint="name_kind_here",
            found=found, found_kind=kind_found, what=wanted,
        )


def _structure(cards: CardSet) -> list[str]:
    """Gives the names of the cards that can be in a power structure: Illuminati and groups."""
    return [*(c.name for c in cards.illuminati), *(c.name for c in cards.groups)]


@functools.lru_cache(maxsize=4)
def _card_names(cards: CardSet) -> dict[str, _Names]:
    structure = _structure(cards)
    groups = [c.name for c in cards.groups]
    specials = [c.name for c in cards.specials]
    return {
        "group": _Names(groups, aliases=cards.aliases(), what="group"),
        "card": _Names(structure, aliases=cards.aliases(), what="Illuminati or group"),
        "special": _Names(specials, aliases=cards.aliases(), what="special card"),
        "gift": _Names([*groups, *specials], aliases=cards.aliases(), what="group or special card"),
        "alignment": _Names(ALIGNMENTS, what="alignment"),
        "any": _Names(cards.names(), aliases=cards.aliases(), what="card"),
    }


@functools.lru_cache(maxsize=16)
def _player_names(cards: CardSet, players: tuple[str, ...]) -> dict[str, _Names]:
    """Gives the names for players, and for Computer Espionage's player-or-group."""
    return {
        "player": _Names(players, what="player"),
        "spied": _Names((*players, *_structure(cards)), aliases=cards.aliases(),
                        what="player or group"),
    }


@functools.cache
def _zones() -> dict[str, str]:
    """Gives every IANA key zoneinfo knows, by its lower-case form (read once)."""
    return {key.casefold(): key for key in zoneinfo.available_timezones()}


def canonical_zone(query: str) -> str:
    """Gives the IANA time zone key ``query`` names, in its own spelling.

    Raises UnknownNameError (with close keys as suggestions) when zoneinfo knows no such zone.
    """
    zones = _zones()
    key = zones.get(query.casefold())
    if key is None:
        try:  # a zone the installed tzdata has that available_timezones() does not list
            zoneinfo.ZoneInfo(query)
            key = query
        except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
            key = None
    if key is not None:
        return key
    close = difflib.get_close_matches(query.casefold(), list(zones), n=3, cutoff=0.6)
    names = [zones[c] for c in close]
    raise UnknownNameError(text=query, key="unknown_zone",
                           hint="did_you_mean" if names else "zone_example", names=names)
