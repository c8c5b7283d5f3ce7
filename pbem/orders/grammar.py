"""The pieces every order is read with: keywords, numbers, names between keywords.

Names may hold spaces and even keywords ("Orbital Mind Control Lasers", "Secrets Man Was Not
Meant To Know"), so a name does not simply end at the first keyword: each reader below
*yields* every way the tokens can be read, longest name first, and an order is the first
reading that gets through to the end of the line with every name known. When none does, the
error is the one met furthest along the line (a later, shorter reading wins a tie), which is
where the writer went wrong.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from pbem.errors import AmbiguousNameError, OrderSyntaxError, ParserError
from pbem.orders.errors import AmbiguousOrderError
from pbem.orders.lexer import Token
from pbem.orders.vocabulary import NameKind, Vocabulary
from pbem.refusal_keys import ParserHint, ParserKey

__all__ = ["Clause", "Failure", "Fields", "Hint", "LineReader", "TooTangled", "hint_of",
           "syntax_error"]

Fields = dict[str, Any]
"""Fields of an order value set by clauses, by name (applied with ``dataclasses.replace``)."""
Clause = Callable[["LineReader", int], Iterator[tuple[Fields, int]]]
"""Reads one optional part of an order (``SPEND 3 FROM Mafia``): the fields it sets, and where
it ends."""

# Other spellings players use for a keyword, all read as the keyword itself.
SPELLINGS: Mapping[str, tuple[str, ...]] = {
    "upto": ("up to",),
    "neutralize": ("neutralise",),
    "succeeds": ("succeed",),
    "fails": ("fail",),
    "top": ("up",),
    "bottom": ("down",),
}
_MONEY = re.compile(r"(\d+)(mb)?", re.ASCII)
_NEGATIVE = re.compile(r"-\s*\d+(mb)?", re.ASCII)
_FRACTION = re.compile(r"\d*[.,]\d+(mb)?", re.ASCII)
_MAX_DIGITS = 6  # no game has a million MB; more digits is a typing slip
_MAX_COUNT_DIGITS = 12  # turn and state numbers grow with the game, but not that far
_MAX_STEPS = 4000  # readings tried for one line before giving up (bounds the work)


class TooTangled(Exception):
    """A line has too many possible readings to try them all."""


@dataclass(frozen=True)
class Hint:
    """A suggestion: its key and words, worded in the reader's language by the catalogue
    (``templates/_parser_refusals.txt.j2``, see ``ParserError``)."""

    key: ParserHint
    words: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Failure:
    """Why a reading stopped, and at which token."""

    pos: int
    # The message's key, and the words of message and suggestion. No key means a name
    # ruled out without a search: its message and "did you mean" are made if it is reported.
    key: ParserKey | None
    ambiguous: bool = False
    unknown: tuple[NameKind, str] | None = None  # a name that matched nothing (kind, query)
    hinted: bool = False  # the suggestion is a keyword the writer may have misspelt
    words: Mapping[str, Any] = field(default_factory=dict)
    hint: ParserHint | None = None  # the suggestion's key


class LineReader:
    """One order line's tokens, and the readers an order is built from."""

    def __init__(self, tokens: tuple[Token, ...], vocabulary: Vocabulary, player: str) -> None:
        self.tokens = tokens
        self.vocabulary = vocabulary
        self.player = player
        self.failure: Failure | None = None
        self._names: dict[tuple[str, int, int], str | None] = {}
        self._steps = 0

    # --- failures -----------------------------------------------------------------------

    def fail(
        self,
        pos: int,
        key: ParserKey | None,
        suggestion: Hint | None = None,
        *,
        ambiguous: bool = False,
        unknown: tuple[NameKind, str] | None = None,
        hinted: bool = False,
        weak: bool = False,
        words: Mapping[str, Any] | None = None,
    ) -> None:
        """Records a failure at token ``pos`` unless one further along is known.

        A ``weak`` failure (a generic "unexpected word") does not replace a specific one at
        the same place. ``key`` and ``words`` name the message in the catalogue; a
        ``suggestion`` brings its own key and words.
        """
        current = self.failure
        if current is None or pos > current.pos or (pos == current.pos and not weak):
            said = dict(words or {})
            if suggestion is not None:
                said.update(suggestion.words)
            self.failure = Failure(pos, key, ambiguous, unknown, hinted, said,
                                   suggestion.key if suggestion else None)

    def _step(self) -> None:
        self._steps += 1
        if self._steps > _MAX_STEPS:
            raise TooTangled

    # --- tokens -------------------------------------------------------------------------

    def word(self, pos: int) -> str:
        """Gives the keyword form of token ``pos``, or ``""`` past the end or for a quoted name."""
        return self.tokens[pos].word if pos < len(self.tokens) else ""

    def seen(self, pos: int) -> str | None:
        """Gives token ``pos`` as the writer typed it, quoted, or None past the end (the
        catalogue says "the end of the line")."""
        return repr(self.tokens[pos].text) if pos < len(self.tokens) else None

    def at_end(self, pos: int) -> bool:
        return pos >= len(self.tokens)

    def matches(self, pos: int, keyword: str) -> int | None:
        """Gives the end of ``keyword`` (or one of its spellings) at ``pos``, or None."""
        for spelling in (keyword, *SPELLINGS.get(keyword, ())):
            parts = spelling.split()
            if all(self.word(pos + i) == part for i, part in enumerate(parts)):
                return pos + len(parts)
        return None

    # --- readers ------------------------------------------------------------------------

    def keyword(self, pos: int, *choices: str, where: str = "") -> Iterator[tuple[str, int]]:
        """Yields the keyword among ``choices`` found at ``pos`` (as its choice) and its end."""
        self._step()
        for choice in choices:
            end = self.matches(pos, choice)
            if end is not None:
                yield choice, end
                return
        self.fail(pos, "expected", self.keyword_hint(pos, pos + 1, choices),
                  words={"expected": [c.upper() for c in choices], "where": where,
                         "shown": self.seen(pos)})

    def number(
        self, pos: int, what: str, *, minimum: int = 0, money: bool = True
    ) -> Iterator[tuple[int, int]]:
        """Yields a whole number at ``pos`` (``3``, ``3MB`` or ``3 MB`` for money) and its end."""
        self._step()
        if self.at_end(pos):
            self.fail(pos, "missing_at_end", words={"what": what})
            return
        text = self.word(pos)
        found = _MONEY.fullmatch(text)
        if found is None or (found[2] and not money):
            if _NEGATIVE.fullmatch(text) or (text == "-" and _MONEY.match(self.word(pos + 1))):
                self.fail(pos, "negative", Hint("at_least", {"least": minimum}),
                          words={"what": what})
            elif _FRACTION.fullmatch(text):
                self.fail(pos, "not_whole", words={"what": what, "shown": self.seen(pos)})
            else:
                self.fail(pos, "not_a_number", words={"what": what, "shown": self.seen(pos)})
            return
        if len(found[1]) > (_MAX_DIGITS if money else _MAX_COUNT_DIGITS):
            self.fail(pos, "too_large", words={"what": what, "shown": self.seen(pos)})
            return
        value = int(found[1])
        if value < minimum:
            self.fail(pos, "below_minimum",
                      words={"what": what, "least": minimum, "value": value})
            return
        end = pos + 1
        if money and not found[2] and self.word(end) == "mb":
            end += 1
        yield value, end

    def name(
        self,
        pos: int,
        kind: NameKind,
        what: str,
        stops: Iterable[str],
        *,
        at_end: bool = True,
        expected: tuple[str, ...] = (),
    ) -> Iterator[tuple[str, int]]:
        """Yields each reading of a name at ``pos`` that ends before one of ``stops``.

        ``stops`` are keywords (or ``","``) that may follow the name; ``at_end`` allows the
        name to run to the end of the line; ``expected`` names what must follow, for the
        message when nothing does. Longest names come first; of a name taken as written (a
        player's, with no players given), the shortest: one that holds a keyword is quoted.
        """
        self._step()
        stop_list = tuple(stops)
        first_words = {s.split()[0] for k in stop_list for s in (k, *SPELLINGS.get(k, ()))}
        tokens = self.tokens
        if self.at_end(pos):
            self.fail(pos, "missing_at_end", words={"what": what})
            return
        if not tokens[pos].quoted and (tokens[pos].text == "," or tokens[pos].word in first_words):
            self.fail(pos, "missing_before", words={"what": what, "shown": self.seen(pos)})
            return
        ends: list[int] = []
        if tokens[pos].quoted:
            ends.append(pos + 1)
        else:
            for end in range(pos + 1, len(tokens) + 1):
                if end == len(tokens):
                    if at_end:
                        ends.append(end)
                    break
                token = tokens[end]
                if token.quoted or token.text == ",":
                    if "," in stop_list and token.text == "," and not token.quoted:
                        ends.append(end)
                    elif not ends:
                        self.fail(end, "unexpected_in", Hint("quote_name"),
                                  words={"what": what, "shown": self.seen(end)})
                    break
                if token.word in first_words:
                    ends.append(end)
        if not ends:
            wanted = list(expected) or [s.upper() for s in stop_list if s != ","]
            self.fail(len(tokens), "expected_after",
                      self.keyword_hint(pos, len(tokens), stop_list),
                      words={"expected": wanted, "what": what})
            return
        for end in reversed(ends) if self.vocabulary.checks(kind) else ends:
            found = self._resolve(kind, what, pos, end, stop_list)
            if found is not None:
                yield found, end

    def names(
        self, pos: int, kind: NameKind, what: str, stops: Iterable[str], *, most: int = 20
    ) -> Iterator[tuple[tuple[str, ...], int]]:
        """Yields a comma-separated list of names at ``pos`` (``CIA, Pentagon``) and its end."""
        stop_list = tuple(stops)
        for first, end in self.name(pos, kind, what, (*stop_list, ",", "and")):
            if self.word(end) not in (",", "and"):
                yield (first,), end
            elif most > 1:
                for rest, rest_end in self.names(end + 1, kind, what, stop_list, most=most - 1):
                    yield (first, *rest), rest_end
            else:
                self.fail(end, "too_many_names", words={"what": what})

    def clauses(
        self,
        pos: int,
        table: Mapping[str, Clause],
        where: str,
        seen: frozenset[str] = frozenset(),
        *,
        hint: Hint | None = None,
    ) -> Iterator[tuple[Fields, int]]:
        """Yields the fields set by optional clauses, each at most once, in any order, to the
        end of the line. ``hint`` is the suggestion when an unknown word follows."""
        self._step()
        if self.at_end(pos):
            yield {}, pos
            return
        for keyword, clause in table.items():
            after = self.matches(pos, keyword)
            if after is None:
                continue
            if keyword in seen:
                self.fail(pos, "given_twice", words={"keyword": keyword.upper(), "where": where})
                return
            for fields, end in clause(self, after):
                for more, last in self.clauses(end, table, where, seen | {keyword}, hint=hint):
                    yield {**fields, **more}, last
            return
        left = [k.upper() for k in table if k not in seen]
        self.fail(pos, "expected_or_end",
                  self.keyword_hint(pos, pos + 1, [k for k in table if k not in seen]) or hint,
                  words={"expected": left, "where": where, "shown": self.seen(pos)})

    # --- helpers ------------------------------------------------------------------------

    def keyword_hint(self, start: int, end: int, keywords: Iterable[str]) -> Hint | None:
        """Gives "did you mean SPEND?" when a token in ``start:end`` looks like a keyword."""
        words = [s for k in keywords if k != "," for s in (k, *SPELLINGS.get(k, ()))]
        single = [w for w in words if " " not in w]
        for pos in range(start, min(end, len(self.tokens))):
            token = self.tokens[pos]
            if token.quoted or len(token.word) < 2:
                continue
            close = difflib.get_close_matches(token.word, single, n=1, cutoff=0.7)
            if close:
                return Hint("keyword_instead", {"keyword": close[0].upper(),
                                                "typed": repr(token.text)})
        return None

    def _resolve(
        self, kind: NameKind, what: str, start: int, end: int, stops: tuple[str, ...]
    ) -> str | None:
        key = (kind, start, end)
        if key in self._names:
            return self._names[key]
        self._step()
        parts = self.tokens[start:end]
        query = parts[0].text if parts[0].quoted else " ".join(t.text for t in parts)
        keyword = self.keyword_hint(start, end, stops) if end - start > 1 else None
        found: str | None = None
        if not self.vocabulary.could_match(kind, query):
            self.fail(start, None, keyword, unknown=(kind, query), hinted=keyword is not None)
        else:
            try:
                found = self.vocabulary.resolve(kind, query)
            except ParserError as error:
                ambiguous = isinstance(error, AmbiguousNameError)
                self.fail(start, error.key, keyword or hint_of(error),
                          ambiguous=ambiguous, unknown=None if ambiguous else (kind, query),
                          hinted=keyword is not None,
                          words={**error.words, "query": repr(query)})
        self._names[key] = found
        return found


