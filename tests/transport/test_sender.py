"""Outgoing mail: SmtpSender against an aiosmtpd catcher, MaildirSender on real files."""

from __future__ import annotations

import mailbox
import random
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from servers import SmtpCatcher, make_certificate

from pbem.errors import ConfigError
from pbem.transport.backoff import backoff_delay, jittered
from pbem.transport.sender import (
    MaildirSender,
    PermanentSendError,
    SmtpSender,
    TransientSendError,
    open_maildir,
    retry_delay,
)

GAME = "game@pbem.test"


def report(n: int = 1, to: str = "alice@example.org", message_id: bool = True) -> bytes:
    header = f"Message-ID: <report{n}@pbem.test>\r\n" if message_id else ""
    return (
        f"From: {GAME}\r\nTo: {to}\r\nSubject: turn {n}\r\n{header}\r\nYour turn {n}.\r\n"
    ).encode()


@pytest.fixture
def sender(smtp_catcher: SmtpCatcher) -> Iterator[SmtpSender]:
    with SmtpSender("127.0.0.1", smtp_catcher.port, "plain", timeout=5) as smtp:
        yield smtp


def test_sends_many_mails_over_one_connection(
    sender: SmtpSender, smtp_catcher: SmtpCatcher
) -> None:
    for n in range(5):
        sender.send("alice@example.org", report(n), envelope_from=GAME)
    caught = smtp_catcher.wait_for(5)
    assert [m.raw for m in caught] == [report(n) for n in range(5)]
    assert {(m.envelope_from, m.rcpt_tos) for m in caught} == {(GAME, ("alice@example.org",))}
    assert smtp_catcher.sessions == 1


def test_bare_line_feeds_go_out_as_crlf(sender: SmtpSender, smtp_catcher: SmtpCatcher) -> None:
    sender.send("alice@example.org", report().replace(b"\r\n", b"\n"), envelope_from=GAME)
    assert smtp_catcher.wait_for(1)[0].raw == report()


def test_4xx_is_transient_and_the_next_try_goes_through(
    sender: SmtpSender, smtp_catcher: SmtpCatcher
) -> None:
    smtp_catcher.refuse(451, times=2)
    for _ in range(2):
        with pytest.raises(TransientSendError, match="451"):
            sender.send("alice@example.org", report(), envelope_from=GAME)
    sender.send("alice@example.org", report(), envelope_from=GAME)
    assert len(smtp_catcher.wait_for(1)) == 1


def test_421_closing_is_transient_and_a_new_connection_follows(
    sender: SmtpSender, smtp_catcher: SmtpCatcher
) -> None:
    sender.send("alice@example.org", report(1), envelope_from=GAME)
    smtp_catcher.refuse(421)
    with pytest.raises(TransientSendError):
        sender.send("alice@example.org", report(2), envelope_from=GAME)
    sender.send("alice@example.org", report(3), envelope_from=GAME)
    assert [m.raw for m in smtp_catcher.wait_for(2)] == [report(1), report(3)]
    assert smtp_catcher.sessions == 2


def test_5xx_is_permanent(sender: SmtpSender, smtp_catcher: SmtpCatcher) -> None:
    smtp_catcher.reject.add("gone@example.org")
    with pytest.raises(PermanentSendError, match="550"):
        sender.send("gone@example.org", report(), envelope_from=GAME)
    smtp_catcher.refuse(554)
    with pytest.raises(PermanentSendError, match="554"):
        sender.send("alice@example.org", report(), envelope_from=GAME)
    sender.send("alice@example.org", report(), envelope_from=GAME)  # same connection goes on
    assert len(smtp_catcher.wait_for(1)) == 1
    assert smtp_catcher.sessions == 1


def test_connection_refused_is_transient() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # bound but not listening: connections are refused
        sender = SmtpSender("127.0.0.1", port, "plain", timeout=2)
        with pytest.raises(TransientSendError, match=re.escape(f"127.0.0.1:{port}")):
            sender.send("alice@example.org", report(), envelope_from=GAME)
        assert sender.check()[0].startswith(f"cannot talk to the SMTP server 127.0.0.1:{port}")


