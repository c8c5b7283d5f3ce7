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
from tables import NOW, mail, position, table

from pbem.engine.bidding import defence_to_stop
from pbem.engine.state import GameState
from pbem.orders import DefendOrder, parse_order
from pbem.reports import mails as reports
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


def defend_lines(text: str) -> list[str]:
    """The DEFEND lines the text part gives to copy (indented, on lines of their own)."""
    return [line.strip() for line in text.splitlines() if line.startswith("    DEFEND ")]


def hopeless(group: int, illuminati: int, upto: int = 0) -> Table:
    """ann attacks to CONTROL bob's Boy Sprouts, held right under his Gnomes: the roll
    needed is -3 before anyone spends; ann keeps ``upto`` MB (of her 10) to add at the
    close. bob holds ``group`` MB on Boy Sprouts and ``illuminati`` on his Gnomes."""
    state: GameState = money(position(), "ann", "The Bavarian Illuminati", 10)
    state = money(money(state, "bob", "Boy Sprouts", group), "bob", GNOMES, illuminati)
    t = table(state)
    attack = "ATTACK Bavarian CONTROL Boy Sprouts" + (f" UPTO {upto}" if upto else "")
    assert all(r.accepted for r in mail(t, "ann", attack))
    assert need(t.state) == -3
    return t


def test_an_attack_that_cannot_succeed_asks_for_no_money_now() -> None:
    """rulebook-en: "A roll of 11 or 12 is an automatic failure", and no two dice make 1 or
    less: with the roll needed at -3 the attack cannot succeed as it stands, so the mail
    offers no DEFEND 1 line (that money would be wasted). The attacker's UPTO is kept secret
    (docs/service.md), so the defender is offered DEFEND 0 UPTO: what would bring even a
    roll needed of 10 back down to 1, spent only if the attacking side adds money."""
    t = hopeless(group=3, illuminati=20)
    rendered = request(t)
    text = flat(rendered.text)
    assert "DEFEND 1" not in rendered.text and "DEFEND 1" not in rendered.html
    assert ("You defend, and the attack cannot succeed as it stands: the roll needed is -3, "
            "and no roll of the dice is that low. You need not spend anything now.") in text
    # 3 MB on Boy Sprouts count 6, 3 more from the Gnomes: 10 brought down to 1.
    assert defend_lines(rendered.text) == ["DEFEND 0 UPTO 6"]
    assert "let us add up to 6 MB, enough to bring even 10 back down to 1." in text
    assert "<code>DEFEND 0 UPTO 6</code>" in rendered.html
    assert "the attack cannot succeed as it stands" in flat(rendered.html)
    french = request(t, "fr")
    assert "DEFEND 1" not in french.text and defend_lines(french.text) == ["DEFEND 0 UPTO 6"]
    assert ("Vous défendez, et l'attaque ne peut pas réussir en l'état : le résultat qu'il "
            "faut est -3") in flat(french.text)
    assert "l'attaque ne peut pas réussir en l'état" in flat(french.html)


def test_a_poor_defender_of_a_hopeless_attack_is_offered_all_they_hold() -> None:
    """bob holds 2 MB on his Gnomes only: DEFEND 0 UPTO 2, and the mail says it is all his
    money and where it would bring a roll needed of 10."""
    t = hopeless(group=0, illuminati=2)
    text = request(t).text
    assert defend_lines(text) == ["DEFEND 0 UPTO 2"]
    assert "all your money on these two cards (it brings 10 down to 8)" in flat(text)


@pytest.mark.parametrize(("upto", "spent"), [(0, 0), (10, 3)])
def test_the_zero_line_spends_only_against_money_the_attacker_adds(upto: int,
                                                                   spent: int) -> None:
    """docs/service.md: the defending side's UPTO is spent "for as long as the number needed
    is above 1". With no UPTO of ann's, bob's suggested line spends nothing; with UPTO 10 ann
    raises the roll needed from -3 to 7, and bob's line spends 3 MB of Boy Sprouts (6
    points) to bring it back to 1. Either way the attack fails."""
    t = hopeless(group=3, illuminati=20, upto=upto)
    (line,) = defend_lines(request(t).text)
    assert all(r.accepted for r in mail(t, "bob", line))
    mail(t, "cat", "NO RESPONSE")
    paid = sum(e.data["amount"] for e in of_kind(t.events, "spend")
               if e.data["player"] == "bob")
    assert paid == spent
    (settled,) = of_kind(t.events, "attack_result")
    assert settled.data["need"] <= 1 and not settled.data["success"]


@pytest.mark.parametrize(("lang", "sentence"), [
    ("en", "UPTO 3 is the most we may add for you once the answers are in: what raises the "
           "number you need to roll to 10 (11 and 12 always fail, so more would be wasted), "
           "and more each time the other side lowers it, until the 3 are spent."),
    ("fr", "UPTO 3 est le plus que nous pouvons ajouter pour vous une fois les réponses "
           "arrivées : ce qui porte à 10 le résultat qu'il vous faut (11 et 12 échouent "
           "toujours, davantage serait perdu), puis encore chaque fois que l'autre camp le "
           "fait baisser, jusqu'à épuisement des 3.")])
def test_the_welcome_says_how_the_attackers_upto_is_spent(lang: str, sentence: str) -> None:
    """docs/service.md: "the attacker's side [...] raises the number needed to 10 [...] A
    side spends toward its goal whether or not the other side spent". The welcome's example
    (SPEND 2 UPTO 3) says so, in both parts, and no longer "each time the defender spends";
    and the bidding does it: unanswered, SPEND 2 UPTO 3 spends all 5 MB."""
    state = money(position(), "ann", "The Bavarian Illuminati", 10)
    welcome = reports.welcome(CARDS, state, "ann", password="pw", now=NOW, lang=lang)
    assert sentence in flat(welcome.text)
    assert sentence in flat(welcome.html)
    assert "one at a time" not in welcome.text and "un à la fois" not in welcome.text
    t = table(state)
    assert all(r.accepted for r in mail(t, "ann", f"{ATTACK} SPEND 2 UPTO 3"))
    for player in ("bob", "cat"):
        mail(t, player, "NO RESPONSE")
    paid = sum(e.data["amount"] for e in of_kind(t.events, "spend")
               if e.data["player"] == "ann")
    assert paid == 5
