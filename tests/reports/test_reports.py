"""Every mail the service sends: golden files, line length, escaping, overrides, secrecy.

The golden files under ``tests/golden/reports/`` are the mails of a fixed seeded game
(``tests/scripted_game.py``). They change only on purpose: run with ``PBEM_UPDATE_GOLDENS=1``
to write them again, then read the diff before committing it.
"""

from __future__ import annotations

import json
import re
from dataclasses import astuple, dataclass, replace
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path

import jinja2
import pytest
from factory import BAVARIA, GNOMES, chain, game
from scripted_game import CARDS, DEADLINE, GAME, NOW, first, rendered, steps, turn_of
from support import TEMPLATES, TESTS, check_golden

from pbem.engine.codec import from_json
from pbem.engine.commands import GmMoveCard, OfferGroup
from pbem.engine.events import Event, event_of
from pbem.engine.rules import apply
from pbem.engine.state import GameState
from pbem.engine.view import View, view
from pbem.orders import parse_orders
from pbem.reports import mails as reports
from pbem.reports.context import ServiceSettings
from pbem.reports.languages import LANGUAGES
from pbem.reports.mails import Rendered
from pbem.reports.templating import render
from pbem.service.model import Timing
from pbem.service.notice_mails import welcome_settings

GOLDEN = TESTS / "golden" / "reports"
LANGS = ("en", "fr", "de")
MAX_LINE = 78


def all_mails() -> list[tuple[str, str]]:
    return [(lang, name) for lang in LANGS for name in rendered(lang)]


def golden_text(mail: Rendered) -> str:
    return f"Subject: {mail.subject}\n\n{mail.text}"


# --- golden files ---------------------------------------------------------------------------


@pytest.mark.parametrize(("lang", "name"), all_mails())
def test_mail_matches_its_golden_file(lang: str, name: str) -> None:
    """The text and HTML of each mail of the scripted game are exactly the golden files."""
    mail = rendered(lang)[name]
    for suffix, content in (("txt", golden_text(mail)), ("html", mail.html)):
        check_golden(GOLDEN / f"{name}.{lang}.{suffix}", content)


def test_no_golden_file_is_left_over() -> None:
    """Every golden file belongs to a mail still rendered (renamed mails leave no orphans)."""
    expected = {f"{name}.{lang}.{suffix}" for lang, name in all_mails()
                for suffix in ("txt", "html")}
    present = {p.name for p in GOLDEN.glob("*.*.*")}
    assert present == expected


# One mail for each function of pbem.reports; the test set renders every one of them.
MAILS = {"welcome", "acknowledgement", "response_request", "attack_result", "reminder",
         "turn_report", "game_over", "gm_announcement", "press", "history", "error"}


def test_every_mail_is_rendered_in_every_language() -> None:
    """Each mail of pbem.reports is in the test set, in every language; every mail template
    (a .subject, a .txt and an .html) exists once, its words in the catalogues."""
    for lang in LANGS:
        assert {n.split("-")[0] for n in rendered(lang)} == MAILS
    shared = {p.name.removesuffix(".subject.txt.j2") for p in TEMPLATES.glob("*.subject.txt.j2")}
    assert shared >= MAILS
    for name in shared:
        for suffix in ("txt.j2", "html.j2"):
            assert (TEMPLATES / f"{name}.{suffix}").exists(), (name, suffix)
    assert not [p for p in TEMPLATES.iterdir() if p.is_dir() and p.name in LANGUAGES]


# --- form -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("lang", "name"), all_mails())
def test_text_lines_fit_in_78_columns(lang: str, name: str) -> None:
    """Every line of every text part is at most 78 characters (RFC 5322's advice)."""
    mail = rendered(lang)[name]
    long = [line for line in mail.text.splitlines() if len(line) > MAX_LINE]
    assert not long, long
    assert "\n" not in mail.subject and mail.subject.strip() == mail.subject


