"""An order mail's text to its header and orders, every bad line reported, none fatal.

The orders are the lines from the start line (first word GAME) to a line END. Everything
outside them is ignored, so a reply that quotes the last report works; so are blank lines,
``#`` comments and lines starting with ``>`` (quoted). Without END the orders run to the end
of the text, or to a ``-- `` signature line, or to a line that begins an earlier mail pasted
below them without ``>`` (``-----Original Message-----``, ``On ... wrote:``, a second start
line), and a warning says so. A PRESS TO line takes the lines after it, as they are, up to
END PRESS.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pbem.engine.cards import CardSet
from pbem.errors import OrderSyntaxError, PbemError
from pbem.orders.grammar import Reader, syntax_error
from pbem.orders.lexer import split_comment, tokenize
from pbem.orders.line import read_order
from pbem.orders.model import Header, Located, OrderWarning, ParsedOrders, Press
from pbem.orders.vocabulary import Vocabulary

__all__ = ["HEADER_FORM", "StartLine", "blank_password", "parse_header", "parse_orders",
           "read_start"]

HEADER_FORM = "GAME <game> PLAYER <name> PASSWORD <password> [TURN <number>]"
_PASSWORD = re.compile(r"""(\bpassword\s+)("[^"]*"|“[^”]*”|\S+)""", re.IGNORECASE)
_SIGNATURE = "--"  # the usual "-- " line before a signature, trailing blank stripped
_MAX_LINE = 1000  # characters; a longer line is no order a person wrote
# How orders without END were read, by what ended them: the warning the answer gives.
_NO_END = {
    "signature": OrderWarning("there is no END line: the orders were read up to the "
                              "signature line", key="no_end_signature"),
    "": OrderWarning("there is no END line: the orders were read to the end of the mail",
                     key="no_end_mail"),
}
# A line where a mail client begins the earlier mail, pasted below a reply without ">":
# "-----Original Message-----" (Outlook), "________________________________" (Outlook's
# line before From:/Sent:), "---------- Forwarded message ---------" (Gmail), "On <date>,
# <name> wrote:" and their French forms. What follows is the report, not orders.
_PASTED = re.compile(
    r"-{3,} ?(original message|message d'origine|forwarded message|message transféré) ?-{3,}"
    r"|_{10,}"
    r"|(on|le) .+ (wrote|a écrit) ?:",
    re.IGNORECASE,
)


def blank_password(line: str) -> str:
    """Gives the line with the word after PASSWORD replaced by ``******``."""
    span = _secret_span(line)
    return line if span is None else f"{line[:span[0]]}******{line[span[1]:]}"


def _secret_span(line: str) -> tuple[int, int] | None:
    """Gives where the password is on a start line, or None."""
    pos = 0
    while (found := _PASSWORD.search(line, pos)) is not None:
        # "PLAYER Password PASSWORD x": the first PASSWORD is a name, the secret is x.
        if _PASSWORD.match(line, found.start(2)) is not None:
            pos = found.start(2)
            continue
        return found.span(2)
    return None


@dataclass(frozen=True)
class StartLine:
    """An order mail's start line read without the game's players: its index among the
    text's lines, and its header (the player's name as written)."""

    index: int
    header: Header


def parse_header(text: str, cards: CardSet) -> Header:
    """Gives the start line of an order mail's text alone (which game, which player), as
    ``parse_orders`` reads it; raises OrderSyntaxError when there is no readable one."""
    return read_start(text, cards).header


def read_start(text: str, cards: CardSet) -> StartLine:
    """Gives where the start line of an order mail's text is and what it says, as
    ``parse_header``; ``parse_orders`` takes it to read that line only once."""
    return StartLine(*_find_header(text.splitlines(), Vocabulary(cards)))


