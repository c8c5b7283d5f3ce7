"""The defender's ready-to-copy DEFEND ... UPTO line fits the defender: it asks for what stops
the attack as it stands, or for all the defender has when that is less, never for more.

Rulebook, "Spending Money To Defend": "the defender may counter an attack by spending some of
his own money. Resistance to that attack will increase by two for each MB spent from the
defending Group's treasury, and by one for each MB spent from his Illuminati treasury."
docs/orders.md says how UPTO is spent: toward a roll needed of 1 or less.
"""

from __future__ import annotations

import pytest
from factory import CARDS, GNOMES, money, need, of_kind
from test_service_flow import NOW, mail, position, table

from pbem import reports
from pbem.engine.bidding import defence_to_stop
from pbem.engine.state import GameState
from pbem.orders import DefendOrder, parse_order
from pbem.service.table import Table

ATTACK = "ATTACK Bavarian NEUTRALIZE Boy Sprouts"  # needs 3 before anyone spends


def attacked(group: int, illuminati: int, spend: int, bank: int = 10) -> Table:
    """ann (``bank`` MB) attacks bob's Boy Sprouts, spending ``spend``; bob holds ``group``
    MB on Boy Sprouts and ``illuminati`` on his Gnomes."""
    state: GameState = money(position(), "ann", "The Bavarian Illuminati", bank)
    state = money(money(state, "bob", "Boy Sprouts", group), "bob", GNOMES, illuminati)
    t = table(state)
    assert all(r.accepted for r in mail(t, "ann", f"{ATTACK} SPEND {spend}" if spend
                                        else ATTACK))
    return t


def request(t: Table, lang: str = "en") -> reports.Rendered:
    return reports.response_request(CARDS, t.state, "bob", now=NOW, deadline=None, lang=lang)


def flat(text: str) -> str:
    return " ".join(text.replace("\xa0", " ").split())


def upto_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if " UPTO " in line]


def test_group_money_counts_double_toward_stopping_the_attack() -> None:
    """rulebook-en: "Resistance to that attack will increase by two for each MB spent from the
    defending Group's treasury, and by one for each MB spent from his Illuminati treasury."
    The group's money goes first, as DEFEND without FROM spends it."""
    assert defence_to_stop(10, [(2, 2), (30, 1)]) == (2 + 5, 1)
    assert defence_to_stop(10, [(9, 2), (30, 1)]) == (5, 0)  # 2 a MB may overshoot to 0
    assert defence_to_stop(10, [(0, 2), (30, 1)]) == (9, 1)
    assert defence_to_stop(10, [(1, 2), (3, 1)]) == (4, 5)  # all of it, and short
    assert defence_to_stop(1, [(5, 2), (5, 1)]) == (0, 1)  # nothing to stop


def test_a_defender_with_little_money_is_offered_all_of_it_and_no_more() -> None:
    """bob holds 2 MB in all against a roll needed of 6: the line spends the 2 MB, and the
    sentence says it is all his money and where it brings the roll needed."""
    t = attacked(group=0, illuminati=2, spend=3)
    assert need(t.state) == 6
    text = request(t).text
    assert upto_lines(text) == ["DEFEND 1 UPTO 1"]
    assert ("let us add up to 1 more, all your money on these two cards: as the attack "
            "stands, it brings the roll needed down to 4.") in flat(text)
    french = flat(request(t, "fr").text)
    assert ("jusqu'à 1 de plus, tout votre argent sur ces deux cartes : en l'état de "
            "l'attaque, cela ramène le résultat qu'il faut à 4.") in french


def test_a_defender_with_much_money_is_offered_what_stops_a_strong_attack() -> None:
    """bob holds 30 MB against a roll needed of 17 (ann spent 14): 16 MB bring it to 1,
    where no roll succeeds; the line asks for that, not for a fixed 5."""
    t = attacked(group=0, illuminati=30, spend=14, bank=30)
    assert need(t.state) == 17
    rendered = request(t)
    assert upto_lines(rendered.text) == ["DEFEND 1 UPTO 15"]
    assert ("let us add up to 15 more: as the attack stands, 16 MB in all bring the roll "
            "needed down to 1, and then no roll succeeds.") in flat(rendered.text)
    assert "<code>DEFEND 1 UPTO 15</code>" in rendered.html
    assert "up to 15 more" in flat(rendered.html)
    french = request(t, "fr")
    assert upto_lines(french.text) == ["DEFEND 1 UPTO 15"]
    assert "jusqu'à 15 de plus : en l'état de l'attaque, 16 MB en tout" in flat(french.text)
    assert "jusqu'à 15 de plus" in flat(french.html)


@pytest.mark.parametrize(("group", "illuminati"), [(0, 0), (0, 1), (1, 0)])
def test_no_upto_line_when_one_mb_is_all_there_is(group: int, illuminati: int) -> None:
    """With nothing on either card there is no DEFEND line at all; with 1 MB the DEFEND 1
    line is all there is to spend, so no UPTO line is offered."""
    t = attacked(group=group, illuminati=illuminati, spend=3)
    for lang in ("en", "fr"):
        rendered = request(t, lang)
        assert not upto_lines(rendered.text) and " UPTO " not in rendered.html
        assert ("DEFEND 1 FROM" in rendered.text) == bool(group or illuminati)


@pytest.mark.parametrize(("group", "illuminati", "spend"),
                         [(0, 30, 7), (2, 30, 7), (3, 5, 10), (0, 4, 10)])
def test_the_suggested_line_parses_and_the_bidding_spends_it_as_the_mail_says(
        group: int, illuminati: int, spend: int) -> None:
    """The line reads back as a DEFEND order; mailed as it is, the proxy bidding spends all
    of it (no more), and the roll needed ends where the sentence said."""
    t = attacked(group=group, illuminati=illuminati, spend=spend)
    text = flat(request(t).text)
    (line,) = upto_lines(request(t).text)
    order = parse_order(line, CARDS, "bob")
    assert isinstance(order, DefendOrder) and order.amount == 1 and order.upto > 0
    said = int(text.split("down to ")[1].split(",")[0].split(".")[0])
    assert all(r.accepted for r in mail(t, "bob", line))
    mail(t, "cat", "NO RESPONSE")
    spent = sum(e.data["amount"] for e in of_kind(t.events, "spend")
                if e.data["player"] == "bob")
    assert spent == 1 + order.upto <= group + illuminati
    (settled,) = of_kind(t.events, "attack_result")
    assert settled.data["need"] == said
