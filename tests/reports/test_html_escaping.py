"""Every HTML part of every kind of mail of whole games, read as a browser shows it: names
with apostrophes and letters outside ASCII, a group whose name holds ``&``, and press holding
``<``, ``&`` and quotes come out as written, escaped once, never twice, never as markup."""

from __future__ import annotations

import email
import email.policy
from collections import Counter
from datetime import UTC, datetime
from html.parser import HTMLParser

from pbem.service.bot_games import play_game
from pbem.service.service import Service, ServiceConfig
from pbem.store.memory import MemoryStore

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
PLAYERS = (("Zoë", "zoe@example.org"), ("O'Neil", "oneil@example.org"),
           ("Åsa", "asa@example.org"), ("Björn", "bjorn@example.org"))
PRESS = 'PRESS TO ALL\nBeware <b>the</b> Tobacco & Liquor "cartel" & co. 5 < 7\nEND PRESS'
# What a browser would show where something was escaped twice.
TWICE = ("&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&#x27;", "&#34;")


class Shown(HTMLParser):
    """The text a browser shows of an HTML document (no scripts, styles or titles), and the
    tags it holds."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.tags: Counter[str] = Counter()
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] += 1
        if tag in ("style", "script", "title"):
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script", "title"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.text.append(data)


def html_parts(raw: bytes) -> list[str]:
    message = email.message_from_bytes(raw, policy=email.policy.default)
    return [part.get_content() for part in message.walk()
            if part.get_content_type() == "text/html"]


def test_every_html_part_shows_names_and_press_as_written() -> None:
    shown: list[str] = []
    tags: Counter[str] = Counter()

    def watch(mails: object) -> None:
        for _to, raw in mails:  # type: ignore[attr-defined]
            for html in html_parts(raw):
                page = Shown()
                page.feed(html)
                shown.append("".join(page.text))
                tags.update(page.tags)

    service = Service(MemoryStore(), ServiceConfig())
    for n, seed in enumerate(("a1", "b2", "c3")):
        play_game(service, f"g{n}", PLAYERS, start=NOW, seed=seed * 32,
                  options={"max_turns": 8}, watch=watch, first_lines=(PRESS,))
    assert len(shown) > 200
    for text in shown:
        assert not any(mark in text for mark in TWICE), next(
            text[max(0, text.find(m) - 80):text.find(m) + 40] for m in TWICE if m in text)
    every = "\n".join(shown)
    for name, _ in PLAYERS:
        assert name in every
    assert "Tobacco & Liquor Companies" in every  # a group's name with "&", shown once
    assert 'Beware <b>the</b> Tobacco & Liquor "cartel" & co. 5 < 7' in every
    assert tags["b"] == 0  # press never becomes markup (the mails use <strong>)
