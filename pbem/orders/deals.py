"""The order lines of binding deals and of the game ended by agreement (docs/orders.md,
"Deals" and "Ending the game by agreement").

``DEAL <player> [GIVE <thing>, ...] [TAKE <thing>, ...]``, a thing being ``<n> MB``,
``CARD <special card>`` or ``<group>``; ``ACCEPT DEAL <n>``, ``DECLINE DEAL <n>``,
``WITHDRAW DEAL <n>``; ``VOTE END NO WINNER``, ``VOTE END WINNERS <player>, ...``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from pbem.engine.commands import (
    AcceptDeal,
    DealSide,
    DeclineDeal,
    ProposeDeal,
    VoteEnd,
    WithdrawDeal,
)
from pbem.orders.grammar import LineReader
from pbem.orders.model import Order

Reading = Iterator[tuple[Order, int]]


def deal(r: LineReader, pos: int) -> Reading:
    """``DEAL <player> [GIVE <thing>, ...] [TAKE <thing>, ...]``: at least one side."""
    for partner, at in r.name(pos, "player", "the player you deal with", ("give", "take"),
                              at_end=False):
        for gives, take_at in _side(r, at, "give", ("take",)):
            if r.at_end(take_at):
                yield ProposeDeal(r.player, partner, gives, DealSide()), take_at
                continue
            for takes, end in _side(r, take_at, "take", ()):
                if not takes.empty:
                    yield ProposeDeal(r.player, partner, gives, takes), end


def _side(r: LineReader, pos: int, keyword: str,
          stops: tuple[str, ...]) -> Iterator[tuple[DealSide, int]]:
    """``GIVE <thing>, ...`` (or ``TAKE ...``) at ``pos``; an empty side when the keyword is
    not there and another clause may follow."""
    at = r.matches(pos, keyword)
    if at is None:
        if keyword == "give":
            yield DealSide(), pos
            return
        # Records what was expected there, for the message; nothing reads on.
        for _ in r.keyword(pos, keyword, where="after the deal's GIVE list"):
            pass
        return
    yield from _things(r, at, stops, DealSide())


def _things(r: LineReader, pos: int, stops: tuple[str, ...],
            so_far: DealSide) -> Iterator[tuple[DealSide, int]]:
    """A comma-separated list of things given: ``<n> MB``, ``CARD <special>``, ``<group>``."""
    for side, end in _thing(r, pos, (*stops, ","), so_far):
        if r.word(end) == ",":
            yield from _things(r, end + 1, stops, side)
        else:
            yield side, end


def _thing(r: LineReader, pos: int, stops: tuple[str, ...],
           so_far: DealSide) -> Iterator[tuple[DealSide, int]]:
    word = r.word(pos)
    if word[:1].isdigit() or word[:1] == "-":
        for amount, end in r.number(pos, "the MB given", minimum=1):
            yield DealSide(so_far.groups, so_far.money + amount, so_far.cards), end
        return
    if word == "card":
        for card, end in r.name(pos + 1, "special", "the special card given", stops):
            yield DealSide(so_far.groups, so_far.money, (*so_far.cards, card)), end
        return
    for group, end in r.name(pos, "group", "the group given", stops):
        yield DealSide((*so_far.groups, group), so_far.money, so_far.cards), end


def _numbered(build: Callable[[str, int], Order]) -> Callable[[LineReader, int], Reading]:
    def read(r: LineReader, pos: int) -> Reading:
        for number, end in r.number(pos, "the deal's number", minimum=1, money=False):
            yield build(r.player, number), end

    return read


accept_deal = _numbered(AcceptDeal)
decline_deal = _numbered(DeclineDeal)
withdraw_deal = _numbered(WithdrawDeal)


def vote_end(r: LineReader, pos: int) -> Reading:
    """``VOTE END NO WINNER`` or ``VOTE END WINNERS <player>, ...``."""
    for choice, at in r.keyword(pos, "no winner", "winners", where="after VOTE END"):
        if choice == "no winner":
            yield VoteEnd(r.player), at
            continue
        for names, end in r.names(at, "player", "the winners", ()):
            yield VoteEnd(r.player, names), end
