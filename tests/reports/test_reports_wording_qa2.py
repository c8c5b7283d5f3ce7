"""Wording QA found in players' mails, second round: one breakdown line per spender, ability
texts that begin a sentence, French elision and "ou", what another player's phase means,
the answer lines a window reminder repeats, a quiet STATUS, an offer in ``pbem preview``."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from factory import BAVARIA, GNOMES, chain, game
from mailrooms import french_room, refusals_said
from scripted_game import CARDS, DEADLINE, NOW, first, steps, turn_of
from transcripts.harness import Mailroom

from pbem.cli.gm_text import preview_text
from pbem.engine.commands import OfferGroup
from pbem.engine.events import event_of
from pbem.engine.rules import apply
from pbem.reports import mails as reports
from pbem.reports.templating import template
from pbem.service.gm import Preview
from pbem.service.model import GameService, Seat


def words(text: str) -> str:
    """The text with every run of blanks (wrapping, no-break spaces) as one space."""
    return " ".join(text.split())


def plain(markup: str) -> str:
    return words(html.unescape(re.sub(r"<[^>]+>", "", markup)))


# A SPEND and what its UPTO added later are two payments, two terms of the engine's breakdown.
SPLIT = (("power", "The Network", 7), ("resistance", "Hackers", -4),
         ("attacker_money", "The Network", 2), ("interfere", "anne", -2),
         ("attacker_money", "The Network", 3), ("interfere", "anne", -7))


@pytest.mark.parametrize(("lang", "attack", "interfere"), [
    ("en", "+5 money spent to attack, from The Network",
     "-9 money spent to interfere, by anne"),
    ("fr", "+5 argent dépensé pour attaquer, pris sur The Network",
     "-9 argent dépensé pour interférer, par anne"),
])
def test_a_breakdown_shows_one_line_per_spender_and_kind(
        lang: str, attack: str, interfere: str) -> None:
    """QA: "-2 argent dépensé pour interférer, par anne" then "-7 ... par anne": a fixed
    sum and the UPTO part of one spender are one line, added up, in the text and HTML
    breakdowns (attack result, response request and archive all use these two)."""
    text = str(template("_events.txt.j2", lang).module
               .breakdown(SPLIT, -1))
    lines = [words(line) for line in text.splitlines()]
    assert attack in lines and interfere in lines
    assert len(lines) == 5  # power, resistance, two money lines, the need
    table = str(template("_blocks.html.j2", lang).module
                .breakdown(SPLIT, -1))
    rows = [words(html.unescape(re.sub(r"<[^>]+>", " ", row)))
            for row in table.split("<tr>")[1:]]
    assert attack in rows and interfere in rows
    assert len(rows) == 5


def test_the_welcome_mail_begins_the_ability_text_as_a_sentence() -> None:
    """QA: "income 9 MB. may declare one attack per turn privileged": an ability text placed
    after a full stop begins with a capital, in the text and the HTML (in French it follows
    "Capacité :", where the lower case is right)."""
    state = game(ann=BAVARIA, bob=GNOMES)
    said = {"en": "The Bavarian Illuminati: power 10/10, income 9 MB. May declare one attack",
            "fr": "The Bavarian Illuminati : pouvoir 10/10, revenu 9 MB. Capacité : peuvent"}
    for lang in ("en", "fr"):
        mail = reports.welcome(CARDS, state, "ann", password="pw", now=NOW, lang=lang)
        assert said[lang] in words(mail.text)
        assert said[lang] in plain(mail.html)


def test_a_group_line_begins_its_ability_as_a_sentence() -> None:
    """A group's line in a report: its alignments end a sentence, its ability begins the
    next and ends with a full stop; a table cell begins with a capital too."""
    g = SimpleNamespace(name="Federal Reserve", power=5, transferable=3, resistance=7,
                        income=6, alignments=("Government",),
                        ability="money it transfers may go to any group")
    line = str(template("_blocks.txt.j2").module.group_line(g))
    assert line.endswith("; Government. Money it transfers may go to any group.")
    for lang in ("en", "fr"):
        row = str(template("_blocks.html.j2", lang).module.groups([g]))
        assert 'Money it transfers may go to any group</td>' in row


def test_french_refusals_elide_de_and_join_usage_forms_with_ou(tmp_path: Path) -> None:
    """QA: "plus d'un nom de Illuminati ou groupe correspond" (de before a vowel is d'), and
    "GIVE CARD <special card> TO <player> or GIVE <group> TO <player>" in a French hint:
    the alternative forms of an order are joined by the reader's language."""
    room = french_room(tmp_path)
    ack = room.orders("Alice", "GIVE Bob", "ODDS C CONTROL Feminists",
                      "TRANSFER 1 FROM Thee TO Feminists")[0]
    said = refusals_said(ack.text)
    assert ("Essayez : écrivez-le ainsi : GIVE <n> MB TO <player>, GIVE CARD <special card> "
            "TO <player> ou GIVE <group> TO <player>") in said
    assert "REFUSÉ : plus d'un nom d'Illuminati ou groupe correspond : 'C'" in said
    assert "REFUSÉ : nom d'Illuminati ou groupe inconnu : 'Thee'" in said
    assert not any(" or " in line or "nom de Illuminati" in line for line in said)
    english = Mailroom(tmp_path / "en")
    english.new_game("illu", [("Alice", "The Network"), ("Bob", "The Gnomes of Zurich")])
    refused = refusals_said(english.orders("Alice", "GIVE Bob")[0].text)
    assert ("Try: write it as: GIVE <n> MB TO <player>, GIVE CARD <special card> TO <player> "
            "or GIVE <group> TO <player>") in refused


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "It is {n}'s move: {n} may take actions until the deadline; you are mailed when "
           "an attack or an offer needs your answer. Deadline:"),
    ("fr", "C'est au tour de {n} : {n} peut agir jusqu'à la date limite ; vous recevez un "
           "mail quand une attaque ou une offre attend votre réponse. Date limite :"),
])
def test_another_players_move_says_what_the_phase_means(lang: str, said: str) -> None:
    """QA: "It is alice's move (actions)": the report says plainly what the phase means
    for its reader, in the text and the HTML."""
    all_steps = steps()
    state = all_steps[first("report")].state
    other = turn_of(state, "other")
    mail = reports.turn_report(CARDS, state, other, (), now=NOW, deadline=DEADLINE, lang=lang)
    expected = said.format(n=state.active_player.name)
    assert expected in words(mail.text)
    assert expected in plain(mail.html)
    assert "(actions" not in mail.text


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_window_reminder_repeats_the_answer_lines(lang: str) -> None:
    """QA: the reminder of an attack waiting for an answer had only "# write your orders
    here": it repeats the lines the response request gave, as they apply now."""
    all_steps = steps()
    state = all_steps[first("defended_attack")].state
    assert state.attack is not None
    defender = state.owner(state.attack.target)
    assert defender is not None
    request = reports.response_request(CARDS, state, defender.name, now=NOW,
                                       deadline=DEADLINE, lang=lang)
    given = [line.strip() for line in request.text.splitlines()
             if re.match(r"    (DEFEND|NO RESPONSE|PLAY|IF)", line)]
    assert any(line.startswith("DEFEND") for line in given) and "NO RESPONSE" in given
    reminder = reports.reminder(CARDS, state, defender.name, about="response", now=NOW,
                                deadline=DEADLINE, lang=lang)
    for line in given:
        assert f"# {line}\n" in reminder.text
        assert f"# {html.escape(line, quote=False)}\n" in reminder.html


