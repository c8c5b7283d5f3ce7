"""Orders said in plain English, French and German, from the one template and the catalogues."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from order_strategies import orders

from pbem.engine.carddata import load_cardset
from pbem.engine.events import event_of
from pbem.orders import KINDS, Order, parse_order
from pbem.reports import mails as reports
from pbem.reports.paraphrase import paraphrase
from pbem.reports.templating import template

CARDS = load_cardset()
PLAYERS = ("Alice", "Bob")


def said(line: str, lang: str = "en") -> str:
    return paraphrase(parse_order(line, CARDS, "Alice", PLAYERS), lang)


@pytest.mark.parametrize("lang", ["en", "fr", "de"])
def test_each_template_has_a_macro_for_every_kind_of_order(lang: str) -> None:
    """One macro per kind of order, in every language."""
    module = template("paraphrase.txt.j2", lang).module
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
    """The attack names the groups, the aid, and the money now and at most later: UPTO is
    spent once the answers are in, toward a roll needed of 10 (docs/orders.md), whether or
    not the defence spends."""
    line = "ATTACK Mafia CONTROL Boy Sprouts WITH CIA SPEND 3 UPTO 10"
    assert said(line) == ("The Mafia attacks to control Boy Sprouts, aided by C.I.A., "
                          "spending 3 MB and up to 10 MB more once the answers are in, "
                          "toward a roll needed of 10.")
    assert said(line, "fr") == ("The Mafia attaque pour contrôler Boy Sprouts, aidé par "
                                "C.I.A., en dépensant 3\xa0MB et jusqu'à 10\xa0MB de plus une "
                                "fois les réponses arrivées, pour porter à 10 le résultat "
                                "qu'il faut.")


def test_french_uses_the_rules_terms() -> None:
    """French says groupe, marionnette, MB, neutraliser, détruire, privilège."""
    assert "neutraliser" in said("ATTACK Mafia NEUTRALIZE Hackers PRIVILEGE BAVARIAN", "fr")
    assert "privilège" in said("ATTACK Mafia NEUTRALIZE Hackers PRIVILEGE BAVARIAN", "fr")
    assert "détruire" in said("ATTACK Mafia DESTROY Hackers", "fr")
    assert "marionnettes" in said("DROP Hackers", "fr")
    assert "groupe" in said("GIVE Hackers TO Bob", "fr")
    assert "MB" in said("GIVE 5 MB TO Bob", "fr")
    assert "Curieux" in said("LASERS ADD Weird ON Hackers", "fr")


FRENCH_READBACKS = [
    "ATTACK Bavarian CONTROL Boy Sprouts WITH CIA PRIVILEGE BAVARIAN SPEND 3 UPTO 10",
    "TRANSFER 3 FROM CIA TO Mafia", "GIVE 5 MB TO Bob", "PASS", "RECYCLE",
    "DEFEND 2 UPTO 4", "INTERFERE 2 UPTO 3", "STANDING DEFEND ANY UPTO 3",
    "ODDS Mafia CONTROL Boy Sprouts SPEND 2"]


@pytest.mark.parametrize("line", FRENCH_READBACKS)
def test_french_readbacks_count_money_in_mb_as_the_reports_do(line: str) -> None:
    """The readback says "MB", as every French report does (fr/_words.txt.j2), never
    "Megabucks"; rules-fr: "L'argent est mesuré en Megabucks ou MB"."""
    text = said(line, "fr")
    assert "Megabuck" not in text
    assert "\xa0MB" in text


def test_french_readbacks_name_cards_as_printed_like_the_reports() -> None:
    """A card is named as printed, English article included, as in the French reports'
    sentences ("de The Mafia"), never cut to "Mafia"."""
    assert said("TRANSFER 3 FROM Mafia TO CIA", "fr") == (
        "Vous transférez 3\xa0MB de The Mafia à C.I.A.")
    assert said("MOVE Hackers TO Mafia LEFT", "fr") == (
        "Vous déplacez Hackers sur la flèche de gauche de The Mafia.")
    assert said("ATTACK Mafia DESTROY Hackers", "fr").startswith("The Mafia attaque pour détruire")
    event = event_of("transfer", {"player": "Alice", "amount": 3, "from": "The Mafia",
                               "to": "C.I.A."})
    report = reports.history_reply("illu", "Alice", [(1, (event,))], lang="fr").text
    assert "3\xa0MB de The Mafia à C.I.A." in report


def test_french_readbacks_keep_their_no_break_spaces() -> None:
    """The readback is folded to one line without losing the no-break space French puts
    before ":" and "?" (and between a number and MB)."""
    assert said("PASS", "fr") == (
        "Vous passez\xa0: aucune action ce tour, et vous collectez 5\xa0MB.")
    assert said("ODDS Mafia CONTROL Hackers", "fr").endswith("Hackers\xa0?")


def test_french_readbacks_use_the_rules_words_for_abilities_and_treasuries() -> None:
    """rules-fr: "Tous les Illuminatis et certains groupes sont dotés de capacité spéciale";
    "Les MB que vous proposez doivent ensuite provenir de la trésorerie de votre Illuminati
    uniquement." The power (pouvoir) is a card's number, not its ability."""
    privileged = said("ATTACK Bavarian CONTROL Hackers PRIVILEGE BAVARIAN", "fr")
    assert "(capacité de The Bavarian Illuminati, 5\xa0MB)" in privileged
    assert said("END POWERS", "fr") == (
        "Vous n'effectuez plus d'action et utilisez les capacités de fin de tour de votre "
        "Illuminati.")
    assert said("GIVE 5 MB TO Bob", "fr") == (
        "Vous donnez 5\xa0MB de la trésorerie de votre Illuminati à Bob.")
    assert "de la trésorerie de votre Illuminati" in said("ASSIST 2", "fr")


