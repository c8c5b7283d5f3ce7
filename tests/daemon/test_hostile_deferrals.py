"""Issue 44, point 5: a temporary refusal is temporary, and holds up nobody else.

A real SMTP relay on 127.0.0.1 (aiosmtpd) answers ``451`` at RCPT for one recipient; the
daemon's clock is moved by hand, so days of retries take no real time. Before the fix, two
refusals of one recipient in a row paused every game's mail, and a ``451`` was given up
after ``give_up_after`` attempts (hours), not kept as long as a mail server keeps it.
"""

from __future__ import annotations

import smtplib
from pathlib import Path
from typing import Any

import pytest
from clocks import Clock
from daemons import configure, new_game, order_mail, parse, serving, smtp_relay
from servers import SmtpCatcher, wait_until

from pbem.daemon.outbox import GIVEN_UP
from pbem.daemon.server import Daemon

BOB = "bob@example.org"
GM = '[mail]\ngm_address = "gm@example.org"\n'
# Bob last in the first game and first in the second: his mails come two in a row.
FIRST = (("Alice", "alice@example.org", ""), ("Carol", "carol@example.org", ""),
         ("Bob", BOB, ""))
SECOND = (("Bob", BOB, ""), ("Dave", "dave@example.org", ""), ("Erin", "erin@example.org", ""))


class _TryLater(SmtpCatcher):
    """A real SMTP server that answers ``451 try later`` at RCPT for ``later``, and ``550``
    for ``reject`` (as the catcher does)."""

    def __init__(self) -> None:
        super().__init__()
        self.later = {BOB}
        self.tried: list[str] = []

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          options: list[str]) -> str:
        self.tried.append(address)
        if address in self.later:
            return "451 4.7.1 try later"
        return await super().handle_RCPT(server, session, envelope, address, options)


def _received(catcher: SmtpCatcher) -> list[str]:
    return [to for mail in catcher.mails for to in mail.rcpt_tos]


def test_a_451_for_one_recipient_is_kept_for_days_and_holds_up_nobody(
        tmp_path: Path) -> None:
    catcher = _TryLater().start()
    try:
        config = configure(tmp_path, smtp_relay(catcher.port, GM))
        new_game(config, "g1", FIRST)
        new_game(config, "g2", SECOND)
        clock = Clock()
        daemon = Daemon(config, clock=clock)
        first = daemon.run_once().flush
        # Every other recipient's mail of both games left in the first pass.
        others = ["alice@example.org", "carol@example.org", "dave@example.org",
                  "erin@example.org"]
        assert sorted(_received(catcher)) == sorted(others * 2)
        assert first.given_up == 0 and first.failed == 1
        # Bob's other mails waited for his first one's retry, untried.
        assert catcher.tried.count(BOB) == 1
        for _ in range(4 * 24):  # four days, an hour at a time
            clock.advance(3600)
            assert daemon.run_once().flush.given_up == 0
        with daemon.store.lock():
            kept = [item for item in daemon.store.outbox() if item.to == BOB]
        assert len(kept) == 4 and not any(
            (item.last_error or "").startswith(GIVEN_UP) for item in kept)
        assert max(item.attempts for item in kept) > 20  # retried all along, with backoff
        assert all("451" in (item.last_error or "") for item in kept if item.attempts)
        # His mailbox opens again: every kept mail goes, in a pass or two.
        catcher.later = set()
        clock.advance(3600)
        daemon.run_once()
        clock.advance(3600)
        daemon.run_once()
        assert _received(catcher).count(BOB) == 4
        assert "gm@example.org" not in _received(catcher)  # nothing was given up
    finally:
        catcher.stop()


def test_a_451_is_given_up_after_the_queue_lifetime_and_the_game_master_told(
        tmp_path: Path) -> None:
    catcher = _TryLater().start()
    try:
        config = configure(tmp_path, smtp_relay(
            catcher.port, GM + "[daemon]\nqueue_lifetime_days = 2\n"))
        new_game(config, "g1", FIRST)
        clock = Clock()
        daemon = Daemon(config, clock=clock)
        daemon.run_once()
        clock.advance(47 * 3600)
        assert daemon.run_once().flush.given_up == 0
        clock.advance(2 * 3600)
        passes = [daemon.run_once().flush for _ in range(3)]
        assert sum(f.given_up for f in passes) == 2  # bob's welcome and report
        with daemon.store.lock():
            left = [item for item in daemon.store.outbox() if item.to == BOB]
        assert all((item.last_error or "").startswith(GIVEN_UP) and "451" in (
            item.last_error or "") for item in left)
        # Told at once of the first, of the second with the next notice (grouped alerts).
        assert _received(catcher).count("gm@example.org") == 1
        clock.advance(31 * 60)
        daemon.tick()
        daemon.run_once()
        assert _received(catcher).count("gm@example.org") == 2
    finally:
        catcher.stop()


