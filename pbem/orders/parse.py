"""An order mail's text to its header and orders, every bad line reported, none fatal.

The orders are the lines from the start line (first word GAME) to a line END. Everything
outside them is ignored, so a reply that quotes the last report works; so are blank lines,
``#`` comments and lines starting with ``>`` (quoted). Without END the orders run to the end
of the text, or to a ``-- `` signature line, a sign-off or a phone's signature ("Hilsen",
"Sent from my Wiko", in the languages of ``pbem.orders.quote_words``), or to a line that
begins an earlier mail pasted
below them without ``>`` (``-----Original Message-----``, ``On ... wrote:``, a second start
line), and a warning says so. A PRESS TO line takes the lines after it, as they are, up to
END PRESS.
"""

from __future__ import annotations

import copy
import itertools
import re
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pbem.engine.cards import CardSet
from pbem.errors import OrderSyntaxError, PbemError
from pbem.orders.grammar import LineReader, syntax_error
from pbem.orders.lexer import RESERVED, split_comment, tokenize
from pbem.orders.line import read_order
from pbem.orders.model import Header, Located, Order, OrderWarning, ParsedOrders, Press
from pbem.orders.pasted import pasted_at
from pbem.orders.vocabulary import Vocabulary

__all__ = ["HEADER_FORM", "StartLine", "blank_password", "own_line", "parse_header",
           "parse_orders", "read_start"]

HEADER_FORM = "GAME <game> PLAYER <name> PASSWORD <password> [STEP <number>]"
_PASSWORD = re.compile(r"""(\bpassword\s+)("[^"]*"|“[^”]*”|\S+)""", re.IGNORECASE)
_SIGNATURE = "--"  # the usual "-- " line before a signature, trailing blank stripped
_MAX_LINE = 1000  # characters; a longer line is no order a person wrote
# Lines a client's wrapping may cut one order into, beyond the first: the longest order a
# person writes (300 characters) at 60 columns. Bounds the lines below tried as its pieces.
_MAX_WRAPPED = 5
_BARE_ORDER = re.compile(r"[a-z]+(?: [a-z]+)?")  # an order of one or two words, no name or number
_CLOSING_LINES = 3  # lines below a sign-off in which END is looked for (a name between)
# How orders without END were read, by what ended them: the warning the answer gives.
_NO_END = {
    "signature": OrderWarning("there is no END line: the orders were read up to the "
                              "signature line", key="no_end_signature"),
    "": OrderWarning("there is no END line: the orders were read to the end of the mail",
                     key="no_end_mail"),
}
# Characters phones and web clients put where a space or nothing belongs (the mail reader
# drops most already; order text may come from elsewhere too).
_INVISIBLE = str.maketrans({"\u200b": None, "\u200c": None, "\u200d": None, "\u2060": None,
                            "\ufeff": None, "\u00ad": None})
# The full stop (or !) a phone adds after the last word: "END.", "END TURN.", "PASS."
_FULL_STOP = re.compile(r"(?<=\w)[.!]+$")


def blank_password(line: str) -> str:
    """Gives the line with the word after PASSWORD replaced by ``******``."""
    span = _secret_span(line)
    return line if span is None else f"{line[:span[0]]}******{line[span[1]:]}"


_START_LIKE = re.compile(r"^[ \t>]*game\b.*\bpassword\b", re.IGNORECASE)
_SHORTEST_SECRET = 4  # a shorter one would blank common words wherever it is


