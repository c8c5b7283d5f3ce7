"""Mail outside a game's turn flow: stray mail (the postmaster's record stays small however
much strays to it), refusals, copies."""

from __future__ import annotations

from pathlib import Path

from transcripts.harness import Mailroom

from pbem.service.postmaster import POSTMASTER
from pbem.store import SEGMENT_SIZE, mail_id_for


def test_stray_mail_leaves_an_entry_each_and_the_hot_record_stays_small(
        tmp_path: Path) -> None:
    """150 mails from a stranger: the first is answered, the others only noted; each is
    applied once, and its entry in the postmaster's log closes segments, so the applied
    mails the hot file carries stay under one segment's worth."""
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", "")])
    answers = [room.mail("Mallory", "hello?", address="mallory@example.net",
                         message_id=f"<stray{n}@example.net>") for n in range(150)]
    assert [len(a) for a in answers] == [1] + [0] * 149
    store = room.store
    assert store.applied_mails(POSTMASTER, [mail_id_for(f"<stray{n}@example.net>")
                                            for n in range(150)]) == {
        mail_id_for(f"<stray{n}@example.net>") for n in range(150)}
    entries = list(store.log(POSTMASTER))
    assert [e["answer"] for e in entries] == ["unreadable"] + [""] * 149  # no orders in it
    with store.lock():
        assert len(store._hot(POSTMASTER).applied_ids()) < SEGMENT_SIZE


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

