"""Orders round-trip through their text, and no text makes the parser fail untyped.

Like python-chess's ``Move.from_uci(m.uci()) == m``: every order value, built from the real
card set, formats to a line that parses back to the same value, with or without the list of
players; and any text whatever gives orders and typed errors, never a crash.
"""

from __future__ import annotations

import dataclasses
import zoneinfo
from typing import TypeVar

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pbem.engine.carddata import load_cardset
from pbem.engine.cards import ALIGNMENTS
from pbem.engine.commands import (
    AbolishPrivilege,
    AcceptGroup,
    Attack,
    CallOff,
    ChooseGoal,
    Counter,
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
    TransferMoney,
    UseLasers,
    UseRecyclers,
    WithdrawOffer,
)
from pbem.errors import OrderSyntaxError, PbemError
from pbem.orders import (
    KINDS,
    AttackOrder,
    ConditionalPlay,
    DefendOrder,
    Header,
    Help,
    History,
    InterfereOrder,
    NoResponse,
    Odds,
    Order,
    Press,
    SetHtml,
    SetLanguage,
    SetTimezone,
    StandingAttackReaction,
    StandingClear,
    StandingDefend,
    StandingList,
    StandingNeverInterfere,
    StandingTurnReaction,
    Status,
    format_order,
    format_orders,
    parse_orders,
)
from pbem.orders.lexer import split_comment
from pbem.orders.names import normalize_name
from pbem.orders.vocabulary import Vocabulary

T = TypeVar("T")
CARDS = load_cardset()
GROUPS = [g.name for g in CARDS.groups]
STRUCTURE = [c.name for c in CARDS.illuminati] + GROUPS
SPECIALS = [s.name for s in CARDS.specials]
SECRETS = next(s.name for s in CARDS.specials if s.effect == "secrets_man_was_not_meant_to_know")
AFTER_ROLL = [s.name for s in CARDS.specials if s.timing == "after_roll"]
ON_ATTACK = [s.name for s in CARDS.specials
             if s.timing in ("after_privilege", "privileged_attack", "after_roll")]
ON_TURN = [s.name for s in CARDS.specials if s.timing in ("turn_start", "own_income")]
PLAIN_SPECIALS = [s.name for s in CARDS.specials if s.effect not in (
    "bribery", "whispering_campaign", "media_campaign", "computer_espionage",
    "white_collar_crime", "secrets_man_was_not_meant_to_know")]
ZONES = [*sorted(zoneinfo.available_timezones())[::25], "UTC", "Europe/Paris"]

money = st.integers(min_value=0, max_value=999_999)
positive = st.integers(min_value=1, max_value=999_999)
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
_VOCABULARY = Vocabulary(CARDS)


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
        if draw(st.booleans()):
            return PlaySpecial(me, "Bribery", group=draw(group), master=draw(card),
                               arrow=draw(side))
        return PlaySpecial(me, "Bribery", group=draw(group))
    if which == "whispering":
        privilege = draw(st.sampled_from(["none", "card", "bavarian"]))
        return PlaySpecial(me, "Whispering Campaign", group=draw(group), attacker=draw(card),
                           aids=tuple(draw(st.lists(card, max_size=2))), privilege=privilege,
                           privilege_card=draw(st.sampled_from(PLAIN_SPECIALS))
                           if privilege == "card" else "")
    if which == "media":
        return PlaySpecial(me, "Media Campaign", group=draw(group))
    if which == "espionage":
        return PlaySpecial(me, "Computer Espionage",
                           other=draw(st.sampled_from([*players, *STRUCTURE])))
    if which == "wcc":
        moves = tuple(draw(st.lists(st.tuples(card, card, positive), max_size=3)))
        return PlaySpecial(me, "White Collar Crime", moves=moves,
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
        "status": Status(),
    }
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
            st.just(("Interference", "Interference")))),
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
    }
    return {**{kind: st.just(order) for kind, order in bare.items()}, **built}


def orders(me: str, players: list[str]) -> st.SearchStrategy[Order]:
    """Any order, every kind equally likely."""
    by_kind = strategies(me, players)

    def checked(kind: str) -> st.SearchStrategy[Order]:
        return by_kind[kind].filter(lambda order: KINDS[type(order)] == kind)

    return st.sampled_from(sorted(by_kind)).flatmap(checked)


# Orders are drawn once with stand-ins for the player names, then the stand-ins are replaced
# by each example's names: building the strategies anew for every list of players is slow.
_STAND_INS = [f"\x00player{i}" for i in range(4)]
_ORDERS = orders(_STAND_INS[0], _STAND_INS)


def _with_players(value: T, names: dict[str, str]) -> T:
    """Gives ``value`` with every stand-in string replaced, through dataclasses and tuples."""
    if isinstance(value, str):
        return names.get(value, value)  # type: ignore[return-value]
    if isinstance(value, tuple):
        return tuple(_with_players(v, names) for v in value)  # type: ignore[return-value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.replace(value, **{  # type: ignore[return-value]
            f.name: _with_players(getattr(value, f.name), names)
            for f in dataclasses.fields(value)})
    return value


