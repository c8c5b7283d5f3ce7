"""Every kind of event the engine emits has a sentence, in English and in French.

The kinds, and the facts of each, are the event classes' (``pbem.engine.events.KINDS``), so
a new kind of event fails here until the templates say it. Each event is filled with sample
values chosen by the fact's log name; a new fact fails here until it gets a sample.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path
from typing import Any

import jinja2
import pytest

from pbem.engine.events import KINDS, Event, event_of
from pbem.reports import mails as reports
from pbem.reports.context import report_events
from pbem.service.entries import GM_KINDS, gm_event

ENGINE = Path(reports.__file__).parent.parent / "engine"
LANGS = ("en", "fr")

# A plausible value for each key any event's data holds.
SAMPLES: dict[str, Any] = {
    "player": "Alice", "to": "Bob", "owner": "Bob", "victim": "Bob", "defender": "Bob",
    "looked_at": "Bob", "paid_by": "The Network",
    "attacker": "The Mafia", "target": "Hackers", "group": "Hackers", "card": "Bribery",
    "card_type": "group",
    "from": "Bob", "source": "The Mafia", "master": "The Network", "illuminati": "The Network",
    "goal": "The Gnomes of Zurich", "other": "", "mode": "control", "side": "attack",
    "aids": ("Hackers", "Phone Phreaks"), "puppets": ("Punk Rockers",), "lost": ("KKK",),
    "freed": ("KKK",), "groups": ("Hackers", "KKK"), "hand": ("Bribery", "Deep Agent"),
    "cards": ("Bribery", "Deep Agent"), "winners": ("Alice", "Bob"),
    "order": ("Alice", "Bob"), "rolls": (("Alice", 9), ("Bob", 4)),
    "privileged": True, "whispering": False, "success": True,
    "need": 7, "amount": 3, "treasury": 12, "turn": 4, "turns": 40, "draw": 17, "roll": 12,
    "arrow": 1, "dice": (3, 4),
    "terms": (("power", "The Mafia", 7), ("resistance", "Hackers", -4),
              ("attacker_money", "The Mafia", 3)),
    "reason": "a lost mail", "place": "hand:Bob", "change": "add", "alignment": "Weird",
    "now": ("Weird", "Criminal"), "old": "Carl", "new": "Dee", "giver": "Carl",
    "receiver": "Alice", "status": "left",
    "number": 2, "how": "lapsed", "missing": ("Carl",),
    "gives": {"groups": ("Hackers",), "money": 0, "cards": ()},
    "takes": {"groups": (), "money": 12, "cards": ("Bribery",)},
}
# Events the engine writes in more than one shape (optional facts).
BUILT: dict[str, list[dict[str, Any]]] = {
    "espionage": [{"player": "Alice", "looked_at": "Bob", "hand": ("Bribery",)},
                  {"player": "Alice", "looked_at": "Hackers", "treasury": 5}],
    "offer_declined": [{"player": "Alice", "group": "Hackers", "giver": "Bob"},
                       {"player": "Alice", "group": "Hackers", "giver": "Bob",
                        "unanswered": True}],
    "money_card": [{"player": "Alice", "card": "Swiss Bank Account", "amount": 8},
                   {"player": "Alice", "card": "White Collar Crime", "to": "Hackers",
                    "amount": 5}],
    "deal_failed": [{"number": 2, "player": "Alice", "to": "Bob", "reason": "giver_lost_group",
                     "words": {"giver": "Alice", "group": "Hackers"}}],
    "privilege": [{"player": "Alice", "card": "Deep Agent"},
                  {"player": "Alice", "card": "", "amount": 5}],
}


def _log_names(cls: type[Event]) -> list[str]:
    """The log names of an event class's facts."""
    return [cls.NAMES.get(f.name, f.name) for f in dataclasses.fields(cls)
            if f.name != "visible_to"]


def sample_events() -> list[Event]:
    """One sample event with all its facts per kind of event (``KINDS``), one per shape
    where the engine writes several (``BUILT``), but for the GM entry's event (whose
    sentences are the GM's: see test_events_gm_secrets)."""
    out = []
    for kind, cls in sorted(KINDS.items()):
        if kind == "gm":
            continue
        if kind in BUILT:
            out += [event_of(kind, data) for data in BUILT[kind]]
            continue
        keys = _log_names(cls)
        missing = [k for k in keys if k not in SAMPLES]
        assert not missing, f"give a sample value for {missing} (event {kind!r})"
        out.append(event_of(kind, {k: SAMPLES[k] for k in keys}))
    return out