def test_long_names_still_fit_in_78_columns() -> None:
    """Long card names deep in a structure, and long player names, still fit.

    The start line of the order form is the one line that cannot be wrapped: it holds the
    player's name, so names up to 30 characters are supported.
    """
    state = steps()[first("report")].state
    names = {p.name: f"{p.name} Montgomery-Smythe Junior"[:30] for p in state.players}
    state = replace(state, players=tuple(replace(p, name=names[p.name])
                                         for p in state.players))
    who = state.players[0].name
    for lang in LANGS:
        mail = reports.turn_report(CARDS, state, who, (), now=NOW, deadline=DEADLINE,
                                   tz="America/Argentina/Buenos_Aires", lang=lang)
        assert max(len(line) for line in mail.text.splitlines()) <= MAX_LINE


class _Tags(HTMLParser):
    """Checks that every element opened is closed, in order (void elements aside)."""

    VOID = frozenset({"meta", "br", "img", "hr", "input", "link", "polygon", "rect"})

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


@pytest.mark.parametrize(("lang", "name"), all_mails())
def test_html_part_is_balanced_and_in_its_language(lang: str, name: str) -> None:
    """The HTML part is one balanced document declaring its language."""
    html = rendered(lang)[name].html
    assert html.startswith("<!DOCTYPE html>")
    assert f'<html lang="{lang}">' in html
    tags = _Tags()
    tags.feed(html)
    assert not tags.problems and tags.stack == []


def test_french_mails_use_the_rules_french_words() -> None:
    """The French report speaks of structure de pouvoir, groupes, MB, contrôler (a card's
    treasury and the structure's money: test_reports_french)."""
    text = rendered("fr")[next(n for n in rendered("fr") if n.startswith("turn_report"))].text
    for word in ("structure de pouvoir", "groupes non contrôlés", "MB",
                 "alignement", "contrôler"):
        assert word.lower() in text.lower(), word


# --- Jinja2 behaviour: strict, escaped, overridable -----------------------------------------


def test_a_missing_variable_is_an_error_not_a_blank() -> None:
    """StrictUndefined: a mail rendered without one of its values raises."""
    with pytest.raises(jinja2.UndefinedError, match="sender"):
        render("press.txt.j2", "en", game=GAME, player="Bob", message="hi", to_all=True)


def test_an_unknown_event_kind_fails_loudly() -> None:
    """An event the templates have no sentence for stops the rendering with its name."""
    for lang in LANGS:
        with pytest.raises(jinja2.UndefinedError, match="unknown_event_kind"):
            reports.history_reply(GAME, "Bob", [(1, (TeaParty(),))], lang=lang)


@dataclass(frozen=True)
class TeaParty(Event):
    kind = "tea_party"


def test_player_names_are_escaped_in_html_and_plain_in_text() -> None:
    """A player named <script>… appears escaped in the HTML part and as written in the text."""
    name = "<script>alert('x')</script>"
    for lang in LANGS:
        mail = reports.press_relay(GAME, "Bob", name, "Hello & <b>bye</b>", lang=lang)
        assert "<script>" not in mail.html and "<b>bye" not in mail.html
        assert "&lt;script&gt;" in mail.html and "&lt;b&gt;bye" in mail.html
        assert name in mail.text


def test_a_site_folder_overrides_one_template(tmp_path: Path) -> None:
    """A template in the site folder wins; the others still come from the package."""
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "press.subject.txt.j2").write_text("[{{ game }}] Psst from {{ sender }}")
    mail = reports.press_relay(GAME, "Bob", "Chloé", "hi", site_dir=tmp_path)
    assert mail.subject == f"[{GAME}] Psst from Chloé"
    assert "Chloé" in mail.text
    plain = reports.press_relay(GAME, "Bob", "Chloé", "hi")
    assert plain.subject != mail.subject