@st.composite
def mails(draw: st.DrawFn) -> tuple[list[str], Header, list[Order]]:
    players = draw(players_lists)
    names = dict(zip(_STAND_INS, players, strict=False))
    drawn = [_with_players(o, names) for o in draw(st.lists(_ORDERS, min_size=1, max_size=6))]
    # An order naming a fifth player of a mail with four is left out.
    written = [o for o in drawn if "\\x00" not in repr(o)]
    header = Header(draw(st.from_regex(r"[a-z0-9-]{1,12}", fullmatch=True)), players[0],
                    "******", draw(st.one_of(st.none(), st.integers(min_value=0,
                                                                    max_value=10**9))))
    return players, header, written


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mails())
def test_every_order_reads_back_from_its_text(mail: tuple[list[str], Header, list[Order]]
                                              ) -> None:
    """parse(format(orders)) == orders, with the players given."""
    players, header, written = mail
    text = format_orders(header, written)
    parsed = parse_orders(text, CARDS, players)
    assert [str(e) for e in parsed.errors] == [], text
    assert parsed.warnings == ()
    assert parsed.header == header
    assert [o.order for o in parsed.orders] == written, text


@settings(max_examples=75, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mails())
def test_orders_read_back_without_the_players(mail: tuple[list[str], Header, list[Order]]
                                             ) -> None:
    """Without the players, names are kept as written, so they still read back. (Where a
    player or a group may be named, Computer Espionage's target, a player's name that could
    be a card's, as "4" is a prefix of "L-4 Society", is read as the card: only the players'
    list tells them apart, so such names are left out here.)"""
    players, header, written = mail
    assume(not any(_VOCABULARY.could_match("card", p) for p in players))
    parsed = parse_orders(format_orders(header, written), CARDS)
    assert parsed.errors == ()
    assert [o.order for o in parsed.orders] == written


def test_every_kind_of_order_is_generated() -> None:
    """The round trip covers every kind of order there is."""
    assert set(strategies("Alice", ["Alice", "Bob"])) == set(KINDS.values())


def test_canonical_text_is_stable() -> None:
    """The canonical text of a parsed line is the line the formatter gives (examples)."""
    lines = {
        "attack omcl control boy with cia, pent spend 3 from omcl upto 10 then move 2":
            'ATTACK "Orbital Mind Control Lasers" CONTROL Boy Sprouts WITH C.I.A., Pentagon '
            'SPEND 3 FROM "Orbital Mind Control Lasers" UPTO 10 THEN MOVE 2',
        "give card secrets to bob": 'GIVE CARD "Secrets Man Was Not Meant To Know" TO Bob',
        "give 5 to carol": "GIVE 5 MB TO Carol",
        "standing if anyone attacks any and fails play assassination":
            "STANDING IF ANYONE ATTACKS ANY AND FAILS PLAY Assassination",
    }
    for line, canonical in lines.items():
        parsed = parse_orders(f"GAME g PLAYER Alice PASSWORD p\n{line}\nEND", CARDS,
                              ["Alice", "Bob", "Carol"])
        assert format_order(parsed.orders[0].order) == canonical


# --- robustness -------------------------------------------------------------------------------

_noise = st.text(alphabet=st.characters(codec="utf-8"), max_size=400)
_orderish = st.lists(
    st.one_of(
        st.sampled_from(["ATTACK", "CONTROL", "DESTROY", "WITH", "SPEND", "FROM", "TO", "UPTO",
                         "THEN", "MOVE", "PLAY", "ON", "GIVE", "MB", "CARD", "PRESS", "END",
                         "STANDING", "IF", "ANY", "AND", "SUCCEEDS", ",", '"', "“", "»", "#",
                         "-3", "0", "7", "999999999", "Mafia", "CIA", "Boy Sprouts", "Bob",
                         "Orbital Mind Control Lasers", "Secrets", "White Collar Crime",
                         "SET", "TIMEZONE", "Europe/Paris", "../etc", "\x00", ">"]),
        st.text(max_size=6),
    ),
    max_size=14,
).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(_noise)
def test_any_text_gives_orders_or_a_typed_error(text: str) -> None:
    """Random text never raises anything but OrderSyntaxError (no start line)."""
    try:
        parsed = parse_orders(text, CARDS, ["Alice", "Bob"])
    except OrderSyntaxError as error:
        assert error.message and error.suggestion
        return
    assert all(isinstance(e, OrderSyntaxError) for e in parsed.errors)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_orderish, _noise), max_size=8))
def test_any_lines_after_a_start_line_never_raise(lines: list[str]) -> None:
    """After a good start line, every line gives an order or an error: nothing raises."""
    text = "\n".join(["GAME g PLAYER Alice PASSWORD p", *lines, "END"])
    parsed = parse_orders(text, CARDS, ["Alice", "Bob"])
    for error in parsed.errors:
        assert isinstance(error, PbemError) and isinstance(error, OrderSyntaxError)
        assert error.line is not None and error.message
    for located in parsed.orders:
        assert type(located.order) in KINDS
