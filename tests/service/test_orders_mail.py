"""One order mail carried out for its seat (pbem/service/order_mail.py), one case each.

Positions are built with tests/factory.py and handed to a real ``Table`` the way the service
does after authentication. docs/orders.md and docs/service.md state each rule.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from factory import BAVARIA, CARDS, GNOMES, NETWORK, deal, free, game, money, place, rig
from transcripts.harness import Mailroom, Out

from pbem.engine.state import GameState
from pbem.orders.parse import parse_orders
from pbem.reports.mails import OrderResult
from pbem.reports.paraphrase import paraphrase
from pbem.service.model import GameService, Seat, Timing, iso
from pbem.service.order_mail import carry_out_mail
from pbem.service.table import Table

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def position() -> GameState:
    """ann (Bavarians, to act), bob (Gnomes, holding Boy Sprouts) and cat (Network), with
    money; Hackers is free."""
    state = game(ann=BAVARIA, bob=GNOMES, cat=NETWORK)
    state = free(state, "Hackers")
    state = place(state, "bob", "Boy Sprouts", treasury=2)
    for name, card in (("ann", BAVARIA), ("bob", GNOMES), ("cat", NETWORK)):
        state = money(state, name, card, 10)
    return state


def table(state: GameState) -> Table:
    """The position at the start of ann's turn, as the service holds it."""
    seats = tuple(Seat(p.name, f"{p.name}@example.org") for p in state.players)
    timing = Timing()
    service = GameService(seats=seats, timing=timing, started=True, turn_seq=state.seq,
                          deadline=iso(NOW + timedelta(hours=timing.orders_hours)))
    return Table(CARDS, state, service, NOW, 0)


def mail(t: Table, player: str, *lines: str, turn: int | None) -> list[OrderResult]:
    """One order mail's lines carried out for ``player``, its start line with ``turn``."""
    start = f"GAME test PLAYER {player} PASSWORD x" + (f" TURN {turn}" if turn is not None else "")
    names = tuple(p.name for p in t.state.players)
    parsed = parse_orders("\n".join([start, *lines, "END"]), CARDS, names)
    assert not parsed.errors, parsed.errors
    return carry_out_mail(t, t.service.seat(player), parsed, site_dir=None)[0]


def test_an_answer_after_the_writers_own_attack_is_not_stale() -> None:
    """docs/service.md: "the attacker may add ... IF FAILS PLAY Assassination ... right after
    the ATTACK line in the same mail". The TURN on the start line (every form fills it in)
    is the game as the mail found it: the window the mail's own ATTACK opened does not make
    the next line stale. (Rules, Assassination: "played after the dice are rolled".)"""
    t = table(rig(deal(position(), "ann", "Assassination"), 12))
    results = mail(t, "ann", "ATTACK Bavarian CONTROL Hackers", "IF FAILS PLAY Assassination",
                   turn=t.state.seq)
    assert all(r.accepted for r in results), results
    assert not any(r.stale for r in results)
    window = t.service.window
    assert window is not None and window.attacker is not None and window.attacker.reactions


def outlook_reply(room: Mailroom, player: str, report: Out, *lines: str) -> list[Out]:
    """A reply as Outlook writes it: the orders (no END) on top, the report pasted below
    them without ">"."""
    start = (f"GAME illu PLAYER {player} PASSWORD {room.passwords[('illu', player)]} "
             f"TURN {room.state().seq}")
    body = "\n".join([start, *lines, "", player, "", "-----Original Message-----",
                      "From: Illuminati PBEM <pbem@pbem.example>", f"Subject: {report.subject}",
                      "", report.text])
    return room.mail(player, body, subject=f"RE: {report.subject}")


def test_a_report_pasted_below_the_orders_is_not_read_as_orders(tmp_path: Path) -> None:
    """docs/orders.md: "Everything before the start line and after END is ignored"; without
    END, reading stops where the pasted earlier mail begins, so the report's suggested
    ATTACK lines (and its order form) are never carried out."""
    room = Mailroom(tmp_path)
    mails = room.new_game("illu", [("Alice", ""), ("Bob", ""), ("Carol", "")])
    report = next(m for m in room.to("Carol", mails) if "ODDS OF YOUR ATTACKS" in m.text)
    assert "    ATTACK The Bavarian Illuminati" in report.text
    answer = room.to("Carol", outlook_reply(room, "Carol", report, "STANDING NEVER INTERFERE"))
    assert room.state().attack is None and room.record().window is None
    assert answer[0].subject.endswith("Orders received: 1 accepted, 2 refused (Carol)")
    assert "Line 6: -----Original Message-----" in answer[0].text
    assert "ATTACK" not in answer[0].text.split("-----Original Message-----")[1]


