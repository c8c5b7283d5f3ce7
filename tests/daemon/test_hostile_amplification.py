"""One mail is one answer (issue 44, point 4), through the daemon's real SMTP listener: a
mail of thousands of lines is refused with its reason; repeated queries fold into one
answer of each kind; 50 absences set and cancelled in one mail make one mail to each other
player and one to the game master."""

from __future__ import annotations

import smtplib
from pathlib import Path

from daemon_game import GM, GameDaemon
from servers import wait_until

from pbem.mail.inbound import MAX_LINES
from pbem.store import Store


def _settled(store: Store) -> bool:
    with store.lock():
        return not store.inbox() and not store.outbox()


def _answers(game: GameDaemon, address: str, message_id: str) -> list[str]:
    return [str(m["Subject"]) for m in game.mails().get(address, [])
            if m["In-Reply-To"] == message_id]


def _count(game: GameDaemon) -> dict[str, int]:
    return {address: len(got) for address, got in game.mails().items()}


def test_a_mail_of_ten_thousand_status_lines_gets_one_answer(tmp_path: Path) -> None:
    """10,000 STATUS lines (80 KB): one answer, the refusal saying why; nothing else is
    mailed to anyone. 300 STATUS, 300 HISTORY and 300 HELP lines (within the limit): one
    acknowledgement, one report, one history, one help."""
    game = GameDaemon(tmp_path)
    store = Store(game.config.store)
    with game.listening() as port, smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        assert wait_until(lambda: _settled(store), timeout=60)
        before = _count(game)
        smtp.sendmail("alice@example.org", ["pbem@localhost"],
                      game.orders(1, "Alice", "\r\n".join(["STATUS"] * 10_000)))
        assert wait_until(lambda: _settled(store) and _count(game) != before, timeout=120)
        refused = _answers(game, "alice@example.org", "<order-1@example.org>")
        assert len(refused) == 1
        assert {a: n - before.get(a, 0) for a, n in _count(game).items()
                if n != before.get(a, 0)} == {"alice@example.org": 1}
        text = " ".join(game.text_to("alice@example.org")[-1].split())
        assert f"more than the {MAX_LINES} we read" in text
        smtp.sendmail("alice@example.org", ["pbem@localhost"], game.orders(
            2, "Alice", "\r\n".join(["STATUS", "HISTORY", "HELP"] * 300)))
        assert wait_until(lambda: _settled(store) and _answers(
            game, "alice@example.org", "<order-2@example.org>"), timeout=120)
    answered = _answers(game, "alice@example.org", "<order-2@example.org>")
    mails_to_alice = len(game.mails()["alice@example.org"]) - before["alice@example.org"] - 1
    print(f"900 query lines: {mails_to_alice} mails to Alice: {answered}")
    assert mails_to_alice <= 4  # the acknowledgement, a report, a history, a help


def test_fifty_absences_set_and_cancelled_in_one_mail_tell_each_reader_once(
        tmp_path: Path) -> None:
    game = GameDaemon(tmp_path)
    store = Store(game.config.store)
    pairs = "\r\n".join(["SET ABSENCE 2024-06-01 TO 2024-06-03", "CANCEL ABSENCE ALL"] * 50)
    with game.listening() as port, smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        assert wait_until(lambda: _settled(store), timeout=60)
        before = _count(game)
        smtp.sendmail("alice@example.org", ["pbem@localhost"], game.orders(1, "Alice", pairs))
        assert wait_until(lambda: _settled(store) and _answers(
            game, "alice@example.org", "<order-1@example.org>"), timeout=120)
    grew = {a: n - before.get(a, 0) for a, n in _count(game).items()}
    print(f"50 SET/CANCEL ABSENCE pairs in one mail: {grew}")
    assert grew["bob@example.org"] <= 1 and grew["carol@example.org"] <= 1
    assert grew.get(GM, 0) <= 1
    assert grew["alice@example.org"] == 1  # her acknowledgement
