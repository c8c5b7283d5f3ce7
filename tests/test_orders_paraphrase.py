"""Orders said in plain English and French, from the templates."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from test_orders_roundtrip import orders

from pbem.engine.carddata import load_cardset
from pbem.orders import KINDS, Order, paraphrase, parse_order
from pbem.render import environment

CARDS = load_cardset()
PLAYERS = ("Alice", "Bob")


def said(line: str, lang: str = "en") -> str:
    return paraphrase(parse_order(line, CARDS, "Alice", PLAYERS), lang)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_each_template_has_a_macro_for_every_kind_of_order(lang: str) -> None:
    """One macro per kind of order, in every language."""
    module = environment().get_template(f"{lang}/paraphrase.txt.j2").module
    assert [k for k in KINDS.values() if not callable(getattr(module, k, None))] == []


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(orders("Alice", ["Alice", "Bob"]))
def test_every_order_is_one_sentence_in_both_languages(order: Order) -> None:
    """Any order renders to one line ending like a sentence, in English and in French."""
    for lang in ("en", "fr"):
        text = paraphrase(order, lang)
        assert "\n" not in text and "  " not in text
        assert text[0].isupper() and text[-1] in ".?", text


def test_the_attack_sentence() -> None:
    """The attack names the groups, the aid, and the money now and at most later."""
    line = "ATTACK Mafia CONTROL Boy Sprouts WITH CIA SPEND 3 UPTO 10"
    assert said(line) == ("The Mafia attack to control Boy Sprouts, aided by C.I.A., "
                          "spending 3 MB and up to 10 MB more in answer to the defence.")
    assert said(line, "fr") == ("Mafia attaque pour contrôler Boy Sprouts, avec l'aide de "
                                "C.I.A., en dépensant 3 Megabucks et jusqu'à 10 Megabucks de "
                                "plus en réponse à la défense.")


def test_french_uses_the_rules_terms() -> None:
    """French says groupe, marionnette, Megabucks, neutraliser, détruire, privilège."""
    assert "neutraliser" in said("ATTACK Mafia NEUTRALIZE Hackers PRIVILEGE BAVARIAN", "fr")
    assert "privilège" in said("ATTACK Mafia NEUTRALIZE Hackers PRIVILEGE BAVARIAN", "fr")
    assert "détruire" in said("ATTACK Mafia DESTROY Hackers", "fr")
    assert "marionnettes" in said("DROP Hackers", "fr")
    assert "groupe" in said("GIVE Hackers TO Bob", "fr")
    assert "Megabucks" in said("GIVE 5 MB TO Bob", "fr")
    assert "Curieux" in said("LASERS ADD Weird ON Hackers", "fr")


def test_other_sentences() -> None:
    assert said("TRANSFER 3 FROM CIA TO Mafia") == "You move 3 MB from C.I.A. to the Mafia."
    assert said("MOVE Hackers TO Mafia LEFT") == (
        "You move Hackers to the left arrow of the Mafia.")
    assert said("STANDING DEFEND ANY UPTO 3") == (
        "From now on, you defend any of your groups with up to 3 MB when attacked.")
    assert said("IF SUCCEEDS PLAY Murphy") == (
        "If the attack succeeds, you play Murphy's Law right after the roll.")
    assert said("HISTORY 1", "fr") == "Envoyez-moi l'historique du dernier tour."


def test_an_unknown_language_falls_back_to_english() -> None:
    assert said("PASS", "de") == said("PASS", "en")


def test_a_name_ending_in_a_stop_ends_the_sentence_once() -> None:
    assert said("ACCEPT AT CIA RIGHT").endswith("right arrow of C.I.A.")