def without_password(line: str, secret: str) -> str:
    """Gives a line after the start line with any start line's password in it blanked, and
    ``secret`` (the start line's password) wherever it is, as ``******``."""
    if _START_LIKE.match(line):
        line = blank_password(line)
    secret = secret.strip().strip("\"“”")
    if len(secret) >= _SHORTEST_SECRET:
        line = line.replace(secret, "******")
    return line


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
                 start: StartLine | None = None,
                 sent: Collection[str] = ()) -> ParsedOrders:
    """Gives the header and every order of an order mail's text, with the errors found.

    A bad line becomes an OrderSyntaxError in ``errors`` and reading goes on with the next
    line. Names are matched to ``cards``, and to ``players`` when given (else player names
    are kept as written). Raises OrderSyntaxError only when there is no readable start line.
    ``start``, if given, is what ``read_start`` gave for the same text and cards.

    The game's own lines are never run after text the player did not write as orders (a
    line refused, a quoted line): a line that is one of ``sent`` (the lines the game sent to
    this player, as ``own_line`` gives them; an order of one or two bare words such as END
    TURN aside), or one indented as the lines to copy of the game's mails are, that begins
    with an order's word, ends the reading there as a pasted mail does. So a quote a client
    trimmed to the lines of the game's mail, stripped of its marks, rewrapped, re-indented
    or flattened, runs none of them.
    """
    lines = text.translate(_INVISIBLE).splitlines()
    vocabulary = Vocabulary(cards, players)
    at, header = _start_line(lines, vocabulary, start)
    # The password goes no further than the start line: not into a press relayed to other
    # players, an answer quoting a line, or the game master's mail.
    lines[at + 1:] = [without_password(line, header.password) for line in lines[at + 1:]]
    reading = _Reading(header.player, vocabulary, sent)
    ended_by = ""
    in_press: tuple[int, str, Press] | None = None
    press_lines: list[str] = []
    stray = False  # whether text the player did not write as orders was read
    index = at + 1
    while index < len(lines):
        raw, number = lines[index], index + 1
        index += 1
        line = raw.strip()
        if line.startswith(">"):
            stray = stray or in_press is None
            continue
        words = _words(line)
        if words == ["end"]:
            ended_by = "end"
            break
        if in_press is None and line == _SIGNATURE:
            ended_by = "signature"
            break
        second_start = _is_start_line(words)
        pasted = None if in_press is not None else pasted_at(lines, number - 1)
        if pasted == "signature":
            # A sign-off or a phone's signature ends the orders as "-- " does (what follows
            # may be the mail answered, flattened); the warning that END was missing only
            # when it was.
            below = [rest.strip() for rest in lines[index:] if rest.strip()][:_CLOSING_LINES]
            ended_by = "end" if any(_words(rest) == ["end"] for rest in below) else "signature"
            break
        if in_press is None and (second_start or pasted == "pasted" or pasted == "rule"):
            reading.pasted(number, line, first_line=at + 1, second_start=second_start,
                           rule=pasted == "rule")
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
        if stray and reading.game_line(raw, line):
            reading.pasted(number, line, first_line=at + 1, second_start=False, rule=False)
            ended_by = "pasted"
            break
        refused = len(reading.errors)
        joined = reading.wrapped(number, line, _continuations(lines, index))
        if joined:
            index += joined  # the lines that continue this one were read with it
            stray = stray or len(reading.errors) > refused
            continue
        in_press = reading.line(number, line)
        stray = stray or len(reading.errors) > refused
    if in_press is not None:
        reading.errors.append(OrderSyntaxError(line=in_press[0], text=in_press[1],
                                               key="press_unended", hint="end_press"))
    if ended_by in _NO_END:  # (a pasted mail has its refused line saying so already)
        reading.warnings.append(_NO_END[ended_by])
    return ParsedOrders(header, tuple(reading.orders), tuple(reading.errors),
                        tuple(reading.warnings))


class _Reading:
    """The orders and errors of one mail so far."""

    def __init__(self, player: str, vocabulary: Vocabulary, sent: Collection[str] = ()) -> None:
        self.player = player
        self.vocabulary = vocabulary
        self.sent = sent  # read only after text the player did not write as orders
        self._game_lines: frozenset[str] | None = None
        self.orders: list[Located] = []
        self.errors: list[OrderSyntaxError] = []
        self.warnings: list[OrderWarning] = []
        self._read: dict[str, Order | OrderSyntaxError | None] = {}  # by line, as read

    def line(self, number: int, line: str) -> tuple[int, str, Press] | None:
        """Reads one order line; gives the press it opens (line, text, order), if any."""
        if len(line) > _MAX_LINE:
            self.errors.append(OrderSyntaxError(
                line=number, text=line[:80] + "...", key="line_too_long", hint="one_order_a_line",
                length=len(line),
            ))
            return None
        read = self.attempt(line)
        if isinstance(read, OrderSyntaxError):
            error = copy.copy(read)  # the one read is kept for a line written alike
            error.line, error.text = number, line
            self.errors.append(error)
            return None
        if read is None:
            return None
        if isinstance(read, Press):
            return number, line, read
        self.orders.append(Located(number, line, read))
        return None

    def attempt(self, line: str) -> Order | OrderSyntaxError | None:
        """Gives the order a line says (None for no tokens), or why it says none. A full stop
        a phone added after the last word is dropped when the line reads only without it."""
        found = self._read.get(line)
        if found is not None or line in self._read:
            return found
        try:
            tokens = tokenize(line)
            found = read_order(tokens, self.vocabulary, self.player) if tokens else None
        except OrderSyntaxError as error:
            found = error
            bare = _FULL_STOP.sub("", line)
            if bare != line and not isinstance(again := self.attempt(bare), OrderSyntaxError):
                found = again
        self._read[line] = found
        return found

    def game_line(self, raw: str, line: str) -> bool:
        """True for a line of the game's own mails: one of the lines sent, or indented as
        their lines to copy are and beginning with an order's word (read whole or wrapped)."""
        if self._game_lines is None:
            # Not the bare words (END TURN, PASS, NO RESPONSE...): a player writes them below
            # a line of chat, and they name nothing a quote could have chosen for them.
            self._game_lines = frozenset(own_line(sent) for sent in self.sent
                                         if _BARE_ORDER.fullmatch(own_line(sent)) is None)
        if own_line(line) in self._game_lines:
            return True
        if not raw[:1].isspace():
            return False
        read = self.attempt(line)
        return read is not None and not (
            isinstance(read, OrderSyntaxError) and read.key == "unknown_order")

    def wrapped(self, number: int, line: str, following: Iterable[str]) -> int:
        """Reads a line that a mail client may have wrapped, ``following`` the lines below it
        that may continue it: gives how many of them were read with it (as one order, or
        refused as one), 0 when none continues it. A line continues the one above when it
        begins with no order's word. A wrapped order runs whole or not at all."""
        if isinstance(self.attempt(line), Press):
            return 0
        pieces: list[str] = []
        for below in itertools.islice(following, _MAX_WRAPPED):
            read = self.attempt(below)
            if not isinstance(read, OrderSyntaxError) or read.key != "unknown_order":
                break
            pieces.append(below)
        for count in range(len(pieces), 0, -1):
            joined = " ".join([line, *pieces[:count]])
            whole = self.attempt(joined)
            if whole is not None and not isinstance(whole, OrderSyntaxError | Press):
                self.orders.append(Located(number, joined, whole))
                self.warnings.append(OrderWarning(
                    f"lines {number} to {number + count} look like one order wrapped by the "
                    "mail program: they were read as one line", line=number, text=joined,
                    key="wrapped_joined"))
                return count
        # A line that reads alone, cut before a word that goes on an order (SPEND, UPTO,
        # WITH, a comma's next name...): what it says alone is not what was written.
        if not pieces or isinstance(self.attempt(line), OrderSyntaxError) or not (
                pieces[0].split()[0].casefold() in RESERVED or line.endswith(",")):
            return 0
        self.errors.append(OrderSyntaxError(
            line=number, text=f"{line} {pieces[0]}", key="wrapped", hint="one_line",
            next_line=number + 1))
        return 1

    def pasted(self, number: int, line: str, *, first_line: int, second_start: bool,
               rule: bool) -> None:
        """Reports the line where an earlier mail (or a second set of orders) begins: the
        orders stop there, so that a report pasted below them is not read as orders."""
        if second_start:
            self.errors.append(OrderSyntaxError(
                line=number, text=blank_password(line), key="second_start", hint="one_set",
                first_line=first_line,
            ))
            return
        if rule:
            self.errors.append(OrderSyntaxError(line=number, text=line, key="rule_line",
                                                hint="end_with_end"))
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