def hint_of(error: ParserError) -> Hint | None:
    """Gives the suggestion of ``error`` with its key and words, if it has one."""
    return Hint(error.hint, error.words) if error.hint else None


def syntax_error(
    failure: Failure | None, vocabulary: Vocabulary, line: int | None, text: str,
    forms: tuple[str, ...],
) -> OrderSyntaxError:
    """Gives the error for a line no reading got through, with the order's forms (one, or
    its alternatives) as a hint."""
    usage = {"usage": forms[0]} if len(forms) == 1 else {"forms": list(forms)}
    write_as: ParserHint = "write_as" if len(forms) == 1 else "write_as_forms"
    if failure is None:
        return OrderSyntaxError(line=line, text=text, key="unreadable", hint=write_as, **usage)
    key, hint, words = failure.key, failure.hint, dict(failure.words)
    if failure.unknown is not None:
        kind, query = failure.unknown
        if key is None:
            try:
                vocabulary.resolve(kind, query)
                key = "name_not_here"
            except ParserError as error:
                key = error.key
                words.update(error.words)
                hint = hint or error.hint
            words["query"] = repr(query)
        other = None if failure.hinted else vocabulary.wrong_kind(kind, query)
        if other is not None:
            key, hint = other.key, other.hint
            words.update(other.words)
    if hint is None:
        hint = write_as
        words.update(usage)
    kind_of = AmbiguousOrderError if failure.ambiguous else OrderSyntaxError
    return kind_of(line=line, text=text, key=key, hint=hint, **words)
