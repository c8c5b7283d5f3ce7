"""Issue 39, point 5: deploy/'s Postfix -> Dovecot route, on a private Postfix from Debian's
package (tests/mta.py) with deploy/'s own lines: the game's address lands in the Dovecot
mailbox ``pbem`` over LMTP (deploy/dovecot-pbem.conf), ``pbem run`` reads it over IMAP and
sends back through Postfix, which relays to the test's catch-all; and a mail a server
deferred (451) is tried again within the delay the retry settings give."""

from __future__ import annotations

import os
import smtplib
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from daemons import PLAYERS, configure, new_game, order_mail, parse, pbem_run
from mta import Postfix, main_cf_settings, postfix_installed
from servers import Dovecot, SmtpCatcher, dovecot_binary, wait_until
from support import REPO

from pbem.service.service import Service
from pbem.store import Store

DEPLOY = REPO / "deploy"
GAME_ADDRESS = "illuminati@games.example.org"  # deploy/'s

pytestmark = [
    pytest.mark.skipif(not postfix_installed() or dovecot_binary() is None,
                       reason="postfix (Debian's package) or dovecot is not installed "
                       "(scripts/test.sh, as root, installs them)"),
    pytest.mark.skipif(os.geteuid() != 0, reason="the test Postfix is started as root "
                       "(its master runs its services as the postfix user)"),
]


def _deploy_postfix(relay_port: int, **changed: str) -> Postfix:
    """A private Postfix with deploy/postfix-dovecot.cf's lines (``changed`` replacing some)
    and deploy/'s two lookup tables."""
    settings = main_cf_settings((DEPLOY / "postfix-dovecot.cf").read_text()) | changed
    return Postfix(relay_port, settings, tables={
        "virtual": (DEPLOY / "postfix-virtual").read_text(),
        "vmailbox": (DEPLOY / "postfix-vmailbox").read_text()})


@pytest.fixture
def catch_all() -> Iterator[SmtpCatcher]:
    """Where the private Postfix relays everything not for the game's domain."""
    catcher = SmtpCatcher().start()
    try:
        yield catcher
    finally:
        catcher.stop()


def _seconds(value: str) -> int:
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    return int(value[:-1]) * units[value[-1]] if value[-1] in units else int(value)


@pytest.mark.parametrize("name", ["postfix-dovecot.cf", "postfix-transport.cf"])
def test_deploy_sets_the_queue_scan_with_the_backoff(name: str) -> None:
    """A deferred mail is retried only when the queue manager scans the deferred queue
    (queue_run_delay, 300 s by default): deploy/ sets it no longer than the backoff it
    documents, or the documented delay is not what happens (287 s measured)."""
    text = (DEPLOY / name).read_text()
    settings = main_cf_settings(text.replace("\n#        ", "\n"))  # the commented example
    assert {"queue_run_delay", "minimal_backoff_time", "maximal_backoff_time"} <= set(settings)
    assert _seconds(settings["queue_run_delay"]) <= _seconds(settings["minimal_backoff_time"])
    assert _seconds(settings["minimal_backoff_time"]) <= _seconds(settings["maximal_backoff_time"])


def test_a_deferred_mail_is_retried_within_the_configured_delay(
        catch_all: SmtpCatcher) -> None:
    """deploy/'s retry settings scaled down to 1 s: a mail the next server answers 451 is
    delivered on the second try seconds later, not after Postfix's default 300 s scan."""
    postfix = _deploy_postfix(catch_all.port, queue_run_delay="1s", minimal_backoff_time="1s",
                              maximal_backoff_time="2s")
    try:
        postfix.start()
        catch_all.refuse(451, times=1)
        with smtplib.SMTP("127.0.0.1", postfix.port, local_hostname="test", timeout=30) as smtp:
            smtp.sendmail(GAME_ADDRESS, ["alice@example.org"],
                          b"Subject: retried\r\nMessage-ID: <retry@test>\r\n\r\nhello\r\n")
        assert wait_until(lambda: "status=deferred" in postfix.log(), 20, step=0.1), \
            postfix.log()
        deferred_at = time.monotonic()
        assert wait_until(lambda: catch_all.mails, 30, step=0.1), postfix.log()
        waited = time.monotonic() - deferred_at
        mails = catch_all.mails
    finally:
        postfix.remove()
    assert [parse(m.raw)["Message-ID"] for m in mails] == ["<retry@test>"]
    assert catch_all.sessions >= 2  # refused once, then taken
    assert waited < 30  # the default scan would have waited up to 300 s