def test_the_engine_emits_the_kinds_the_brief_lists() -> None:
    """Every event class the engine builds is a kind of the table, the conditional one
    ("left") included."""
    built = {node.attr for path in sorted(ENGINE.glob("*.py"))
             for node in ast.walk(ast.parse(path.read_text(), str(path)))
             if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
             and node.value.id == "ev"}
    classes = {cls.__name__ for cls in KINDS.values()}
    assert built <= classes
    kinds = {KINDS_BY_CLASS[name] for name in built}
    assert {"attack", "attack_result", "captured", "victory", "turn_order", "espionage",
            "eliminated", "left", "money_card", "drew_special_count"} <= kinds
    assert len(kinds) >= 50


KINDS_BY_CLASS = {cls.__name__: kind for kind, cls in KINDS.items()}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("event", sample_events(), ids=lambda e: e.kind)
def test_every_event_kind_has_a_sentence(event: Event, lang: str) -> None:
    """Each event reads as one sentence naming its player, in the text and the HTML part."""
    mail = reports.history_reply("illu1", "Carol", [(4, (event,))], lang=lang)
    item = _item(mail.text)
    assert len(item) > 12 and item.endswith((".", "!")), item
    sentence = item[2:].split()[0]
    assert sentence in mail.html or sentence.replace("'", "&#39;") in mail.html
    who = event.data.get("player")
    if who:
        assert who in mail.text
    assert "{" not in mail.text and "None" not in mail.text


