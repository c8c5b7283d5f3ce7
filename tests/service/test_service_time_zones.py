"""Every time a player's mail shows is in UTC and in the reader's own zone (SET TIMEZONE),
as the deadlines of reports are: a deadline the game master extends or resumes, the
history that tells it later, and a reminder's subject.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from transcripts.harness import Mailroom, Out

PLAYERS = [("Alice", ""), ("Bob", ""), ("Carol", "")]
# The first orders deadline is 72 hours after the start (2026-11-29 12:00 UTC).
EXTENDED = "2026-12-03 12:00 UTC"


@pytest.fixture
def room(tmp_path: Path) -> Mailroom:
    """A started game where Alice reads Paris time, Bob New York time in French, Carol UTC."""
    room = Mailroom(tmp_path)
    room.new_game("illu", PLAYERS)
    room.at(minutes=5)
    room.orders("Alice", "SET TIMEZONE Europe/Paris")
    room.orders("Bob", "SET TIMEZONE America/New_York", "SET LANGUAGE FR")
    return room


def flat(text: str | None) -> str:
    return " ".join((text or "").replace("\xa0", " ").split())


def only(mails: list[Out], room: Mailroom, player: str) -> Out:
    (mail,) = room.to(player, mails)
    return mail


def test_an_extended_deadline_is_shown_in_each_readers_zone(room: Mailroom) -> None:
    """The extension mail gives the new deadline in UTC and, for a reader who set a zone, in
    that zone too (text and HTML, in the reader's language); a reader in UTC sees UTC once."""
    out = room.override("extend", 24)
    alice, bob, carol = (only(out, room, p) for p in ("Alice", "Bob", "Carol"))
    paris = f"by 24 hours: it is now {EXTENDED} (2026-12-03 13:00 Europe/Paris)."
    assert paris in flat(alice.text) and paris in flat(alice.html)
    new_york = (f"de 24 heures : il tombe désormais le {EXTENDED} "
                "(2026-12-03 07:00 America/New_York).")
    assert new_york in flat(bob.text) and new_york in flat(bob.html)
    utc = f"by 24 hours: it is now {EXTENDED}."
    assert utc in flat(carol.text) and utc in flat(carol.html)
    # The history tells the extension later the same way, in the asker's zone.
    room.at(minutes=5)
    (_, history) = room.orders("Alice", "HISTORY")
    assert paris in flat(history.text)


def test_a_resumed_deadline_is_shown_in_each_readers_zone(room: Mailroom) -> None:
    """A pause of a day moves the deadline a day later; resuming tells each player when."""
    room.override("pause")
    room.at(days=1)
    out = room.override("resume")
    assert (f"the orders deadline is now {EXTENDED} (2026-12-03 13:00 Europe/Paris)."
            in flat(only(out, room, "Alice").text))
    assert (f"le délai des ordres tombe désormais le {EXTENDED} (2026-12-03 07:00 "
            "America/New_York).") in flat(only(out, room, "Bob").text)
    assert f"the orders deadline is now {EXTENDED}." in flat(only(out, room, "Carol").text)


def test_a_reminders_subject_gives_the_deadline_in_the_readers_zone(room: Mailroom) -> None:
    """The subject of a reminder, the first thing a player reads, says when in their zone.
    Carol, first to play, is reminded 12 hours before her orders deadline."""
    room.orders("Carol", "SET TIMEZONE Asia/Tokyo")
    (reminder,) = room.tick(days=2, hours=12)
    assert reminder.to == "carol@example.org"
    assert reminder.subject == ("[illu] Reminder: your orders are due 2026-12-02 12:00 UTC "
                                "(2026-12-02 21:00 Asia/Tokyo) (Carol)")
