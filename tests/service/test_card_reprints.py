"""A new printing of a card is a data change (issue 36): the service asks, offers and plays
a special card by its behaviour in the card data, never by its name. docs/cards.md."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from card_copies import reprinted
from factory import BAVARIA, GNOMES, NETWORK, deal, free, game, money, place, rig
from tables import NOW

from pbem.engine.cards import CardSet
from pbem.engine.events import AttackResult, RollBecomes
from pbem.engine.state import GameState
from pbem.orders.parse import parse_orders
from pbem.reports.mails import OrderResult
from pbem.service.model import GameService, Seat, Timing, iso
from pbem.service.notice_mails import render_notice
from pbem.service.notices import ResponseRequest
from pbem.service.order_mail import carry_out_mail
from pbem.service.settings import MailIdentity
from pbem.service.table import Table


def position(card: str) -> GameState:
    """ann (Bavarians) attacks; cat (Network) holds ``card`` and no money, so it is the
    only thing she could answer the attack with."""
    state = game(ann=BAVARIA, bob=GNOMES, cat=NETWORK)
    state = free(state, "Hackers", "Flat Earthers")
    state = place(state, "bob", "Boy Sprouts", treasury=2)
    state = money(state, "ann", BAVARIA, 10)
    state = money(state, "bob", GNOMES, 10)
    return deal(state, "cat", card) if card else state


def table(cards: CardSet, state: GameState) -> Table:
    seats = tuple(Seat(p.name, f"{p.name}@example.org") for p in state.players)
    rules = Timing()
    service = GameService(seats=seats, timing=rules, started=True, turn_seq=state.seq,
                          deadline=iso(NOW + timedelta(hours=rules.orders_hours)))
    return Table(cards, state, service, NOW, 0)


def mail(t: Table, player: str, *lines: str) -> list[OrderResult]:
    """One order mail of ``player``, read with the game's own cards."""
    names = tuple(p.name for p in t.state.players)
    parsed = parse_orders("\n".join([f"GAME test PLAYER {player} PASSWORD x", *lines, "END"]),
                          t.cards, names)
    assert not parsed.errors, parsed.errors
    return carry_out_mail(t, t.service.seat(player), parsed, site_dir=None)[0]


def request_text(t: Table, player: str) -> str:
    (notice,) = [n for n in t.notices if isinstance(n, ResponseRequest) and n.to == player]
    _, _, rendered = render_notice(t.cards, t.state, t.service, notice, now=NOW, news=(),
                                   history=(), sender=MailIdentity())
    return rendered.text


@pytest.mark.parametrize("card", ["Murphy's Law", "Sod's Law"])
def test_the_holder_of_a_reprint_is_asked_as_the_original_s_holder(
        tmp_path: Path, card: str) -> None:
    """Rulebook, "Special Cards", Murphy's Law: "Play this card right after the dice are
    rolled on any attack by any player". cat holds the card (the original or Sod's Law, its
    reprint under another name) and no money: she is asked to answer the attack, offered
    ``IF SUCCEEDS PLAY <card>``, and the card, played so, turns the success into a
    failure."""
    cards = reprinted(tmp_path)
    t = table(cards, position(card))
    mail(t, "ann", "ATTACK Bavarian CONTROL Hackers")
    assert t.service.window is not None and "cat" in t.service.window.asked
    assert f"IF SUCCEEDS PLAY {card}" in request_text(t, "cat")
    assert all(r.accepted for r in mail(t, "cat", f"IF SUCCEEDS PLAY {card}"))
    assert t.service.window.answer_of("cat") is not None


def test_without_the_card_she_is_not_asked(tmp_path: Path) -> None:
    """The control case of the reprint test: no card, no money, nothing to answer with."""
    t = table(reprinted(tmp_path), position(""))
    mail(t, "ann", "ATTACK Bavarian CONTROL Hackers")
    assert t.service.window is not None and "cat" not in t.service.window.asked


def test_a_reprint_played_on_a_success_makes_the_attack_fail(tmp_path: Path) -> None:
    """Murphy's Law: "the roll becomes a 12" (an automatic failure); Sod's Law does the
    same on a roll of 2, read from a mail as the original is, and is discarded."""
    t = table(reprinted(tmp_path), rig(position("Sod's Law"), 2))
    mail(t, "ann", "ATTACK Bavarian CONTROL Hackers")
    mail(t, "bob", "NO RESPONSE")
    mail(t, "cat", "IF SUCCEEDS PLAY Sod's Law")
    assert t.service.window is None
    assert [(e.card, e.roll) for e in t.events if isinstance(e, RollBecomes)] == [
        ("Sod's Law", 12)]
    (result,) = [e for e in t.events if isinstance(e, AttackResult)]
    assert result.roll == 12 and not result.success
    assert "Sod's Law" not in t.state.player("cat").hand
