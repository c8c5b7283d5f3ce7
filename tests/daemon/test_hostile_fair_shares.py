"""Fair shares (issue 44, point 4), through the daemon's real SMTP listener: a flood naming
one game, and a flood of mail naming none, do not hold up another game's answer.

Timing-free: the flood is stored while the test holds the store's lock (the listener stores
with the inbox's own lock, the processing needs the store's), so the whole flood and the
other game's STATUS are waiting together when the processing starts; the test then counts
the flood's mails the daemon took before the other game's (its log says which mail of which
game it carries out, and when it takes each mail), not seconds.
"""

from __future__ import annotations

import logging
import smtplib
from pathlib import Path

import pytest
from daemon_game import GameDaemon
from daemons import new_game, order_mail
from servers import wait_until

from pbem.store import Store

OTHERS = (("Dan", "dan@example.org", ""), ("Eve", "eve@example.org", ""),
          ("Fay", "fay@example.org", ""))
FLOOD = 150  # of each kind


def _settled(store: Store) -> bool:
    with store.lock():
        return not store.inbox() and not store.outbox()


def _carried_out(records: list[logging.LogRecord]) -> list[str]:
    """The games of the order mails the daemon carried out (read their orders), in order."""
    return [str(r.args[2]) for r in records  # type: ignore[index]
            if r.name == "pbem.service.service" and r.msg == "mail %s: orders of %s in game %s"]


def test_a_flood_of_one_sender_does_not_hold_up_another_game(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """150 mails under Alice's address naming g1 (wrong passwords) and 150 junk mails from one
    stranger, then Dan's STATUS for g2, all waiting at once: Dan's mail is taken with the
    first round, behind at most one mail of each other queue (before: behind all 300)."""
    game = GameDaemon(tmp_path)
    dan = new_game(game.config, "g2", OTHERS)
    store = Store(game.config.store)
    caplog.set_level(logging.DEBUG, logger="pbem.service.service")
    with game.listening() as port, smtplib.SMTP("127.0.0.1", port, timeout=60) as smtp:
        assert wait_until(lambda: _settled(store), timeout=120)
        caplog.clear()
        with store.lock():  # the processing waits: everything below waits together
            for n in range(FLOOD):
                smtp.sendmail("alice@example.org", ["pbem@localhost"], game.orders(
                    1000 + n, "Alice", "STATUS", password=f"guess{n}"))
                smtp.sendmail("spam@example.net", ["pbem@localhost"], (
                    f"From: spam@example.net\r\nTo: pbem@localhost\r\nSubject: x\r\n"
                    f"Message-ID: <junk-{n}@example.net>\r\n\r\nbuy cheap watches\r\n"
                ).encode())
            smtp.sendmail("dan@example.org", ["pbem@localhost"], order_mail(
                1, "Dan", dan["Dan"], "STATUS", game="g2"))
            assert len(store.inbox()) == 2 * FLOOD + 1
        assert wait_until(lambda: any(m["In-Reply-To"] == "<order-1@example.org>"
                                      for m in game.mails().get("dan@example.org", [])),
                          timeout=300)
        assert wait_until(lambda: _settled(store), timeout=300)
    games = _carried_out(caplog.records)
    assert games.count("g1") == FLOOD and games.count("g2") == 1
    before_dan = games.index("g2")
    taken = [str(r.args[2]) for r in caplog.records  # type: ignore[index]
             if r.name == "pbem.service.service" and r.msg.startswith("mail %s taken")]
    print(f"{2 * FLOOD} flood mails waiting: {before_dan} of g1's carried out before g2's; "
          f"taken before Dan's: {taken.index('dan@example.org') if taken else None}")
    # Round robin: g1's first mail, the junk's first, then Dan's (unloaded: none before it).
    assert before_dan <= 1
    assert taken.index("dan@example.org") <= 2
