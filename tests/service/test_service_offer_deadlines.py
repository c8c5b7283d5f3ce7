"""The deadline of a group offered under the game master's overrides, reminders that come
when they are of use, and an offer nobody answered told as lapsed, not declined.

Played through the transcript harness (clock pinned, seed fixed): Carol (first to play)
takes Feminists at 12:15 and gives it to Alice, as in ``mailrooms.offer``; the answer is
due 24 h later, 2026-11-30 12:15, and Carol's orders 2026-12-02 12:00.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from gm_cli import run
from mailrooms import PLAYERS, STANDING, offer, offered_in_a_short_turn, reminders, words
from transcripts.harness import START, Mailroom, Out

from pbem.archive.build import build_game
from pbem.cli import gm_text
from pbem.engine.events import event_of
from pbem.reports import mails as reports
from pbem.service import gm, history
from pbem.service.deadlines import next_due, reminder_time
from pbem.service.model import Timing

ANSWER_DUE = "2026-11-30 12:15 UTC"


@pytest.fixture
def room(tmp_path: Path) -> Mailroom:
    return Mailroom(tmp_path)


def told(room: Mailroom, mails: list[Out], player: str) -> str:
    """The words of the one mail ``player`` got among ``mails``."""
    (mail,) = room.to(player, mails)
    return words(mail.text)


# --- a pause moves the answer's deadline too ---------------------------------------------------


def test_a_pause_moves_the_answers_deadline_as_every_other(room: Mailroom) -> None:
    """docs/service.md: "The game master can also pause a game (deadlines stop)". Paused an
    hour after the offer and resumed two days later, the answer is due two days later too:
    the offer does not lapse at its old deadline, only at the new one."""
    offer(room)
    room.at(hours=1)
    room.override("pause")
    room.at(days=2)
    room.override("resume")
    assert room.record().offer_deadline == "2026-12-02T12:15:00+00:00"
    assert room.record().deadline == "2026-12-04T12:00:00+00:00"
    room.tick(minutes=1)
    assert room.state().offer is not None
    room.at(days=1, hours=-1, minutes=-2)  # a minute before the new deadline, 2026-12-02 12:14
    room.tick()
    assert room.state().offer is not None
    room.tick(minutes=1)
    assert room.state().offer is None


def test_the_resume_tells_each_player_the_answers_deadline(room: Mailroom) -> None:
    """Each player is told every deadline that moved: the receiver their own answer's, the
    giver when the answer to their offer is due, the others both, in their language."""
    offer(room, "SET LANGUAGE FR")
    room.override("pause")
    room.at(days=2)
    out = room.override("resume")
    assert ("resumed the game; the orders deadline is now 2026-12-04 12:00 UTC, and Alice's "
            "answer to your offer of Feminists is due 2026-12-02 12:15 UTC.") in told(
                room, out, "Carol")
    assert ("the orders deadline is now 2026-12-04 12:00 UTC, and Alice's answer to Carol's "
            "offer of Feminists is due 2026-12-02 12:15 UTC.") in told(room, out, "Bob")
    alice = told(room, out, "Alice")
    assert ("le délai des ordres tombe désormais le 2026-12-04 12:00 UTC, et votre réponse à "
            "l'offre de Feminists faite par Carol est attendue au plus tard le 2026-12-02 "
            "12:15 UTC.") in alice
    (mail,) = room.to("Alice", out)
    assert "a repris la partie\xa0; le délai" in mail.text


def test_resume_gives_the_game_master_the_answers_deadline(room: Mailroom) -> None:
    offer(room)
    room.override("pause")
    room.at(days=1)
    hours, deadline, answer = gm.resume(room.service, "illu", room.now)
    assert hours == 24 and answer is not None and deadline is not None
    assert (f"{deadline:%Y-%m-%d %H:%M}", f"{answer:%Y-%m-%d %H:%M}") == (
        "2026-12-03 12:00", "2026-12-01 12:15")


# --- extend gives the receiver more time ----------------------------------------------------


def test_extend_during_an_offer_moves_the_answers_deadline_and_the_orders(
        room: Mailroom) -> None:
    """`pbem extend` moves the deadline that runs: with an offer waiting, the answer's. The
    giver's turn waits for the answer, so the orders deadline moves as much, and the mail
    says both."""
    offer(room)
    room.at(hours=1)
    out = room.override("extend", 24)
    assert room.record().offer_deadline == "2026-12-01T12:15:00+00:00"
    assert room.record().deadline == "2026-12-03T12:00:00+00:00"
    assert ("The game master gave 24 hours more to answer: your answer to Carol's offer of "
            "Feminists is now due 2026-12-01 12:15 UTC. The orders deadline moves as much, "
            "since the turn waits for the answer: it is now 2026-12-03 12:00 UTC.") in told(
                room, out, "Alice")
    assert "Alice's answer to your offer of Feminists is now due" in told(room, out, "Carol")
    room.tick(hours=23)  # past the old deadline, 2026-11-30 12:15
    assert room.state().offer is not None
    room.tick(days=1)
    assert room.state().offer is None


def test_extend_moves_an_answer_the_orders_deadline_cuts_short(tmp_path: Path) -> None:
    """docs/service.md: silence declines the offer at its deadline "and so does the end of
    the giver's turn". Offered 5 minutes into a 12-hour turn, the answer is due when the
    turn ends, 2026-11-30 00:00; extended by 6 hours, both are 6 hours later, so the extension
    is not lost to the turn's end."""
    room = offered_in_a_short_turn(tmp_path)
    deadline, answer = gm.extend(room.service, "illu", 6, room.now)
    assert answer is not None
    assert (f"{deadline:%Y-%m-%d %H:%M}", f"{answer:%Y-%m-%d %H:%M}") == (
        "2026-11-30 06:00", "2026-11-30 06:00")
    room.tick(hours=12)  # the turn's old end
    assert room.state().offer is not None and room.state().active_player.name == "Carol"
    room.tick(hours=6)
    assert room.state().offer is None and room.state().active_player.name != "Carol"