def _item(text: str) -> str:
    """The first "- " item of a text part, its wrapped lines joined."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("- "))
    item = [lines[start]]
    for line in lines[start + 1:]:
        if not line.startswith("  ") or line.startswith("    +") or line.startswith("    -"):
            break
        item.append(line.strip())
    return " ".join(item).rstrip()


def test_the_two_languages_say_different_things() -> None:
    """No sentence is left untranslated: each French sentence differs from the English one."""
    same = [event.kind for event in sample_events()
            if len({_item(reports.history_reply("illu1", "Carol", [(4, (event,))],
                                                lang=lang).text) for lang in LANGS}) == 1]
    assert not same


@pytest.mark.parametrize("lang", LANGS)
def test_an_event_the_templates_do_not_know_is_an_error(lang: str) -> None:
    with pytest.raises(jinja2.UndefinedError, match="unknown_event_kind"):
        reports.history_reply("illu1", "Carol", [(1, (BrandNew(),))], lang=lang)


@dataclasses.dataclass(frozen=True)
class BrandNew(Event):
    kind = "brand_new_kind"


def test_a_secret_event_is_shown_only_to_whom_it_concerns() -> None:
    """drew_special names the card to its drawer only; others read the public count."""
    drew = [event_of("drew_special", {"player": "Alice", "card": "Bribery"},
                     visible_to=("Alice",)),
            event_of("drew_special_count", {"player": "Alice"})]
    assert [e.kind for e in report_events(drew, "Alice")] == ["drew_special"]
    assert [e.kind for e in report_events(drew, "Bob")] == ["drew_special_count"]
    bob = reports.history_reply("illu1", "Bob", [(1, drew)])
    assert "Bribery" not in bob.text + bob.html and "drew a special card." in bob.text


def test_a_roll_is_said_once_with_its_draw_number() -> None:
    """The roll event is folded into the attack result that follows it."""
    events = [event_of("roll", {"player": "Alice", "dice": (2, 3), "draw": 41, "need": 7}),
              event_of("attack_result", {**{k: SAMPLES[k] for k in (
                  "player", "attacker", "target", "mode", "need", "terms", "success")},
                  "dice": (2, 3), "roll": 5})]
    shown = report_events(events, "Alice")
    assert [e.kind for e in shown] == ["attack_result"] and shown[0].data["draw"] == 41
    alone = report_events(events[:1], "Alice")
    assert [e.kind for e in alone] == ["roll"]


# A sample of each kind of GM entry's data (pbem.service.entries), as pbem.service.gm records it.
GM_SAMPLES: dict[str, dict[str, Any]] = {
    "create": {"players": ["Alice", "Bob"], "commitment": "ab" * 32},
    "start": {"commitment": "ab" * 32},
    "pause": {"reason": "holidays"},
    "resume": {"paused_hours": 48.5},
    "extend": {"hours": 24, "deadline": "2026-12-01T12:00:00+00:00",
               "deadline_utc": "2026-12-01 12:00", "window": False, "reason": ""},
    "replace": {"seat": "Carl", "name": "Dee", "address": "dee@example.org",
                "old_address": "carl@example.org", "reason": ""},
    "remove": {"seat": "Carl", "reason": "vanished"},  # older logs only: see OLD_GM_KINDS
    "bot": {"seat": "Carl", "on": True},
    "announce": {"text": "The server moves on Sunday."},
    "attack_cut": {"attacker": "Alice", "target": "Hackers", "called_off": False,
                   "seat": "Carl"},
    "rollback": {"to": 12, "from": 15, "reason": "a lost mail", "undone": []},
    # A player's absence (SET ABSENCE) is logged as a GM entry too (pbem.service.absences).
    "absence": {"seat": "Carl", "start": "2026-12-01T00:00:00+00:00",
                "start_utc": "2026-12-01 00:00", "deadline": "2026-12-04T00:00:00+00:00",
                "deadline_utc": "2026-12-04 00:00", "stand_in": "wait"},
    "absence_cancelled": {"seat": "Carl", "start": "2026-12-01T00:00:00+00:00",
                          "start_utc": "2026-12-01 00:00",
                          "deadline": "2026-12-04T00:00:00+00:00",
                          "deadline_utc": "2026-12-04 00:00", "stand_in": "bot",
                          "by_gm": True},
}


# Kinds of GM entry that only older logs hold, still rendered: a removal is now the engine's
# ``GmRemovePlayer`` (its event "removed").
OLD_GM_KINDS = {"remove"}
# Recorded ``gm_only``: in no player's mail (a mail dropped, an observer's address, a seat
# offered for takeover by mail, the game master's doings to a game open for sign-up).
GM_ONLY_KINDS = {"drop_mail", "observer", "chat", "seat_offered", "signup_closed", "join_declined",
                 "signup_extended"}


def test_every_kind_of_gm_entry_has_a_sample() -> None:
    """The kinds pbem.service.gm and pbem.service.absences record (their ``Gm...`` entries
    of ``pbem.service.entries.GM_KINDS``), but for those the game master alone reads
    (``gm_only``: players never see them), and those of older logs, are the kinds sampled."""
    source = "".join((ENGINE.parent / "service" / name).read_text()
                     for name in ("gm.py", "absences.py"))
    made = set(re.findall(r"\b(Gm\w+)\(", source))
    recorded = {c.kind for c in GM_KINDS.values() if c.__name__ in made} - GM_ONLY_KINDS
    assert {c.kind for c in GM_KINDS.values() if c.gm_only} == GM_ONLY_KINDS
    assert not recorded & OLD_GM_KINDS
    assert recorded | OLD_GM_KINDS == set(GM_SAMPLES) == set(GM_KINDS) - GM_ONLY_KINDS


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("kind", sorted(GM_SAMPLES))
def test_every_gm_entry_has_a_sentence_without_addresses(kind: str, lang: str) -> None:
    """A GM entry's event reads as a sentence in the reader's language; players never see
    an address in it."""
    event = gm_event(kind, "2026-11-29T12:00:00+00:00", GM_SAMPLES[kind]).event
    mail = reports.history_reply("illu1", "Carol", [(4, (event,))], lang=lang)
    item = _item(mail.text)
    assert len(item) > 12 and item.endswith((".", "!")), item
    shown = re.sub(r"<style>.*?</style>", "", mail.html, flags=re.S)  # CSS has @media
    assert "@" not in mail.text and "@" not in shown
    assert "{" not in mail.text and "None" not in mail.text
    other = "fr" if lang == "en" else "en"
    assert item != _item(reports.history_reply("illu1", "Carol", [(4, (event,))],
                                               lang=other).text)
