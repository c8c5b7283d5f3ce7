"""Orders sent again (issue 21, point 3): the same orders under a new Message-ID -- a client
resending, Send pressed twice, a replayed mail -- are answered "already done" and change
nothing; the same orders meant again (a new TURN) are carried out."""

from __future__ import annotations

import smtplib
from pathlib import Path

from daemon_game import GameDaemon
from servers import wait_until

from pbem.engine.state import GameState
from pbem.store import Store


def _treasury(state: GameState, player: str) -> int:
    return state.player(player).structure[0].treasury


def _answers(game: GameDaemon, address: str) -> dict[str, str]:
    """What the answers to each order mail say first, by the Message-ID they answer."""
    found: dict[str, str] = {}
    for answers, said in game.headlines(address):
        if answers.startswith("<order-"):
            found[answers] = f"{found.get(answers, '')} {said}"
    return found


def test_three_copies_of_a_gift_give_once_through_the_daemon(tmp_path: Path) -> None:
    game = GameDaemon(tmp_path)
    before = game.state()
    store = Store(game.config.store)
    gift = game.orders(1, "Alice", "GIVE 1 MB TO Bob")
    with game.listening() as port, smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        for n in (1, 2, 3):  # the same mail, each time under a Message-ID of its own
            copy = gift.replace(b"<order-1@", f"<order-{n}@".encode())
            smtp.sendmail("alice@example.org", ["pbem@localhost"], copy)
        assert wait_until(lambda: len(_answers(game, "alice@example.org")) == 3, timeout=60)
        after = game.state()
        assert _treasury(after, "Alice") == _treasury(before, "Alice") - 1
        assert _treasury(after, "Bob") == _treasury(before, "Bob") + 1
        answers = _answers(game, "alice@example.org")
        assert "Orders received: 1 accepted" in answers["<order-1@example.org>"]
        for n in (2, 3):
            assert ("Already done: these orders were carried out on 2024-05-01 10:00 UTC"
                    in answers[f"<order-{n}@example.org>"])
        # The same gift meant again: the TURN of the last answer makes it new orders.
        smtp.sendmail("alice@example.org", ["pbem@localhost"], game.orders(
            4, "Alice", "GIVE 1 MB TO Bob").replace(
                b"\r\nGIVE", f" TURN {after.seq}\r\nGIVE".encode()))
        assert wait_until(lambda: len(_answers(game, "alice@example.org")) == 4, timeout=60)
        assert _treasury(game.state(), "Bob") == _treasury(before, "Bob") + 2
        with store.lock():
            assert store.inbox() == []
    (copy,) = [m for m in game.mails()["alice@example.org"]
               if m["In-Reply-To"] == "<order-2@example.org>"]
    body = copy.get_body(("plain",))
    assert body is not None  # the answer says how to mean the orders again
    assert f"write STEP {after.seq} at the end of your start line" in " ".join(
        str(body.get_content()).split())