def test_other_sentences() -> None:
    assert said("TRANSFER 3 FROM CIA TO Mafia") == "You move 3 MB from C.I.A. to the Mafia."
    assert said("MOVE Hackers TO Mafia LEFT") == (
        "You move Hackers to the left arrow of the Mafia.")
    assert said("STANDING DEFEND ANY UPTO 3") == (
        "From now on, you defend any of your groups with up to 3 MB when attacked.")
    assert said("IF SUCCEEDS PLAY Murphy") == (
        "If the attack succeeds, you play Murphy's Law right after the roll.")
    assert said("HISTORY 1", "fr") == "Envoyez-moi l'historique du dernier tour."
    assert said("HISTORY 2", "fr") == "Envoyez-moi l'historique des 2 derniers tours."


def test_french_lists_end_with_et() -> None:
    """A list of names ends with "et" in every French sentence, the shared victory's too
    (once "entre Alice, Bob"); the privilege's "5\xa0MB" keeps its no-break space in PLAY
    as in ATTACK (once a plain space there)."""
    assert said("VOTE END WINNERS Alice, Bob", "fr") == (
        "Vous votez pour finir la partie sur une victoire partagée entre Alice et Bob ; elle "
        "finit quand tous les joueurs encore en jeu votent de même.")
    assert "(capacité de The Bavarian Illuminati, 5\xa0MB)" in said(
        "PLAY Whispering Campaign WITH Mafia ON Hackers PRIVILEGE BAVARIAN", "fr")


def test_an_unknown_language_falls_back_to_english() -> None:
    assert said("PASS", "xx") == said("PASS", "en")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(orders("Alice", ["Alice", "Bob"]))
def test_every_order_is_said_in_german(order: Order) -> None:
    """German (issue 42): every sentence is translated, one line ending like a sentence, card
    names as printed ("The Mafia", never "the Mafia")."""
    text = paraphrase(order, "de")
    assert text != paraphrase(order, "en")
    assert "\n" not in text and "  " not in text
    assert text[-1] in ".?", text
    assert re.search(r"\bthe [A-Z]", text) is None, text


def test_german_sentences() -> None:
    assert said("TRANSFER 3 FROM Mafia TO CIA", "de") == (
        "Sie überweisen 3\xa0MB von The Mafia an C.I.A.")
    assert said("MOVE Hackers TO Mafia LEFT", "de") == (
        "Sie setzen Hackers an den linken Pfeil von The Mafia.")
    assert said("HISTORY 1", "de") == "Schicken Sie mir den Verlauf des letzten Zuges."
    assert said("HISTORY 3", "de") == "Schicken Sie mir den Verlauf der letzten 3 Züge."
    assert said("ATTACK Mafia DESTROY Hackers WITH CIA", "de") == (
        "The Mafia greift an, um Hackers zu zerstören, unterstützt von C.I.A.")


def test_a_name_ending_in_a_stop_ends_the_sentence_once() -> None:
    assert said("ACCEPT AT CIA RIGHT").endswith("right arrow of C.I.A.")
