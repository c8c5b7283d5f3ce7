"""Mails as the service sends them: rendered by ``reports.mail``, and the answer to a stale
order mail (where the game is now, then the writer's current report).

Played by mail through the transcript harness (clock pinned, seed fixed), as in
``test_service_transcripts``, which keeps the golden transcripts; here the facts a player
relies on are checked in code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from transcripts.harness import Mailroom

from pbem.service.notice_mails import render_notice
from pbem.service.notices import HelpReply
from pbem.service.settings import MailIdentity

PLAYERS = [("Alice", ""), ("Bob", ""), ("Carol", "")]  # the seed makes Carol play first
STANDING = ("STANDING DEFEND ANY UPTO 3", "STANDING NEVER INTERFERE")
MOVED_ON = {"en": "The game has moved on since the report you answered",
            "fr": "La partie a avancé depuis le rapport auquel vous répondez"}


@pytest.fixture
def room(tmp_path: Path) -> Mailroom:
    return Mailroom(tmp_path)


def words(text: str | None) -> str:
    """The text with every run of blanks (wrapping, no-break spaces) as one space."""
    return " ".join((text or "").split())


def turn_two(room: Mailroom) -> int:
    """Carol passes turn 1 while the others hold standing answers; gives the TURN that the
    turn-1 reports carried."""
    room.new_game("illu", PLAYERS)
    old = room.state().seq
    for player in ("Alice", "Bob"):
        room.at(minutes=5)
        room.orders(player, *STANDING)
    room.at(minutes=5)
    room.orders("Carol", "PASS")
    assert room.state().turn_number == 2 and room.state().active_player.name == "Alice"
    return old


def test_a_stale_mail_is_answered_with_the_current_turn_and_then_the_report(
        room: Mailroom) -> None:
    """The acknowledgement says the turn the game is at and the TURN to write, and that the
    current report follows; the report follows, to the writer alone, in their own view."""
    old = turn_two(room)
    now = room.state()
    room.at(minutes=5)
    out = room.orders("Alice", "ATTACK Network CONTROL Tabloids", "END TURN", turn=old)
    assert room.state() == now  # nothing was carried out
    ack, report = out
    assert ack.to == report.to == "alice@example.org"
    for part in (words(ack.text), words(ack.html)):
        assert MOVED_ON["en"] in part
        assert (f"orders now carry STEP {now.seq} (turn {now.turn_number} of the game). "
                "Your current report follows this mail") in part
    assert words(ack.text).count(f"Written for STEP {old}: the game has moved on") == 2
    assert report.subject == f"[illu] Turn {now.turn_number}: your move (Alice)"
    assert f"PASSWORD ______ STEP {now.seq}" in report.text
    data = report.view_json()
    assert data is not None
    view = json.loads(data)
    assert view["viewer"] == "Alice" and view["seq"] == now.seq
    for p in view["players"]:
        assert (p["hand"] is None) == (p["name"] != "Alice")


def test_the_stale_answer_is_in_the_writers_language(room: Mailroom) -> None:
    old = turn_two(room)
    room.at(minutes=5)
    room.orders("Bob", "SET LANGUAGE FR")
    room.at(minutes=5)
    ack, report = room.orders("Bob", "GIVE 1 MB TO Alice", turn=old)
    text = words(ack.text)
    assert MOVED_ON["fr"] in text and MOVED_ON["en"] not in text
    assert (f"les ordres portent désormais STEP {room.state().seq} (tour 2 de la partie)."
            in text)
    assert f"Écrit pour STEP {old} : la partie a avancé depuis." in text
    assert report.to == "bob@example.org" and "Tour 2 :" in words(report.subject)


def test_a_mail_for_the_current_turn_gets_no_stale_answer(room: Mailroom) -> None:
    """Press in a stale mail still goes, and a mail written for the current TURN is just
    acknowledged: no word of the game moving on, no extra report."""
    turn_two(room)
    room.at(minutes=5)
    out = room.orders("Alice", "PRESS TO Bob", "Hello.", "END PRESS")
    assert [m.to for m in out] == ["alice@example.org", "bob@example.org"]
    assert MOVED_ON["en"] not in words(out[0].text)


def test_short_service_mails_are_tidied_like_every_other(tmp_path: Path) -> None:
    """A help mail (one of the short ones) comes out of ``reports.mail`` like a report: its
    text without trailing blanks or runs of blank lines, and the no-break spaces of French
    typography kept in its subject."""
    site = tmp_path / "site"
    (site / "fr").mkdir(parents=True)
    (site / "fr" / "help.subject.txt.j2").write_text(
        "[{{ game }}] Aide\xa0: vos ordres\n", encoding="utf-8")
    (site / "fr" / "help.txt.j2").write_text(
        "Écrivez vos ordres.   \n\n\n\nGAME {{ game }} PLAYER {{ player }}\t\n", encoding="utf-8")
    room = Mailroom(tmp_path / "room", sender=MailIdentity(
        address="pbem@pbem.example", domain="pbem.example", site_dir=site))
    room.new_game("illu", PLAYERS)
    room.at(minutes=5)
    room.orders("Carol", "SET LANGUAGE FR")
    room.at(minutes=5)
    _, help_ = room.orders("Carol", "HELP")
    assert help_.text == "Écrivez vos ordres.\n\nGAME illu PLAYER Carol\n"
    # The subject as rendered (composing the mail flattens header whitespace on its own).
    _, _, rendered = render_notice(
        room.service.cards, room.state(), room.record(), HelpReply("Carol"),
        now=room.now, news=(), history=(), sender=room.sender)
    assert rendered.subject == "[illu] Aide\xa0: vos ordres"
    assert rendered.text == help_.text