def test_a_game_plays_through_postfix_into_the_dovecot_mailbox(
        tmp_path: Path, catch_all: SmtpCatcher, monkeypatch: pytest.MonkeyPatch) -> None:
    """deploy/dovecot-postfix.toml with deploy/'s Postfix and Dovecot lines: the players'
    orders are submitted to Postfix for the game's address, reach the Dovecot user pbem over
    LMTP, are read by ``pbem run`` over IMAP and filed; the answers and the reports of the
    turns they end go out through Postfix to the players (the catch-all). Two turns pass."""
    postfix = _deploy_postfix(catch_all.port)
    dovecot: Dovecot | None = None
    try:
        postfix.start()  # first: the LMTP socket is made in its queue folder
        dovecot = Dovecot(tls=False, settings=postfix.moved(
            (DEPLOY / "dovecot-pbem.conf").read_text()))
        dovecot.start()
        account = dovecot.add_user("pbem")
        toml = ((DEPLOY / "dovecot-postfix.toml").read_text()
                .replace('"/var/lib/pbem/store"', '"store"')
                .replace("port = 143", f"port = {dovecot.imap_port}")
                .replace("port = 25", f"port = {postfix.port}"))
        assert f"port = {postfix.port}" in toml and f"port = {dovecot.imap_port}" in toml
        monkeypatch.setenv("PBEM_IMAP_PASSWORD", account.password)
        (tmp_path / "pbem.toml").write_text(toml)
        config = configure(tmp_path, toml.replace(
            'username = "pbem"', f'username = "pbem"\npassword = "{account.password}"'))
        passwords = new_game(config)
        with pbem_run(tmp_path, None):
            catch_all.wait_for(2 * len(PLAYERS), timeout=30)  # the welcomes, first reports
            # Carol, Alice, Bob is the order of turns in this seeded game.
            with smtplib.SMTP("127.0.0.1", postfix.port, local_hostname="player",
                              timeout=30) as smtp:
                for n, player in enumerate(("Carol", "Alice"), 1):
                    smtp.sendmail(f"{player.lower()}@example.org", [GAME_ADDRESS],
                                  order_mail(n, player, passwords[player], "PASS",
                                             to=GAME_ADDRESS))
            assert wait_until(lambda: len(dovecot.messages(account, "pbem-done")) == 2,
                              timeout=30, step=0.2), postfix.log()
            assert wait_until(lambda: {"<order-1@example.org>", "<order-2@example.org>"} <= {
                parse(m.raw)["In-Reply-To"] for m in catch_all.mails}, timeout=30, step=0.2)
        state = Service(Store(config.store)).state("g1")
        assert state.active_player.name == "Bob"
        assert dovecot.messages(account, "INBOX") == []
        log = postfix.log()
        assert f"orig_to=<{GAME_ADDRESS}>" in log and "relay=" in log
        assert "private/dovecot-lmtp" in log  # deploy/'s LMTP socket, not a loopback port
        assert all(m.envelope_from == GAME_ADDRESS or m.envelope_from == ""
                   for m in catch_all.mails)
        assert {rcpt for m in catch_all.mails for rcpt in m.rcpt_tos} >= {
            address for _, address, _ in PLAYERS}
    finally:
        if dovecot is not None:
            dovecot.remove()
        postfix.remove()


def test_the_loopback_lmtp_route_and_unknown_addresses_of_the_game_domain(
        catch_all: SmtpCatcher) -> None:
    """deploy/'s other route, Dovecot's LMTP on loopback (lmtp:inet:...), delivers the
    game's mail to the user pbem too; an address of the game's domain in neither table is
    refused at once (550), not queued."""
    dovecot = Dovecot(tls=False, settings="protocol lmtp {\n  auth_username_format = %Ln\n}\n")
    postfix: Postfix | None = None
    try:
        dovecot.start()
        account = dovecot.add_user("pbem")
        postfix = _deploy_postfix(catch_all.port,
                                  virtual_transport=f"lmtp:inet:127.0.0.1:{dovecot.lmtp_port}")
        postfix.start()
        with smtplib.SMTP("127.0.0.1", postfix.port, local_hostname="player",
                          timeout=30) as smtp:
            smtp.sendmail("alice@example.org", [GAME_ADDRESS],
                          b"Subject: to the game\r\nMessage-ID: <loopback@test>\r\n\r\nhi\r\n")
            with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
                smtp.sendmail("alice@example.org", ["nobody@games.example.org"],
                              b"Subject: lost\r\n\r\nhi\r\n")
        assert refused.value.recipients["nobody@games.example.org"][0] == 550
        assert wait_until(lambda: len(dovecot.messages(account, "INBOX")) == 1, timeout=20,
                          step=0.1), postfix.log()
        [(raw, _)] = dovecot.messages(account, "INBOX")
        assert parse(raw)["Message-ID"] == "<loopback@test>"
        assert f"relay=127.0.0.1[127.0.0.1]:{dovecot.lmtp_port}" in postfix.log()
    finally:
        if postfix is not None:
            postfix.remove()
        dovecot.remove()
