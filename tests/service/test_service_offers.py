"""A group offered by mail: the receiver's report says how to answer and by when, and the
lines it suggests, copied back, are what the service carries out.

Played through the transcript harness (clock pinned, seed fixed); the accepted offer keeps a
golden transcript in ``tests/transcripts/``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mailrooms import GROUP, PLAYERS, STANDING, form_lines, offer, reply, words
from transcripts.harness import Mailroom

from pbem.engine.codec import from_json
from pbem.engine.commands import AcceptGroup, Command, DeclineGroup
from pbem.reports import mails as reports
from pbem.service.model import Timing


@pytest.fixture
def room(tmp_path: Path) -> Mailroom:
    return Mailroom(tmp_path)


def commands_since(room: Mailroom, start: int) -> list[Command]:
    return [from_json(Command, e["command"]) for e in room.store.log("illu", start)]


def test_the_receiver_is_told_how_to_answer_and_by_when(room: Mailroom) -> None:
    """rulebook-en: "You may only give a Group away with the permission of the player who
    receives it!" The receiver's report names the giver and the group, gives the ACCEPT
    (plain and placed) and DECLINE lines to copy, and the answer's deadline in the reader's
    zone: the response deadline, 24 h after the offer."""
    mail = offer(room, "SET TIMEZONE Europe/Paris")
    assert mail.subject == "[illu] Turn 1: Carol offers you Feminists, your answer? (Alice)"
    text = words(mail.text)
    assert "Carol offers you Feminists. If you accept, it joins your power structure" in text
    for line in ("    ACCEPT", "    DECLINE"):
        assert line in mail.text.splitlines()
    placed = [line.strip() for line in mail.text.splitlines()
              if line.startswith("    ACCEPT AT ")]
    assert len(placed) == 1
    assert ("Deadline for your answer: 2026-11-30 12:15 UTC (2026-11-30 13:15 Europe/Paris), "
            "in 1 day 0 h 00 min. With no answer by then, the offer lapses.") in text
    html = words(mail.html)
    for line in ("ACCEPT", placed[0], "DECLINE"):
        assert f"<code>{line}</code>" in html
    assert "Deadline for your answer: 2026-11-30 12:15 UTC (2026-11-30 13:15" in html
    # The order form at the end holds the same lines, ready to uncomment.
    assert form_lines(mail)[1:-1] == ["# ACCEPT", f"# {placed[0]}", "# DECLINE"]


def test_the_placed_accept_line_copied_back_hangs_the_group_there(room: Mailroom) -> None:
    """rulebook-en: "The player receiving the Group must immediately fit it, and its puppets,
    into his power structure": the ACCEPT AT line of the form, sent back, is accepted and
    hangs Feminists from the arrow it names; the acceptance is one of Carol's actions."""
    mail = offer(room)
    placed = next(line[2:] for line in form_lines(mail) if line.startswith("# ACCEPT AT "))
    master, side = placed.removeprefix("ACCEPT AT ").rsplit(" ", 1)
    start = room.store.log_length("illu")
    room.at(hours=2)
    out = reply(room, "Alice", mail, placed)
    assert out[0].subject == "[illu] Orders received: 1 accepted, 0 refused (Alice)"
    assert commands_since(room, start)[0] == AcceptGroup("Alice", master,
                                                         ("TOP", "RIGHT", "BOTTOM",
                                                          "LEFT").index(side))
    state = room.state()
    assert state.offer is None
    slot = state.player("Alice").slot(GROUP)
    assert slot is not None and slot.master == master
    assert GROUP not in state.player("Carol").groups
    assert state.turn.actions == 2  # the attack and the group given
    room.check("group_offer")


def test_the_decline_line_copied_back_leaves_the_group_with_the_giver(
        room: Mailroom) -> None:
    mail = offer(room)
    start = room.store.log_length("illu")
    room.at(hours=2)
    out = reply(room, "Alice", mail, "DECLINE")
    assert out[0].subject == "[illu] Orders received: 1 accepted, 0 refused (Alice)"
    assert commands_since(room, start)[0] == DeclineGroup("Alice")
    state = room.state()
    assert state.offer is None
    assert GROUP in state.player("Carol").groups and GROUP not in state.player("Alice").groups


def test_silence_until_the_deadline_shown_declines_the_offer(room: Mailroom) -> None:
    """docs/service.md: "Silence until the response deadline declines the offer"; the
    deadline is the one the receiver's report gave."""
    mail = offer(room)
    assert "Deadline for your answer: 2026-11-30 12:15 UTC," in words(mail.text)
    room.tick(hours=24, minutes=-1)
    assert room.state().offer is not None
    room.tick(minutes=1)
    assert room.now.strftime("%Y-%m-%d %H:%M") == "2026-11-30 12:15"
    assert room.state().offer is None
    assert GROUP in room.state().player("Carol").groups


def test_the_deadline_shown_is_the_orders_deadline_when_it_comes_first(
        tmp_path: Path) -> None:
    """docs/service.md: silence declines the offer, "and so does the end of the giver's turn":
    when the giver's orders deadline comes before the response deadline, it is the one
    shown."""
    room = Mailroom(tmp_path)
    room.new_game("illu", PLAYERS, timing=Timing(orders_hours=12, response_hours=24))
    room.at(minutes=5)
    out = room.orders("Carol", "ATTACK Bavarian CONTROL Feminists SPEND 1 UPTO 3")
    room.orders("Alice", "NO RESPONSE")
    room.orders("Bob", "NO RESPONSE")
    assert GROUP in room.state().player("Carol").groups, out
    out = room.orders("Carol", f"GIVE {GROUP} TO Alice")
    (mail,) = [m for m in room.to("Alice", out) if m.view_json() is not None]
    assert room.record().offer_deadline.startswith("2026-11-30T12:05")  # the response's
    assert "Deadline for your answer: 2026-11-30 00:00 UTC," in words(mail.text)