def test_after_set_language_the_whole_answer_is_in_that_language(tmp_path: Path) -> None:
    """docs/orders.md: "SET LANGUAGE EN|FR writes your reports in English or French"; the
    answer to that very mail is, every line of it included."""
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", ""), ("Carol", "")])
    lines = ("STANDING NEVER INTERFERE", "SET LANGUAGE FR", "PRESS TO ALL", "Bonjour.",
             "END PRESS")
    answer = room.to("Alice", room.orders("Alice", *lines))[0]
    parsed = parse_orders("\n".join(["GAME illu PLAYER Alice PASSWORD x", *lines, "END"]),
                          CARDS, ("Alice", "Bob", "Carol"))
    for located in parsed.orders:
        assert paraphrase(located.order, "en", None) not in answer.text
        assert paraphrase(located.order, "fr", None).split()[0] in answer.text
    assert "OK: " not in answer.text and "Vos ordres pour illu" in answer.text


def test_the_answer_says_where_the_game_is_now_not_as_the_turn_written(
        tmp_path: Path) -> None:
    """The answer's first line must not read as if the mail had been written for the TURN
    the game reached once it was carried out: it says where the game is now."""
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", ""), ("Carol", "")])
    written = room.state().seq
    answer = room.to("Carol", room.orders("Carol", "PASS", turn=written))[0]
    now = room.state().seq
    assert now > written
    assert answer.text.startswith("Your orders for illu, Carol: 1 accepted, 0 refused. The "
                                  f"game is now at STEP {now}.")


def test_orders_without_end_are_answered_with_a_warning_in_the_readers_language(
        tmp_path: Path) -> None:
    """docs/orders.md: if you forget END, "the answer warns you" -- read up to the
    signature, or to the end of the mail; the warning counts as neither accepted nor
    refused, and it is in the reader's language."""
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", ""), ("Carol", "")])
    start = f"GAME illu PLAYER Carol PASSWORD {room.passwords['illu', 'Carol']}"
    signed = room.to("Carol", room.mail("Carol", f"{start}\nSTANDING LIST\n-- \nCarol\n"))[0]
    assert signed.subject.endswith("1 accepted, 0 refused (Carol)")
    assert "There is no END line: your orders were read up to your signature." in " ".join(
        signed.text.split())
    room.orders("Carol", "SET LANGUAGE FR")
    unsigned = room.to("Carol", room.mail("Carol", f"{start}\nSTANDING LIST\n"))[0]
    assert "Il n'y a pas de ligne END" in unsigned.text
    assert "jusqu'à la fin du mail" in " ".join(unsigned.text.split())
    ended = room.to("Carol", room.orders("Carol", "STANDING LIST"))[0]
    assert "ligne END" not in ended.text


def test_a_line_the_game_sent_in_a_flattened_trimmed_quote_is_never_run(
        tmp_path: Path) -> None:
    """Issue 35, point 3: a client that trimmed the quoted report to its odds lines and
    dropped every mark and indentation leaves the report's ATTACK line looking like one of
    the player's. Below a line the player did not write as orders, a line the game's mails
    offered this player to copy (Position.lines_to_copy) is not run: the reading stops
    there, the orders above it are carried out."""
    room = Mailroom(tmp_path)
    mails = room.new_game("illu", [("Alice", ""), ("Bob", ""), ("Carol", "")])
    report = next(m for m in room.to("Carol", mails) if "ODDS OF YOUR ATTACKS" in m.text)
    lines = report.text.splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith("    ATTACK "))
    odds = [line.strip() for line in lines[at - 2:at + 1]]  # its odds line(s), then ATTACK
    assert odds[-1].startswith("ATTACK ") and not odds[-2].startswith("ATTACK ")
    answer = room.to("Carol", room.mail("Carol", "\n".join([
        f"GAME illu PLAYER Carol PASSWORD {room.passwords[('illu', 'Carol')]} "
        f"TURN {room.state().seq}", "STANDING NEVER INTERFERE", "", *odds]),
        subject=f"RE: {report.subject}"))
    assert room.state().attack is None and room.record().window is None
    assert f"Line {3 + len(odds)}: {odds[-1]}" in answer[0].text
