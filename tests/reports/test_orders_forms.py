"""The order lines a report offers to copy: whole, and only orders that would be accepted.

Reports are rendered from positions built with tests/factory.py; the lines are read back by
the order parser, as a player's reply would be.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from datetime import UTC, datetime

from factory import CARDS, DISCORDIA, GNOMES, free, game, money, place

from pbem.engine.state import GameState
from pbem.orders.parse import parse_orders
from pbem.reports import mails as reports

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
LONG = "Evil Geniuses for a Better Tomorrow"


def position() -> GameState:
    """ann (Discordians with the L-4 Society, to act) and bob (Gnomes); a group with a long
    name is free to attack."""
    state = game(ann=DISCORDIA, bob=GNOMES)
    state = free(state, LONG)
    state = place(state, "ann", "L-4 Society", treasury=3)
    return money(state, "ann", DISCORDIA, 10)


def text(state: GameState, player: str = "ann", lang: str = "en") -> str:
    return reports.turn_report(CARDS, state, player, (), now=NOW, deadline=None, lang=lang,
                               html=False).text


def test_suggested_attack_lines_fit_72_columns_and_read_back_whole() -> None:
    """The report's ODDS section gives each attack as an order line to copy into a reply.
    Clients wrap at 72 columns or so, so a long one is written cut before a keyword, its
    continuation indented below it (issue 19): every line fits 72 columns, and the lines
    copied together read back as one order each."""
    for lang in ("en", "fr"):
        lines = text(position(), lang=lang).splitlines()
        at = [i for i, line in enumerate(lines) if line.startswith("    ATTACK")]
        blocks = [[lines[i], *itertools.takewhile(lambda x: x.startswith("      "),
                                                  lines[i + 1:])] for i in at]
        assert any(LONG in block[0] and len(block) > 1 for block in blocks), blocks
        assert all(len(line) <= 72 for block in blocks for line in block)
        start = "GAME test PLAYER ann PASSWORD x"
        copied = [line.strip() for block in blocks for line in block]
        parsed = parse_orders("\n".join([start, *copied, "END"]), CARDS, ("ann", "bob"))
        assert not parsed.errors and len(parsed.orders) == len(blocks)
        assert all(len(o.text) > 78 for o in parsed.orders if LONG in o.text)


def test_the_form_offers_end_turn_once_the_player_has_acted() -> None:
    """Rules summary, "Passing: A player may choose not to take any actions of any sort and
    collect 5MB instead." Once they have acted, passing is refused, so the form offers
    END TURN, not PASS."""
    fresh = position()
    assert "# PASS" in text(fresh).splitlines() and "# END TURN" not in text(fresh)
    acted = replace(fresh, turn=replace(fresh.turn, actions=1, did_anything=True))
    for lang in ("en", "fr"):
        form = text(acted, lang=lang).splitlines()
        assert "# END TURN" in form and "# PASS" not in form


def test_a_response_requests_answer_lines_read_back() -> None:
    """The answers a response request offers (DEFEND, NO RESPONSE...) are lines to copy, like
    the ODDS lines (and printed whole, as they are): each reads back as an order."""
    from factory import run

    from pbem.engine.commands import Attack, Spend

    state = place(position(), "bob", LONG, treasury=2)
    # Money enough that defending is worth more than one MB: an UPTO line is offered too.
    state, _ = run(state, Attack("ann", "L-4 Society", LONG, "control"),
                   Spend("ann", DISCORDIA, 10), Spend("ann", "L-4 Society", 3))
    for lang in ("en", "fr"):
        mail = reports.response_request(CARDS, state, "bob", now=NOW, deadline=None,
                                        lang=lang, html=False).text
        offered = [line.strip() for line in mail.splitlines()
                   if line.startswith("    ") and line.split()[0].isupper()]
        assert any(LONG in line for line in offered) and len(offered) >= 3, offered
        start = "GAME test PLAYER bob PASSWORD x"
        parsed = parse_orders("\n".join([start, *offered, "END"]), CARDS, ("ann", "bob"))
        assert not parsed.errors and len(parsed.orders) == len(offered), parsed.errors


def test_a_player_out_of_the_game_gets_no_order_form() -> None:
    """Rules, "Eliminating a Player" and "Leaving the Game": a player out of the game plays
    no more; their report says so and offers no orders to send."""
    from factory import update

    for status, said in (("eliminated", "eliminated"), ("left", "you left it")):
        state = update(position(), "bob", status=status)
        report = " ".join(text(state, "bob").split())
        assert f"You are out of this game ({said})" in report
        assert "ORDERS" not in report and "# GIVE" not in report
    assert "Vous êtes hors jeu (élimination)" in " ".join(
        text(update(position(), "bob", status="eliminated"), "bob", "fr").split())
    assert "ORDERS" in text(position(), "bob")


def test_the_form_offers_end_turn_after_a_free_action_too() -> None:
    """Rules summary, "Passing": passing means taking no actions "of any sort"; a group
    dropped (a free action) rules it out just as an attack does."""
    state = position()
    state = replace(state, turn=replace(state.turn, did_anything=True))
    form = text(state).splitlines()
    assert "# END TURN" in form and "# PASS" not in form



def test_a_player_who_left_is_shown_out_of_play() -> None:
    """rulebook-en: "If a player drops out, his Groups go uncontrolled and their treasuries go
    to the bank. His Illuminati card is taken out of play." The others' reports say so
    instead of showing the card."""
    from factory import update

    state = update(position(), "bob", status="left")
    report = " ".join(text(state, "ann").split())
    assert "bob left the game" in report and GNOMES not in report
    assert GNOMES in " ".join(text(position(), "ann").split())
    assert "bob a quitté la partie" in " ".join(text(state, "ann", "fr").split())
