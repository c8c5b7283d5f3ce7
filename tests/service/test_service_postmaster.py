"""Mail outside a game's turn flow: stray mail (the postmaster's record stays small however
much strays to it), refusals, copies."""

from __future__ import annotations

import json
from pathlib import Path

from transcripts.harness import Mailroom

from pbem.service.model import Timing
from pbem.service.postmaster import POSTMASTER
from pbem.store import SEGMENT_SIZE, mail_id_for


def test_stray_mail_leaves_an_entry_each_and_the_hot_record_stays_small(
        tmp_path: Path) -> None:
    """150 mails from a stranger: the first is answered, the second told that more get no
    answer this hour, the others only noted; each is
    applied once, and its entry in the postmaster's log closes segments, so the applied
    mails the hot file carries stay under one segment's worth."""
    room = Mailroom(tmp_path, files=True)
    room.new_game("illu", [("Alice", ""), ("Bob", "")])
    answers = [room.mail("Mallory", "hello?", address="mallory@example.net",
                         message_id=f"<stray{n}@example.net>") for n in range(150)]
    assert [len(a) for a in answers] == [1, 1] + [0] * 148
    store = room.store
    assert store.applied_mails(POSTMASTER, [mail_id_for(f"<stray{n}@example.net>")
                                            for n in range(150)]) == {
        mail_id_for(f"<stray{n}@example.net>") for n in range(150)}
    entries = list(store.log(POSTMASTER))
    # (no orders in it)
    assert [e["answer"] for e in entries] == ["unreadable", "hushed"] + [""] * 148
    hot = json.loads((store.root / "games" / POSTMASTER / "hot.json").read_bytes())
    assert len(hot["applied"]) < SEGMENT_SIZE


def test_a_known_player_whose_mail_is_refused_is_told_in_their_language(
        tmp_path: Path) -> None:
    """A wrong password, or orders that cannot be read, from the address of a player who
    asked for French: the refusal is French (a stranger's stays English)."""
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", "")])
    room.orders("Alice", "SET LANGUAGE FR")
    (wrong,) = room.orders("Alice", "STATUS", password="not-hers")
    assert "Ordres refusés : joueur ou mot de passe incorrect" in wrong.subject.replace(
        "\xa0", " ")
    room.at(hours=2)  # the postmaster answers an address at most once an hour
    # A player's name the game does not know: the orders cannot be read.
    (unread,) = room.orders("Alicia", "STATUS", game="illu", address=room.addresses["Alice"])
    assert "Votre mail n'a pas pu être lu" in unread.subject, unread.subject
    (stranger,) = room.orders("Mallory", "STATUS", game="illu", address="m@example.net")
    assert stranger.subject == "Your mail could not be read"


def test_a_message_id_reused_by_another_player_does_not_drop_their_orders(
        tmp_path: Path) -> None:
    """Two players whose mail programs give the same Message-ID: both mails are played and
    answered; the same mail again from either is a copy, played once."""
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", "")])
    assert room.orders("Alice", "STATUS", message_id="<fixed@client>")
    assert room.orders("Bob", "STATUS", message_id="<fixed@client>")
    assert not room.orders("Bob", "STATUS", message_id="<fixed@client>")
    assert not room.orders("Alice", "STATUS", message_id="<fixed@client>")
    assert room.record().steps == 1 + 2  # the start, then one step per mail played



def test_orders_with_a_seats_password_are_read_past_the_limit_from_any_address(
        tmp_path: Path) -> None:
    """Issue 43, point 5: a seated player's orders carry their password; in a game that takes
    orders from any address, they are read past the hourly limit from another address too.
    A wrong password past the limit is dropped (and scrypt runs for it at most once an
    hour)."""
    room = Mailroom(tmp_path, mails_per_hour=1)
    room.new_game("illu", [("Alice", ""), ("Bob", "")],
                  timing=Timing(require_registered_address=False))
    for _ in range(3):
        answers = room.orders("Alice", "STATUS", address="alice@elsewhere.org")
        assert answers and not any(m.subject.startswith("Too many mails") for m in answers)
    room.orders("Alice", "STATUS", address="mallory@example.net", password="guess")
    out = room.orders("Alice", "STATUS", address="mallory@example.net", password="guess")
    assert [m.subject for m in out if m.to == "mallory@example.net"] == [
        "Too many mails: yours are not read until 2026-11-29 13:00 UTC"]


def flat(text: str | None) -> str:
    return " ".join((text or "").replace("\xa0", " ").split())