def parse_orders(text: str, cards: CardSet, players: Sequence[str] = (),
                 start: StartLine | None = None) -> ParsedOrders:
    """Gives the header and every order of an order mail's text, with the errors found.

    A bad line becomes an OrderSyntaxError in ``errors`` and reading goes on with the next
    line. Names are matched to ``cards``, and to ``players`` when given (else player names
    are kept as written). Raises OrderSyntaxError only when there is no readable start line.
    ``start``, if given, is what ``read_start`` gave for the same text and cards.
    """
    lines = text.splitlines()
    vocabulary = Vocabulary(cards, players)
    at, header = _start_line(lines, vocabulary, start)
    reading = _Reading(header.player, vocabulary)
    ended_by = ""
    in_press: tuple[int, str, Press] | None = None
    press_lines: list[str] = []
    for number, raw in enumerate(lines[at + 1:], start=at + 2):
        line = raw.strip()
        if line.startswith(">"):
            continue
        words = split_comment(line).casefold().split()
        if words == ["end"]:
            ended_by = "end"
            break
        if in_press is None and line == _SIGNATURE:
            ended_by = "signature"
            break
        second_start = _is_start_line(words)
        if in_press is None and (second_start or _PASTED.fullmatch(line)):
            reading.pasted(number, line, first_line=at + 1, second_start=second_start)
            ended_by = "pasted"
            break
        if in_press is not None:
            if words == ["end", "press"]:
                reading.finish_press(in_press, press_lines)
                in_press, press_lines = None, []
            else:
                press_lines.append(raw.rstrip())
            continue
        if not words:
            continue
        if words == ["end", "press"] or words[0] == "game":
            reading.misplaced(number, line, first_line=at + 1)
            continue
        in_press = reading.line(number, line)
    if in_press is not None:
        reading.errors.append(OrderSyntaxError(line=in_press[0], text=in_press[1],
                                               key="press_unended", hint="end_press"))
    if ended_by in _NO_END:  # (a pasted mail has its refused line saying so already)
        reading.warnings.append(_NO_END[ended_by])
    return ParsedOrders(header, tuple(reading.orders), tuple(reading.errors),
                        tuple(reading.warnings))


class _Reading:
    """The orders and errors of one mail so far."""

    def __init__(self, player: str, vocabulary: Vocabulary) -> None:
        self.player = player
        self.vocabulary = vocabulary
        self.orders: list[Located] = []
        self.errors: list[OrderSyntaxError] = []
        self.warnings: list[OrderWarning] = []

    def line(self, number: int, line: str) -> tuple[int, str, Press] | None:
        """Reads one order line; gives the press it opens (line, text, order), if any."""
        if len(line) > _MAX_LINE:
            self.errors.append(OrderSyntaxError(
                line=number, text=line[:80] + "...", key="line_too_long", hint="one_order_a_line",
                length=len(line),
            ))
            return None
        try:
            tokens = tokenize(line)
            if not tokens:
                return None
            order = read_order(tokens, self.vocabulary, self.player, line=number, text=line)
        except OrderSyntaxError as error:
            error.line, error.text = number, line
            self.errors.append(error)
            return None
        if isinstance(order, Press):
            return number, line, order
        self.orders.append(Located(number, line, order))
        return None

    def pasted(self, number: int, line: str, *, first_line: int, second_start: bool) -> None:
        """Reports the line where an earlier mail (or a second set of orders) begins: the
        orders stop there, so that a report pasted below them is not read as orders."""
        if second_start:
            self.errors.append(OrderSyntaxError(
                line=number, text=blank_password(line), key="second_start", hint="one_set",
                first_line=first_line,
            ))
            return
        self.errors.append(OrderSyntaxError(line=number, text=line, key="pasted",
                                            hint="end_with_end"))

    def misplaced(self, number: int, line: str, *, first_line: int) -> None:
        """Reports an END PRESS outside a press, or a GAME line after the start line."""
        if line.split()[0].casefold() == "game":
            self.errors.append(OrderSyntaxError(
                line=number, text=blank_password(line), key="second_start_line", hint="one_set",
                first_line=first_line,
            ))
            return
        self.errors.append(OrderSyntaxError(line=number, text=line, key="end_press_alone",
                                            hint="press_begin"))

    def finish_press(self, opened: tuple[int, str, Press], body: list[str]) -> None:
        number, line, press = opened
        message = "\n".join(body).strip("\n")
        if not message.strip():
            self.errors.append(OrderSyntaxError(line=number, text=line, key="press_empty",
                                                hint="press_body"))
            return
        self.orders.append(Located(number, line, replace(press, text=message)))


