"""Order lines as tokens: words, quoted names and commas; ``#`` starts a comment.

Quotes may be straight (``"C.I.A."``), curly as phones type them (``“C.I.A.”``) or French
guillemets (``« C.I.A. »``). A quoted name is one token and never a keyword, so it may hold
anything but its closing quote, commas and ``#`` included.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pbem.errors import OrderSyntaxError

__all__ = ["RESERVED", "WHOLE_RESERVED", "Token", "quote_name", "split_comment", "tokenize"]

# Words that end a name in some order (``GIVE 3 MB TO Bob``, ``ATTACK Mafia CONTROL ...``).
# A name holding one of them is written in quotes by the formatter, so it always reads back.
RESERVED = frozenset(
    {
        "and", "at", "attacks", "bonus", "bottom", "control", "destroy", "down", "from", "left",
        "mb", "move", "neutralise", "neutralize", "on", "password", "play", "privilege",
        "right", "spend", "starts", "then", "to", "top", "up", "upto", "with",
    }
)  # fmt: skip
# Words that mean something when they are the whole name (``STANDING DEFEND ANY ...``).
WHOLE_RESERVED = frozenset({"all", "any", "anyone", "card", "me"})

_CLOSING = {'"': '"', "“": "”", "«": "»"}
_TOKEN = re.compile(
    r"""\s*(?:
        (?P<open>["“«])
      | (?P<comma>,)
      | (?P<comment>\#)
      | (?P<word>[^\s,#"“”«»]+)
      | (?P<stray>[”»])
    )""",
    re.VERBOSE,
)
_NUMBER_LIKE = re.compile(r"[+-]?\d", re.ASCII)


@dataclass(frozen=True)
class Token:
    """One token: ``text`` as written (without its quotes when ``quoted``)."""

    text: str
    quoted: bool = False
    # The keyword form (lower case), or ``""`` for a quoted name: read again and again as a
    # line's readings are tried, so worked out once.
    word: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "word", "" if self.quoted else self.text.casefold())


def tokenize(line: str) -> tuple[Token, ...]:
    """Gives the tokens of one order line, up to a ``#`` comment.

    Raises OrderSyntaxError for a quote that is opened and never closed.
    """
    tokens: list[Token] = []
    at = 0
    while at < len(line):
        found = _TOKEN.match(line, at)
        if found is None:  # only trailing whitespace is left
            break
        at = found.end()
        kind = found.lastgroup  # the one alternative that matched
        if kind == "comment":
            break
        if kind == "comma":
            tokens.append(Token(","))
        elif kind == "word":
            tokens.append(Token(found["word"]))
        elif kind == "stray":
            raise OrderSyntaxError(
                text=line, key="stray_quote", hint="straight_quotes", quote=found["stray"],
            )
        elif kind == "open":
            opener = found["open"]
            closers = {_CLOSING[opener], '"'}
            end = min((i for i in (line.find(c, at) for c in closers) if i >= 0), default=-1)
            if end < 0:
                raise OrderSyntaxError(
                    text=line, key="unclosed_quote", hint="close_quote", quote=opener,
                )
            tokens.append(Token(line[at:end].strip(), quoted=True))
            at = end + 1
    return tuple(tokens)


def split_comment(line: str) -> str:
    """Gives the line without its ``#`` comment (a ``#`` inside quotes is kept)."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            if char in (_CLOSING[quote], '"'):
                quote = ""
        elif char in _CLOSING:
            quote = char
        elif char == "#":
            return line[:i]
    return line


def quote_name(name: str) -> str:
    """Gives ``name`` as the formatter writes it: bare when it reads back as itself, else quoted."""
    if _reads_back_bare(name):
        return name
    if '"' not in name:
        return f'"{name}"'
    if "”" not in name:
        return f"“{name}”"
    raise ValueError(f"the name {name!r} holds both kinds of closing quote and cannot be written")


def _reads_back_bare(name: str) -> bool:
    try:
        tokens = tokenize(name)
    except OrderSyntaxError:
        return False
    if not tokens or any(t.quoted or t.text == "," for t in tokens):
        return False
    if " ".join(t.text for t in tokens) != name or name.startswith(">"):
        return False
    words = [t.word for t in tokens]
    if any(w in RESERVED for w in words) or words[0] in WHOLE_RESERVED:
        return False
    return not _NUMBER_LIKE.match(words[0])