def test_the_french_receiver_gets_the_lines_and_the_deadline(room: Mailroom) -> None:
    mail = offer(room, "SET LANGUAGE FR", "SET TIMEZONE Europe/Paris")
    assert words(mail.subject) == ("[illu] Tour 1 : Carol vous offre Feminists, "
                                   "votre réponse ? (Alice)")
    text = words(mail.text)
    assert "Carol vous offre Feminists. Si vous acceptez, il rejoint votre structure" in text
    for line in ("    ACCEPT", "    DECLINE"):
        assert line in mail.text.splitlines()
    assert ("Date limite de votre réponse : 2026-11-30 12:15 UTC (2026-11-30 13:15 "
            "Europe/Paris), dans 1 jour 0 h 00 min. Sans réponse d'ici là, l'offre "
            "expire.") in text
    assert "Date limite de votre réponse\xa0: 2026-11-30 12:15 UTC" in mail.text
    assert "<code>DECLINE</code>" in (mail.html or "")
    room.at(hours=2)
    out = reply(room, "Alice", mail, "ACCEPT")
    assert words(out[0].subject) == "[illu] Ordres reçus : 1 accepté, 0 refusé (Alice)"
    assert GROUP in room.state().player("Alice").groups


def test_the_giver_and_the_others_see_the_offer_wait(room: Mailroom) -> None:
    """The giver's and everyone else's reports keep their subject and add one line: the
    turn waits for the receiver's answer until the deadline."""
    offer(room)
    room.at(minutes=5)
    for player, lead in (("Carol", "You offer"), ("Bob", "Carol offers")):
        (status,) = room.orders(player, "STATUS")[1:]
        assert "offers you" not in status.subject
        assert (f"{lead} Feminists to Alice: the turn waits for their answer until "
                "2026-11-30 12:15 UTC") in words(status.text)
        assert "# ACCEPT" not in status.text and "# DECLINE" not in status.text


def test_a_bot_seat_answers_the_offer(room: Mailroom) -> None:
    """A seat played by a bot reads the offer from the report's JSON view and answers it
    in the same step."""
    room.new_game("illu", PLAYERS)
    room.service.set_bot("illu", "Alice", True, room.now)
    room.collect()
    room.at(minutes=5)
    room.orders("Bob", *STANDING)
    room.at(minutes=5)
    start = room.store.log_length("illu")
    room.orders("Carol", "ATTACK Bavarian CONTROL Feminists SPEND 1 UPTO 3",
                f"GIVE {GROUP} TO Alice")
    assert DeclineGroup("Alice") in commands_since(room, start)
    assert room.state().offer is None


@pytest.mark.parametrize(("lang", "reason"), [
    ("en", "you cannot give Feminists to yourself: a gift goes to another player"),
    ("fr", "vous ne pouvez pas vous donner Feminists : un don va à un autre joueur"),
])
def test_a_group_given_to_oneself_is_refused_when_the_mail_is_read(
        room: Mailroom, lang: str, reason: str) -> None:
    """rulebook-en: "You may only give a Group away with the permission of the player who
    receives it!": a gift goes to another player. QA: GIVE to oneself behind an attack was
    acknowledged "OK: you offer ..." and refused later in a mail of its own; it is refused
    in the acknowledgement, with the reason, and nothing waits behind the attack."""
    room.new_game("illu", PLAYERS)
    room.at(minutes=5)
    if lang == "fr":
        room.orders("Carol", "SET LANGUAGE fr")
    out = room.orders("Carol", "ATTACK Bavarian CONTROL Feminists SPEND 1",
                      f"GIVE {GROUP} TO Carol")
    assert room.record().window is not None  # the attack waits for Alice's and Bob's answers
    assert room.record().queue == ()
    (ack,) = [m for m in room.to("Carol", out) if "[illu] Ord" in m.subject]
    assert words(ack.subject).endswith(
        {"en": "1 refused (Carol)", "fr": "1 refusé (Carol)"}[lang]), ack.subject
    assert reason in words(ack.text)
    room.at(minutes=5)
    room.orders("Alice", "NO RESPONSE")
    later = room.orders("Bob", "NO RESPONSE")
    assert not [m for m in later if "could not be carried out" in m.subject
                or "pas pu être exécuté" in m.subject]


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_mail_to_a_player_names_them_in_its_subject(lang: str) -> None:
    """QA: the "one of your orders could not be carried out" mail lacked the "(player)" the
    others end with; so did the short mails (help, standing orders, called off,
    eliminated)."""
    for name in ("order_failed", "called_off", "eliminated", "help", "standing"):
        mail = reports.mail(name, lang, None, html=False, game="illu", player="Carol",
                            data={"reason": "r", "attacker": "Bob", "target": "Feminists"},
                            orders=[], topic="", forms=(), goes_on=None)
        assert mail.subject.endswith("(Carol)"), (name, mail.subject)


def test_status_shows_what_happened_since_the_last_report(room: Mailroom) -> None:
    """QA: STATUS said "Nothing you can see" after an offer another player declined, which
    no mail had told Bob. The STATUS report shows what happened since the last turn report,
    as far as its reader may see."""
    offer(room)
    room.at(minutes=5)
    room.orders("Alice", "DECLINE")
    room.at(minutes=5)
    (status,) = room.orders("Bob", "STATUS")[1:]
    assert f"Alice declined {GROUP}." in words(status.text)
    assert "Nothing you can see" not in status.text