def test_a_silent_server_is_a_transient_timeout() -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # accepts connections in the backlog, never greets
        sender = SmtpSender("127.0.0.1", silent.getsockname()[1], "plain", timeout=0.5)
        started = time.monotonic()
        with pytest.raises(TransientSendError):
            sender.send("alice@example.org", report(), envelope_from=GAME)
        assert time.monotonic() - started < 3


def test_a_connection_the_server_closed_while_idle_is_replaced() -> None:
    catcher = SmtpCatcher(idle_timeout=0.3).start()
    try:
        sender = SmtpSender("127.0.0.1", catcher.port, "plain", timeout=5, probe_after=0.1)
        sender.send("alice@example.org", report(1), envelope_from=GAME)
        time.sleep(0.8)  # the catcher hangs up on the idle session
        sender.send("alice@example.org", report(2), envelope_from=GAME)
        sender.close()
        assert len(catcher.wait_for(2)) == 2
        assert catcher.sessions == 2
    finally:
        catcher.stop()


def test_login_and_check_with_auth() -> None:
    catcher = SmtpCatcher(logins={"bob": "s3cret"}).start()
    try:
        good = SmtpSender("127.0.0.1", catcher.port, "plain", "bob", "s3cret", timeout=5)
        assert good.check() == []
        good.send("alice@example.org", report(), envelope_from=GAME)
        good.close()
        assert len(catcher.wait_for(1)) == 1
        bad = SmtpSender("127.0.0.1", catcher.port, "plain", "bob", "wrong", timeout=5)
        problems = bad.check()
        assert len(problems) == 1 and problems[0].startswith("login refused by 127.0.0.1 for bob")
        with pytest.raises(
            TransientSendError, match=re.escape("login refused by 127.0.0.1 for bob")
        ):
            bad.send("alice@example.org", report(), envelope_from=GAME)
    finally:
        catcher.stop()


def test_check_names_missing_auth_and_starttls(smtp_catcher: SmtpCatcher) -> None:
    no_auth = SmtpSender("127.0.0.1", smtp_catcher.port, "plain", "bob", "pw", timeout=5)
    assert "offers no login" in no_auth.check()[0]
    no_tls = SmtpSender("127.0.0.1", smtp_catcher.port, "starttls", timeout=5)
    problems = no_tls.check()
    assert len(problems) == 1
    assert problems[0].startswith(
        f"the SMTP server 127.0.0.1:{smtp_catcher.port} does not offer STARTTLS"
    )
    assert SmtpSender("127.0.0.1", smtp_catcher.port, "plain", timeout=5).check() == []


def test_starttls_with_a_trusted_certificate(tmp_path: Path) -> None:
    certificate = make_certificate(tmp_path)
    if certificate is None:
        pytest.skip("openssl is not installed")
    catcher = SmtpCatcher(certificate=certificate, logins={"bob": "pw"}).start()
    try:
        trusted = SmtpSender(
            "127.0.0.1", catcher.port, "starttls", "bob", "pw", ca_file=str(certificate[0])
        )
        assert trusted.check() == []
        trusted.send("alice@example.org", report(), envelope_from=GAME)
        trusted.close()
        assert len(catcher.wait_for(1)) == 1
        untrusted = SmtpSender("127.0.0.1", catcher.port, "starttls", timeout=5)
        assert "certificate" in untrusted.check()[0].lower()
    finally:
        catcher.stop()


def test_check_warns_of_a_clear_text_password_off_loopback() -> None:
    sender = SmtpSender("192.0.2.1", 25, "plain", "bob", "pw", timeout=0.2)
    assert "unencrypted" in sender.check()[0]


def test_unknown_security_is_refused() -> None:
    with pytest.raises(ConfigError):
        SmtpSender("127.0.0.1", 25, "ssl")  # type: ignore[arg-type]


# --- Maildir ----------------------------------------------------------------------------