def test_a_5xx_is_given_up_at_once_and_the_game_master_told_in_one_grouped_notice(
        tmp_path: Path) -> None:
    """10 mails given up: the game master is told of the first at once, of the nine others
    in one notice half an hour later that counts them by kind (issue 44, point 4: alerts
    bounded and grouped)."""
    catcher = _TryLater().start()
    catcher.later = set()
    catcher.reject = {BOB}
    try:
        config = configure(tmp_path, smtp_relay(catcher.port, GM))
        for n in range(5):  # 10 mails to bob, all refused for good
            new_game(config, f"g{n}", FIRST)
        clock = Clock()
        daemon = Daemon(config, clock=clock)
        assert daemon.run_once().flush.given_up == 10
        daemon.run_once()
        assert _received(catcher).count("gm@example.org") == 1
        clock.advance(29 * 60)
        daemon.tick()
        daemon.run_once()
        assert _received(catcher).count("gm@example.org") == 1  # within the half hour
        clock.advance(2 * 60)
        daemon.tick()
        daemon.run_once()
        told = [parse(m.raw) for m in catcher.mails if m.rcpt_tos == ("gm@example.org",)]
        assert len(told) == 2
        assert str(told[1]["Subject"]) == "9 alerts: 9 mails given up"
        text = told[1].get_body(("plain",)).get_content()
        assert text.count(f"A mail to {BOB} could not be delivered") == 9
        assert BOB not in _received(catcher)
    finally:
        catcher.stop()


@pytest.mark.parametrize("code", [451, 421])
def test_the_relay_refusing_the_session_pauses_sending_then_retries(
        tmp_path: Path, smtp_catcher: SmtpCatcher, code: int) -> None:
    """A 451 at MAIL FROM, or a 421 and the connection dropped, is the server's, not one
    recipient's: after two, sending pauses until the first retry is due; the mail is kept,
    not given up."""
    config = configure(tmp_path, smtp_relay(smtp_catcher.port))
    new_game(config)
    smtp_catcher.refuse(code, times=2)
    clock = Clock()
    daemon = Daemon(config, clock=clock)
    first = daemon.run_once().flush
    assert (first.sent, first.failed) == (0, 2)
    clock.advance(29)
    assert daemon.run_once().flush.sent == 0
    clock.advance(1)
    assert daemon.run_once().flush.sent == 6
    assert len(smtp_catcher.mails) == 6


def test_through_the_listener_orders_are_answered_while_a_recipients_mail_waits(
        tmp_path: Path) -> None:
    """The daemon serving (listener and sending loop), its clock still: bob's mail waits on
    a 451, and Alice's order mail, sent to the listener, is answered meanwhile, as every
    other player's mail of both games goes."""
    catcher = _TryLater().start()
    try:
        config = configure(tmp_path, smtp_relay(catcher.port, GM))
        passwords = new_game(config, "g1", FIRST)
        new_game(config, "g2", SECOND)
        daemon = Daemon(config, clock=Clock())
        with serving(daemon) as served, smtplib.SMTP(
                "127.0.0.1", served.listener_port or 0, timeout=30) as smtp:
            smtp.sendmail("alice@example.org", ["pbem@localhost"], order_mail(
                1, "Alice", passwords["Alice"], "STATUS", game="g1"))
            assert wait_until(lambda: any(
                b"In-Reply-To: <order-1@example.org>" in mail.raw for mail in catcher.mails
                if mail.rcpt_tos == ("alice@example.org",)), timeout=60), _received(catcher)
            assert wait_until(lambda: {"dave@example.org", "erin@example.org"} <= set(
                _received(catcher)), timeout=30)
        assert BOB not in _received(catcher)
        with daemon.store.lock():
            assert {item.to for item in daemon.store.outbox()} == {BOB}
    finally:
        catcher.stop()
