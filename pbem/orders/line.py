"""One order line to one order value: the table of orders, and the reading of a line.

Syntax is checked here without the game state (as python-chess checks a move's text without
the board): names must be cards or players of the right kind, numbers whole and not
negative, and each order complete. Whether the order is legal now is the engine's business.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator, Sequence

from pbem.engine.cards import CardSet
from pbem.engine.commands import (
    CallOff,
    DeclineGroup,
    DropGroup,
    EndPowers,
    EndTurn,
    LeaveGame,
    Pass,
    UseRecyclers,
    WithdrawOffer,
    WithdrawVote,
)
from pbem.errors import OrderSyntaxError
from pbem.orders import active, deals, responses, settings
from pbem.orders.grammar import LineReader, TooTangled, syntax_error
from pbem.orders.lexer import Token, tokenize
from pbem.orders.model import (
    NoResponse,
    Order,
    StandingList,
    StandingNeverInterfere,
    Status,
)
from pbem.orders.vocabulary import Vocabulary

__all__ = ["ORDER_FORMS", "parse_order", "read_order"]

OrderReader = Callable[[LineReader, int], Iterator[tuple[Order, int]]]


def _bare(build: Callable[[str], Order]) -> OrderReader:
    """Gives the reader of an order that takes nothing after its keywords."""

    def read(r: LineReader, pos: int) -> Iterator[tuple[Order, int]]:
        yield build(r.player), pos

    return read


def _drop(r: LineReader, pos: int) -> Iterator[tuple[Order, int]]:
    for group, end in r.name(pos, "group", "the group to drop", ()):
        yield DropGroup(r.player, group), end


# Every order: its keywords, how to read the rest, and its form for "write it as: ..." (a
# tuple: its alternative forms, which the reader's language joins with its own "or").
_ORDERS: dict[str, tuple[OrderReader, str | tuple[str, ...]]] = {
    "attack": (active.attack, "ATTACK <group> CONTROL|NEUTRALIZE|DESTROY <target> "
               "[WITH <group>, ...] [PRIVILEGE <special card>|BAVARIAN] "
               "[SPEND <n> [FROM <card>]] [UPTO <n>] [THEN MOVE <n>] [AT <side>]"),
    "transfer": (active.transfer, "TRANSFER <n> FROM <card> TO <card>"),
    "move": (active.move, "MOVE <group> TO <card> TOP|RIGHT|BOTTOM|LEFT"),
    "drop": (_drop, "DROP <group>"),
    "give": (active.give, ("GIVE <n> MB TO <player>", "GIVE CARD <special card> TO <player>",
                           "GIVE <group> TO <player>")),
    "play": (active.play, "PLAY <special card> [ON <group>] [WITH <group>] "
             "[AT <card> <side>] [MOVE <n> FROM <card> TO <card>, ...] [BONUS TO <card>]"),
    "lasers": (active.lasers, "LASERS ADD|REMOVE|REVERSE <alignment> ON <group>"),
    "recycle": (_bare(UseRecyclers), "RECYCLE"),
    "goal": (active.goal, "GOAL <Illuminati>"),
    "end powers": (_bare(EndPowers), "END POWERS"),
    "pass": (_bare(Pass), "PASS"),
    "end turn": (_bare(EndTurn), "END TURN"),
    "call off": (_bare(CallOff), "CALL OFF"),
    "leave game": (_bare(LeaveGame), "LEAVE GAME"),
    "accept": (active.accept, "ACCEPT [AT <card> TOP|RIGHT|BOTTOM|LEFT]"),
    "decline": (_bare(DeclineGroup), "DECLINE"),
    "withdraw offer": (_bare(WithdrawOffer), "WITHDRAW OFFER"),
    "deal": (deals.deal, "DEAL <player> [GIVE <n> MB|CARD <special card>|<group>, ...] "
             "[TAKE <n> MB|CARD <special card>|<group>, ...]"),
    "accept deal": (deals.accept_deal, "ACCEPT DEAL <n>"),
    "decline deal": (deals.decline_deal, "DECLINE DEAL <n>"),
    "withdraw deal": (deals.withdraw_deal, "WITHDRAW DEAL <n>"),
    "vote end": (deals.vote_end, ("VOTE END NO WINNER", "VOTE END WINNERS <player>, ...")),
    "withdraw vote": (_bare(WithdrawVote), "WITHDRAW VOTE"),
    "defend": (responses.defend, "DEFEND <n> [FROM <card>] [UPTO <n>]"),
    "interfere": (responses.interference("interfere"), "INTERFERE <n> [UPTO <n>]"),
    "assist": (responses.interference("assist"), "ASSIST <n> [UPTO <n>]"),
    "abolish privilege": (responses.abolish,
                          "ABOLISH PRIVILEGE WITH <special card>, <special card>"),
    "if": (responses.conditional, "IF SUCCEEDS|FAILS PLAY <special card>"),
    "counter": (responses.counter, "COUNTER"),
    "no response": (_bare(lambda _: NoResponse()), "NO RESPONSE"),
    "standing defend": (responses.standing_defend, "STANDING DEFEND <group>|ANY UPTO <n>"),
    "standing never interfere": (_bare(lambda _: StandingNeverInterfere()),
                                 "STANDING NEVER INTERFERE"),
    "standing if": (responses.standing_if,
                    ("STANDING IF <player>|ANYONE|ME ATTACKS <group>|ANY [AND SUCCEEDS|FAILS] "
                     "PLAY <special card>",
                     "STANDING IF <player>|ANYONE|ME STARTS TURN PLAY <special card>",
                     "STANDING IF <player>|ANYONE PLAYS <special card> COUNTER")),
    "standing list": (_bare(lambda _: StandingList()), "STANDING LIST"),
    "standing clear": (responses.standing_clear, "STANDING CLEAR [<n>|ALL]"),
    "press to": (responses.press, "PRESS TO <player>[, <player>...]|ALL, then the message, "
                 "then END PRESS"),
    "status": (_bare(lambda _: Status()), "STATUS"),
    "odds": (active.odds, "ODDS <group> CONTROL|NEUTRALIZE|DESTROY <target> "
             "[WITH <group>, ...] [SPEND <n>]"),
    "history": (responses.history, "HISTORY [<turns>]"),
    "help": (responses.help_topic, "HELP [<topic>]"),
    "set timezone": (responses.set_timezone, "SET TIMEZONE <zone, like Europe/Paris>"),
    "set language": (responses.set_language, "SET LANGUAGE EN|FR|DE"),
    "set html": (responses.set_html, "SET HTML ON|OFF"),
    "set json": (responses.set_json, "SET JSON ON|OFF"),
    "set mail": (settings.set_mail, "SET MAIL FULL|DIGEST"),
    "set report": (settings.set_report, "SET REPORT SHORT|FULL"),
    "set absence": (settings.set_absence, "SET ABSENCE <YYYY-MM-DD> [<HH:MM>] "
                    "[TO <YYYY-MM-DD> [<HH:MM>]]"),
    "cancel absence": (settings.cancel_absence, "CANCEL ABSENCE [<n>|ALL]"),
}

ORDER_FORMS: dict[str, tuple[str, ...]] = {
    keywords: (form,) if isinstance(form, str) else form for keywords, (_, form) in _ORDERS.items()
}
"""The written forms of every order (one, or its alternatives), by its keywords
(``"end turn"``)."""
# The keywords of each order as words, by their first word, in _ORDERS' order.
_BY_FIRST_WORD: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
for _keys in _ORDERS:
    _BY_FIRST_WORD.setdefault(_keys.split()[0], []).append((_keys, tuple(_keys.split())))
_TAKES_NOTHING = frozenset(k for k, forms in ORDER_FORMS.items() if forms == (k.upper(),))


def read_order(
    tokens: tuple[Token, ...],
    vocabulary: Vocabulary,
    player: str,
    *,
    line: int | None = None,
    text: str = "",
) -> Order:
    """Gives the order the tokens of one line say; raises OrderSyntaxError if none."""
    r = LineReader(tokens, vocabulary, player)
    keywords = _keywords(r, line, text)
    reader = _ORDERS[keywords][0]
    start = len(keywords.split())
    try:
        for order, end in reader(r, start):
            if end == len(tokens):
                return order
            if keywords in _TAKES_NOTHING:
                r.fail(end, "takes_nothing", words={"order": keywords.upper()})
            else:
                r.fail(end, "unexpected_after_order", weak=True, words={"shown": r.seen(end)})
    except TooTangled:
        raise OrderSyntaxError(line=line, text=text, key="too_tangled",
                               hint="quote_each") from None
    raise syntax_error(r.failure, vocabulary, line, text, ORDER_FORMS[keywords])


def _keywords(r: LineReader, line: int | None, text: str) -> str:
    """Gives the keywords of the order the line begins with (the longest that fits)."""
    found = [keywords for keywords, words in _BY_FIRST_WORD.get(r.word(0), ())
             if all(r.word(i) == word for i, word in enumerate(words))]
    if found:
        return max(found, key=len)
    first = r.word(0)
    started = [keywords for keywords, _ in _BY_FIRST_WORD.get(first, ())]
    if started:
        close = difflib.get_close_matches(
            r.word(1), [k.split(maxsplit=1)[1] for k in started], n=1, cutoff=0.6
        )
        forms = [form for k in started for form in ORDER_FORMS[k]]
        raise OrderSyntaxError(
            line=line,
            text=text,
            key="expected_after_word", hint="keyword_meant" if close else "write_as_forms",
            expected=[k.split(maxsplit=1)[1].upper() for k in started], first=first.upper(),
            shown=r.seen(1), forms=forms, keywords=[f"{first.upper()} {c.upper()}" for c in close],
        )
    shown = r.tokens[0].text if r.tokens else ""
    # get_close_matches ranks ties by the word itself, so the words' order does not matter.
    close = difflib.get_close_matches(first, list(_BY_FIRST_WORD), n=2, cutoff=0.6)
    raise OrderSyntaxError(
        line=line,
        text=text,
        key="unknown_order", hint="keyword_meant" if close else "order_words",
        shown=repr(shown), keywords=[c.upper() for c in close],
    )


def parse_order(
    text: str, cards: CardSet, player: str = "", players: Sequence[str] = ()
) -> Order:
    """Gives the order one line says, written by ``player``; raises OrderSyntaxError if none.

    A PRESS TO line gives a Press with an empty text: the message lines are the mail's.
    """
    tokens = tokenize(text)
    if not tokens:
        raise OrderSyntaxError(text=text, key="no_order", hint="write_an_order")
    return read_order(tokens, Vocabulary(cards, players), player, text=text)
