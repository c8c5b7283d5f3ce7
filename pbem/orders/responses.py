"""Reading answers to attacks, standing orders, press, queries and settings."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Literal, cast

from pbem.engine import behaviour
from pbem.engine.cards import Special
from pbem.engine.commands import AbolishPrivilege, Counter, Interfere, PlaySpecial
from pbem.errors import ParserError
from pbem.orders.grammar import Clause, Fields, Hint, LineReader, hint_of
from pbem.orders.model import (
    ConditionalPlay,
    DefendOrder,
    Help,
    History,
    InterfereOrder,
    Language,
    Order,
    Press,
    SetHtml,
    SetJson,
    SetLanguage,
    SetTimezone,
    StandingAttackReaction,
    StandingClear,
    StandingCounter,
    StandingDefend,
    StandingTurnReaction,
)
from pbem.orders.vocabulary import canonical_zone

__all__ = [
    "abolish",
    "conditional",
    "counter",
    "defend",
    "help_topic",
    "history",
    "interference",
    "press",
    "set_html",
    "set_json",
    "set_language",
    "set_timezone",
    "standing_clear",
    "standing_defend",
    "standing_if",
]

Reading = Iterator[tuple[Order, int]]

# The languages a player may also name, in English or in itself; any other by its code.
_LANGUAGE_NAMES: dict[str, Language] = {
    "english": "en", "french": "fr", "francais": "fr", "français": "fr", "german": "de",
    "deutsch": "de"}
_CODE = re.compile(r"[a-z]{2,3}(?:[-_][a-z0-9]{2,4})?")  # "de", "pt-br", "pt_BR"


# --- answers to an attack -------------------------------------------------------------------


def _from(r: LineReader, pos: int) -> Iterator[tuple[Fields, int]]:
    for source, end in r.name(pos, "card", "the card that pays", ("upto",)):
        yield {"source": source}, end


def _upto(r: LineReader, pos: int) -> Iterator[tuple[Fields, int]]:
    for amount, end in r.number(pos, "the most MB to add"):
        yield {"upto": amount}, end


_DEFEND_TABLE: dict[str, Clause] = {"from": _from, "upto": _upto}
_UPTO_TABLE: dict[str, Clause] = {"upto": _upto}


def defend(r: LineReader, pos: int) -> Reading:
    """``DEFEND <n> [FROM <card>] [UPTO <n>]``."""
    for amount, at in r.number(pos, "the MB to defend with"):
        for fields, end in r.clauses(at, _DEFEND_TABLE, "in DEFEND"):
            source = cast(str, fields.get("source", ""))
            yield DefendOrder(amount, source, cast(int, fields.get("upto", 0))), end


def interference(side: Literal["assist", "interfere"]) -> Callable[[LineReader, int], Reading]:
    """Gives the reader of ``INTERFERE <n> [UPTO <n>]`` or ``ASSIST <n> [UPTO <n>]``."""

    def read(r: LineReader, pos: int) -> Reading:
        for amount, at in r.number(pos, f"the MB to {side} with"):
            for fields, end in r.clauses(at, _UPTO_TABLE, f"in {side.upper()}"):
                upto = cast(int, fields.get("upto", 0))
                yield InterfereOrder(Interfere(r.player, amount, side), upto), end

    return read


def abolish(r: LineReader, pos: int) -> Reading:
    """``ABOLISH PRIVILEGE WITH <special>[, <special>]``."""
    for _, at in r.keyword(pos, "with", where="after ABOLISH PRIVILEGE"):
        for cards, end in r.names(at, "special", "the special cards to discard", (), most=2):
            if len(cards) == 2 and cards[0] == cards[1] and (
                r.vocabulary.special_copies(cards[0]) < 2
            ):
                r.fail(end, "one_copy", words={"card": cards[0]})
                continue
            yield AbolishPrivilege(r.player, cards), end


def conditional(r: LineReader, pos: int) -> Reading:
    """``IF SUCCEEDS|FAILS PLAY <special>``: a card that waits for the roll."""
    for when, at in r.keyword(pos, "succeeds", "fails", where="after IF"):
        for _, card_at in r.keyword(at, "play", where=f"after IF {when.upper()}"):
            for card, end in _card_for(r, card_at, behaviour.waits_for_roll,
                                       "wait for the roll"):
                play = PlaySpecial(r.player, card)
                yield ConditionalPlay(cast(Literal["succeeds", "fails"], when), play), end


def counter(r: LineReader, pos: int) -> Reading:
    """``COUNTER``: the card that cancels another (Secrets Man Was Not Meant To Know)
    against the card just played; refused in a game whose cards have none."""
    secrets = behaviour.counter_name(r.vocabulary.cards)
    if secrets:
        yield Counter(r.player, secrets), pos
    else:
        r.fail(pos - 1, "no_counter_card")


def _card_for(
    r: LineReader, pos: int, fits: Callable[[Special], bool], purpose: str
) -> Iterator[tuple[str, int]]:
    """Yields a special card that ``fits`` the purpose (a question of
    ``pbem.engine.behaviour``)."""
    cards = r.vocabulary.cards
    for card, end in r.name(pos, "special", "the special card", ()):
        if fits(cards.special(card)):
            yield card, end
            continue
        fitting = [s.name for s in sorted(cards.specials, key=behaviour.timing_rank) if fits(s)]
        r.fail(end, "cannot_purpose", Hint("only_these", {"cards": fitting}) if fitting else None,
               words={"card": card, "purpose": purpose})


# --- standing orders ------------------------------------------------------------------------


def standing_defend(r: LineReader, pos: int) -> Reading:
    """``STANDING DEFEND [<group>|ANY] UPTO <n>``."""
    starts: list[tuple[str, int]] = []
    if r.word(pos) == "any":
        starts.append(("", pos + 1))
    elif r.matches(pos, "upto") is not None:
        starts.append(("", pos))
    else:
        starts.extend(r.name(pos, "group", "the group to defend", ("upto",), at_end=False))
    for group, at in starts:
        for _, upto_at in r.keyword(at, "upto", where="after the group to defend"):
            for amount, end in r.number(upto_at, "the most MB to defend with", minimum=1):
                yield StandingDefend(amount, group), end


def standing_if(r: LineReader, pos: int) -> Reading:
    """``STANDING IF <player>|ANYONE ATTACKS <group>|ANY [AND SUCCEEDS|FAILS] PLAY <special>``,
    ``STANDING IF <player>|ANYONE STARTS TURN PLAY <special>`` and ``STANDING IF
    <player>|ANYONE PLAYS <special> COUNTER``."""
    whos: list[tuple[str, int]] = []
    if r.word(pos) == "anyone":
        whos.append(("", pos + 1))
    elif r.word(pos) == "me":
        whos.append((r.player, pos + 1))
    else:
        whos.extend(r.name(pos, "player", "the player", ("attacks", "starts", "plays"),
                           at_end=False))
    for who, at in whos:
        for event, after in r.keyword(at, "attacks", "starts", "plays",
                                      where="after the player"):
            if event == "starts":
                yield from _on_turn(r, who, after)
            elif event == "plays":
                yield from _on_play(r, who, after)
            else:
                yield from _on_attack(r, who, after)


def _on_play(r: LineReader, who: str, pos: int) -> Reading:
    """``... PLAYS <special card> COUNTER``: cancel that card with Secrets whenever played."""
    for card, counter_at in r.name(pos, "special", "the special card played", ("counter",),
                                   at_end=False):
        for _, end in r.keyword(counter_at, "counter", where="after the card played"):
            yield StandingCounter(card, who), end


def _on_turn(r: LineReader, who: str, pos: int) -> Reading:
    at = r.matches(pos, "turn") or pos
    for _, card_at in r.keyword(at, "play", where="after STARTS TURN"):
        for card, end in _card_for(r, card_at, behaviour.at_turn_start,
                                   "be played as a turn starts"):
            yield StandingTurnReaction(card, who), end


def _on_attack(r: LineReader, who: str, pos: int) -> Reading:
    targets: list[tuple[str, int]] = []
    if r.word(pos) == "any":
        targets.append(("", pos + 1))
    else:
        targets.extend(r.name(pos, "group", "the attacked group", ("and", "play"),
                              at_end=False))
    for target, at in targets:
        whens: list[tuple[str, int]] = [("always", at)]
        if r.word(at) == "and":
            whens = list(r.keyword(at + 1, "succeeds", "fails", where="after AND"))
        for when, play_at in whens:
            fits = behaviour.answers_attack if when == "always" else behaviour.waits_for_roll
            purpose = "answer an attack" if when == "always" else "wait for the roll"
            for _, card_at in r.keyword(play_at, "play", where="before the card"):
                for card, end in _card_for(r, card_at, fits, purpose):
                    roll = cast(Literal["always", "succeeds", "fails"], when)
                    yield StandingAttackReaction(card, who, target, roll), end


def standing_clear(r: LineReader, pos: int) -> Reading:
    """``STANDING CLEAR [<n>|ALL]``."""
    if r.at_end(pos):
        yield StandingClear(), pos
    elif r.word(pos) == "all":
        yield StandingClear(), pos + 1
    else:
        for number, end in r.number(pos, "the number of the standing order", minimum=1,
                                    money=False):
            yield StandingClear(number), end


# --- press, queries, settings ---------------------------------------------------------------


def press(r: LineReader, pos: int) -> Reading:
    """``PRESS TO <player>[, <player>...]|ALL``; the message follows on the next lines."""
    if r.word(pos) == "all":
        yield Press((), ""), pos + 1
        return
    for players, end in r.names(pos, "player", "the players to write to", ()):
        yield Press(tuple(dict.fromkeys(players)), ""), end


def history(r: LineReader, pos: int) -> Reading:
    """``HISTORY [<turns>]``."""
    if r.at_end(pos):
        yield History(), pos
        return
    for turns, end in r.number(pos, "the number of turns", minimum=1, money=False):
        yield History(turns), end


def help_topic(r: LineReader, pos: int) -> Reading:
    """``HELP [<topic>]``: the topic is the rest of the line, in lower case."""
    topic = " ".join(t.text for t in r.tokens[pos:]).casefold()
    yield Help(topic), len(r.tokens)


def set_timezone(r: LineReader, pos: int) -> Reading:
    """``SET TIMEZONE <IANA zone>``."""
    if r.at_end(pos) or pos + 1 < len(r.tokens):
        r.fail(pos, "zone_expected")
        return
    try:
        zone = canonical_zone(r.tokens[pos].text)
    except ParserError as error:
        r.fail(pos, error.key, hint_of(error),
               words={**error.words, "query": repr(r.tokens[pos].text)})
        return
    yield SetTimezone(zone), pos + 1


def set_language(r: LineReader, pos: int) -> Reading:
    """``SET LANGUAGE <code>`` (EN, FR, DE: or the language's name, in English or in itself).
    Whether the game has words for it is the service's to say."""
    word = r.word(pos)
    language = _LANGUAGE_NAMES.get(word) or (word if _CODE.fullmatch(word or "") else None)
    if language is None:
        r.fail(pos, "language_expected", words={"shown": r.seen(pos)})
        return
    yield SetLanguage(language), pos + 1


def set_html(r: LineReader, pos: int) -> Reading:
    """``SET HTML ON|OFF``."""
    for choice, end in r.keyword(pos, "on", "off", where="after SET HTML"):
        yield SetHtml(choice == "on"), end


def set_json(r: LineReader, pos: int) -> Reading:
    """``SET JSON ON|OFF``."""
    for choice, end in r.keyword(pos, "on", "off", where="after SET JSON"):
        yield SetJson(choice == "on"), end