def test_game_show_gives_the_answers_deadline(room: Mailroom) -> None:
    offer(room)
    text = " ".join(gm_text.show_text(room.service.cards, history.read_game(room.store, "illu"),
                                      room.now).split())
    assert (f"Carol offers Feminists to Alice, who has not answered: the answer is due "
            f"{ANSWER_DUE}, in 1 day 0 h 00 min.") in text


# --- reminders when they are of use ---------------------------------------------------------


def test_a_reminder_comes_no_earlier_than_half_the_period() -> None:
    """docs/service.md: a reminder comes its lead before the deadline, but never more than
    half the period before it."""
    deadline = START + timedelta(hours=10)
    assert reminder_time(deadline, 12, timedelta(hours=10)) == START + timedelta(hours=5)
    assert reminder_time(deadline, 2, timedelta(hours=10)) == START + timedelta(hours=8)


def test_a_short_turn_is_not_reminded_as_it_begins(room: Mailroom) -> None:
    """QA: with 10-hour turns, "Reminder: ... in 9 h 59 min" came 4 s after the turn began.
    Now it comes halfway, 5 hours before the deadline."""
    room.new_game("illu", PLAYERS, timing=Timing(orders_hours=10))
    assert next_due(room.state(), room.record(), room.now) == START + timedelta(hours=5)
    assert reminders(room.tick(seconds=4)) == []
    assert reminders(room.tick(hours=5, seconds=-5)) == []
    assert reminders(room.tick(seconds=1)) == ["carol"]


def test_a_short_response_window_is_not_reminded_as_it_opens(room: Mailroom) -> None:
    """A 10-hour response window: Bob, asked and silent, is reminded halfway, not at once."""
    room.new_game("illu", PLAYERS, timing=Timing(response_hours=10))
    room.orders("Alice", *STANDING)
    room.orders("Carol", "ATTACK Bavarian CONTROL Feminists SPEND 1")
    window = room.record().window
    assert window is not None and not window.answered("Bob")
    assert reminders(room.tick(seconds=4)) == []
    assert reminders(room.tick(hours=5, seconds=-5)) == []
    assert reminders(room.tick(seconds=1)) == ["bob"]


def test_an_offer_cut_short_by_the_turns_end_is_reminded_halfway(tmp_path: Path) -> None:
    """Offered at 12:05 in a turn ending at midnight (the answer is due then): the receiver
    is reminded halfway through the time they have, at 18:02:30, not as the offer arrives."""
    room = offered_in_a_short_turn(tmp_path)
    assert reminders(room.tick(seconds=4)) == []
    halfway = START + timedelta(hours=6, minutes=2, seconds=30)
    assert next_due(room.state(), room.record(), START + timedelta(hours=6)) == halfway
    room.now = halfway - timedelta(seconds=1)
    assert reminders(room.tick()) == []
    assert reminders(room.tick(seconds=1)) == ["alice"]


# --- an offer nobody answered lapsed --------------------------------------------------------


def lapsed_then_ended(room: Mailroom, *bob: str) -> list[Out]:
    """The offer lapses at its deadline, then Carol ends her turn; gives the mails of the end
    (``bob``: Bob's settings, given before)."""
    offer(room)
    if bob:
        room.orders("Bob", *bob)
    room.tick(hours=24)
    room.at(minutes=5)
    return room.orders("Carol", "END TURN")


