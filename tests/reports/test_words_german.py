"""The game's words (``_words.txt.j2``), the game master's notices and the archive pages in
German: a German notice or archive page shows no English of ours (``english_left``; that
every message has its German, ``pbem catalogue check`` says, tests/cli).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from english_left import english_left, english_left_in_mail
from scripted_game import CARDS
from stored_games import CARDS as STORED_CARDS
from stored_games import simulated_store

from pbem.archive.build import build_game, build_index
from pbem.reports import mails as reports
from pbem.reports.context import moment_facts
from pbem.reports.templating import template
from pbem.service import history

NOTICES = ("gm_alert", "gm_alerts", "gm_announcement", "mail_failed", "mail_flooded",
           "mail_given_up", "mail_too_big", "folder_refused", "orders_dropped",
           "sending_failing", "sending_mended", "store_damaged", "store_unwritable")
AT = datetime(2026, 3, 4, 5, 6, tzinfo=UTC)


def test_every_ability_and_special_text_of_the_card_data_is_german_as_written_else() -> None:
    """Abilities and special card texts are found by their English (the card data's): each
    printed one is German; one a site's card set changed is shown as written."""
    words = template("_words.txt.j2", "de").module
    for card in CARDS.groups + CARDS.illuminati:
        if card.ability_text:
            said = str(words.group_ability(type("G", (), {"ability": card.ability_text})()))  # type: ignore[attr-defined]
            assert said != card.ability_text, card.name
    for special in CARDS.specials:
        said = str(words.special_text(type("S", (), {"text": special.text})()))  # type: ignore[attr-defined]
        assert said != special.text and "holder" not in said, special.name
    changed = type("G", (), {"ability": "+1 on Tuesdays"})()
    assert str(words.group_ability(changed)) == "+1 on Tuesdays"  # type: ignore[attr-defined]


def notice_words() -> list[tuple[str, dict[str, object]]]:
    since = moment_facts(datetime(2026, 3, 3, 1, 2, tzinfo=UTC), "Europe/Berlin")
    return [
        ("gm_alert", {"game": "illu1", "data": {"alone": "Anna"}}),
        ("gm_alert", {"game": "illu1", "data": {"player": "Bob", "misses": 3}}),
        ("gm_alerts", {"count": 3, "kinds": [("mail_given_up", 2)], "minutes": 60,
                       "sections": [("S", "t")], "more": 2}),
        ("gm_announcement", {"game": "illu1", "player": "Anna", "events": [],
                             "message": "Hallo", "closing": "orders"}),
        ("mail_failed", {"mail_id": "m1", "error": "E", "count": 3,
                         "kinds": [("KeyError", 2), ("OSError", 1)], "minutes": 30}),
        ("mail_flooded", {"count": 4, "limit": 20, "minutes": 60,
                          "senders": [("a@b", 1, "g1"), ("c@d", 3, "g2")]}),
        ("mail_given_up", {"subject": "Re", "to": "a@b", "mail_game": "g1", "error": "550"}),
        ("mail_too_big", {"size_kib": 900, "sender": "a@b", "limit_kib": 512}),
        ("folder_refused", {"folder": "done", "error": "NO", "steps": "create it"}),
        ("orders_dropped", {"game": "illu1", "player": "Anna", "data": {"lines": ["PASS"]}}),
        ("sending_failing", {"what": "smtp", "since": "gestern", "error": "E", "steps": "s"}),
        ("sending_mended", {"what": "smtp"}),
        ("store_damaged", {"problem": "P"}),
        ("store_unwritable", {"since": since, "error": "E"}),
    ]


@pytest.mark.parametrize(("name", "words"), notice_words())
def test_a_notice_to_the_game_master_reads_in_german(name: str, words: dict[str, object]
                                                    ) -> None:
    at = moment_facts(AT, "Europe/Berlin")
    mail = reports.mail(name, "de", None, **{"game": "", "at": at, **words})
    assert english_left_in_mail(mail, "de") == []


def test_the_archive_pages_read_in_german(tmp_path: Path) -> None:
    service = simulated_store(tmp_path / "store")
    game = history.read_game(service.store, "sim")
    site = tmp_path / "site"
    build_index([build_game(STORED_CARDS, game, site, "de")], site, "de")
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 2
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert '<html lang="de">' in text, page.name
        assert english_left(text, "de", is_html=True) == [], page.name
    assert "Alle Spiele" in (site / "games" / "sim" / "index.html").read_text(encoding="utf-8")