def test_the_flood_notice_to_a_player_is_in_their_language_and_time_zone(
        tmp_path: Path) -> None:
    """docs/service.md: mails beyond the hourly limit "from one address are dropped unread,
    and the sender is told so, with the time their mail is read again": a player who asked
    for French and Paris time is told in French, the time in UTC and in Paris; a stranger in
    English, in UTC only."""
    room = Mailroom(tmp_path, mails_per_hour=2)
    room.new_game("illu", [("Alice", ""), ("Bob", "")])
    room.orders("Alice", "SET LANGUAGE FR", "SET TIMEZONE Europe/Paris")
    room.at(hours=2)  # 14:00 UTC: the limit counts the last hour's mails
    # Mail to the server, not orders to her game (those are read however many: issue 43).
    # (A LIST and a HELP: under a player's From, not vouched for, each kind of answer from the
    # server goes once an hour: issue 44.)
    assert room.mail("Alice", "LIST\n") and room.mail("Alice", "HELP\n")
    (flood,) = room.mail("Alice", "LIST\n")
    until = "2026-11-29 15:00 UTC (2026-11-29 16:00 Europe/Paris)"
    assert flat(flood.subject) == f"Trop de mails : les vôtres ne sont pas lus avant {until}"
    assert f"vos mails ne sont pas lus avant {until}." in flat(flood.text)
    assert f"vos mails ne sont pas lus avant {until}." in flat(flood.html)
    for _ in range(2):
        room.orders("Mallory", "STATUS", game="illu", address="mallory@example.net")
    out = room.orders("Mallory", "STATUS", game="illu", address="mallory@example.net")
    (stranger,) = [m for m in out if m.to == "mallory@example.net"]  # and the GM is told
    assert stranger.subject == "Too many mails: yours are not read until 2026-11-29 15:00 UTC"


def test_the_flood_notice_follows_the_game_the_mail_names(tmp_path: Path) -> None:
    """A player in two games who asked for French in the first: past the limit, her orders
    naming that game are still read (issue 43: a seated player's orders are never refused by
    the flood limit); mail naming no game of hers is dropped, told as the newest game's seat
    reads (English)."""
    room = Mailroom(tmp_path, mails_per_hour=1)
    room.new_game("illu", [("Alice", ""), ("Bob", "")])
    room.orders("Alice", "SET LANGUAGE FR", game="illu")
    room.new_game("later", [("Alice", ""), ("Carol", "")])
    room.at(hours=2)
    room.orders("Alice", "STATUS", game="illu")
    answers = room.orders("Alice", "STATUS", game="illu")
    assert answers and not any(m.subject.startswith("Trop de mails") for m in answers)
    room.at(hours=2)
    room.orders("Alice", "STATUS", game="nowhere")
    out = room.orders("Alice", "STATUS", game="nowhere")
    (flood,) = [m for m in out if m.to == "alice@example.org"]  # and the GM is told
    assert flood.subject.startswith("Too many mails"), flood.subject


def test_a_players_mail_naming_no_game_here_is_answered_in_their_language(
        tmp_path: Path) -> None:
    """A player who asked for French mails a game that does not exist, or no start line at
    all: the reply is French, the language of the seat their address holds."""
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", "")])
    room.orders("Alice", "SET LANGUAGE FR")
    room.at(hours=2)
    (unknown,) = room.orders("Alice", "STATUS", game="ilu")
    assert unknown.subject == "Partie inconnue ilu", unknown.subject
    room.at(hours=2)
    (unread,) = room.mail("Alice", "Bonjour, je joue quand ?")
    assert unread.subject == "Votre mail n'a pas pu être lu", unread.subject
    (stranger,) = room.orders("Mallory", "STATUS", game="ilu", address="m@example.net")
    assert stranger.subject == "Unknown game"  # nothing of a stranger's mail comes back


def test_a_refusal_leaves_out_the_html_part_for_a_player_who_asked(tmp_path: Path) -> None:
    """docs/orders.md: "SET HTML ON|OFF adds or leaves out the HTML part of your mails": a
    wrong password's refusal too."""
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", "")])
    room.orders("Alice", "SET HTML OFF")
    (wrong,) = room.orders("Alice", "STATUS", password="not-hers")
    assert wrong.subject.startswith("[illu] Orders refused") and wrong.html is None


def test_a_language_chosen_after_a_reply_is_used_for_the_next_one(tmp_path: Path) -> None:
    """The seats looked up for a reply are read again once their game changed: a player
    answered in English who then asks for French gets the next reply in French."""
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", "")])
    (first,) = room.orders("Alice", "STATUS", game="ilu")
    assert first.subject == "Unknown game ilu"
    room.orders("Alice", "SET LANGUAGE FR")
    room.at(hours=2)
    (second,) = room.orders("Alice", "STATUS", game="ilu")
    assert second.subject == "Partie inconnue ilu"
