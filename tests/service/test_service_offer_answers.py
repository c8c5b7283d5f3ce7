"""The answer to a group offered, by mail or by silence, told to whom it concerns at once; the
receiver reminded before the answer's deadline; the saved record without a stale deadline.

Played through the transcript harness (clock pinned, seed fixed): Carol (first to play)
takes Feminists and gives it to Alice in one mail, as in ``mailrooms.offer``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mailrooms import GROUP, PLAYERS, STANDING, form_lines, offer, reply, words
from transcripts.harness import Mailroom, Out


@pytest.fixture
def room(tmp_path: Path) -> Mailroom:
    return Mailroom(tmp_path)


def placed_line(mail: Out) -> str:
    """The ACCEPT AT line of the receiver's order form (hangs the group from its last open
    arrow: the left arrow of The Network here)."""
    return next(line[2:] for line in form_lines(mail) if line.startswith("# ACCEPT AT "))


def about_the_offer(mails: list[Out]) -> list[Out]:
    """The mails telling the answer to the offer (not acknowledgements or reports)."""
    return [m for m in mails if GROUP in m.subject and "Orders received" not in m.subject
            and m.view_json() is None]


def test_the_giver_is_told_at_once_where_the_accepted_group_went(room: Mailroom) -> None:
    """rulebook-en: "You may only give a Group away with the permission of the player who
    receives it!" Carol's turn waited on that permission: the step that carries out Alice's
    ACCEPT mails Carol at once where the group went, that her turn goes on, by when, and an
    order form. No one else gets a mail for it."""
    mail = offer(room)
    room.at(hours=2)
    placed = placed_line(mail)
    assert placed == "ACCEPT AT The Network LEFT"
    out = reply(room, "Alice", mail, placed)
    (told,) = room.to("Carol", out)
    assert told.subject == "[illu] Turn 1: Alice accepted Feminists (Carol)"
    text = words(told.text)
    assert ("Alice accepted Feminists: it is in their power structure now, on the left arrow "
            "of The Network. Giving it counts as one of your actions.") in text
    assert ("Your turn goes on. Deadline for your orders: 2026-12-02 12:00 UTC, in 2 days "
            "21 h 45 min.") in text
    assert form_lines(told)[0].startswith("GAME illu PLAYER Carol PASSWORD ______ STEP ")
    assert "on the left arrow of The Network" in words(told.html)
    assert room.to("Bob", out) == []


def test_the_giver_is_told_a_declined_group_stays_theirs(room: Mailroom) -> None:
    """The DECLINE line copied back: Carol is told at once, in her language, that Feminists
    stays hers and that her turn goes on."""
    mail = offer(room)
    room.orders("Carol", "SET LANGUAGE FR")
    room.at(hours=2)
    out = reply(room, "Alice", mail, "DECLINE")
    (told,) = room.to("Carol", out)
    assert words(told.subject) == "[illu] Tour 1 : Alice a refusé Feminists (Carol)"
    text = words(told.text)
    assert ("Alice a refusé Feminists : il reste dans votre structure de pouvoir, comme "
            "avant.") in text
    assert "Votre tour continue. Date limite de vos ordres : 2026-12-02 12:00 UTC" in text
    assert "Alice a refusé Feminists" in words(told.html)


def test_silence_tells_both_the_giver_and_the_receiver(room: Mailroom) -> None:
    """docs/service.md: "Silence until the response deadline declines the offer". No mail of
    anyone's says so, so the deadline's step tells the giver (the group stays hers, her turn
    goes on) and the receiver (an ACCEPT now would be refused)."""
    offer(room)
    out = room.tick(hours=24)
    assert room.state().offer is None
    (giver,) = about_the_offer(room.to("Carol", out))
    assert giver.subject == ("[illu] Turn 1: no answer from Alice, Feminists stays yours "
                             "(Carol)")
    assert ("Alice did not answer your offer of Feminists in time, so the offer lapsed with "
            "no answer: Feminists stays in your power structure, as it was.") in words(giver.text)
    assert "declined" not in giver.text
    assert "Your turn goes on." in words(giver.text)
    (receiver,) = about_the_offer(room.to("Alice", out))
    assert receiver.subject == ("[illu] Turn 1: your answer did not come, Feminists stays "
                                "Carol's (Alice)")
    assert ("Your answer to Carol's offer of Feminists did not come in time, so the offer "
            "lapsed with no answer") in words(receiver.text)
    assert "an ACCEPT sent now would be refused" in words(receiver.text)
    assert "declined" not in receiver.text
    assert "Your turn goes on" not in receiver.text


def test_the_givers_orders_waiting_for_the_answer_go_on(room: Mailroom) -> None:
    """Carol's END TURN, written after the GIVE, waits for Alice's answer: Carol's mail says
    her waiting orders are carried out now, and they are (the next turn begins)."""
    room.new_game("illu", PLAYERS)
    room.at(minutes=5)
    room.orders("Alice", *STANDING)
    room.orders("Bob", *STANDING)
    room.at(minutes=5)
    out = room.orders("Carol", "ATTACK Bavarian CONTROL Feminists SPEND 1 UPTO 3",
                      f"GIVE {GROUP} TO Alice", "END TURN")
    (mail,) = [m for m in room.to("Alice", out) if m.view_json() is not None]
    assert room.state().active_player.name == "Carol"
    out = reply(room, "Alice", mail, "DECLINE")
    (told,) = about_the_offer(room.to("Carol", out))
    assert ("Your turn goes on: the orders that waited for this answer are carried out now, "
            "and what they do comes by mail as usual.") in words(told.text)
    assert "PASSWORD ______" not in told.text  # no form: the waiting orders act
    assert room.state().active_player.name != "Carol"


def test_the_others_next_report_shows_the_answer(room: Mailroom) -> None:
    """Bob, neither giver nor receiver, reads the answer in his next report's news: where an
    accepted group went, or that it was declined."""
    mail = offer(room)
    reply(room, "Alice", mail, placed_line(mail))
    out = room.orders("Carol", "END TURN")
    (report,) = [m for m in room.to("Bob", out) if m.view_json() is not None]
    assert ("Carol gave Feminists to Alice, who hung it from the left arrow of The "
            "Network.") in words(report.text)
    assert "Carol gave Feminists to Alice, who hung it from" in words(report.html)


def test_the_others_next_report_shows_a_decline(tmp_path: Path) -> None:
    room = Mailroom(tmp_path)
    mail = offer(room)
    reply(room, "Alice", mail, "DECLINE")
    out = room.orders("Carol", "END TURN")
    (report,) = [m for m in room.to("Bob", out) if m.view_json() is not None]
    assert "Alice declined Feminists." in words(report.text)


@pytest.mark.parametrize("answer", ["ACCEPT", "DECLINE"])
def test_an_answer_clears_the_offer_deadline(room: Mailroom, answer: str) -> None:
    """The saved record keeps no deadline for an offer no longer there."""
    mail = offer(room)
    assert room.record().offer_deadline.startswith("2026-11-30T12:15")
    reply(room, "Alice", mail, answer)
    assert room.state().offer is None
    assert room.record().offer_deadline == ""


def test_silence_clears_the_offer_deadline(room: Mailroom) -> None:
    offer(room)
    room.tick(hours=24)
    assert room.record().offer_deadline == ""


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_receiver_is_reminded_once_with_the_lines_to_answer(room: Mailroom,
                                                                lang: str) -> None:
    """docs/service.md: reminders (default 12 h before a deadline) go to those still silent,
    once. The offer was made at 12:15 and waits until 12:15 the next day: at 00:15 Alice is
    reminded, with the ACCEPT and DECLINE lines and the form, and not again."""
    mail = offer(room, *(["SET LANGUAGE FR"] if lang == "fr" else []))
    assert not room.to("Alice", room.tick(hours=12, minutes=-1))
    (reminder,) = room.to("Alice", room.tick(minutes=1))
    lines = reminder.text.splitlines()
    for line in ("    ACCEPT", f"    {placed_line(mail)}", "    DECLINE"):
        assert line in lines
    assert form_lines(reminder)[1:-1] == form_lines(mail)[1:-1]
    text = words(reminder.text)
    if lang == "en":
        assert reminder.subject == ("[illu] Reminder: your answer is due 2026-11-30 12:15 UTC "
                                    "(Alice)")
        assert ("Carol offered you Feminists and the turn waits for your answer. Deadline: "
                "2026-11-30 12:15 UTC, in 12 h 00 min.") in text
        assert "the offer lapses and Feminists stays Carol's." in text
    else:
        assert "Carol vous a offert Feminists et le tour attend votre réponse." in text
        assert "Date limite : 2026-11-30 12:15 UTC" in text
        assert "réponse. Date limite\xa0:" in reminder.text
    assert "<code>DECLINE</code>" in (reminder.html or "")
    assert not room.to("Alice", room.tick(hours=6))


def test_no_reminder_once_the_offer_is_answered(room: Mailroom) -> None:
    mail = offer(room)
    room.at(hours=1)
    reply(room, "Alice", mail, "DECLINE")
    assert not room.to("Alice", room.tick(hours=12))
