"""Hypothesis strategies for every order the language has (the round-trip and paraphrase
tests draw from them).
"""

from __future__ import annotations

import datetime
import zoneinfo

from hypothesis import strategies as st

from pbem.engine import behaviour
from pbem.engine.carddata import load_cardset
from pbem.engine.cards import ALIGNMENTS, SpecialTarget
from pbem.engine.commands import (
    AbolishPrivilege,
    AcceptDeal,
    AcceptGroup,
    Attack,
    CallOff,
    ChooseGoal,
    Counter,
    DealSide,
    DeclineDeal,
    DeclineGroup,
    DropGroup,
    EndPowers,
    EndTurn,
    GiveCard,
    GiveMoney,
    Interfere,
    LeaveGame,
    MoveGroup,
    OfferGroup,
    Pass,
    PlaySpecial,
    ProposeDeal,
    TransferMoney,
    UseLasers,
    UseRecyclers,
    VoteEnd,
    WithdrawDeal,
    WithdrawOffer,
    WithdrawVote,
)
from pbem.orders import (
    KINDS,
    AttackOrder,
    CancelAbsence,
    ConditionalPlay,
    DefendOrder,
    Help,
    History,
    InterfereOrder,
    NoResponse,
    Odds,
    Order,
    Press,
    SetAbsence,
    SetHtml,
    SetJson,
    SetLanguage,
    SetMail,
    SetReport,
    SetTimezone,
    StandingAttackReaction,
    StandingClear,
    StandingCounter,
    StandingDefend,
    StandingList,
    StandingNeverInterfere,
    StandingTurnReaction,
    Status,
)
from pbem.orders.lexer import split_comment
from pbem.orders.names import normalize_name
from pbem.orders.vocabulary import Vocabulary

CARDS = load_cardset()
GROUPS = [g.name for g in CARDS.groups]
STRUCTURE = [c.name for c in CARDS.illuminati] + GROUPS
SPECIALS = [s.name for s in CARDS.specials]
# The cards by their behaviour (card data, read by pbem.engine.behaviour), never by name.
SECRETS = behaviour.counter_name(CARDS)
INTERFERENCE = behaviour.interference_name(CARDS)
AFTER_ROLL = [s.name for s in CARDS.specials if behaviour.waits_for_roll(s)]
ON_ATTACK = [s.name for s in CARDS.specials if behaviour.answers_attack(s)]
ON_TURN = [s.name for s in CARDS.specials if behaviour.at_turn_start(s)]


def _played_on(targets: SpecialTarget) -> list[str]:
    """The special cards played on ``targets``: a PLAY of one names what its data says."""
    return [s.name for s in CARDS.specials if s.targets == targets]


# Played with more than the card's name: ON a group (AT a card), WITH an attacker, ...
NAMING = ("uncontrolled_group", "attacked_group", "dead_group", "player_or_group",
          "holder_money")
PLAIN_SPECIALS = [s.name for s in CARDS.specials
                  if s.targets not in NAMING and not behaviour.counters(s)]
ZONES = [*sorted(zoneinfo.available_timezones())[::25], "UTC", "Europe/Paris"]

money = st.integers(min_value=0, max_value=999_999)
positive = st.integers(min_value=1, max_value=999_999)
# An absence's day, alone or with a time, as SetAbsence keeps it.
absence_moments = st.builds(
    lambda day, time: day.isoformat() + (f"T{time.isoformat(timespec='minutes')}"
                                         if time is not None else ""),
    st.dates(min_value=datetime.date(2000, 1, 1), max_value=datetime.date(2099, 12, 31)),
    st.one_of(st.none(), st.times()))
side = st.integers(min_value=0, max_value=3)
group = st.sampled_from(GROUPS)
card = st.sampled_from(STRUCTURE)
special = st.sampled_from(SPECIALS)

# Player names: words of letters, digits and the punctuation people put in names, and now
# and then an order word ("To", "and", "All") that forces the formatter to quote the name.
_word = st.one_of(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéü0123456789'-.&",
            min_size=1, max_size=8),
    st.sampled_from(["To", "and", "All", "ANY", "me", "With", "Control", "mb", "3", "Password"]),
)
_player_name = st.lists(_word, min_size=1, max_size=3).map(" ".join)


def _distinct(names: list[str]) -> bool:
    keys = [normalize_name(n) for n in names]
    return all(keys) and len(set(keys)) == len(keys)


players_lists = st.lists(_player_name, min_size=2, max_size=4).filter(_distinct)
VOCABULARY = Vocabulary(CARDS)


