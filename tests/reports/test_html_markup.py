"""Markup in player text never becomes markup in a mail (issue 21, point 6): every HTML part
the service sends, with names, press, order lines and announcements written to inject, is
parsed, and no element or attribute came from that text.

Names with markup are refused when a game is created (``check_player_name``); a store
made before that check could hold them, so the first test plays a whole game of mail-bots
under such names (the check set aside), which sends most kinds of mail."""

from __future__ import annotations

import email
import email.message
import email.policy
from collections import Counter
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest
from transcripts.harness import Mailroom

import pbem.service.service as service_module
from pbem.errors import IllegalCommandError
from pbem.service import gm
from pbem.service.bot_games import play_game
from pbem.service.service import Service, ServiceConfig
from pbem.store.memory import MemoryStore

HOSTILE = ["Ann<script>pwn()</script>", 'Bob" onmouseover="pwn()', "Cy'><img src=x onerror=pwn()>"]
TEXT = '<script>pwn()</script><a href="javascript:pwn()" onclick="pwn()">x</a>'


class _Elements(HTMLParser):
    """Every element and attribute of an HTML text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: Counter[str] = Counter()
        self.attributes: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] += 1
        self.attributes += [(name, value or "") for name, value in attrs]


def _injected(raw: bytes) -> list[str]:
    """What of the player text became markup in the HTML part of ``raw`` (none: [])."""
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, email.message.EmailMessage)
    part = message.get_body(("html",))
    if part is None:
        return []
    parser = _Elements()
    parser.feed(str(part.get_content()))
    found = [f"<{tag}>" for tag in ("script", "a") if parser.tags[tag]]
    # (a name in an alt text is text: only an attribute of its own is markup)
    found += [f"{name}={value!r}" for name, value in parser.attributes if name.startswith("on")
              or (name in ("src", "href") and ("pwn" in value or value == "x"))]
    return found


def test_a_whole_game_under_names_with_markup_sends_no_markup_of_theirs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service_module, "check_player_name", lambda name, taken=(): name)
    service = Service(MemoryStore(), ServiceConfig(password_cost=4, mails_per_hour=100_000))
    played = play_game(service, "g", [(n, f"p{i}@example.org") for i, n in enumerate(HOSTILE)],
                       start=datetime(2024, 5, 1, tzinfo=UTC), seed="5eed" * 8,
                       keep_mail=True, max_steps=3000)
    kinds = Counter(email.message_from_bytes(raw)["Subject"].split(":")[0].split(" (")[0]
                    for raw in played.outbox)
    print(f"{len(played.outbox)} mails, {len(kinds)} subjects, outcome {played.outcome}")
    assert played.outcome  # the game was played to its end
    assert {raw: _injected(raw) for raw in played.outbox if _injected(raw)} == {}


def test_press_orders_and_announcements_with_markup_stay_text(tmp_path: Path) -> None:
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", ""), ("Carol", "")])
    room.at(minutes=5)
    sent = room.orders("Alice", "PRESS TO Bob", TEXT, "END PRESS", f"ATTACK {TEXT}")
    sent += room.orders("Carol", f"GIVE 1 MB TO Bob {TEXT}", TEXT)
    sent += room.mail("Mallory", TEXT, address="m@example.net")
    gm.announce(room.service, "illu", TEXT, room.now)
    sent += room.collect()
    assert len(sent) >= 7 and any("Press" in m.subject for m in sent)
    assert {m.subject: _injected(m.raw) for m in sent if _injected(m.raw)} == {}


def test_names_with_markup_are_refused_when_a_game_is_created() -> None:
    service = Service(MemoryStore(), ServiceConfig(password_cost=4))
    for name in HOSTILE:
        with pytest.raises(IllegalCommandError):
            service.create_game("g", [(name, "a@example.org", ""), ("Bob", "b@example.org", "")])
