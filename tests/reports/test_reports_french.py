"""The French mails read as a French player expects: the rules' words, the reports' way of
naming cards and money, no English left in a French sentence.

Each test renders the French mail (or the piece of it) and checks the wording; the rules
texts quoted are ``rules-fr`` (/work/shared/reference/rules/rules-fr.txt).
"""

from __future__ import annotations

import email
import email.policy
import re
from dataclasses import replace

from scripted_game import CARDS, DEADLINE, GAME, NOW, first, rendered, steps

from pbem.engine.events import event_of
from pbem.reports import mails as reports
from pbem.reports.catalogues import catalogue_path, read_catalogue
from pbem.reports.context import moment_facts
from pbem.reports.languages import LOCALE
from pbem.reports.refusals import worded
from pbem.reports.templating import template
from pbem.reports.translating import texts
from pbem.service.notice_mails import outbox_item
from pbem.service.order_refusals import refused
from pbem.service.settings import MailIdentity

NB = "\xa0"


def flat(text: str) -> str:
    """``text`` on one line, its plain white space folded (no-break spaces kept)."""
    return re.sub(r"[ \t\r\n]+", " ", text)


def french(prefix: str) -> reports.Rendered:
    return next(m for n, m in rendered("fr").items() if n.startswith(prefix))


def words() -> object:
    return template("_words.txt.j2", "fr").module


# --- money: a card's treasury, the structure's money ---------------------------------------


def test_the_whole_structures_money_is_not_called_a_treasury() -> None:
    """rules-fr keeps "trésorerie" for one card's money: "Tout MB provenant de la trésorerie
    du groupe attaqué apporte 2 points de Résistance supplémentaires. Tout MB provenant de la
    trésorerie de la carte Illuminati apporte 1 point". The line for a whole power structure
    says its money is in the whole structure, as the treasury goal does ("réunir 150 MB dans
    toute la structure de pouvoir")."""
    mail = french("turn_report-active")
    for part in (flat(mail.text), flat(mail.html)):
        assert re.search(rf"carte spéciale, (\d+|\?){NB}MB dans toute la structure\.", part)
        assert not re.search(r"trésorerie (\d|\?)", part), part


def test_the_illuminati_card_has_a_treasury_in_every_french_template() -> None:
    """rules-fr: "Les MB que vous proposez doivent ensuite provenir de la trésorerie de votre
    Illuminati uniquement." Never "trésor" nor "trésorerie de vos Illuminati"."""
    # (the service's refusal carries a key and values; the words are the catalogue's)
    reason, suggestion = worded(refused("treasury_short", have=2, amount=5, side="ASSIST"), "fr")
    assert reason.startswith(f"la trésorerie de votre Illuminati n'a que 2{NB}MB")
    assert "seule la trésorerie de votre Illuminati paie" in suggestion
    for message in read_catalogue(catalogue_path(LOCALE, "fr")):
        for text in texts(message.string):
            assert not re.search(r"\btrésor\b", text), message.id
            assert "trésorerie de vos Illuminati" not in text, message.id


# --- cards as printed, abilities in French --------------------------------------------------


def test_every_group_ability_has_its_french_words() -> None:
    """The French reports give each group's ability in French, as they do the Illuminati's;
    a card file's ability without a translation is shown as written."""
    module = words()
    for group in CARDS.groups:
        if group.ability_text:
            said = str(module.group_ability(group_view(group)))  # type: ignore[attr-defined]
            assert said != group.ability_text, group.name
            assert not re.search(r"\b(on any|attempt|when it|group of)\b", said), said
    unknown = type("G", (), {"name": "Nobody", "ability": "+1 on Tuesdays"})()
    assert str(module.group_ability(unknown)) == "+1 on Tuesdays"  # type: ignore[attr-defined]


def group_view(group: object) -> object:
    return type("G", (), {"name": group.name, "ability": group.ability_text})()  # type: ignore[attr-defined]


def test_the_report_gives_a_groups_ability_in_french() -> None:
    """The Mafia, uncontrolled in the scripted game: its ability reads in French, after the
    word the HTML part's column uses (Capacité)."""
    mail = french("turn_report-active")
    assert (f"The Mafia{NB}: pouvoir 7/0, résistance 7, revenu 6{NB}; Criminel, Violent. "
            f"Capacité{NB}: +3 quand il attaque lui-même pour contrôler un groupe Criminel."
            ) in flat(mail.text)
    assert "+3 quand il attaque lui-même pour contrôler un groupe Criminel" in mail.html
    assert "when it directly attacks" not in mail.text + mail.html


