"""Backscatter (issue 21, point 5): mail with forged From addresses, through the daemon's
real SMTP listener. Replies to addresses that are no player's are limited in total, not
only per address, and carry nothing of the mail back; the players are still answered."""

from __future__ import annotations

import smtplib
from pathlib import Path

from daemon_game import GameDaemon
from servers import wait_until

from pbem.service.settings import STRANGER_REPLIES
from pbem.store import Store

FORGED = 300
PAYLOAD = "BUY-CHEAP-WATCHES-AT-spam.example"


def _settled(store: Store) -> bool:
    with store.lock():
        return not store.inbox() and not store.outbox()


def test_forged_senders_get_a_bounded_number_of_replies_that_carry_nothing_back(
        tmp_path: Path) -> None:
    game = GameDaemon(tmp_path)
    store = Store(game.config.store)
    with game.listening() as port, smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        for n in range(FORGED):
            victim = f"victim{n}@example.net"
            smtp.sendmail(victim, ["pbem@localhost"], (
                f"From: {victim}\r\nTo: pbem@localhost\r\nSubject: {PAYLOAD}\r\n"
                f"Message-ID: <forged-{n}@example.net>\r\n\r\n"
                f"GAME {PAYLOAD} PLAYER Alice PASSWORD x\r\nSTATUS {PAYLOAD}\r\nEND\r\n"
                ).encode())
        smtp.sendmail("alice@example.org", ["pbem@localhost"],
                      game.orders(1, "Alice", "STANDING LIST"))
        assert wait_until(lambda: _settled(store), timeout=120)
    mails = game.mails()
    victims = [m for address, got in mails.items() if address.startswith("victim")
               for m in got]
    print(f"{FORGED} mails from forged addresses: {len(victims)} replies")
    assert len(victims) == STRANGER_REPLIES
    for reply in victims:
        assert PAYLOAD not in reply.as_string()
    assert any(m["In-Reply-To"] == "<order-1@example.org>"
               for m in mails["alice@example.org"])  # the player is answered all the same
    assert {a for a in mails if not a.startswith("victim")} == {
        "alice@example.org", "bob@example.org", "carol@example.org"}


def test_the_budget_of_replies_to_strangers_is_configured(tmp_path: Path) -> None:
    """``stranger_replies`` under [mail]; 0 answers no stranger at all."""
    game = GameDaemon(tmp_path, "stranger_replies = 2\n")
    assert game.config.service_config().stranger_replies == 2
    for n in range(5):
        game.deliver(f"From: v{n}@example.net\r\nMessage-ID: <s{n}@x>\r\n\r\nhi\r\n".encode())
    game.run()
    assert len([a for a in game.mails() if a.startswith("v")]) == 2