def _is_start_line(words: list[str]) -> bool:
    """True for the words of a start line (GAME ... PLAYER ...): the order form of a pasted
    report, or a second set of orders."""
    return bool(words) and words[0] == "game" and "player" in words


def _start_line(lines: list[str], vocabulary: Vocabulary,
                start: StartLine | None) -> tuple[int, Header]:
    """Gives the index of the start line and its header, as ``_find_header`` does.

    The start line read without the players is the one read with them when its player's
    name matches one of them: nothing else on it depends on the players, and lines before
    it that cannot be read without them cannot be with them. Only the name is matched then.
    """
    if start is not None and vocabulary.could_match("player", start.header.player):
        try:
            player = vocabulary.resolve("player", start.header.player)
        except PbemError:  # read again with the players, for the error or a later line
            return _find_header(lines, vocabulary)
        header = start.header
        return start.index, header if player == header.player else replace(header, player=player)
    return _find_header(lines, vocabulary)


def _find_header(lines: list[str], vocabulary: Vocabulary) -> tuple[int, Header]:
    """Gives the index of the start line and its header; raises OrderSyntaxError if none."""
    first_error: OrderSyntaxError | None = None
    for index, raw in enumerate(lines):
        line = raw.strip()
        words = line.split(maxsplit=1)
        if not words or words[0].casefold() != "game":
            continue
        try:
            return index, _read_header(line, index + 1, vocabulary)
        except OrderSyntaxError as error:
            first_error = first_error or error
    if first_error is not None:
        raise first_error
    raise OrderSyntaxError(key="no_start_line", hint="start_form", form=HEADER_FORM)


def _read_header(line: str, number: int, vocabulary: Vocabulary) -> Header:
    span = _secret_span(line)
    secret = line[span[0]:span[1]] if span else None

    def hidden(message: str | None) -> str | None:
        # The reply quotes the error back: the password must not travel in it.
        if not message or not secret:
            return message
        return re.sub(rf"(?<!\w){re.escape(secret)}(?!\w)", "******", message)

    try:
        tokens = tokenize(line)
        r = Reader(tokens, vocabulary, "")
        for header, end in _header(r):
            if end == len(tokens):
                return header
            r.fail(end, "unexpected_after_start", weak=True, words={"shown": r.seen(end)})
        error = syntax_error(r.failure, vocabulary, number, line, (HEADER_FORM,))
    except OrderSyntaxError as unreadable:
        error = unreadable
    words: dict[str, Any] = {k: hidden(v) if isinstance(v, str) else v
                             for k, v in error.words.items()}
    raise type(error)(line=number, text=blank_password(line), key=error.key, hint=error.hint,
                      **words)


def _header(r: Reader) -> Iterator[tuple[Header, int]]:
    """Yields ``GAME <game> PLAYER <name> PASSWORD <password> [TURN <n>]``."""
    if len(r.tokens) < 2 or r.word(1) == "player":
        r.fail(1, "game_missing")
        return
    game = r.tokens[1].text
    for _, at in r.keyword(2, "player", where="after the game's name"):
        for player, pw_at in r.name(at, "player", "your player name", ("password",),
                                    at_end=False):
            for _, secret_at in r.keyword(pw_at, "password", where="after your name"):
                if r.at_end(secret_at):
                    r.fail(secret_at, "password_missing")
                    continue
                password = r.tokens[secret_at].text
                end = secret_at + 1
                if r.word(end) != "turn":
                    yield Header(game, player, password), end
                    continue
                for turn, last in r.number(end + 1, "the turn number", money=False):
                    yield Header(game, player, password, turn), last