# --- the rest of the wording ----------------------------------------------------------------


def test_the_welcome_says_plain_text_and_why_lines_were_refused() -> None:
    """Mail is "texte brut"; the acknowledgement says why the other lines were refused."""
    mail = french("welcome")
    for part in (flat(mail.text), flat(mail.html)):
        assert "Écrivez en texte brut," in part
        assert "quelles lignes ont été acceptées, et pourquoi les autres ont été refusées." in part
    error = reports.error_reply("unreadable", lang="fr")
    assert "Les ordres sont du texte brut" in flat(error.text)
    assert "Les ordres sont du texte brut" in flat(error.html)


def test_the_report_names_the_phase_of_someone_elses_turn() -> None:
    """"C'est au tour de Chloé : Chloé peut agir ...", not a bare "(actions)"."""
    assert ("C'est au tour de Chloé\xa0: Chloé peut agir jusqu'à la date limite"
            in flat(french("turn_report-other").text))


def test_a_player_who_left_is_told_in_the_rules_words() -> None:
    """rules-fr: "Quand un joueur abandonne, ses groupes deviennent non contrôlés, son argent
    retourne à la banque et sa carte Illuminati est retirée du jeu." """
    state = steps()[first("report")].state
    reader = state.players[0].name
    left = state.players[1]
    state = replace(state, players=tuple(replace(p, status="left") if p == left else p
                                         for p in state.players))
    mail = reports.turn_report(CARDS, state, reader, (), now=NOW, deadline=DEADLINE, lang="fr")
    sentence = (f"{left.name} a quitté la partie{NB}: ses groupes sont devenus non contrôlés et "
                "sa carte Illuminati est retirée du jeu.")
    assert sentence in flat(mail.text)
    assert sentence in flat(mail.html)


def test_an_eliminated_player_had_only_the_illuminati_card() -> None:
    """rules-fr: "Un joueur est éliminé si à tout moment, après son troisième tour, il ne
    contrôle aucun groupe." The Illuminati card is a card, not "vos Illuminati"."""
    mail = reports.mail("eliminated", "fr", None, game=GAME, player="Bob")
    for part in (flat(mail.text), flat(mail.html)):
        assert "aucun groupe hormis votre carte Illuminati," in part


def test_the_game_masters_french_mails_are_in_french() -> None:
    """The alert's subject and the failed-mail notice were left in English."""
    alert = reports.mail("gm_alert", "fr", None, game=GAME, player="",
                         data={"player": "Bob", "misses": 3})
    assert alert.subject == f"[{GAME}] Bob a manqué 3 échéances de suite"
    failed = reports.mail("mail_failed", "fr", None, game="", mail_id="m1", error="boom",
                          count=1, kinds=[("RuntimeError", 1)], minutes=30,
                          at=moment_facts(NOW, "UTC"))
    assert failed.subject == "Un mail n'a pas pu être traité"
    for part in (failed.text, failed.html):
        assert "Le traitement du mail m1 a échoué" in flat(part)
        assert "Processing" not in part and "Please" not in part


def test_events_and_breakdowns_use_the_reports_words() -> None:
    """Money spent on either side is said alike (what for, then from where: the column
    counts points, two a MB from the defending group); the Recyclers are a group, named as
    printed: "Le groupe Recyclers d'Alice a payé 5 MB"."""
    module = words()
    assert str(module.term("defender_money", "Bob")) == (  # type: ignore[attr-defined]
        "argent dépensé pour défendre, pris sur Bob")
    event = event_of("recyclers", {"player": "Alice"})
    text = flat(reports.history_reply(GAME, "Alice", [(1, (event,))], lang="fr").text)
    assert f"Le groupe Recyclers d'Alice a payé 5{NB}MB pour piocher une carte de plus." in text


def test_french_subjects_arrive_with_their_no_break_spaces() -> None:
    """A French subject reaches the reader as rendered: "Tour 1\xa0: ..." did arrive as
    "Tour 1 : ...", its no-break space made a plain one on the way to the mail's bytes."""
    mails = rendered("fr")
    assert any(NB in mail.subject for mail in mails.values())
    for name, mail in mails.items():
        raw = outbox_item(name, GAME, "chloe@example.org", "Chloé", mail, now=NOW,
                          sender=MailIdentity()).raw
        subject = email.message_from_bytes(raw, policy=email.policy.default)["Subject"]
        assert subject == mail.subject, name