def test_maildir_delivery_is_readable_by_mailbox(tmp_path: Path) -> None:
    maildir = MaildirSender(tmp_path)
    maildir.send("Alice@Example.org", report(1), envelope_from=GAME)
    maildir.send("alice@example.org", report(2), envelope_from="")
    box = mailbox.Maildir(tmp_path / "alice@example.org", create=False)
    messages = sorted(box, key=lambda m: str(m["Subject"]))
    assert [m["Subject"] for m in messages] == ["turn 1", "turn 2"]
    assert [m["Return-Path"] for m in messages] == [f"<{GAME}>", "<>"]
    assert messages[0].get_payload() == "Your turn 1.\n"
    assert maildir.maildir_path("ALICE@example.org") == tmp_path / "alice@example.org"


def test_maildir_ignores_a_message_id_already_delivered(tmp_path: Path) -> None:
    maildir = MaildirSender(tmp_path)
    maildir.send("alice@example.org", report(1), envelope_from=GAME)
    maildir.send("alice@example.org", report(1), envelope_from=GAME)
    maildir.send("bob@example.org", report(1, to="bob@example.org"), envelope_from=GAME)
    assert len(mailbox.Maildir(tmp_path / "alice@example.org")) == 1
    assert len(mailbox.Maildir(tmp_path / "bob@example.org")) == 1


def test_maildir_remembers_delivery_without_reading_the_maildir(tmp_path: Path) -> None:
    maildir = MaildirSender(tmp_path)
    maildir.send("alice@example.org", report(1), envelope_from=GAME)
    box = mailbox.Maildir(tmp_path / "alice@example.org")
    box.clear()  # the player read and deleted it
    maildir.send("alice@example.org", report(1), envelope_from=GAME)
    assert len(box) == 0


def test_maildir_delivers_each_mail_without_message_id(tmp_path: Path) -> None:
    maildir = MaildirSender(tmp_path)
    for _ in range(2):
        maildir.send("alice@example.org", report(message_id=False), envelope_from=GAME)
    assert len(mailbox.Maildir(tmp_path / "alice@example.org")) == 2


@pytest.mark.parametrize(
    "address",
    ["../evil@x", "a/b@example.org", ".hidden@x", "no-at-sign", "", "a@x\r\nBcc: c@y"],
)
def test_maildir_refuses_addresses_that_are_no_folder_name(tmp_path: Path, address: str) -> None:
    with pytest.raises(PermanentSendError):
        MaildirSender(tmp_path / "root").send(address, report(), envelope_from=GAME)
    assert not (tmp_path / "evil@x").exists()


# --- retry timing -----------------------------------------------------------------------


def test_retry_delay_doubles_up_to_a_cap() -> None:
    assert [retry_delay(n) for n in range(0, 5)] == [0.0, 30.0, 60.0, 120.0, 240.0]
    assert retry_delay(8) == 3600.0
    assert retry_delay(10_000) == 3600.0


def test_jitter_stays_within_half_and_full_delay_and_repeats_with_a_seed() -> None:
    delays = [jittered(backoff_delay(n, base=1, cap=60), random.Random(n)) for n in range(1, 9)]
    again = [jittered(backoff_delay(n, base=1, cap=60), random.Random(n)) for n in range(1, 9)]
    assert delays == again
    for n, delay in enumerate(delays, start=1):
        full = backoff_delay(n, base=1, cap=60)
        assert full / 2 <= delay <= full


def test_maildir_refuses_an_envelope_sender_that_would_forge_headers(tmp_path: Path) -> None:
    with pytest.raises(PermanentSendError):
        MaildirSender(tmp_path).send("a@x", report(), envelope_from="g@x>\nX-Forged: yes")


def _made_at_once(make: Callable[[Path], object], path: Path) -> list[BaseException]:
    """Make ``path`` from two threads at the same moment; give what either raised."""
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def one() -> None:
        start.wait()
        try:
            make(path)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=one) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_a_maildir_made_by_two_threads_at_once_is_made_once_without_error(
        tmp_path: Path) -> None:
    """The demo's mail client opens a player's Maildir while the daemon delivers the welcome
    into it: ``Maildir(create=True)`` checks, then makes, and the loser of the race got
    FileExistsError (a demo run failed so). ``open_maildir`` makes it either way."""
    for n in range(200):
        path = tmp_path / f"box{n}"
        assert _made_at_once(open_maildir, path) == []
        assert sorted(p.name for p in path.iterdir()) == ["cur", "new", "tmp"]
