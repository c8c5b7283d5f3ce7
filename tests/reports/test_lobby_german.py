"""The mails of signing up, observing, taking a seat over, the welcome, the absences and the
game master's login alarms, in German (issue 42: "a third language as the proof"): each of
their sentences comes from the German catalogue, none is left in English. (The partials
they call, _words and _blocks, are other mails' too: their German is checked with them.)"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from factory import BAVARIA, CARDS, GNOMES, NETWORK, UFOS, game, update
from support import TEMPLATES

from pbem.reports import mails as reports
from pbem.reports.catalogues import translations
from pbem.reports.context import ServiceSettings, moment_facts
from pbem.reports.observing import lobby_mail
from pbem.reports.translating import template_messages, texts
from pbem.service.notices import Absent

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
MAILS = ("welcome", "lobby_help", "lobby_list", "joined", "join_refused", "join_rejected",
         "signup_closed", "signup_extended", "seat_gone", "seat_offered", "seat_passed",
         "takeover_refused", "observe_refused", "observing", "unobserved", "gm_signup",
         "passwords_tried", "login_mended", "login_refused", "absence")
RECORD = {"games": 3, "finished": 2, "agreed": 1, "won": 1, "left": 1, "met": 4, "missed": 1}
LOBBY: list[tuple[str, dict[str, object]]] = [
    ("lobby_help", {"message": None, "suggestion": None}),
    ("lobby_help", {"message": "no order", "suggestion": "try HELP"}),
    ("lobby_list", {"least": 3, "opened": [
        {"game": "illu", "players": [{"name": "Ann", "record": RECORD}], "seats": 6,
         "approval": True, "fill_by": "2026-12-01 12:00", "observers": True, "waiting": 2}],
        "running": [{"game": "x", "players": ["A", "B"], "observers": True,
                     "offered": ["B"]}]}),
    *[("joined", {"game": "illu", "player": "Ann", "outcome": outcome, "still": still})
      for outcome in ("seated", "waiting", "overtaken", "approval") for still in (0, 1, 2)],
    ("join_refused", {"game": "illu", "running": True, "message": "", "suggestion": None}),
    ("join_refused", {"game": "illu", "running": False, "message": "taken",
                      "suggestion": "choose another name"}),
    ("join_rejected", {"game": "illu", "player": "Ann", "waiting": True, "reason": "late"}),
    ("join_rejected", {"game": "illu", "player": "Ann", "waiting": False, "reason": ""}),
    ("signup_closed", {"game": "illu"}),
    ("signup_closed", {"game": "illu", "why": "closed", "reason": "no time"}),
    ("signup_closed", {"game": "illu", "why": "deleted", "reason": ""}),
    ("signup_extended", {"game": "illu", "fill_by": "2026-12-24 12:00", "reason": "holidays"}),
    ("seat_gone", {"game": "illu", "seat": "Ann"}),
    ("seat_offered", {"game": "illu", "seat": "Ann"}),
    ("seat_passed", {"game": "illu", "seat": "Ann"}),
    *[("takeover_refused", {"game": "illu", "seat": "Eve", "why": why})
      for why in ("over", "not_offered", "player")],
    *[("observe_refused", {"game": "illu", "why": why})
      for why in ("over", "closed", "player", "already")],
    ("observing", {"game": "illu", "press": True}),
    ("observing", {"game": "illu", "press": False}),
    ("unobserved", {"game": "illu", "was": True}),
    ("unobserved", {"game": "illu", "was": False}),
    ("unobserved", {"game": "illu", "was": False, "confirm": "abc123"}),
    *[("gm_signup", {"game": "illu", "what": what, "names": ["Ann", "Bob"]})
      for what in ("started", "closed", "approval")],
]


def german_mails() -> list[reports.Rendered]:
    """Each of these mails in German, every branch of its sentences taken once at least."""
    out = [lobby_mail(name, "de", None, **words) for name, words in LOBBY]
    state = update(game(ann=BAVARIA, bob=UFOS, cat=NETWORK), "bob", secret_goal=GNOMES)
    house = [ServiceSettings(48, 12, house_changed=True, press=press, press_in_attack=False,
                             stand_in=stand_in)
             for press, stand_in in (("white", "wait"), ("grey", "pass"), ("none", "bot"))]
    for who in ("ann", "bob"):
        for settings in (None, *house):
            out.append(reports.welcome(CARDS, state, who, password="pw", now=NOW,
                                       deadline=NOW + timedelta(hours=48), settings=settings,
                                       lang="de"))
    first = update(game(bob=UFOS, ann=BAVARIA), "bob", secret_goal=NETWORK)
    out.append(reports.welcome(CARDS, first, "bob", password="pw", now=NOW,
                               deadline=NOW + timedelta(hours=3), lang="de"))
    at = moment_facts(NOW, "Europe/Berlin")
    for authenticated in (True, False):
        out.append(reports.mail("passwords_tried", "de", None, game=None, at=at, count=5,
                                seat="Ann", seat_game="illu", sender="m@example.org",
                                authenticated=authenticated))
    out.append(reports.mail("login_mended", "de", None, game=None, at=at, what="IMAP"))
    out.append(reports.mail("login_refused", "de", None, game=None, at=at, what="SMTP",
                            error="535", steps="Renew the app password."))
    for cancelled in (False, True):
        data = Absent("bob", "ann", "2026-11-30T10:00:00+00:00",
                      "2026-12-05T10:00:00+00:00", "wait", cancelled)
        out.append(reports.mail("absence", "de", None, game="illu", player="bob", data=data,
                                start=moment_facts(NOW + timedelta(days=1), "Europe/Berlin"),
                                end=moment_facts(NOW + timedelta(days=6), "Europe/Berlin")))
    return out


def english_pieces() -> set[str]:
    """The English words of these mails' messages: each run of text between placeholders
    (and markup) long enough to be a phrase, not a name or a punctuation mark; but not one
    the partials not yet made one write as well (the signature's "The game master robot
    of", a goal's "the Illuminati included"): theirs are checked with them."""
    unmade = " ".join(" ".join(p.read_text(encoding="utf-8").split())
                      for p in (TEMPLATES / "en").rglob("*.j2"))
    pieces = set()
    german = translations("de")
    for message in template_messages():
        if not any(file.split(".")[0] in MAILS for file, _line in message.locations):
            continue
        ids = texts(message.id)
        # What the German keeps as it is (a command: "pbem outbox list") is not English left.
        if len(ids) > 1:
            kept = " ".join(german.ngettext(ids[0], ids[1], n) for n in (1, 2))
        elif message.context:
            kept = german.pgettext(message.context, ids[0])
        else:
            kept = german.gettext(ids[0])
        for text in ids:
            for piece in re.split(r"\{[^{}]*\}|<[^>]+>", text):
                core = piece.strip(" .,;:()")
                if len(core) >= 12 and " " in core and core not in unmade and core not in kept:
                    pieces.add(core)
    return pieces


@pytest.fixture(scope="module")
def mails_in_german() -> list[reports.Rendered]:
    return german_mails()


def test_these_mails_have_no_sentence_left_in_english(
        mails_in_german: list[reports.Rendered]) -> None:
    pieces = english_pieces()
    assert len(pieces) > 100  # the messages were found
    for mail in mails_in_german:
        for part in (mail.subject, " ".join(mail.text.split()), " ".join(mail.html.split())):
            left = [piece for piece in pieces if piece in part]
            assert not left, (mail.subject, left)


@pytest.mark.parametrize("word", ["Spielleiter-Roboter", "Partie", "Sie"])
def test_they_read_as_german(mails_in_german: list[reports.Rendered], word: str) -> None:
    """Formal address throughout ("Sie"), the club's words (Partie, Spielleitung)."""
    assert sum(word in " ".join(m.text.split()) for m in mails_in_german) >= 10
