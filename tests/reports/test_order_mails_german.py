"""The order mails in German (issue 42): every sentence of theirs comes from the German
catalogue, none left in English; card names and order words as printed."""

from __future__ import annotations

import html
import re
from types import SimpleNamespace
from typing import Any

import pytest
from english_left import english_left_in_mail
from scripted_game import rendered

from pbem.reports import mails as reports
from pbem.reports.catalogues import fill
from pbem.reports.mails import Rendered
from pbem.reports.templating import render

# The mails made one template with their words in the catalogues by this change.
ORDER_MAILS = ("response_request", "offer_answered", "attack_result", "eliminated",
               "called_off", "carried", "goal_dealt", "stood_in", "already_done",
               "earlier_mail_filed")
AT = {"utc": "2026-11-29 12:00", "local": "2026-11-29 13:00", "tz": "Europe/Berlin"}


def _offers() -> list[dict[str, Any]]:
    """offer_answered for each way an offer ends, read by the giver and by the receiver."""
    out = []
    for kind in ("gift_group", "offer_withdrawn", "offer_ended", "declined"):
        for silence, turn_over, reader in ((False, False, "Alice"), (True, True, "Bob"),
                                           (True, True, "Alice"), (True, False, "Bob"),
                                           (True, False, "Alice")):
            for active, waiting, master, lost in ((True, True, "", []),
                                                  (False, False, "The Mafia", ["Hackers"]),
                                                  (False, True, "", ["Hackers", "Yuppies"])):
                answer = SimpleNamespace(kind=kind, to="Carol", group="Boy Sprouts", arrow=2,
                                         master=master, lost=lost, player="Bob",
                                         giver="Alice", status="left")
                out.append({"game": "illu", "player": reader, "answer": answer,
                            "v": {"turn_number": 4, "active": "Alice"}, "silence": silence,
                            "turn_over": turn_over, "active": active, "waiting": waiting,
                            "deadline": None, "form": None})
    return out


CONTEXTS: dict[str, list[dict[str, Any]]] = {
    "eliminated": [{"game": "illu", "player": "Alice"}],
    "called_off": [{"game": "illu", "player": "Alice",
                    "data": {"attacker": "Bob", "target": "The Mafia"}}],
    "goal_dealt": [{"game": "illu", "player": "Alice", "data": {"goal": "The UFOs"}}],
    "stood_in": [{"game": "illu", "player": "Alice", "start": {"utc": "2026-11-29 12:00"},
                  "end": {"utc": "2026-11-30 12:00"}, "events": []}],
    "already_done": [{"game": "illu", "player": "Alice", "turn": 7, "at": AT}],
    "earlier_mail_filed": [{"game": "illu", "at": AT, "folder": "INBOX", "count": 3}],
    "offer_answered": _offers(),
}


def _words(mail: Rendered) -> str:
    """What a reader reads of ``mail``, its HTML's markup and white space left out."""
    text = f"{mail.subject}\n{mail.text}\n{html.unescape(re.sub(r'<[^>]+>', ' ', mail.html))}"
    return re.sub(r"\s+", " ", text)


def _mails(lang: str) -> list[tuple[str, Rendered]]:
    out = [(name, reports.mail(name, lang, None, **context))
           for name, contexts in CONTEXTS.items() for context in contexts]
    out += [(name, mail) for name, mail in rendered(lang).items()
            if name.split("-")[0] in ORDER_MAILS]
    # What folded mails told, opening the reader's next mail (no mail of its own).
    carried = {"orders": [(1, "PASS", "Sie passen.")], "events": []}
    out.append(("carried", Rendered("", render("carried.txt.j2", lang, None, **carried),
                                    render("carried.html.j2", lang, None, **carried))))
    return out


@pytest.mark.parametrize("lang", ["fr", "de"])
def test_the_order_mails_have_no_english_sentence_left(lang: str) -> None:
    mails = _mails(lang)
    assert {name.split("-")[0] for name, _ in mails} == set(ORDER_MAILS)
    left = {name: found for name, mail in mails if (found := english_left_in_mail(mail, lang))}
    assert left == {}


@pytest.mark.parametrize("name", sorted(CONTEXTS))
def test_each_order_mail_reads_differently_in_german(name: str) -> None:
    for context in CONTEXTS[name]:
        german = reports.mail(name, "de", None, **context)
        english = reports.mail(name, "en", None, **context)
        assert german.subject != english.subject
        assert german.text.split("\n\n")[0] != english.text.split("\n\n")[0]


def test_an_offer_given_away_reads_in_german() -> None:
    context = _offers()[1]
    mail = reports.mail("offer_answered", "de", None, **context)
    assert mail.subject == "[illu] Zug 4: Carol hat Boy Sprouts angenommen (Alice)"
    assert mail.text.startswith("Carol hat Boy Sprouts angenommen: Die Gruppe gehört jetzt zu")


def test_a_placeholders_form_in_html_writes_its_lead_as_the_template_filter_did() -> None:
    """French HTML: "d'Élise" as the ``| de`` filter wrote it, the value escaped, the
    catalogue's own lead not ("d&#39;Élise" before): the HTML parts stay byte for byte."""
    assert fill("actions {player:de}", {"player": "Élise"}, markup=True) == "actions d'Élise"
    assert fill("actions {player:de}", {"player": "A&B"}, markup=True) == (
        "actions d'A&amp;B")
    assert fill("actions {player:de}", {"player": "Bob"}, markup=False) == "actions de Bob"
