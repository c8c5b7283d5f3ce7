"""Wording QA found by playing by mail: one full stop after a name ending in one, verbs that
agree with a card, the defender's UPTO, the terms of a breakdown in one style."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from pathlib import Path

import pytest
from factory import BAVARIA, GNOMES, chain, game
from scripted_game import CARDS, DEADLINE, NOW, mails

from pbem.engine import breakdown as breakdown_module
from pbem.engine.commands import OfferGroup
from pbem.engine.rules import apply
from pbem.orders import parse_order
from pbem.reports import mails as reports
from pbem.reports.paraphrase import paraphrase
from pbem.reports.templating import environment, template

ABBREVIATED = ("S.M.O.F.", "C.I.A.")


def words(text: str) -> str:
    """The text with every run of blanks (wrapping, no-break spaces) as one space."""
    return " ".join(text.split())


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("group", ABBREVIATED)
def test_a_name_ending_in_a_full_stop_ends_a_sentence_with_one(group: str, lang: str) -> None:
    """QA: "zoe offers you S.M.O.F.. If you accept": a sentence ending on a card name
    ending in "." has one full stop, in the text and the HTML part, in both languages."""
    state = chain(game(ann=BAVARIA, bob=GNOMES), "ann", group)
    state, _ = apply(state, OfferGroup("ann", group, "bob"), CARDS)
    mail = reports.turn_report(CARDS, state, "bob", (), now=NOW, deadline=DEADLINE,
                               offer_deadline=NOW + timedelta(hours=24), lang=lang)
    offered = {"en": f"ann offers you {group} If you accept",
               "fr": f"ann vous offre {group} Si vous acceptez"}[lang]
    assert offered in words(mail.text)
    plain_html = html.unescape(re.sub(r"<[^>]+>", "", mail.html))
    assert offered in words(plain_html)
    for part in (mail.subject, mail.text, plain_html):
        assert f"{group}." not in part.replace(f"{group}...", "")


@pytest.mark.parametrize(("line", "sentence"), [
    ("ATTACK Assassins NEUTRALIZE SMOF",
     "The Society of Assassins attacks to neutralize S.M.O.F."),
    ("ATTACK Girlie Magazines CONTROL Eco-Guerrillas",
     "Girlie Magazines attacks to control Eco-Guerrillas."),
])
def test_an_attacking_card_is_one_thing(line: str, sentence: str) -> None:
    """QA: "The Society of Assassins attack to neutralize S.M.O.F.": a group or an
    Illuminati card is one thing, the verb agrees with it (and one full stop after
    S.M.O.F.)."""
    order = parse_order(line, CARDS, "Alice", ("Alice", "Bob"))
    assert paraphrase(order) == sentence


def _defender_request(lang: str) -> str:
    return words(dict(mails(lang))["response_request-defender-Chloé"].text)


def test_the_defenders_upto_says_whose_money_is_taken_first() -> None:
    """rulebook-en: "Resistance to that attack will increase by two for each MB spent from
    the defending Group's treasury, and by one for each MB spent from his Illuminati
    treasury." The UPTO line's explanation says that the defender's own money is taken
    from the attacked group first, then from the Illuminati; not that the attacker pays
    from the attacked group."""
    en, fr = _defender_request("en"), _defender_request("fr")
    assert ("we add only what is needed, and more each time the attacker adds money; your "
            "money is taken from Phone Phreaks first, then from your Illuminati: "
            "DEFEND 1 UPTO 6") in en
    assert "(from the attacked group first)" not in en
    assert ("chaque fois que l'attaquant ajoute de l'argent ; votre argent est pris d'abord "
            "sur Phone Phreaks, puis sur votre Illuminati : DEFEND 1 UPTO 6") in fr
    assert "(d'abord du groupe attaqué)" not in fr


MONEY_TERMS = ("attacker_money", "defender_money", "assist", "interfere")


@pytest.mark.parametrize(("lang", "form"), [
    ("en", r"money spent to (attack|defend|assist|interfere), (from|by) C\.I\.A\."),
    ("fr", r"argent dépensé pour (attaquer|défendre|aider l'attaquant|interférer), "
           r"(pris sur|par) C\.I\.A\."),
])
def test_every_money_term_of_a_breakdown_has_one_form(lang: str, form: str) -> None:
    """QA: "+4 MB spent from ..." next to "-1 money spent to defend, from ...": every money
    term of an attack's breakdown says what it was spent for, then where it came from."""
    module = template("_words.txt.j2", lang).module
    for kind in MONEY_TERMS:
        assert re.fullmatch(form, str(module.term(kind, "C.I.A."))), kind


def test_a_breakdown_names_every_kind_of_term() -> None:
    """Every term the engine's breakdown can give has its own words (the Media alignment
    term of the French rules fell back to its key)."""
    kinds = set(re.findall(r'Term\("(\w+)"', Path(breakdown_module.__file__).read_text()))
    kinds |= set(MONEY_TERMS)
    for lang in ("en", "fr"):
        module = template("_words.txt.j2", lang).module
        fallback = [k for k in sorted(kinds) if str(module.term(k, "X")) == f"{k} (X)"]
        assert fallback == [], lang


def test_one_full_stop_keeps_an_ellipsis_and_markup() -> None:
    """Every template's output drops the second stop after "C.I.A." (closing tags between
    them too), and leaves an ellipsis ("Plan B...") and other text alone."""
    template = environment().from_string(
        "{{ a }}. <b>{{ a }}</b>. Plan B... e.g.. {{ a }}...")
    assert template.render(a="C.I.A.") == "C.I.A. <b>C.I.A.</b> Plan B... e.g.. C.I.A...."


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "Goal of The Gnomes of Zurich: hold 150 MB in the whole power structure. "
           "Progress not shown: it counts money only its player sees."),
    ("fr", "Objectif de The Gnomes of Zurich : réunir 150 MB dans toute la structure de "
           "pouvoir. Progression non montrée : elle compte un argent que seul son joueur "
           "voit."),
])
def test_another_players_report_shows_the_gnomes_goal(lang: str, said: str) -> None:
    """summary-en: "Gnomes of Zurich Collect 150 MegaBucks (in the whole Power Structure's
    treasuries)": the goal is printed on a card in plain view; only its progress, which
    adds up money others cannot see, stays hidden from the other players."""
    state = game(ann=BAVARIA, bob=GNOMES)
    mail = reports.turn_report(CARDS, state, "ann", (), now=NOW, deadline=DEADLINE, lang=lang)
    assert said in words(mail.text)
    assert said in words(html.unescape(re.sub(r"<[^>]+>", "", mail.html)))
