"""Mail to the game server from anyone, without a game password: the first line of the mail
that is not blank, quoted (``>``) or a comment (``#``) is one of

    HELP
    LIST
    JOIN <game> AS <name> [PREFER <Illuminati>, <Illuminati>, ...]
    OBSERVE <game>
    UNOBSERVE <game> [<code>]   (the code the observer was mailed to confirm, if asked)
    TAKEOVER <game> <seat>

One such order a mail; the lines after it are not read. See docs/orders.md, "Joining a game".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pbem.errors import OrderSyntaxError
from pbem.refusal_keys import ParserKey

__all__ = [
    "FORMS",
    "AskHelp",
    "Join",
    "ListGames",
    "LobbyOrder",
    "Observe",
    "Takeover",
    "Unobserve",
    "lobby_order",
]

FORMS = ("HELP", "LIST", "JOIN <game> AS <name> [PREFER <Illuminati>, ...]", "OBSERVE <game>",
         "UNOBSERVE <game>", "TAKEOVER <game> <seat>")
_WORDS = ("help", "list", "join", "observe", "unobserve", "takeover")
_JOIN = re.compile(r"join\s+(\S+)\s+as\s+(.+?)(\s+prefer(?:\s+(.*))?)?", re.IGNORECASE)
_GAME = re.compile(r"(observe|unobserve)\s+(\S+)(?:\s+([0-9A-Za-z]{1,20}))?", re.IGNORECASE)
_TAKEOVER = re.compile(r"takeover\s+(\S+)\s+(.+)", re.IGNORECASE)


@dataclass(frozen=True)
class AskHelp:
    """What can be mailed to the server (any words after HELP are not read)."""


@dataclass(frozen=True)
class ListGames:
    """The games open for sign-up, and those running."""


@dataclass(frozen=True)
class Join:
    game: str
    name: str
    prefer: tuple[str, ...] = ()  # Illuminati as written, first choice first


@dataclass(frozen=True)
class Observe:
    game: str


@dataclass(frozen=True)
class Unobserve:
    game: str
    code: str = ""  # the confirmation the observer was mailed, when one is needed


@dataclass(frozen=True)
class Takeover:
    game: str
    seat: str


LobbyOrder = AskHelp | ListGames | Join | Observe | Unobserve | Takeover


def _first_line(text: str) -> tuple[int, str] | None:
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line and not line.startswith((">", "#")):
            return number, line
    return None


def _join_problem(line: str) -> ParserKey:
    """What a JOIN line that does not read lacks (a key of the parser's catalogue)."""
    key: ParserKey
    words = [w.casefold() for w in line.split()]
    after = words[words.index("as", 2) + 1:] if "as" in words[2:] else []
    if len(words) < 2 or words[1] in ("as", "prefer"):
        key = "join_no_game"
    elif "as" not in words[2:]:
        key = "join_no_as"
    elif not after or after[0] == "prefer":
        key = "join_no_name"
    else:
        key = "join_no_prefer"
    return key


def lobby_order(text: str) -> LobbyOrder | None:
    """The order of a mail to the server (not to a seat), None when the mail's first line is
    none of those words (an order mail, or no order at all). Raises OrderSyntaxError when it
    begins with one of them but does not read."""
    first = _first_line(text)
    if first is None:
        return None
    number, line = first
    line = re.sub(r"[.!]+$", "", " ".join(line.split()))
    word = line.split()[0].casefold()
    if word not in _WORDS:
        return None
    if word == "help":
        return AskHelp()
    if word == "list":
        if line.casefold() == "list":
            return ListGames()
    elif word == "join":
        joined = _JOIN.fullmatch(line)
        prefer = tuple(p.strip() for p in (joined.group(4) or "").split(",")
                       if p.strip()) if joined else ()
        if joined and (prefer or joined.group(3) is None) and (
                joined.group(2).split()[0].casefold() != "prefer"):
            return Join(joined.group(1), joined.group(2).strip(), prefer)
        raise OrderSyntaxError(line=number, text=line, key=_join_problem(line), hint="write_as",
                               usage=FORMS[2])
    elif word == "takeover" and (taken := _TAKEOVER.fullmatch(line)):
        return Takeover(taken.group(1), taken.group(2).strip())
    elif (named := _GAME.fullmatch(line)) is not None:
        if word == "observe" and named.group(3) is None:
            return Observe(named.group(2))
        if word == "unobserve":
            return Unobserve(named.group(2), named.group(3) or "")
    form = next(f for f in FORMS if f.split()[0].casefold() == word)
    raise OrderSyntaxError(line=number, text=line, key="lobby_form", hint="write_as",
                           usage=form)
