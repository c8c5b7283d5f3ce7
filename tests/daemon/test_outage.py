"""Outages in the middle of a game: the IMAP server gone and back, the SMTP server refusing.

Nothing may be lost and nothing doubled: every order mail is answered exactly once, and
every mail the store marks sent reached the SMTP server exactly once (the catcher keeps
duplicates, unlike a Maildir).
"""

from __future__ import annotations

import email.parser
import email.policy
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from clocks import Clock
from daemons import imap_config, new_game, order_mail, serving
from servers import Account, Dovecot, SmtpCatcher, dovecot_binary, sent_message_ids, wait_until

from pbem.daemon.config import DaemonConfig
from pbem.daemon.server import Daemon
from pbem.store import OutboxItem, Store

_HEADERS = email.parser.BytesHeaderParser(policy=email.policy.default)
BODIES = ("STANDING NEVER INTERFERE", "SET HTML OFF", "STANDING DEFEND ANY UPTO 4",
          "SET HTML ON", "STANDING CLEAR ALL")
PLAYERS = ("Alice", "Bob", "Carol")


@pytest.fixture
def own_dovecot() -> Iterator[Dovecot]:
    """A Dovecot of this test's own, since the test stops it."""
    if dovecot_binary() is None:
        pytest.skip("dovecot is not installed (apt-get install dovecot-imapd dovecot-lmtpd)")
    server = Dovecot(tls=False)
    try:
        server.start()
        yield server
    finally:
        server.remove()


def _orders(passwords: dict[str, str], first: int, count: int) -> list[tuple[str, bytes]]:
    mails = []
    for n in range(first, first + count):
        player = PLAYERS[n % 3]
        mails.append((f"{player.lower()}@example.org",
                      order_mail(n, player, passwords[player], BODIES[n % len(BODIES)],
                                 to="game@pbem.test")))
    return mails


def _inbox_empty(dovecot: Dovecot, account: Account) -> bool:
    with dovecot.client(account) as client:
        client.select_folder("INBOX", readonly=True)
        return not client.search("ALL")


def _answered(catcher: SmtpCatcher) -> list[str]:
    """Give the In-Reply-To of every answer the catcher got, in arrival order."""
    return [str(_HEADERS.parsebytes(m.raw)["In-Reply-To"]) for m in catcher.mails
            if _HEADERS.parsebytes(m.raw)["In-Reply-To"]]


def _outbox(config: DaemonConfig) -> list[OutboxItem]:
    """Give the outbox, read through a store object of the test's own (the daemon's one
    counts its lock holds per process, not per thread)."""
    store = Store(config.store)
    with store.lock():
        return store.outbox()


def _check_sent_exactly_once(config: DaemonConfig, catcher: SmtpCatcher) -> None:
    caught = [str(_HEADERS.parsebytes(m.raw)["Message-ID"]) for m in catcher.mails]
    assert len(caught) == len(set(caught)), "a mail reached the SMTP server twice"
    assert sorted(sent_message_ids(config.store)) == sorted(caught)
    store = Store(config.store)
    assert store.inbox() == [] and store.outbox() == []


def test_the_imap_server_stops_and_comes_back(
        tmp_path: Path, own_dovecot: Dovecot, smtp_catcher: SmtpCatcher) -> None:
    account = own_dovecot.add_user()
    config = imap_config(tmp_path, own_dovecot, account, smtp_catcher)
    passwords = new_game(config)
    with serving(Daemon(config, clock=Clock())):
        smtp_catcher.wait_for(6, timeout=20)
        for sender, raw in _orders(passwords, 1, 5):
            own_dovecot.deliver(account, raw, sender)
        assert wait_until(lambda: len(_answered(smtp_catcher)) == 5, timeout=30)
        # Ten more, and the server goes away at once, while they are being read.
        for sender, raw in _orders(passwords, 6, 10):
            own_dovecot.deliver(account, raw, sender)
        own_dovecot.stop()
        answered_while_down = len(_answered(smtp_catcher))
        own_dovecot.start()  # the same ports and mailboxes
        for sender, raw in _orders(passwords, 16, 5):
            own_dovecot.deliver(account, raw, sender)
        assert wait_until(lambda: len(_answered(smtp_catcher)) == 20, timeout=60), \
            _answered(smtp_catcher)
        assert wait_until(lambda: _inbox_empty(own_dovecot, account), timeout=30)
    assert answered_while_down < 15  # the outage really cut into the intake
    assert sorted(_answered(smtp_catcher)) == sorted(
        f"<order-{n}@example.org>" for n in range(1, 21))
    done = own_dovecot.messages(account, "pbem-done")
    ids = [str(_HEADERS.parsebytes(raw)["Message-ID"]) for raw, _ in done]
    assert sorted(set(ids)) == sorted(f"<order-{n}@example.org>" for n in range(1, 21))
    _check_sent_exactly_once(config, smtp_catcher)


@pytest.mark.parametrize("code", [451, 421])
def test_the_smtp_server_refuses_for_a_while(
        tmp_path: Path, dovecot: Dovecot, smtp_catcher: SmtpCatcher, code: int) -> None:
    """451 refuses the mail; 421 also drops the connection. Retries follow the backoff
    (30 s, 60 s, 120 s... on the daemon's clock, moved here by hand)."""
    account = dovecot.add_user()
    config = imap_config(tmp_path, dovecot, account, smtp_catcher)
    passwords = new_game(config)
    smtp_catcher.refuse(code, times=4)
    clock = Clock()
    with serving(Daemon(config, clock=clock)) as daemon:
        for sender, raw in _orders(passwords, 1, 8):
            dovecot.deliver(account, raw, sender)
        assert wait_until(lambda: _inbox_empty(dovecot, account), timeout=30)
        # Two refusals in a row, then a pause (the sending pass may end just after the
        # intake's, so wait for its second refusal to be written).
        assert wait_until(lambda: [i.attempts for i in _outbox(config)][:3] == [1, 1, 0],
                          timeout=10), [i.attempts for i in _outbox(config)]
        assert smtp_catcher.mails == []
        waiting = _outbox(config)
        assert waiting[0].retry_at == (clock.now + timedelta(seconds=30)).isoformat()
        for _ in range(8):  # 30 + 60 + 120 + 240 s of backoff: an hour-long step each
            before = _outbox(config)[0].attempts
            clock.advance(3600)
            daemon.wake()

            def moved(before: int = before) -> bool:
                waiting = _outbox(config)
                return not waiting or waiting[0].attempts > before

            assert wait_until(moved, timeout=10)
            if not _outbox(config):
                break
        assert wait_until(lambda: len(smtp_catcher.mails) == 6 + 8, timeout=10)
    assert sorted(_answered(smtp_catcher)) == sorted(
        f"<order-{n}@example.org>" for n in range(1, 9))
    _check_sent_exactly_once(config, smtp_catcher)