def test_the_next_report_says_the_offer_lapsed_unanswered(room: Mailroom) -> None:
    """QA: "xavier declined S.M.O.F." when xavier never answered. The others' next report
    says the offer lapsed with no answer."""
    out = lapsed_then_ended(room)
    (report,) = [m for m in room.to("Bob", out) if m.view_json() is not None]
    text = words(report.text)
    assert "Carol's offer of Feminists to Alice lapsed: no answer came in time." in text
    assert "Alice declined" not in text
    assert "<li>Carol's offer of Feminists to Alice lapsed" in words(report.html)


def test_the_history_in_french_says_the_offer_lapsed(room: Mailroom) -> None:
    lapsed_then_ended(room, "SET LANGUAGE FR")
    room.at(minutes=5)
    (_, reply) = room.orders("Bob", "HISTORY")
    assert ("L'offre de Feminists faite par Carol à Alice a expiré : aucune réponse n'est "
            "venue à temps.") in words(reply.text)
    assert "a expiré\xa0: aucune" in reply.text
    assert "Alice a refusé" not in reply.text


def test_an_offer_ended_with_the_turn_lapsed_too(tmp_path: Path) -> None:
    """The orders deadline ends the turn and the offer with it: nobody declined it."""
    room = offered_in_a_short_turn(tmp_path)
    out = room.tick(hours=12)
    (report,) = [m for m in room.to("Bob", out) if m.view_json() is not None]
    assert "Carol's offer of Feminists to Alice lapsed" in words(report.text)


def test_the_archive_says_the_offer_lapsed(room: Mailroom, tmp_path: Path) -> None:
    lapsed_then_ended(room)
    build_game(room.service.cards, history.read_game(room.store, "illu"), tmp_path / "site")
    pages = " ".join(words(p.read_text()) for p in (tmp_path / "site").rglob("*.html"))
    assert "Carol&#39;s offer of Feminists to Alice lapsed: no answer came in time." in pages
    timeline = words(history.timeline_text(room.service.cards,
                                           history.read_game(room.store, "illu")))
    assert "Carol's offer of Feminists to Alice lapsed" in timeline


@pytest.mark.parametrize(("lang", "sentence"), [("en", "Alice declined Hackers."),
                                                ("fr", "Alice a refusé Hackers.")])
def test_an_older_logs_decline_reads_as_before(lang: str, sentence: str) -> None:
    """An event of a log written before the lapse was told apart has no ``unanswered``:
    it still renders, as the decline it was recorded as."""
    event = event_of("offer_declined", {"player": "Alice", "group": "Hackers", "giver": "Bob"})
    mail = reports.history_reply("illu", "Carol", [(4, (event,))], lang=lang)
    assert sentence in words(mail.text)


def test_the_game_masters_commands_say_when_the_answer_is_due(tmp_path: Path) -> None:
    """`pbem extend` and `pbem resume` say every deadline they set, the answer's too (the
    commands run on the store's files)."""
    room = Mailroom(tmp_path, files=True)
    offer(room)
    store = room.root / "store"
    result = run(store, "extend", "illu", "--hours", "24", now="2026-11-29T13:00:00+00:00")
    assert ("The answer to the group offered in illu is now due 2026-12-01 12:15 UTC; the "
            "orders deadline is now 2026-12-03 12:00 UTC.") in result.output
    run(store, "pause", "illu", now="2026-11-29T13:00:00+00:00")
    result = run(store, "resume", "illu", now="2026-11-30T13:00:00+00:00")
    assert ("its deadlines moved 24 h later: the deadline is now 2026-12-04 12:00 UTC, the "
            "answer to the group offered is due 2026-12-02 12:15 UTC.") in result.output


def test_an_offer_through_a_pause_and_an_extension_then_silence(room: Mailroom) -> None:
    """The QA session, by mail: the offer paused and resumed two days later, extended by a
    day, the receiver reminded once 12 h before, then silence: the offer lapses at the deadline
    the mails gave, and is told as lapsed. Kept as a golden transcript."""
    offer(room)
    room.at(hours=1)
    room.override("pause")
    room.at(days=2)
    room.override("resume")
    room.at(hours=1)
    room.override("extend", 24)
    assert room.record().offer_deadline == "2026-12-03T12:15:00+00:00"
    assert reminders(room.tick(hours=33, minutes=59)) == []  # to 2026-12-03 00:14
    assert reminders(room.tick(minutes=1)) == ["alice"]
    room.tick(hours=12)
    assert room.state().offer is None
    room.at(minutes=5)
    out = room.orders("Carol", "END TURN")
    (report,) = [m for m in room.to("Bob", out) if m.view_json() is not None]
    assert "Carol's offer of Feminists to Alice lapsed" in words(report.text)
    room.check("offer_paused")