def test_a_site_rewords_a_message_for_one_language_and_a_template_for_all(
        tmp_path: Path) -> None:
    """Issue 42: "a site may still override a template, and may add a catalogue": the site's
    catalogue for German words one message its own way, the package's words the rest; a
    template in the site folder itself serves every language."""
    po = tmp_path / "locale" / "de" / "LC_MESSAGES" / "pbem.po"
    po.parent.mkdir(parents=True)
    po.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
                  'msgid "Your power structure"\nmsgstr "Ihr Imperium"\n', encoding="utf-8")
    i = first("report")
    ours = reports.turn_report(CARDS, steps()[i].state, "Chloé", (), now=NOW, deadline=DEADLINE,
                               lang="de", site_dir=tmp_path)
    shipped = reports.turn_report(CARDS, steps()[i].state, "Chloé", (), now=NOW,
                                  deadline=DEADLINE, lang="de")
    assert "IHR IMPERIUM" in ours.text and "Ihr Imperium" in ours.html
    assert "IHRE MACHTSTRUKTUR" in shipped.text and "IHR IMPERIUM" not in shipped.text
    assert ours.text.replace("IHR IMPERIUM\n------------", "IHRE MACHTSTRUKTUR\n"
                             "------------------") == shipped.text
    (tmp_path / "press.subject.txt.j2").write_text("[{{ game }}] Psst {{ sender }}")
    for lang in LANGUAGES:
        mail = reports.press_relay(GAME, "Bob", "Chloé", "hi", lang=lang, site_dir=tmp_path)
        assert mail.subject == f"[{GAME}] Psst Chloé", lang


# --- content --------------------------------------------------------------------------------


def _report(name_prefix: str, lang: str = "en") -> Rendered:
    return next(m for n, m in rendered(lang).items() if n.startswith(name_prefix))


def test_turn_report_carries_the_view_as_json() -> None:
    """The attachment is the reader's view, and decodes back to exactly that view."""
    i = first("report")
    state = steps()[i].state
    who = state.active_player.name
    mail = reports.turn_report(CARDS, state, who, (), now=NOW, deadline=DEADLINE)
    ((filename, mimetype, body),) = mail.attachments
    assert filename == f"view-{GAME}-{state.seq}.json"
    assert mimetype == "application/json"
    assert from_json(View, json.loads(body)) == view(CARDS, state, who)


def test_turn_report_shows_the_deadline_in_utc_and_the_readers_zone() -> None:
    """2025-03-03 12:45 UTC is 13:45 in Paris in March."""
    mail = _report("turn_report-active")
    assert "2025-03-03 12:45 UTC (2025-03-03 13:45 Europe/Paris)" in mail.text.replace("\n", " ")


def test_turn_report_sections_for_the_active_player() -> None:
    """Odds and an order form with the turn's sequence number for the player to move."""
    i = first("report")
    state = steps()[i].state
    for lang, odds_title in (("en", "ODDS OF YOUR ATTACKS"), ("fr", "CHANCES DE VOS ATTAQUES")):
        active = _report("turn_report-active", lang).text
        other = _report("turn_report-other", lang).text
        assert odds_title in active and odds_title not in other
        assert f"PASSWORD ______ STEP {state.seq}" in active
        assert f"PASSWORD ______ STEP {state.seq}" in other


@pytest.mark.parametrize(("lang", "rule"), [("en", "You have two actions"),
                                             ("fr", "Vous avez deux actions régulières")])
def test_the_turn_report_tells_the_player_to_move_what_a_turn_allows(lang: str,
                                                                      rule: str) -> None:
    """Sent when a turn begins, the report reminds its active player of the two actions and
    of passing for 5 MB (the start-of-turn mail once did); not the others, and not once the
    player has used an action."""
    i = first("first_turn")
    state = steps()[i].state
    active = state.active_player.name
    other = turn_of(state, "other")

    def text(who: str, s: GameState) -> str:
        mail = reports.turn_report(CARDS, s, who, (), now=NOW, deadline=DEADLINE, lang=lang)
        return " ".join((mail.text + mail.html).split())

    assert text(active, state).count(rule) == 2  # the text part and the HTML part
    assert rule not in text(other, state)
    acted = replace(state, turn=replace(state.turn, actions=1, did_anything=True))
    assert rule not in text(active, acted)


FORMS = ("welcome", "reminder", "response_request", "turn_report")


