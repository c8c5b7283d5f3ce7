"""The mails of signing up, observing, taking a seat over, the welcome, the absences and the
game master's login alarms, in German (issue 42: "a third language as the proof"): each of
their sentences comes from the German catalogue, none is left in English. (The partials
they call, _words and _blocks, are other mails' too: their German is checked with them.)"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from english_left import english_left_in_mail
from factory import BAVARIA, CARDS, GNOMES, NETWORK, UFOS, game, update

from pbem.reports import mails as reports
from pbem.reports.context import ServiceSettings, moment_facts
from pbem.reports.observing import lobby_mail
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


def mails_in(lang: str) -> list[reports.Rendered]:
    """Each of these mails in ``lang``, every branch of its sentences taken once at least."""
    out = [lobby_mail(name, lang, None, **words) for name, words in LOBBY]
    state = update(game(ann=BAVARIA, bob=UFOS, cat=NETWORK), "bob", secret_goal=GNOMES)
    house = [ServiceSettings(48, 12, house_changed=True, press=press, press_in_attack=False,
                             stand_in=stand_in)
             for press, stand_in in (("white", "wait"), ("grey", "pass"), ("none", "bot"))]
    for who in ("ann", "bob"):
        for settings in (None, *house):
            out.append(reports.welcome(CARDS, state, who, password="pw", now=NOW,
                                       deadline=NOW + timedelta(hours=48), settings=settings,
                                       lang=lang))
    first = update(game(bob=UFOS, ann=BAVARIA), "bob", secret_goal=NETWORK)
    out.append(reports.welcome(CARDS, first, "bob", password="pw", now=NOW,
                               deadline=NOW + timedelta(hours=3), lang=lang))
    at = moment_facts(NOW, "Europe/Berlin")
    for authenticated in (True, False):
        out.append(reports.mail("passwords_tried", lang, None, game=None, at=at, count=5,
                                seat="Ann", seat_game="illu", sender="m@example.org",
                                authenticated=authenticated))
    out.append(reports.mail("login_mended", lang, None, game=None, at=at, what="IMAP"))
    out.append(reports.mail("login_refused", lang, None, game=None, at=at, what="SMTP",
                            error="535", steps="Renew the app password."))
    for cancelled in (False, True):
        data = Absent("bob", "ann", "2026-11-30T10:00:00+00:00",
                      "2026-12-05T10:00:00+00:00", "wait", cancelled)
        out.append(reports.mail("absence", lang, None, game="illu", player="bob", data=data,
                                start=moment_facts(NOW + timedelta(days=1), "Europe/Berlin"),
                                end=moment_facts(NOW + timedelta(days=6), "Europe/Berlin")))
    return out


@pytest.fixture(scope="module")
def mails_in_german() -> list[reports.Rendered]:
    return mails_in("de")


@pytest.mark.parametrize("lang", ["fr", "de"])
def test_these_mails_have_no_sentence_left_in_english(lang: str) -> None:
    mails = mails_in(lang)
    assert len(mails) > 40
    left = {mail.subject: found for mail in mails if (found := english_left_in_mail(mail, lang))}
    assert left == {}


@pytest.mark.parametrize("word", ["Spielleiter-Roboter", "Partie", "Sie"])
def test_they_read_as_german(mails_in_german: list[reports.Rendered], word: str) -> None:
    """Formal address throughout ("Sie"), the club's words (Partie, Spielleitung)."""
    assert sum(word in " ".join(m.text.split()) for m in mails_in_german) >= 10
