"""How a group offer ends besides an answer by mail: a player leaving or removed, the giver
taking it back, the giver's turn running out; and the deadlines and reminders of an offer
after a rollback or an extension.

Played through the transcript harness (clock pinned, seed fixed): Carol (first to play)
takes Feminists at 12:15 and gives it to Alice, as in ``mailrooms.offer``; the answer is
due 24 h later, 2026-11-30 12:15, and Carol's orders 2026-12-02 12:00.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mailrooms import (
    GROUP,
    PLAYERS,
    STANDING,
    offer,
    offered_in_a_short_turn,
    reminders,
    reply,
    words,
)
from transcripts.harness import Mailroom, Out


@pytest.fixture
def room(tmp_path: Path) -> Mailroom:
    return Mailroom(tmp_path)


def about_the_offer(mails: list[Out]) -> list[Out]:
    """The mails telling how the offer ended (not acknowledgements, reports or the game
    master's announcements)."""
    return [m for m in mails if GROUP in m.subject and "Orders received" not in m.subject
            and m.view_json() is None and "game master" not in m.subject.lower()]


def owner(room: Mailroom, group: str = GROUP) -> str:
    p = room.state().owner(group)
    return p.name if p is not None else ""


# --- the receiver leaves or is removed ----------------------------------------------------


def test_removing_the_receiver_ends_the_offer_and_tells_the_giver(room: Mailroom) -> None:
    """rulebook-en, "Leaving the Game": "If a player drops out, his Groups go uncontrolled
    and their treasuries go to the bank." The rules say nothing of a pending gift, but "You
    may only give a Group away with the permission of the player who receives it!": a
    receiver out of the game gives none, so the offer ends at once, the group stays with the
    giver, and the giver, told after the removal itself, plays on."""
    offer(room)
    room.at(hours=1)
    out = room.override("remove_seat", "Alice", reason="moved away")
    assert room.state().offer is None and owner(room) == "Carol"
    assert room.record().offer_deadline == ""
    carol = room.to("Carol", out)
    assert "moved away" in words(carol[0].text)  # the removal and its reason first
    (told,) = about_the_offer(carol)
    assert told is carol[-1]
    assert told.subject == "[illu] Turn 1: Alice is out, Feminists stays yours (Carol)"
    text = words(told.text)
    assert ("Alice was removed by the game master before answering your offer of Feminists, "
            "so the offer ended: Feminists stays in your power structure, as it was.") in text
    assert "Your turn goes on. Deadline for your orders: 2026-12-02 12:00 UTC" in text
    assert "the offer ended" in words(told.html)
    assert about_the_offer(room.to("Bob", out)) == []


def test_a_receiver_who_leaves_lets_the_givers_waiting_orders_go_on(room: Mailroom) -> None:
    """Carol's END TURN waited for Alice's answer; Alice's LEAVE GAME ends the offer and
    Carol's turn goes on at once: her waiting orders are carried out, and she is told so,
    in her language."""
    room.new_game("illu", PLAYERS)
    room.orders("Alice", *STANDING)
    room.orders("Bob", *STANDING)
    room.orders("Carol", "SET LANGUAGE FR")
    room.orders("Carol", "ATTACK Bavarian CONTROL Feminists SPEND 1 UPTO 3",
                f"GIVE {GROUP} TO Alice", "END TURN")
    assert room.state().offer is not None
    out = room.orders("Alice", "LEAVE GAME")
    assert room.state().offer is None and owner(room) == "Carol"
    assert room.state().active_player.name == "Bob"
    (told,) = about_the_offer(room.to("Carol", out))
    assert words(told.subject) == ("[illu] Tour 1 : Alice n'est plus dans la partie, "
                                   "Feminists vous reste (Carol)")
    text = words(told.text)
    assert ("Alice a quitté la partie avant de répondre à votre offre de Feminists : l'offre "
            "a donc pris fin.") in text
    assert "de Feminists\xa0:" in told.text
    assert "les ordres qui attendaient cette réponse sont exécutés maintenant" in text


def test_removing_the_giver_ends_the_offer_with_their_groups(room: Mailroom) -> None:
    """rulebook-en: "If a player drops out, his Groups go uncontrolled": the group offered
    too. The giver's turn ends, and the next turn's report, sent in the same step, tells
    the receiver the offer ended."""
    offer(room)
    out = room.override("remove_seat", "Carol", reason="gone")
    assert room.state().offer is None and GROUP in room.state().uncontrolled
    assert about_the_offer(room.to("Alice", out)) == []
    (report,) = [m for m in room.to("Alice", out) if m.view_json() is not None]
    assert ("Carol's offer of Feminists to Alice ended: Carol was removed by the game "
            "master.") in words(report.text)


# --- only the receiver answers; the giver may withdraw ------------------------------------


@pytest.mark.parametrize(("lang", "reason"), [
    ("en", "only Alice, who was offered Feminists, can decline it"),
    ("fr", "Feminists est offert à Alice, et la réponse revient à qui reçoit l'offre")])
def test_the_givers_decline_is_refused_with_its_reason(room: Mailroom, lang: str,
                                                       reason: str) -> None:
    """rulebook-en: "You may only give a Group away with the permission of the player who
    receives it!": the permission is the receiver's. The giver's DECLINE is refused, in
    their language, with the order that takes an offer back; the offer still waits."""
    offer(room)
    if lang == "fr":
        room.orders("Carol", "SET LANGUAGE FR")
    (ack,) = room.orders("Carol", "DECLINE")
    assert reason in words(ack.text)
    assert "WITHDRAW OFFER" in ack.text
    assert room.state().offer is not None


def test_the_giver_withdraws_the_offer_and_the_receiver_is_told(room: Mailroom) -> None:
    """rulebook-en, "When Is a Deal Binding?": "When two players agree to a deal, it is
    binding if they make the exchange immediately." Before the receiver agrees nothing
    binds the giver: WITHDRAW OFFER takes the offer back, and the receiver, whose answer is
    no longer asked for, is told at once."""
    mail = offer(room)
    room.at(hours=1)
    out = room.orders("Carol", "WITHDRAW OFFER")
    assert room.state().offer is None and owner(room) == "Carol"
    assert room.record().offer_deadline == ""
    (told,) = about_the_offer(room.to("Alice", out))
    assert told.subject == "[illu] Turn 1: Carol withdrew the offer of Feminists (Alice)"
    assert ("Carol withdrew the offer of Feminists before your answer: Feminists stays in "
            "Carol's power structure, and an ACCEPT sent now would be refused.") in words(
                told.text)
    assert "Your turn goes on" not in told.text
    (ack,) = room.to("Carol", out)
    assert "You withdraw your offer of a group" in words(ack.text)
    (refused,) = reply(room, "Alice", mail, "ACCEPT")
    assert "no group is being offered to Alice" in words(refused.text)
    assert not reminders(room.tick(hours=12))


@pytest.mark.parametrize(("lang", "goes_on"), [
    ("en", "Your turn goes on. Deadline for your orders: 2026-12-02 12:00 UTC, in 2 days"),
    ("fr", "Votre tour continue. Date limite de vos ordres\xa0: 2026-12-02 12:00 UTC")])
def test_the_givers_answer_to_a_withdrawal_tells_how_the_turn_goes_on(
        room: Mailroom, lang: str, goes_on: str) -> None:
    """rulebook-en: "When two players agree to a deal, it is binding if they make the
    exchange immediately." Nothing bound Carol, so her turn goes on as it was: the answer to
    her WITHDRAW OFFER, her one mail of that step, ends as the mail of an offer answered
    does, with her orders deadline and the order form to fill, in her language, text and
    HTML."""
    offer(room)
    if lang == "fr":
        room.orders("Carol", "SET LANGUAGE FR")
    room.at(hours=1)
    out = room.orders("Carol", "WITHDRAW OFFER")
    (ack,) = room.to("Carol", out)
    assert goes_on in ack.text
    start = f"GAME illu PLAYER Carol PASSWORD ______ STEP {room.state().seq}"
    assert start in ack.text and ack.text.index(goes_on) < ack.text.index(start)
    assert "2026-12-02 12:00 UTC" in words(ack.html) and start in words(ack.html)


def test_a_withdrawal_that_ends_the_turn_gives_no_order_form(room: Mailroom) -> None:
    """Withdrawn, then END TURN in the same mail: the turn is over, so the answer gives no
    deadline or form; the next turn's report tells where the game goes."""
    offer(room)
    out = room.orders("Carol", "WITHDRAW OFFER", "END TURN")
    ack = next(m for m in room.to("Carol", out) if "Orders received" in m.subject)
    assert "Your turn goes on" not in ack.text and "PASSWORD ______" not in ack.text


def test_a_withdrawal_with_a_status_gives_the_order_form_once(room: Mailroom) -> None:
    """Withdrawn, then STATUS in the same mail: the status report gives the form, so the
    answer to the orders does not give it again."""
    offer(room)
    out = room.orders("Carol", "WITHDRAW OFFER", "STATUS")
    start = f"GAME illu PLAYER Carol PASSWORD ______ STEP {room.state().seq}"
    assert [start in m.text for m in room.to("Carol", out)].count(True) == 1
    ack = next(m for m in room.to("Carol", out) if "Orders received" in m.subject)
    assert "Your turn goes on" not in ack.text


def test_an_offer_withdrawn_in_the_mail_that_made_it_is_never_put_to_the_receiver(
        room: Mailroom) -> None:
    """rulebook-en: "A deal is not binding if it involves an exchange of one thing now for
    something in the future." Offered and withdrawn in one mail, the offer is gone before
    Alice could answer: she gets no report asking for an answer (a DECLINE would be
    refused) nor news of its end, and her next report shows both."""
    room.new_game("illu", PLAYERS)
    room.orders("Alice", *STANDING)
    room.orders("Bob", *STANDING)
    out = room.orders("Carol", "ATTACK Bavarian CONTROL Feminists SPEND 1 UPTO 3",
                      f"GIVE {GROUP} TO Alice", "WITHDRAW OFFER")
    assert room.state().offer is None and owner(room) == "Carol"
    assert [m.subject for m in room.to("Alice", out) if GROUP in m.subject
            and "succeeded" not in m.subject] == []
    assert [m for m in room.to("Alice", out) if m.view_json() is not None] == []
    (report,) = [m for m in room.orders("Alice", "STATUS") if m.view_json() is not None]
    assert "withdrew" in words(report.text)


# --- the giver's turn ends with the offer unanswered ---------------------------------------


def test_the_turns_end_tells_both_that_the_offer_lapsed(tmp_path: Path) -> None:
    """docs/service.md: silence ends the offer at its deadline "and so does the end of the
    giver's turn". Offered in a 12-hour turn, the orders deadline comes first: both are told
    the offer lapsed as the turn ended, the giver without an invitation to go on."""
    room = offered_in_a_short_turn(tmp_path)
    out = room.tick(hours=12)
    (giver,) = about_the_offer(room.to("Carol", out))
    text = words(giver.text)
    assert ("Your turn ended at its deadline before Alice answered your offer of Feminists, "
            "so the offer lapsed: Feminists stays in your power structure, as it was.") in text
    assert "Your turn goes on" not in text and "PASSWORD ______" not in giver.text
    (receiver,) = about_the_offer(room.to("Alice", out))
    assert ("Carol's turn ended at its deadline before your answer to the offer of Feminists "
            "came, so the offer lapsed") in words(receiver.text)
    assert room.state().active_player.name != "Carol"


# --- a rollback's deadlines ---------------------------------------------------------------


def test_a_rollback_to_before_the_offer_keeps_no_answers_deadline(room: Mailroom) -> None:
    """A rollback takes off what belonged to the steps cut: an answer's deadline and its
    reminder outlive their offer otherwise."""
    room.new_game("illu", PLAYERS)
    before = room.state().seq
    room.orders("Alice", *STANDING)
    room.orders("Bob", *STANDING)
    room.orders("Carol", "ATTACK Bavarian CONTROL Feminists SPEND 1 UPTO 3",
                f"GIVE {GROUP} TO Alice")
    room.tick(hours=12)  # Alice is reminded
    assert room.record().offer_reminded
    room.override("rollback", before)
    assert room.state().offer is None
    assert (room.record().offer_deadline, room.record().offer_reminded) == ("", False)


def test_a_rollback_to_an_offer_pending_gives_a_fresh_answers_deadline(room: Mailroom) -> None:
    """Rolled back to the step where the offer waits, after it was declined: the answer is
    due a full response period from the rollback (as the orders are), the receiver is
    reminded again, and silence then lapses the offer."""
    mail = offer(room)
    pending = room.state().seq
    room.at(hours=1)
    reply(room, "Alice", mail, "DECLINE")
    room.at(hours=1)
    room.override("rollback", pending)
    assert room.state().offer is not None
    assert room.record().offer_deadline == "2026-11-30T14:15:00+00:00"
    assert reminders(room.tick(hours=12)) == ["alice"]
    room.tick(hours=12)
    assert room.state().offer is None


# --- no reminder right after an extension -------------------------------------------------


def test_no_orders_reminder_follows_an_extension_at_once(room: Mailroom) -> None:
    """docs/service.md: the extension mail tells every player the new deadline, so a
    reminder time already past counts as sent. Carol, reminded 12 h before her deadline
    and silent, gets 2 hours more an hour before it: no reminder follows the extension.
    Given a day more instead, she is reminded again 12 h before the new deadline."""
    room.new_game("illu", PLAYERS)
    assert reminders(room.tick(hours=60)) == ["carol"]
    room.at(hours=11)
    room.override("extend", 2)
    assert reminders(room.tick(minutes=1)) == []
    room.override("extend", 24)
    assert reminders(room.tick(hours=14, minutes=58)) == []  # to 2026-12-03 01:59
    assert reminders(room.tick(minutes=1)) == ["carol"]


def test_no_offer_reminder_follows_an_extension_at_once(room: Mailroom) -> None:
    """The receiver, reminded at 00:15 and extended 2 hours at 11:15, is not reminded
    again: the extension mail gave them the new deadline."""
    offer(room)
    assert reminders(room.tick(hours=12)) == ["alice"]
    room.at(hours=11)
    room.override("extend", 2)
    assert reminders(room.tick(minutes=1)) == []
    room.tick(hours=3)
    assert room.state().offer is None


# --- a player out of the game --------------------------------------------------------------


@pytest.mark.parametrize(("lang", "said", "closing"), [
    ("en", "out of this game", "STATUS and HISTORY still get an answer."),
    ("fr", "hors jeu", "STATUS et HISTORY ont toujours une réponse.")])
def test_a_player_out_reads_that_they_are_out_once(room: Mailroom, lang: str, said: str,
                                                   closing: str) -> None:
    """The report of a player out of the game says so at its top; the closing says only
    what a reply still gets."""
    room.new_game("illu", PLAYERS)
    if lang == "fr":
        room.orders("Bob", "SET LANGUAGE FR")
    room.override("remove_seat", "Bob", reason="moved away")
    (status,) = [m for m in room.orders("Bob", "STATUS") if m.view_json() is not None]
    text = words(status.text)
    assert text.count(said) == 1
    assert "n'êtes plus dans cette partie" not in text
    assert text.endswith(closing)