def test_order_forms_parse_back_with_the_order_language() -> None:
    """Filled in and uncommented, every form and suggested line reads without an error."""
    players = [p.name for p in steps()[0].state.players]
    for lang in LANGS:
        for name, mail in rendered(lang).items():
            if not name.startswith(FORMS):
                continue
            lines = [line.strip() for line in mail.text.splitlines()]
            start = next(j for j, line in enumerate(lines) if line.startswith("GAME "))
            end = lines.index("END", start)
            # Uncomment the example orders (keywords in capitals), keep the plain comments.
            form = [line[2:] if re.match(r"# [A-Z]{2,}", line) else line
                    for line in lines[start:end + 1]]
            form[0] = form[0].replace("______", "secret")
            parsed = parse_orders("\n".join(form), CARDS, players)
            assert not parsed.errors, (name, parsed.errors)
            assert parsed.header.password == "secret"


def test_odds_lines_in_the_report_parse_as_attacks() -> None:
    """Each ready-to-copy ATTACK line of the odds table is an attack order as written."""
    from pbem.orders import AttackOrder, parse_order

    text = _report("turn_report-active").text
    attack_lines = [line.strip() for line in text.splitlines()
                    if line.startswith("    ATTACK ")]
    assert attack_lines
    for line in attack_lines:
        assert isinstance(parse_order(line, CARDS, "x"), AttackOrder)


def test_a_group_offered_with_puppets_is_told_to_its_receiver_only() -> None:
    """rulebook-en: "When a Group is transferred to another player, its puppets (if any)
    must go with it, along with all treasuries involved." The receiver's report names the
    puppets that come with the group and the lines that answer; the giver's has no such
    lines, only that the turn waits."""
    state = chain(game(ann=BAVARIA, bob=GNOMES), "ann", "Hackers", "Flat Earthers")
    state, _ = apply(state, OfferGroup("ann", "Hackers", "bob"), CARDS)
    due = NOW + timedelta(hours=24)
    mail = {who: reports.turn_report(CARDS, state, who, (), now=NOW, deadline=DEADLINE,
                                     offer_deadline=due) for who in ("ann", "bob")}
    text = " ".join(mail["bob"].text.split())
    assert ("ann offers you Hackers, with its puppets Flat Earthers. If you accept, they "
            "join your power structure with their treasuries") in text
    assert "Deadline for your answer: 2025-03-02 09:30 UTC" in text
    assert "# DECLINE" in mail["bob"].text and "# DECLINE" not in mail["ann"].text
    assert "You offer Hackers to bob: the turn waits for their answer until " \
        "2025-03-02 09:30 UTC" in " ".join(mail["ann"].text.split())


def test_response_request_offers_each_role_its_answers() -> None:
    """The defender is offered DEFEND, another player ASSIST and INTERFERE, the attacker the
    breakdown and no spending lines of others."""
    by_role = {n.split("-")[1]: m.text for n, m in rendered("en").items()
               if n.startswith("response_request")}
    assert "DEFEND 1 FROM" in by_role["defender"] and "DEFEND 1 UPTO 6" in by_role["defender"]
    assert "ASSIST 1" in by_role["other"] and "INTERFERE 1" in by_role["other"]
    assert "DEFEND" not in by_role["attacker"] and "ASSIST" not in by_role["attacker"]
    for text in by_role.values():
        assert "or less to succeed" in text and "NO RESPONSE" in text


def test_attack_result_has_breakdown_dice_and_result() -> None:
    mail = _report("attack_result")
    i = first("defended_attack")
    settle = next(e for s in steps()[i:] for e in s.events if e.kind == "attack_result")
    d = settle.data
    assert f"rolled {d['dice'][0]}+{d['dice'][1]}" in mail.text.replace("\n", " ")
    assert ("success" if d["success"] else "failure") in mail.subject + mail.text
    for _, source, amount in d["terms"]:
        assert f"{amount:+4d}  " in mail.text and source in mail.text


def test_game_over_reveals_the_seed_and_its_commitment() -> None:
    mail = _report("game_over")
    final = steps()[-1].state
    assert final.dice.seed[:32] in mail.text and final.dice.commitment[32:] in mail.text
    assert final.dice.seed in mail.html


def test_welcome_has_password_commitment_illuminati_and_goals() -> None:
    mail = _report("welcome")
    state = steps()[0].state
    alice = state.player("Alice")
    assert "brass-otter-57" in mail.text and "brass-otter-57" in mail.html
    assert state.dice.commitment[:32] in mail.text
    assert alice.illuminati in mail.subject
    assert "Basic goal" in mail.text