def _press_line_ok(line: str) -> bool:
    words = split_comment(line).casefold().split()
    return not line.lstrip().startswith(">") and words not in (["end"], ["end", "press"])


_press_line = st.text(
    alphabet=st.characters(codec="utf-8", categories=("L", "N", "P", "S", "Zs")),
    max_size=30,
).map(str.rstrip).filter(_press_line_ok)
press_text = st.lists(_press_line, min_size=1, max_size=4).filter(
    lambda lines: bool(lines[0].strip()) and bool(lines[-1].strip())
).map("\n".join)


@st.composite
def attacks(draw: st.DrawFn, me: str, *, full: bool = True) -> Attack:
    attacker = draw(card)
    target = draw(group.filter(lambda g: g != attacker))
    mode = draw(st.sampled_from(["control", "neutralize", "destroy"]))
    aids = tuple(draw(st.lists(card.filter(lambda c: c != attacker), max_size=3,
                               unique=True)))
    if not full:
        return Attack(me, attacker, target, mode, aids)  # type: ignore[arg-type]
    privilege = draw(st.sampled_from(["none", "card", "bavarian"]))
    privilege_card = draw(special) if privilege == "card" else ""
    control = mode == "control"
    then_move = draw(money) if control else 0
    arrow = draw(st.integers(min_value=-1, max_value=3)) if control else -1
    return Attack(me, attacker, target, mode, aids, privilege,  # type: ignore[arg-type]
                  privilege_card, then_move, arrow)


@st.composite
def plays(draw: st.DrawFn, me: str, players: list[str]) -> PlaySpecial | Counter:
    which = draw(st.sampled_from(["bribery", "whispering", "media", "espionage", "wcc",
                                  "plain", "counter"]))
    if which == "counter":
        return Counter(me, SECRETS)
    if which == "bribery":
        bribery = draw(st.sampled_from(_played_on("uncontrolled_group")))
        if draw(st.booleans()):
            return PlaySpecial(me, bribery, group=draw(group), master=draw(card),
                               arrow=draw(side))
        return PlaySpecial(me, bribery, group=draw(group))
    if which == "whispering":
        privilege = draw(st.sampled_from(["none", "card", "bavarian"]))
        return PlaySpecial(me, draw(st.sampled_from(_played_on("attacked_group"))),
                           group=draw(group), attacker=draw(card),
                           aids=tuple(draw(st.lists(card, max_size=2))), privilege=privilege,
                           privilege_card=draw(st.sampled_from(PLAIN_SPECIALS))
                           if privilege == "card" else "")
    if which == "media":
        return PlaySpecial(me, draw(st.sampled_from(_played_on("dead_group"))),
                           group=draw(group))
    if which == "espionage":
        return PlaySpecial(me, draw(st.sampled_from(_played_on("player_or_group"))),
                           other=draw(st.sampled_from([*players, *STRUCTURE])))
    if which == "wcc":
        moves = tuple(draw(st.lists(st.tuples(card, card, positive), max_size=3)))
        return PlaySpecial(me, draw(st.sampled_from(_played_on("holder_money"))), moves=moves,
                           bonus_to=draw(st.one_of(st.just(""), card)))
    return PlaySpecial(me, draw(st.sampled_from(PLAIN_SPECIALS)))


