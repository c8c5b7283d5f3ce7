"""A response window still open when the orders deadline passes: the attack is settled at
the window's own deadline, then the turn ends as at the orders deadline, and the orders that
waited behind the attack are dropped (the active player told which), not carried out with a
deadline of their own already past.

Played through the transcript harness: 10-hour turns and 10-hour windows; Carol (first to
play) attacks at 13:01, so the window runs to 23:01, past her orders deadline at 22:00.
"""

from __future__ import annotations

from pathlib import Path

from mailrooms import GROUP, PLAYERS, words
from transcripts.harness import Mailroom

from pbem.service.model import Timing


def attack_with_a_gift_waiting(tmp_path: Path) -> Mailroom:
    room = Mailroom(tmp_path)
    room.new_game("illu", PLAYERS, timing=Timing(orders_hours=10, response_hours=10))
    room.at(hours=1, minutes=1)
    room.orders("Carol", "ATTACK Bavarian CONTROL Feminists SPEND 1 UPTO 3",
                f"GIVE {GROUP} TO Alice")
    assert room.record().window is not None and len(room.record().queue) == 1
    return room


def test_orders_waiting_are_dropped_when_the_window_closes_past_the_deadline(
        tmp_path: Path) -> None:
    """docs/service.md: "If it [the orders deadline] passes while a response window is
    open, nothing happens then: the attack is settled first [...] then the turn ends as at the
    orders deadline: the orders still waiting behind the attack are not carried out, and
    the active player is told which"."""
    room = attack_with_a_gift_waiting(tmp_path)
    mails = room.tick(hours=9)  # 22:02, the orders deadline passed
    assert room.to("Carol", mails) == []  # the others are reminded of the window only
    assert room.record().window is not None
    mails = room.tick(hours=1)  # 23:02: the window closes
    state = room.state()
    assert state.offer is None
    assert state.active_player.name != "Carol"
    assert room.record().queue == ()
    assert not room.record().offer_deadline
    assert not [m for m in room.to("Alice", mails) if "Reminder" in m.subject]
    (dropped,) = [m for m in room.to("Carol", mails) if "orders dropped" in m.subject]
    assert f"GIVE {GROUP} TO Alice" in dropped.text
    assert "were not carried out" in words(dropped.text)
    assert dropped.html is not None and f"GIVE {GROUP} TO Alice" in dropped.html
    assert room.service.replay_check("illu")


def test_orders_waiting_are_dropped_when_the_last_answer_comes_past_the_deadline(
        tmp_path: Path) -> None:
    """The window closes early, its last answer in after the orders deadline: the same."""
    room = attack_with_a_gift_waiting(tmp_path)
    room.tick(hours=9)
    room.orders("Alice", "NO RESPONSE")
    mails = room.orders("Bob", "NO RESPONSE")
    assert room.state().offer is None
    assert room.state().active_player.name != "Carol"
    assert [m for m in room.to("Carol", mails) if "orders dropped" in m.subject]


def test_the_french_mail_of_orders_dropped(tmp_path: Path) -> None:
    """The mail in French, with its no-break spaces."""
    room = Mailroom(tmp_path)
    room.new_game("illu", PLAYERS, timing=Timing(orders_hours=10, response_hours=10))
    room.at(hours=1, minutes=1)
    room.orders("Carol", "SET LANGUAGE fr", "ATTACK Bavarian CONTROL Feminists SPEND 1 UPTO 3",
                f"GIVE {GROUP} TO Alice")
    room.tick(hours=9)
    mails = room.tick(hours=1)
    (dropped,) = [m for m in room.to("Carol", mails) if "ordres abandonnés" in m.subject]
    assert "exécutés\u00a0:" in dropped.text
    assert f"GIVE {GROUP} TO Alice" in dropped.text