@pytest.mark.parametrize(("lang", "orders", "response"), [
    ("en", "- Orders deadline: 72\xa0h after each turn begins.",
     "- Response deadline: 36\xa0h after each attack or group offer."),
    ("fr", "- Date limite des ordres\xa0: 72\xa0h après le début de chaque tour.",
     "- Date limite des réponses\xa0: 36\xa0h après chaque attaque ou offre de groupe.")])
def test_welcome_words_the_service_deadlines_in_the_readers_language(
        lang: str, orders: str, response: str) -> None:
    """The welcome is given the deadlines as numbers; its own templates say what they are."""
    mail = _report("welcome", lang)
    assert orders in mail.text and response in mail.text
    for line in (orders, response):
        assert line.removeprefix("- ").replace("\xa0", " ") in mail.html.replace("\xa0", " ")
    if lang == "fr":
        assert "deadline" not in mail.text and "deadline" not in mail.html


def test_the_welcome_notice_carries_numbers_only() -> None:
    """The service hands the welcome its deadlines as numbers, never as English words (and
    the house rules as their keywords, which the templates word)."""
    settings = welcome_settings(Timing(orders_hours=48, response_hours=12.5))
    assert settings == ServiceSettings(orders_hours=48, response_hours=12.5)
    assert all(isinstance(value, float) for value in astuple(settings)[:2])
    assert (settings.press, settings.stand_in) == ("white", "wait")


# --- secrecy --------------------------------------------------------------------------------

SECRET_CARD = "Swiss Bank Account"


def _secret_position() -> GameState:
    """The report position with Swiss Bank Account only in Alice's hand."""
    state = steps()[first("report")].state
    state, _ = apply(state, GmMoveCard("*", SECRET_CARD, "hand:Alice", "test"), CARDS)
    assert SECRET_CARD not in state.discards + state.dead + state.uncontrolled
    assert [p.name for p in state.players if SECRET_CARD in p.hand] == ["Alice"]
    return state


def _mails_for(state: GameState, who: str, lang: str) -> list[Rendered]:
    drew = (event_of("drew_special", {"player": "Alice", "card": SECRET_CARD},
                  visible_to=("Alice",)),
            event_of("drew_special_count", {"player": "Alice"}))
    out = [
        reports.turn_report(CARDS, state, who, drew, now=NOW, deadline=DEADLINE, lang=lang),
        reports.reminder(CARDS, state, who, about="orders", now=NOW, deadline=DEADLINE,
                         lang=lang),
        reports.history_reply(GAME, who, [(7, drew)], lang=lang),
    ]
    attack_step = steps()[first("defended_attack")]
    attacking, _ = apply(attack_step.state, GmMoveCard("*", SECRET_CARD, "hand:Alice", "t"),
                         CARDS)
    out.append(reports.response_request(CARDS, attacking, who, now=NOW, deadline=DEADLINE,
                                        lang=lang))
    return out


@pytest.mark.parametrize("lang", LANGS)
def test_a_card_only_in_alices_hand_never_reaches_bob(lang: str) -> None:
    """Bob's mails show that Alice holds a card, never which; Alice's own mails name it."""
    state = _secret_position()
    for mail in _mails_for(state, "Bob", lang):
        blob = mail.subject + mail.text + mail.html + "".join(
            body.decode() for _, _, body in mail.attachments)
        assert SECRET_CARD not in blob
    alice = _mails_for(state, "Alice", lang)
    assert SECRET_CARD in alice[0].text and SECRET_CARD in alice[2].text


def test_other_players_treasuries_stay_hidden() -> None:
    """Bob's report and its JSON show no money on Alice's cards."""
    state = _secret_position()
    mail = reports.turn_report(CARDS, state, "Bob", (), now=NOW, deadline=DEADLINE)
    data = json.loads(mail.attachments[0][2])
    alice = next(p for p in data["players"] if p["name"] == "Alice")
    assert alice["treasury_total"] is None and alice["hand"] is None
    assert all(c["treasury"] is None for c in alice["structure"])
    assert "Alice (The Network): " in mail.text and "treasury ?\xa0MB" in mail.text