def own_line(line: str) -> str:
    """Gives a line of the game's mails as it is compared with a reply's: without quote
    marks, comment mark and indentation, white space single, case folded."""
    return " ".join(line.lstrip("#> \t").split()).casefold()


def _words(line: str) -> list[str]:
    """The words of a line without its comment, lower case, a phone's full stop after the
    last dropped when it is END or END PRESS ("END." reads END)."""
    words = split_comment(line).casefold().split()
    if words and words[0].startswith("end") and len(words) <= 2:
        bare = _FULL_STOP.sub("", " ".join(words)).split()
        if bare in (["end"], ["end", "press"]):
            return bare
    return words


def _continuations(lines: list[str], index: int) -> Iterator[str]:
    """The lines from ``index`` on, stripped, that may continue the order line above them:
    right below it (no blank line between), not quoted, and not END, a start line, or where
    a pasted mail or a signature begins. Given one at a time: the reader stops at the first
    line that begins an order, and a mail of orders with no blank line would otherwise be
    looked through to its end for each of its lines."""
    for at in range(index, len(lines)):
        line = lines[at].strip()
        words = _words(line)
        if (not words or line.startswith(">") or line == _SIGNATURE
                or words[0] in ("end", "game") or pasted_at(lines, at) is not None):
            return
        yield line


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
        if len(secret) >= _SHORTEST_SECRET:  # wherever it is, inside a word too
            return message.replace(secret, "******")
        return re.sub(rf"(?<!\w){re.escape(secret)}(?!\w)", "******", message)

    try:
        tokens = tokenize(line)
        r = LineReader(tokens, vocabulary, "")
        for header, end in _header(r):
            if end == len(tokens):
                return header
            r.fail(end, "unexpected_after_start", weak=True, words={"shown": r.seen(end)})
        error = syntax_error(r.failure, vocabulary, number, line, (HEADER_FORM,))
    except OrderSyntaxError as unreadable:
        error = unreadable
    words: dict[str, Any] = {k: hidden(v) if isinstance(v, str) else v
                             for k, v in error.words.items()}
    raise type(error)(line=number, text=hidden(blank_password(line)), key=error.key,
                      hint=error.hint, **words)


def _header(r: LineReader) -> Iterator[tuple[Header, int]]:
    """Yields ``GAME <game> PLAYER <name> PASSWORD <password> [STEP <n>]`` (or ``TURN <n>``)."""
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
                # STEP, the number of the game's step the mail answers; TURN, its name on
                # order forms before, is read the same.
                if r.word(end) not in ("step", "turn"):
                    yield Header(game, player, password), end
                    continue
                for turn, last in r.number(end + 1, "the step number", money=False):
                    yield Header(game, player, password, turn), last