def strategies(me: str, players: list[str]) -> dict[str, st.SearchStrategy[Order]]:
    """A strategy for every kind of order, with real card names and these players."""
    other = st.sampled_from(players)
    who = st.one_of(st.just(""), other)
    a_card_or_none = st.one_of(st.just(""), card)
    a_group_or_any = st.one_of(st.just(""), group)
    bare: dict[str, Order] = {
        "recycle": UseRecyclers(me), "end_powers": EndPowers(me), "pass_turn": Pass(me),
        "end_turn": EndTurn(me), "call_off": CallOff(me), "leave_game": LeaveGame(me),
        "decline": DeclineGroup(me), "withdraw_offer": WithdrawOffer(me),
        "no_response": NoResponse(),
        "standing_never_interfere": StandingNeverInterfere(), "standing_list": StandingList(),
        "status": Status(), "withdraw_vote": WithdrawVote(me),
    }
    sides = st.builds(DealSide, st.lists(group, max_size=2, unique=True).map(tuple),
                      st.one_of(st.just(0), positive),
                      st.lists(special, max_size=2).map(tuple))
    built: dict[str, st.SearchStrategy[Order]] = {
        "attack": st.builds(AttackOrder, attacks(me), money, a_card_or_none, money),
        "transfer": st.builds(TransferMoney, st.just(me), card, card, positive),
        "move": st.builds(MoveGroup, st.just(me), group, card, side),
        "drop": st.builds(DropGroup, st.just(me), group),
        "choose_goal": st.builds(ChooseGoal, st.just(me), card),
        "give_group": st.builds(OfferGroup, st.just(me), group, other),
        "give_money": st.builds(GiveMoney, st.just(me), other, positive),
        "give_card": st.builds(GiveCard, st.just(me), other, special),
        "play": plays(me, players),
        "counter": st.just(Counter(me, SECRETS)),
        "lasers": st.builds(UseLasers, st.just(me), group,
                            st.sampled_from(["add", "remove", "reverse"]),
                            st.sampled_from(ALIGNMENTS)),
        "accept": st.one_of(st.just(AcceptGroup(me)),
                            st.builds(AcceptGroup, st.just(me), card, side)),
        "defend": st.builds(DefendOrder, money, a_card_or_none, money),
        "interfere": st.builds(InterfereOrder,
                               st.builds(Interfere, st.just(me), money,
                                         st.sampled_from(["assist", "interfere"])), money),
        "abolish": st.builds(AbolishPrivilege, st.just(me), st.one_of(
            st.tuples(special),
            st.lists(special, min_size=2, max_size=2, unique=True).map(tuple),
            st.just((INTERFERENCE, INTERFERENCE)))),
        "conditional_play": st.builds(
            ConditionalPlay, st.sampled_from(["succeeds", "fails"]),
            st.builds(PlaySpecial, st.just(me), st.sampled_from(AFTER_ROLL))),
        "standing_defend": st.builds(StandingDefend, positive, a_group_or_any),
        "standing_attack_reaction": st.one_of(
            st.builds(StandingAttackReaction, st.sampled_from(ON_ATTACK), who, a_group_or_any,
                      st.just("always")),
            st.builds(StandingAttackReaction, st.sampled_from(AFTER_ROLL), who,
                      a_group_or_any, st.sampled_from(["succeeds", "fails"]))),
        "standing_turn_reaction": st.builds(StandingTurnReaction, st.sampled_from(ON_TURN),
                                            who),
        "standing_clear": st.one_of(st.just(StandingClear()),
                                    st.builds(StandingClear, positive)),
        "press": st.builds(Press, st.lists(other, unique=True, max_size=3).map(tuple),
                           press_text),
        "odds": st.builds(Odds, attacks(me, full=False), money),
        "history": st.one_of(st.just(History()), st.builds(History, positive)),
        "help": st.one_of(st.just(Help()), st.builds(Help, st.lists(
            st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8),
            min_size=1, max_size=2).map(" ".join))),
        "set_timezone": st.builds(SetTimezone, st.sampled_from(ZONES)),
        "set_language": st.builds(SetLanguage, st.sampled_from(["en", "fr"])),
        "set_html": st.builds(SetHtml, st.booleans()),
        "set_json": st.builds(SetJson, st.booleans()),
        "set_mail": st.builds(SetMail, st.sampled_from(["full", "digest"])),
        "set_report": st.builds(SetReport, st.sampled_from(["full", "short"])),
        "set_absence": st.builds(SetAbsence, absence_moments, st.one_of(
            st.just(""), absence_moments)),
        "cancel_absence": st.one_of(st.just(CancelAbsence()),
                                    st.builds(CancelAbsence, positive)),
        "deal": st.builds(ProposeDeal, st.just(me), other, sides, sides).filter(
            lambda d: not (d.gives.empty and d.takes.empty)),
        "accept_deal": st.builds(AcceptDeal, st.just(me), positive),
        "decline_deal": st.builds(DeclineDeal, st.just(me), positive),
        "withdraw_deal": st.builds(WithdrawDeal, st.just(me), positive),
        "vote_end": st.builds(VoteEnd, st.just(me),
                              st.lists(other, max_size=3, unique=True).map(tuple)),
        "standing_counter": st.builds(StandingCounter, special, who),
    }
    return {**{kind: st.just(order) for kind, order in bare.items()}, **built}


def orders(me: str, players: list[str]) -> st.SearchStrategy[Order]:
    """Any order, every kind equally likely."""
    by_kind = strategies(me, players)

    def checked(kind: str) -> st.SearchStrategy[Order]:
        return by_kind[kind].filter(lambda order: KINDS[type(order)] == kind)

    return st.sampled_from(sorted(by_kind)).flatmap(checked)