@pytest.mark.parametrize(("lang", "quiet", "hidden"), [
    ("en", "Nothing has happened since your last report.", "Nothing you can see."),
    ("fr", "Rien ne s'est passé depuis votre dernier rapport.", "Rien que vous puissiez voir."),
])
def test_a_report_tells_nothing_happened_from_nothing_to_see(
        lang: str, quiet: str, hidden: str) -> None:
    """QA: STATUS at a turn start said "Nothing you can see." when nothing happened at all,
    as if something was hidden: the two cases are told apart."""
    state = game(ann=BAVARIA, bob=GNOMES)
    secret = event_of("espionage", {"player": "bob", "looked_at": "ann", "hand": ()},
                   visible_to=("bob",))
    for events, said, not_said in (((), quiet, hidden), ((secret,), hidden, quiet)):
        mail = reports.turn_report(CARDS, state, "ann", events, now=NOW, deadline=DEADLINE,
                                   lang=lang)
        assert said in words(mail.text) and said in plain(mail.html)
        assert not_said not in words(mail.text) and not_said not in plain(mail.html)


def test_preview_tells_the_offer_and_its_answer_deadline() -> None:
    """QA: `pbem preview` with an offer open said only "ann's orders are due by ...": it
    names the offer and when its answer is due."""
    state = chain(game(ann=BAVARIA, bob=GNOMES), "ann", "Hackers")
    state, _ = apply(state, OfferGroup("ann", "Hackers", "bob"), CARDS)
    now = datetime(2025, 3, 1, 9, 30, tzinfo=UTC)
    service = GameService(seats=(Seat("ann", "a@x"), Seat("bob", "b@x")), started=True,
                          deadline=(now + timedelta(days=2)).isoformat(),
                          offer_deadline=(now + timedelta(days=1)).isoformat())
    text = words(preview_text(Preview("g", now, service, service, state, (), ())))
    assert ("ann offers Hackers to bob: the answer is due by 2025-03-02 09:30 UTC; if none "
            "comes by then, the offer lapses.") in text
    assert "ann's orders are due by 2025-03-03 09:30 UTC." in text
