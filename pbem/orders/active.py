"""Reading the active player's orders: attacks, transfers, moves, gifts, special cards.

Each reader takes the LineReader and the token after the order's keyword and yields every
reading of the rest of the line (see ``grammar``); the caller keeps the first that reaches
the end of the line.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Literal, cast

from pbem.engine import behaviour
from pbem.engine.cards import ATTACK_MODES, Alignment, AttackMode
from pbem.engine.commands import (
    AcceptGroup,
    Attack,
    ChooseGoal,
    Counter,
    GiveCard,
    GiveMoney,
    MoveGroup,
    OfferGroup,
    PlaySpecial,
    TransferMoney,
    UseLasers,
)
from pbem.orders.grammar import Clause, Fields, Hint, LineReader
from pbem.orders.model import AttackOrder, Odds, Order
from pbem.orders.vocabulary import NameKind

__all__ = [
    "SIDES",
    "accept",
    "attack",
    "give",
    "goal",
    "lasers",
    "move",
    "odds",
    "play",
    "play_usage",
    "transfer",
]

Reading = Iterator[tuple[Order, int]]

SIDES = ("top", "right", "bottom", "left")  # index = the engine's absolute direction


# --- ATTACK and ODDS ------------------------------------------------------------------------


@dataclass(frozen=True)
class _AttackDraft:
    aids: tuple[str, ...] = ()
    privilege: Literal["none", "card", "bavarian"] = "none"
    privilege_card: str = ""
    spend: int = 0
    spend_from: str = ""
    upto: int = 0
    then_move: int = 0
    arrow: int = -1


_ATTACK_CLAUSES = ("with", "privilege", "spend", "upto", "then move", "at")


def _aids(r: LineReader, pos: int) -> Iterator[tuple[Fields, int]]:
    for aids, end in r.names(pos, "card", "the aiding groups", _ATTACK_CLAUSES):
        yield {"aids": aids}, end


def _privilege_until(stops: tuple[str, ...]) -> Clause:
    """``PRIVILEGE BAVARIAN|<special card>``, the card's name ending at one of ``stops``
    (the words of the order it belongs to)."""
    def clause(r: LineReader, pos: int) -> Iterator[tuple[Fields, int]]:
        end = r.matches(pos, "bavarian")
        if end is not None:
            yield {"privilege": "bavarian"}, end
            return
        for card, end in r.name(pos, "special", "the special card for privilege", stops):
            yield {"privilege": "card", "privilege_card": card}, end

    return clause


_privilege = _privilege_until(_ATTACK_CLAUSES)


def _spend(r: LineReader, pos: int) -> Iterator[tuple[Fields, int]]:
    for amount, end in r.number(pos, "the MB to spend"):
        source_at = r.matches(end, "from")
        if source_at is None:
            yield {"spend": amount}, end
            continue
        for source, last in r.name(source_at, "card", "the card that pays", _ATTACK_CLAUSES):
            yield {"spend": amount, "spend_from": source}, last


def _upto(r: LineReader, pos: int) -> Iterator[tuple[Fields, int]]:
    for amount, end in r.number(pos, "the most MB to add"):
        yield {"upto": amount}, end


def _then_move(r: LineReader, pos: int) -> Iterator[tuple[Fields, int]]:
    for amount, end in r.number(pos, "the MB to move into the captured group"):
        yield {"then_move": amount}, end


def _arrow(r: LineReader, pos: int) -> Iterator[tuple[Fields, int]]:
    for side, end in r.keyword(pos, *SIDES, where="after AT"):
        yield {"arrow": SIDES.index(side)}, end


_ATTACK_TABLE: dict[str, Clause] = {
    "with": _aids,
    "privilege": _privilege,
    "spend": _spend,
    "upto": _upto,
    "then move": _then_move,
    "at": _arrow,
}
_ODDS_TABLE: dict[str, Clause] = {"with": _aids, "spend": _spend}


def _attack_head(r: LineReader, pos: int, stops: tuple[str, ...]) -> Iterator[tuple[Attack, int]]:
    """Yields ``<group> [TO] CONTROL|NEUTRALIZE|DESTROY <target>`` as a bare Attack."""
    for attacker, after in r.name(pos, "card", "the attacking group", (*ATTACK_MODES, "to"),
                                  at_end=False, expected=("CONTROL", "NEUTRALIZE", "DESTROY")):
        if r.word(after) == "to":
            after += 1  # "ATTACK Mafia TO DESTROY Hackers" reads as plain English
        for mode, at in r.keyword(after, *ATTACK_MODES, where="after the attacking group"):
            for target, end in r.name(at, "group", "the target group", stops):
                yield Attack(r.player, attacker, target, cast(AttackMode, mode)), end


def attack(r: LineReader, pos: int) -> Reading:
    """``ATTACK <group> CONTROL|NEUTRALIZE|DESTROY <target> [WITH ...] [PRIVILEGE ...]
    [SPEND <n> [FROM <card>]] [UPTO <n>] [THEN MOVE <n>] [AT <side>]``."""
    for head, at in _attack_head(r, pos, _ATTACK_CLAUSES):
        for fields, end in r.clauses(at, _ATTACK_TABLE, "in the attack"):
            draft = replace(_AttackDraft(), **fields)
            if head.mode != "control" and (draft.then_move or draft.arrow >= 0):
                r.fail(end, "control_only_clauses", Hint("leave_them_out"))
                continue
            if head.attacker in draft.aids or head.attacker == head.target:
                r.fail(end, "aid_own_attack", words={"attacker": head.attacker})
                continue
            full = replace(
                head,
                aids=draft.aids,
                privilege=draft.privilege,
                privilege_card=draft.privilege_card,
                transfer_on_success=draft.then_move,
                arrow=draft.arrow,
            )
            yield AttackOrder(full, draft.spend, draft.spend_from, draft.upto), end


def odds(r: LineReader, pos: int) -> Reading:
    """``ODDS <group> CONTROL|NEUTRALIZE|DESTROY <target> [WITH ...] [SPEND <n>]``."""
    for head, at in _attack_head(r, pos, tuple(_ODDS_TABLE)):
        for fields, end in r.clauses(at, _ODDS_TABLE, "in ODDS"):
            draft = replace(_AttackDraft(), **fields)
            if draft.spend_from:
                r.fail(end, "odds_from")
                continue
            yield Odds(replace(head, aids=draft.aids), draft.spend), end


# --- money, groups, gifts -------------------------------------------------------------------


def transfer(r: LineReader, pos: int) -> Reading:
    """``TRANSFER <n> FROM <card> TO <card>``."""
    for amount, at in r.number(pos, "the MB to transfer", minimum=1):
        for _, src_at in r.keyword(at, "from", where="after the amount"):
            for source, to_at in r.name(src_at, "card", "the card that pays", ("to",),
                                        at_end=False):
                for _, dest_at in r.keyword(to_at, "to", where="after the card that pays"):
                    for dest, end in r.name(dest_at, "card", "the card that receives", ()):
                        yield TransferMoney(r.player, source, dest, amount), end


def move(r: LineReader, pos: int) -> Reading:
    """``MOVE <group> TO <card> TOP|RIGHT|BOTTOM|LEFT``."""
    for group, to_at in r.name(pos, "group", "the group to move", ("to",), at_end=False):
        for _, at in r.keyword(to_at, "to", where="after the group to move"):
            for master, side_at in r.name(at, "card", "its new master", SIDES, at_end=False):
                for side, end in r.keyword(side_at, *SIDES, where="after the new master"):
                    yield MoveGroup(r.player, group, master, SIDES.index(side)), end


def goal(r: LineReader, pos: int) -> Reading:
    """``GOAL <Illuminati>``: the UFOs choose the special goal they play for."""
    for illuminati, end in r.name(pos, "card", "the Illuminati whose goal you take", ()):
        yield ChooseGoal(r.player, illuminati), end


def accept(r: LineReader, pos: int) -> Reading:
    """``ACCEPT [AT <card> TOP|RIGHT|BOTTOM|LEFT]``."""
    if r.at_end(pos):
        yield AcceptGroup(r.player), pos
        return
    for _, at in r.keyword(pos, "at", where="after ACCEPT"):
        for master, side_at in r.name(at, "card", "the new master", SIDES, at_end=False):
            for side, end in r.keyword(side_at, *SIDES, where="after the new master"):
                yield AcceptGroup(r.player, master, SIDES.index(side)), end


def give(r: LineReader, pos: int) -> Reading:
    """``GIVE <n> MB TO <player>``, ``GIVE CARD <special> TO <player>``, ``GIVE <group> TO
    <player>``."""
    if r.word(pos)[:1].isdigit() or r.word(pos)[:1] == "-":
        for amount, at in r.number(pos, "the MB to give", minimum=1):
            for _, to_at in r.keyword(at, "to", where="after the MB to give"):
                for player, end in r.name(to_at, "player", "the player", ()):
                    yield GiveMoney(r.player, player, amount), end
        return
    starts = [pos + 1, pos] if r.word(pos) == "card" else [pos]
    for start in starts:
        kind: NameKind = "special" if start != pos else "gift"
        for thing, to_at in r.name(start, kind, "what to give", ("to",), at_end=False):
            for _, at in r.keyword(to_at, "to", where="after what to give"):
                for player, end in r.name(at, "player", "the player", ()):
                    if r.vocabulary.cards.card(thing).kind == "special":
                        yield GiveCard(r.player, player, thing), end
                    else:
                        yield OfferGroup(r.player, thing, player), end


# --- special cards --------------------------------------------------------------------------


def _on(kind: Literal["group", "spied"], field: str, what: str) -> Clause:
    def clause(r: LineReader, pos: int) -> Iterator[tuple[Fields, int]]:
        for name, end in r.name(pos, kind, what, _PLAY_WORDS):
            yield {field: name}, end

    return clause


def _with_attacker(r: LineReader, pos: int) -> Iterator[tuple[Fields, int]]:
    """``WITH <attacking group>[, <aiding group>, ...]``: the Whispering Campaign's attack
    is aided like any other."""
    for names, end in r.names(pos, "card", "the attacking group", _PLAY_WORDS):
        yield {"attacker": names[0], "aids": tuple(names[1:])}, end


def _bonus(r: LineReader, pos: int) -> Iterator[tuple[Fields, int]]:
    for name, end in r.name(pos, "card", "the card that gets the 5 MB", _PLAY_WORDS):
        yield {"bonus_to": name}, end


def _moves(r: LineReader, pos: int) -> Iterator[tuple[Fields, int]]:
    """``<n> FROM <card> TO <card> [, [MOVE] <n> FROM <card> TO <card> ...]``."""
    for amount, at in r.number(pos, "the MB to move", minimum=1):
        for _, src_at in r.keyword(at, "from", where="after the MB to move"):
            for source, to_at in r.name(src_at, "card", "the card the MB leave", ("to",),
                                        at_end=False):
                for _, dest_at in r.keyword(to_at, "to", where="after the card the MB leave"):
                    for dest, end in r.name(dest_at, "card", "the card the MB go to",
                                            (*_PLAY_WORDS, ",")):
                        step = (source, dest, amount)
                        if r.word(end) != ",":
                            yield {"moves": (step,)}, end
                            continue
                        more_at = r.matches(end + 1, "move") or end + 1
                        for more, last in _moves(r, more_at):
                            steps = cast(tuple[tuple[str, str, int], ...], more["moves"])
                            yield {"moves": (step, *steps)}, last


def _hang_at(r: LineReader, pos: int) -> Iterator[tuple[Fields, int]]:
    """``AT <card> TOP|RIGHT|BOTTOM|LEFT``: where a bribed group hangs."""
    for master, side_at in r.name(pos, "card", "the card it hangs from", SIDES, at_end=False):
        for side, end in r.keyword(side_at, *SIDES, where="after the card it hangs from"):
            yield {"master": master, "arrow": SIDES.index(side)}, end


_PLAY_WORDS = ("on", "with", "privilege", "move", "bonus to", "at")
# The parameters a special card takes, by what it is played on (its ``targets`` in the
# card data, pbem.engine.behaviour); a card played on none of these takes none.
_PLAY_TABLES: dict[str, dict[str, Clause]] = {
    "uncontrolled_group": {"on": _on("group", "group", "the uncontrolled group"),
                           "at": _hang_at},
    "attacked_group": {"on": _on("group", "group", "the target group"),
                       "with": _with_attacker, "privilege": _privilege_until(_PLAY_WORDS)},
    "dead_group": {"on": _on("group", "group", "the dead group")},
    "player_or_group": {"on": _on("spied", "other", "the player or group")},
    "holder_money": {"move": _moves, "bonus to": _bonus},
}
_REQUIRED = {
    "uncontrolled_group": ("group",),
    "attacked_group": ("group", "attacker"),
    "dead_group": ("group",),
    "player_or_group": ("other",),
}
_NEEDS = {"group": "ON <group>", "attacker": "WITH <attacking group>",
          "other": "ON <player or group>"}
_USAGE = {
    "uncontrolled_group": "PLAY {card} ON <uncontrolled group> [AT <card> TOP|RIGHT|BOTTOM|LEFT]",
    "attacked_group": "PLAY {card} ON <target group> WITH <attacking group>[, <aiding "
                      "group>, ...] [PRIVILEGE <special card>|BAVARIAN]",
    "dead_group": "PLAY {card} ON <dead group>",
    "player_or_group": "PLAY {card} ON <player or group>",
    "holder_money": "PLAY {card} [MOVE <n> FROM <card> TO <card>, ...] [BONUS TO <card>]",
}


def play_usage(targets: str, card: str) -> str:
    """Gives the form of PLAY for one special card played on ``targets``."""
    return _USAGE.get(targets, "PLAY {card}").format(card=card)


def play(r: LineReader, pos: int) -> Reading:
    """``PLAY <special card> [ON ...] [WITH ...] [MOVE ...] [BONUS TO ...]``, by card."""
    for card, at in r.name(pos, "special", "the special card", _PLAY_WORDS):
        special = r.vocabulary.cards.special(card)
        targets = special.targets
        if behaviour.counters(special):
            if r.at_end(at):
                yield Counter(r.player, card), at
            else:
                r.fail(at, "takes_nothing_more", Hint("write_counter"), words={"card": card})
            continue
        table = _PLAY_TABLES.get(targets, {})
        form = play_usage(targets, card)
        usage = Hint("write_as", {"usage": form})
        for fields, end in r.clauses(at, table, f"after PLAY {card}", hint=usage):
            missing = [_NEEDS[f] for f in _REQUIRED.get(targets, ()) if f not in fields]
            if missing:
                r.fail(end, "card_needs", usage, words={"card": card, "missing": missing})
                continue
            yield replace(PlaySpecial(r.player, card), **fields), end


def lasers(r: LineReader, pos: int) -> Reading:
    """``LASERS ADD|REMOVE|REVERSE <alignment> ON <group>``."""
    for change, at in r.keyword(pos, "add", "remove", "reverse", where="after LASERS"):
        for alignment, on_at in r.name(at, "alignment", "the alignment", ("on",), at_end=False):
            for _, group_at in r.keyword(on_at, "on", where="after the alignment"):
                for group, end in r.name(group_at, "group", "the group", ()):
                    yield UseLasers(r.player, group, cast(_Change, change),
                                    cast(Alignment, alignment)), end


_Change = Literal["add", "remove", "reverse"]
