"""Orders round-trip through their text, and no text makes the parser fail untyped.

Like python-chess's ``Move.from_uci(m.uci()) == m``: every order value, built from the real
card set, formats to a line that parses back to the same value, with or without the list of
players; and any text whatever gives orders and typed errors, never a crash.
"""

from __future__ import annotations

import dataclasses
from typing import TypeVar

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from order_strategies import CARDS, VOCABULARY, orders, players_lists, strategies

from pbem.engine.commands import ProposeDeal
from pbem.errors import OrderSyntaxError, PbemError
from pbem.orders import (
    KINDS,
    Header,
    Order,
    format_order,
    format_orders,
    parse_orders,
)

# Orders are drawn once with stand-ins for the player names, then the stand-ins are replaced
# by each example's names: building the strategies anew for every list of players is slow.
T = TypeVar("T")
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
    assume(not any(VOCABULARY.could_match("card", p) for p in players))
    parsed = parse_orders(format_orders(header, written), CARDS)
    assert parsed.errors == ()
    assert [o.order for o in parsed.orders] == written


def test_a_name_taken_as_written_ends_at_the_first_keyword() -> None:
    """Without the players, ``DEAL A0 GIVE 1 MB TAKE 1 MB`` deals with A0 (found by
    Hypothesis: the longest name, "A0 GIVE 1 MB", was read); a name holding a keyword is
    written quoted."""
    parsed = parse_orders('GAME g PLAYER A0 PASSWORD p\nDEAL A0 GIVE 1 MB TAKE 1 MB\n'
                          'DEAL "A0 GIVE 1 MB" TAKE 1 MB\nEND', CARDS)
    assert parsed.errors == ()
    assert [(o.order.to, o.order.gives.money) for o in parsed.orders
            if isinstance(o.order, ProposeDeal)] == [("A0", 1), ("A0 GIVE 1 MB", 0)]


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
