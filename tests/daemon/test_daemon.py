"""The mail daemon end to end: real listener, real Dovecot, real SMTP catcher, real Maildirs.

The helpers (a game, order mails, a movable clock, a daemon on a thread) live in
``tests/daemons.py``, shared with the other daemon tests.
"""

from __future__ import annotations

import email
import email.policy
import os
import signal
import smtplib
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from clocks import T0, Clock
from daemons import (
    GAME,
    configure,
    delivered,
    imap_config,
    maildir,
    new_game,
    order_mail,
    outbox_settled,
    parse,
    port_answers,
    send,
    serving,
    smtp_relay,
)
from servers import Account, Dovecot, SmtpCatcher, wait_until
from support import REPO

from pbem.cli.daemon import run
from pbem.cli.main import main as pbem_main
from pbem.daemon.config import DaemonConfig, load_config
from pbem.daemon.outbox import GIVEN_UP
from pbem.daemon.server import Daemon
from pbem.errors import StoreError
from pbem.service.service import BATCH, Service
from pbem.store import Store

# ---- the embedded default, as a real `pbem run` process --------------------------------


def test_embedded_default_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No configuration at all: store in ./var/pbem, listener on 127.0.0.1:2525, replies
    in ./var/pbem/maildirs/<address>/; SIGTERM stops it cleanly."""
    if port_answers(2525):
        pytest.fail("something already listens on 127.0.0.1:2525, the embedded default port")
    monkeypatch.chdir(tmp_path)
    config = load_config(None, env={})
    assert config.store == tmp_path / "var" / "pbem"
    passwords = new_game(config, now=datetime.now(UTC))  # the daemon runs on real time
    env = dict(os.environ, PYTHONPATH=str(REPO))
    log = (tmp_path / "daemon.log").open("wb")
    process = subprocess.Popen([sys.executable, "-m", "pbem.cli.daemon", "run"], cwd=tmp_path,
                               env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        assert wait_until(lambda: port_answers(2525), timeout=30), "the daemon did not listen"
        with smtplib.SMTP("127.0.0.1", 2525, local_hostname="test", timeout=30) as smtp:
            smtp.sendmail("alice@example.org", ["pbem@localhost"],
                          order_mail(1, "Alice", passwords["Alice"], "STANDING NEVER INTERFERE"))
            smtp.sendmail("bob@example.org", ["pbem@localhost"], order_mail(
                2, "Bob", passwords["Bob"], "PRESS TO Carol\r\nMeet at noon.\r\nEND PRESS"))
            with pytest.raises(smtplib.SMTPRecipientsRefused):
                smtp.sendmail("eve@example.org", ["someone@elsewhere.org"], b"Subject: x\r\n\r\n")
        boxes = tmp_path / "var" / "pbem" / "maildirs"
        # 3 welcomes + 3 first-turn reports + 2 acknowledgements + 1 press relayed to Carol
        assert wait_until(lambda: delivered(boxes) == 9, timeout=30), maildir(boxes)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        log.close()
    mails = maildir(boxes)
    assert sorted(mails) == ["alice@example.org", "bob@example.org", "carol@example.org"]
    replies = {m["In-Reply-To"]: m for box in mails.values() for m in box if m["In-Reply-To"]}
    assert set(replies) == {"<order-1@example.org>", "<order-2@example.org>"}
    assert replies["<order-1@example.org>"]["To"].addresses[0].addr_spec == "alice@example.org"
    press = [m for m in mails["carol@example.org"] if "Meet at noon." in m.as_string()]
    assert len(press) == 1
    assert all(m["X-Pbem-Game"] == GAME for box in mails.values() for m in box)
    text = (tmp_path / "daemon.log").read_text()
    assert "SIGTERM received" in text and "daemon stopped" in text
    store = Store(config.store)
    assert store.inbox() == [] and store.outbox() == []


def test_run_once_processes_what_waits_and_exits(tmp_path: Path) -> None:
    config = configure(tmp_path)
    now = datetime.now(UTC)  # `pbem run` runs on real time
    passwords = new_game(config, now=now)
    service = Service(Store(config.store), config.service_config())
    service.accept(order_mail(1, "Carol", passwords["Carol"], "SET HTML OFF"), now)
    result = CliRunner().invoke(run, ["--config", str(tmp_path / "pbem.toml"), "--once"])
    assert result.exit_code == 0, result.output
    assert "processed 1 mail(s), sent 7" in result.output
    assert delivered(config.maildir) == 7
    assert not service.service_record(GAME).seat("Carol").html
    again = CliRunner().invoke(run, ["--config", str(tmp_path / "pbem.toml"), "--once"])
    assert "processed 0 mail(s), sent 0" in again.output
    assert delivered(config.maildir) == 7


def test_a_pass_with_mail_still_runs_a_due_tick(tmp_path: Path) -> None:
    """Under a steady stream of mail every pass processes some: the deadline tick must run
    in those passes too when it is due, not wait for a quiet one."""
    config = configure(tmp_path, "[listener]\nport = 0\n")
    passwords = new_game(config)
    daemon = Daemon(config, clock=Clock())
    daemon.deliver_smtp(order_mail(1, "Alice", passwords["Alice"], "STANDING LIST"),
                        "alice@example.org", ["pbem@localhost"])
    before = time.monotonic()
    daemon._work()
    assert daemon.store.inbox() == []  # the mail was processed ...
    assert daemon._next_tick > before  # ... and the tick ran in the same pass


def test_a_round_s_worth_of_mail_waiting_is_not_held_back_by_more_arriving(
        tmp_path: Path) -> None:
    """Mail arriving close together is gathered into one round, but a burst that keeps
    coming must not keep the round waiting (up to a quarter of a second) once a whole round
    of mail waits: it could share no more than that round."""
    config = configure(tmp_path, "[listener]\nport = 0\n")
    passwords = new_game(config)
    daemon = Daemon(config, clock=Clock())
    daemon._intake.deliver_imap_group([order_mail(n, "Alice", passwords["Alice"], "STATUS")
                                       for n in range(BATCH)])
    stop = threading.Event()

    def more_arriving() -> None:  # a wake every 5 ms, as a stream of mail gives
        while not stop.wait(0.005):
            daemon._wake.set()

    stream = threading.Thread(target=more_arriving)
    stream.start()
    try:
        began = time.monotonic()
        daemon._gather()
        waited = time.monotonic() - began
    finally:
        stop.set()
        stream.join()
    assert waited < 0.1


def test_a_second_daemon_on_the_same_store_is_refused(tmp_path: Path) -> None:
    config = configure(tmp_path, "[listener]\nport = 0\n")
    with serving(Daemon(config, clock=Clock())), pytest.raises(
            StoreError, match=r"Another pbem daemon \(process \d+\) is running"):
        Daemon(config, clock=Clock()).run_once()


# Holds the lock file argv[1] as a daemon does (flock, its id noted), says so, keeps it
# argv[2] seconds and ends; with argv[3], notes that process id instead of its own.
_HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
os.ftruncate(fd, 0)
os.write(fd, (sys.argv[3] if len(sys.argv) > 3 else str(os.getpid())).encode() + b"\\n")
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def _holding(config: DaemonConfig, seconds: float, *noted: str) -> subprocess.Popen[bytes]:
    lock = config.store / "daemon" / "running.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(lock), str(seconds), *noted],
                              stdout=subprocess.PIPE)
    assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
    return holder


def test_a_daemon_started_as_the_old_one_ends_waits_for_it(tmp_path: Path) -> None:
    """A daemon stopped or killed a moment ago holds the instance lock until its last file
    is closed, and stays a process until its parent reaps it: a daemon started again just
    then (a restart after a crash) waits for it a bounded time instead of refusing to
    start. (The old one here lives on 1 s, then is a zombie nobody reaps.)"""
    config = configure(tmp_path, "[listener]\nport = 0\n")
    ending = _holding(config, 1.0)
    try:
        assert Daemon(config, clock=Clock()).run_once().problems == ()
    finally:
        ending.kill()
        ending.wait()


def test_children_of_a_dead_daemon_holding_on_are_named_as_such(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lock held past the wait for the children of a daemon that ended: the refusal
    says that daemon ended (not that it runs)."""
    monkeypatch.setattr("pbem.daemon.server._ORPHANS_SECONDS", 0.5)
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    child = _holding(configure(tmp_path, "[listener]\nport = 0\n"), 60.0, str(ended.pid))
    try:
        with pytest.raises(StoreError, match=rf"daemon {ended.pid}, which ended, still hold"):
            Daemon(configure(tmp_path, "[listener]\nport = 0\n"), clock=Clock()).run_once()
    finally:
        child.kill()
        child.wait()


# ---- IMAP intake, SMTP out -------------------------------------------------------------

def test_imap_mode_processes_moves_and_answers_over_smtp(
        tmp_path: Path, dovecot: Dovecot, account: Account, smtp_catcher: SmtpCatcher) -> None:
    config = imap_config(tmp_path, dovecot, account, smtp_catcher)
    assert config.listener is None
    passwords = new_game(config)
    clock = Clock()
    with serving(Daemon(config, clock=clock)) as daemon:
        smtp_catcher.wait_for(6, timeout=20)  # the welcomes and first reports
        dovecot.deliver(account, order_mail(1, "Alice", passwords["Alice"], "STATUS",
                                            to="game@pbem.test"), "alice@example.org")
        dovecot.deliver(account, order_mail(2, "Bob", passwords["Bob"], "SET TIMEZONE "
                                            "Europe/Paris", to="game@pbem.test"),
                        "bob@example.org")
        # A bounce: the null envelope sender becomes Return-Path: <> in Dovecot.
        dovecot.deliver(account, order_mail(3, "Carol", passwords["Carol"], "STATUS",
                                            to="game@pbem.test"), "")
        assert wait_until(lambda: len(dovecot.messages(account, "pbem-done")) == 3, 20)
        assert wait_until(lambda: outbox_settled(daemon), 20)
        mails = smtp_catcher.wait_for(9, timeout=20)
        time.sleep(0.3)  # a wrong answer to the bounce would be sent by now
    assert dovecot.messages(account, "INBOX") == []
    answers = {parse(m.raw)["In-Reply-To"]: m for m in mails[6:]}
    # Alice's STATUS brings her acknowledgement and a fresh report; Bob's SET his
    # acknowledgement; the bounce quoting Carol's orders nothing at all.
    assert set(answers) == {"<order-1@example.org>", "<order-2@example.org>", None}
    assert answers["<order-1@example.org>"].rcpt_tos == ("alice@example.org",)
    assert answers[None].rcpt_tos == ("alice@example.org",)
    assert all(m.envelope_from == "game@pbem.test" for m in mails)
    assert len(smtp_catcher.mails) == 9
    service = Service(Store(config.store), config.service_config())
    assert service.service_record(GAME).seat("Bob").tz == "Europe/Paris"


def test_imap_mail_over_the_size_limit_is_filed_as_failed_and_answered(
        tmp_path: Path, dovecot: Dovecot, account: Account, smtp_catcher: SmtpCatcher) -> None:
    """Issue 19, point 5: no mail is dropped in silence. The SMTP path answers 552; over
    IMAP the mail goes to the failed folder, its sender is answered with the limit and what
    to do, and the game master is told."""
    config = imap_config(tmp_path, dovecot, account, smtp_catcher,
                         mail='max_kib = 2\ngm_address = "gm@example.org"')
    passwords = new_game(config)
    big = order_mail(1, "Alice", passwords["Alice"], "STATUS\r\n# " + "x" * 3000,
                     to="game@pbem.test")
    small = order_mail(2, "Bob", passwords["Bob"], "SET HTML OFF", to="game@pbem.test")
    dovecot.deliver(account, big, "alice@example.org")
    dovecot.deliver(account, small, "bob@example.org")
    done = Daemon(config, clock=Clock()).run_once()
    assert (done.processed, done.problems) == (2, ())
    failed = dovecot.messages(account, "pbem-failed")
    assert [parse(raw)["Message-ID"] for raw, _ in failed] == ["<order-1@example.org>"]
    assert [parse(raw)["Message-ID"] for raw, _ in dovecot.messages(account, "pbem-done")] \
        == ["<order-2@example.org>"]
    answers = {m.rcpt_tos: parse(m.raw) for m in smtp_catcher.mails[6:]}
    assert set(answers) == {("alice@example.org",), ("bob@example.org",), ("gm@example.org",)}
    told = answers[("alice@example.org",)]
    assert told["In-Reply-To"] == "<order-1@example.org>"
    text = told.get_body(("plain",)).get_content()
    assert "more than the 2 KB we accept" in text and "plain text" in text
    gm = answers[("gm@example.org",)].get_body(("plain",)).get_content()
    assert "alice@example.org" in gm and "2 KB" in gm and "failed folder" in gm


# ---- loop and abuse guards -------------------------------------------------------------

def test_no_answer_to_bounces_auto_replies_our_own_mail_or_mail_daemons(tmp_path: Path) -> None:
    config = configure(tmp_path, "[listener]\nport = 0\n")
    passwords = new_game(config)
    clock = Clock()
    with serving(Daemon(config, clock=clock)) as daemon:
        port = daemon.listener_port
        assert port
        assert wait_until(lambda: delivered(config.maildir) == 6)
        password = passwords["Alice"]
        # A bounce quoting valid orders: its null envelope sender is what marks it, even
        # with a (forged, lower) Return-Path claiming otherwise.
        send(port, order_mail(1, "Alice", password, "STATUS",
                              headers="Return-Path: <alice@example.org>\r\n"), sender="")
        send(port, order_mail(2, "Alice", password, "STATUS",
                              headers="Auto-Submitted: auto-replied\r\n"))
        send(port, order_mail(3, "Alice", password, "STATUS", headers=f"X-Pbem-Game: {GAME}\r\n"))
        send(port, order_mail(4, "Alice", password, "STATUS",
                              address="MAILER-DAEMON@example.org"),
             sender="mailer-daemon@example.org")
        # A stranger is answered once an hour at most (the second time, told that more get
        # no answer, then not at all).
        stranger = b"From: eve@example.org\r\nMessage-ID: <eve-%d@x>\r\n\r\nhello\r\n"
        for n in (1, 2, 3):
            send(port, stranger % n, sender="eve@example.org")
        # And a real order still works, proving the mails above were processed, not stuck.
        send(port, order_mail(5, "Alice", password, "SET HTML OFF"))
        assert wait_until(lambda: delivered(config.maildir) == 9, timeout=20)
        assert wait_until(lambda: outbox_settled(daemon))
        time.sleep(0.3)  # a wrong extra answer would be written by now
    mails = maildir(config.maildir)
    assert len(mails["eve@example.org"]) == 2
    assert "mailer-daemon@example.org" not in mails
    answers = [m["In-Reply-To"] for m in mails["alice@example.org"] if m["In-Reply-To"]]
    assert answers == ["<order-5@example.org>"]
    assert delivered(config.maildir) == 9
    store = Store(config.store)
    assert store.inbox() == []


def _lobby_mail(n: int, sender: str) -> bytes:
    """Give mail number ``n`` to the server (LIST), from ``sender``: no order mail."""
    return (f"From: <{sender}>\r\nTo: pbem@localhost\r\nSubject: list {n}\r\n"
            f"Message-ID: <order-{n}@example.org>\r\n\r\nLIST\r\n").encode()


def _answered(config: Any, address: str) -> list[str]:
    return sorted(m["In-Reply-To"] for m in maildir(config.maildir).get(address, [])
                  if m["In-Reply-To"])


def test_per_sender_rate_limit(tmp_path: Path) -> None:
    """More than mails_per_hour mails from one address in an hour are dropped; the sender is
    told once (not once a mail) until when; the count forgets mails older than an hour."""
    config = configure(tmp_path, "[listener]\nport = 0\n[mail]\nmails_per_hour = 3\n")
    passwords = new_game(config)
    clock = Clock()
    daemon = Daemon(config, clock=clock)
    daemon.run_once()
    for n in range(1, 6):
        daemon.deliver_smtp(_lobby_mail(n, "mallory@example.net"), "mallory@example.net",
                            ["pbem@localhost"])
    daemon.deliver_smtp(order_mail(6, "Bob", passwords["Bob"], "STANDING LIST"),
                        "bob@example.org", ["pbem@localhost"])
    daemon.run_once()
    # (Maildir file names order mails by time only to the second: compare as sets.)
    assert _answered(config, "mallory@example.net") == [f"<order-{n}@example.org>"
                                                         for n in (1, 2, 3, 4)]
    told = [m for m in maildir(config.maildir)["mallory@example.net"]
            if m["In-Reply-To"] == "<order-4@example.org>"]
    assert [str(m["Subject"]) for m in told] == [
        "Too many mails: yours are not read until 2024-05-01 11:00 UTC"]
    assert _answered(config, "bob@example.org") == ["<order-6@example.org>"]
    clock.advance(3601)
    daemon.deliver_smtp(_lobby_mail(7, "mallory@example.net"), "mallory@example.net",
                        ["pbem@localhost"])
    daemon.run_once()
    assert _answered(config, "mallory@example.net") == [f"<order-{n}@example.org>"
                                                         for n in (1, 2, 3, 4, 7)]
    assert Store(config.store).inbox() == []


def test_a_seated_players_orders_are_read_past_the_hourly_limit(tmp_path: Path) -> None:
    """Issue 43, point 5: the limit of mails an hour per address is for strangers and
    runaway programs. Alice, seated in g1, writes five order mails in an hour with a limit
    of 3: every one is read and answered (main dropped the 4th and 5th unread, and only the
    log knew). Her password from another address counts as seated too."""
    config = configure(tmp_path, "[listener]\nport = 0\n[mail]\nmails_per_hour = 3\n")
    passwords = new_game(config)
    daemon = Daemon(config, clock=Clock())
    daemon.run_once()
    for n in range(1, 6):
        daemon.deliver_smtp(order_mail(n, "Alice", passwords["Alice"], "STANDING LIST"),
                            "alice@example.org", ["pbem@localhost"])
    daemon.run_once()
    subjects = {m["In-Reply-To"]: str(m["Subject"])
                for m in maildir(config.maildir)["alice@example.org"] if m["In-Reply-To"]}
    assert set(subjects) == {f"<order-{n}@example.org>" for n in range(1, 6)}
    assert not any(s.startswith("Too many mails") for s in subjects.values()), subjects
    assert Store(config.store).inbox() == []


def test_the_flood_notice_comes_even_after_another_reply_that_hour(tmp_path: Path) -> None:
    """docs/service.md: a sender over the limit "is told so" -- also when a wrong password
    was already answered that hour (the once-an-hour limit of error replies is its own)."""
    config = configure(tmp_path, "[listener]\nport = 0\n[mail]\nmails_per_hour = 3\n")
    new_game(config)
    daemon = Daemon(config, clock=Clock())
    daemon.run_once()
    daemon.deliver_smtp(order_mail(1, "Alice", "wrong", "STANDING LIST",
                                   address="mallory@example.net"),
                        "mallory@example.net", ["pbem@localhost"])
    for n in range(2, 6):
        daemon.deliver_smtp(_lobby_mail(n, "mallory@example.net"), "mallory@example.net",
                            ["pbem@localhost"])
    daemon.run_once()
    subjects = {m["In-Reply-To"]: str(m["Subject"])
                for m in maildir(config.maildir)["mallory@example.net"] if m["In-Reply-To"]}
    assert set(subjects) == {f"<order-{n}@example.org>" for n in (1, 2, 3, 4)}
    assert subjects["<order-4@example.org>"].startswith("Too many mails")


def test_order_mail_dropped_past_the_limit_is_logged_and_told_to_the_game_master(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 43, point 5: whatever the limit drops is answered or reported. Mallory (no seat)
    sends order mails naming g1 past the limit: she is told once; the log says each mail's
    orders were not read; the game master gets one notice grouping them (not one a mail),
    and the next only after half an hour."""
    config = configure(tmp_path, '[listener]\nport = 0\n[mail]\nmails_per_hour = 2\n'
                       'gm_address = "gm@example.org"\n')
    new_game(config)
    clock = Clock()
    daemon = Daemon(config, clock=clock)
    daemon.run_once()
    with caplog.at_level("INFO", logger="pbem"):
        for n in range(1, 7):
            daemon.deliver_smtp(order_mail(n, "Alice", "guess", "STATUS",
                                           address="mallory@example.net"),
                                "mallory@example.net", ["pbem@localhost"])
        daemon.run_once()
    dropped = [r.getMessage() for r in caplog.records
               if "the orders it carries for game g1 were not read" in r.getMessage()]
    assert len(dropped) == 4, caplog.text
    gm_mails = maildir(config.maildir).get("gm@example.org", [])
    notices = [m for m in gm_mails if "dropped unread" in str(m["Subject"])]
    assert len(notices) == 1, [str(m["Subject"]) for m in gm_mails]
    body = notices[0].get_body(("plain",))
    assert body is not None and "mallory@example.net: " in str(body.get_content())
    told = [m for m in maildir(config.maildir)["mallory@example.net"]
            if str(m["Subject"]).startswith("Too many mails")]
    assert len(told) == 1
    # More dropped within the half hour: told at the tick once it is out, grouped.
    daemon.deliver_smtp(order_mail(7, "Alice", "guess", "STATUS",
                                   address="mallory@example.net"),
                        "mallory@example.net", ["pbem@localhost"])
    daemon.run_once()
    assert len([m for m in maildir(config.maildir).get("gm@example.org", [])
                if "dropped unread" in str(m["Subject"])]) == 1
    clock.advance(31 * 60)
    daemon.tick()
    daemon.run_once()
    notices = [m for m in maildir(config.maildir).get("gm@example.org", [])
               if "dropped unread" in str(m["Subject"])]
    assert len(notices) == 2, [str(m["Subject"]) for m in notices]


# ---- the outbox ------------------------------------------------------------------------

def test_a_refused_recipient_is_given_up_and_never_retried(
        tmp_path: Path, smtp_catcher: SmtpCatcher) -> None:
    config = configure(tmp_path, smtp_relay(smtp_catcher.port))
    smtp_catcher.reject = {"bob@example.org"}
    new_game(config)
    clock = Clock()
    daemon = Daemon(config, clock=clock)
    first = daemon.run_once()
    assert (first.flush.sent, first.flush.given_up) == (4, 2)
    clock.advance(86400)
    second = daemon.run_once()
    assert (second.flush.sent, second.flush.given_up, second.flush.failed) == (0, 0, 0)
    with daemon.store.lock():
        left = daemon.store.outbox()
    assert {item.to for item in left} == {"bob@example.org"}
    assert all(item.attempts == 1 and item.last_error and item.last_error.startswith(GIVEN_UP)
               and "550" in item.last_error for item in left)
    assert {m.rcpt_tos for m in smtp_catcher.mails} == {("alice@example.org",),
                                                       ("carol@example.org",)}


def test_the_game_master_is_mailed_each_mail_given_up(
        tmp_path: Path, smtp_catcher: SmtpCatcher) -> None:
    """A mail given up stays unsent until the game master acts: they are told, in their
    language and zone, with the command that sends it again (never about their own mail,
    which would only be given up in turn)."""
    config = configure(tmp_path, smtp_relay(
        smtp_catcher.port, '[mail]\ngm_address = "gm@example.org"\ngm_language = "fr"\n'
                           'gm_timezone = "Europe/Paris"\n'))
    smtp_catcher.reject = {"bob@example.org"}
    new_game(config)
    clock = Clock()
    daemon = Daemon(config, clock=clock)
    assert daemon.run_once().flush.given_up == 2
    daemon.run_once()  # the notice of the first, queued by the first pass, goes in the next
    told = [m for m in smtp_catcher.mails if m.rcpt_tos == ("gm@example.org",)]
    assert len(told) == 1
    clock.advance(31 * 60)  # the second, alone since, in the next notice (grouped alerts)
    daemon.tick()
    daemon.run_once()
    told = [m for m in smtp_catcher.mails if m.rcpt_tos == ("gm@example.org",)]
    assert len(told) == 2
    message = email.message_from_bytes(told[0].raw, policy=email.policy.default)
    assert isinstance(message, email.message.EmailMessage)
    body = message.get_body(("plain",))
    assert body is not None
    text = " ".join(body.get_content().replace("\u00a0", " ").split())
    assert "pour bob@example.org (partie g1)" in text and "550" in text
    assert "Europe/Paris" in text and "pbem outbox retry --given-up" in text
    smtp_catcher.reject = {"bob@example.org", "gm@example.org"}
    clock.advance(31 * 60)
    with daemon.store.lock():
        daemon.store.requeue(next(i.outbox_id for i in daemon.store.outbox()))
    assert daemon.run_once().flush.given_up == 1  # bob's again: the notice is queued
    assert daemon.run_once().flush.given_up == 1  # the notice, refused in turn
    assert daemon.run_once().flush.given_up == 0  # and no notice about the notice


def bob_given_up(tmp_path: Path,
                 smtp_catcher: SmtpCatcher) -> tuple[Daemon, CliRunner, list[str]]:
    """A game whose two mails to bob the relay refused for good, given up by the daemon;
    with a CLI runner and the options that point it at the daemon's configuration."""
    config = configure(tmp_path, smtp_relay(smtp_catcher.port))
    smtp_catcher.reject = {"bob@example.org"}
    new_game(config)
    daemon = Daemon(config, clock=Clock())
    assert daemon.run_once().flush.given_up == 2
    return daemon, CliRunner(), ["--config", str(tmp_path / "pbem.toml")]


def test_the_game_master_lists_given_up_mail_and_queues_it_again(
        tmp_path: Path, smtp_catcher: SmtpCatcher) -> None:
    """``pbem outbox list --given-up`` shows the mails the daemon gave up on and why;
    once the cause is fixed, ``pbem outbox retry --given-up`` queues them again and the
    daemon's next pass sends them."""
    daemon, runner, where = bob_given_up(tmp_path, smtp_catcher)
    listed = runner.invoke(pbem_main, ["outbox", "list", "--given-up", *where])
    assert listed.exit_code == 0, listed.output
    lines = listed.output.splitlines()
    assert sum("to bob@example.org" in line and "given up" in line for line in lines) == 2
    assert sum("last error:" in line and "550" in line for line in lines) == 2
    refused = runner.invoke(pbem_main, ["outbox", "retry", *where])
    assert refused.exit_code == 2 and "--given-up" in refused.output
    unknown = runner.invoke(pbem_main, ["outbox", "retry", "nope", *where])
    assert unknown.exit_code == 1 and "No queued mail has this id" in unknown.output

    smtp_catcher.reject = set()
    retried = runner.invoke(pbem_main, ["outbox", "retry", "--given-up", *where])
    assert retried.exit_code == 0 and "2 mail(s) queued again" in retried.output
    assert daemon.run_once().flush.sent == 2
    assert ("bob@example.org",) in {m.rcpt_tos for m in smtp_catcher.mails}
    assert runner.invoke(pbem_main, ["outbox", "list", *where]).output == (
        "No mail waiting to be sent.\n")


def test_the_game_master_lifts_the_pause_of_a_refusing_server_once_it_is_mended(
        tmp_path: Path, smtp_catcher: SmtpCatcher) -> None:
    """A server refusing every session pauses sending until the first retry (30 s);
    ``pbem outbox retry --waiting`` makes the waiting mail due and lifts the pause at the
    daemon's next pass, the clock not moved. A mail given up stays given up."""
    config = configure(tmp_path, smtp_relay(smtp_catcher.port))
    new_game(config)
    waiting = len(Store(config.store).outbox())
    smtp_catcher.refuse(451, times=2)
    smtp_catcher.reject = {"bob@example.org"}
    daemon = Daemon(config, clock=Clock())
    refused = daemon.run_once().flush
    assert (refused.sent, refused.failed) == (0, 2)
    assert daemon.run_once().flush.sent == 0  # paused, though the server takes mail now
    runner, where = CliRunner(), ["--config", str(tmp_path / "pbem.toml")]
    retried = runner.invoke(pbem_main, ["outbox", "retry", "--waiting", *where])
    assert retried.exit_code == 0 and f"{waiting} mail(s) due now" in retried.output
    flush = daemon.run_once().flush
    assert (flush.sent, flush.given_up) == (waiting - 2, 2)  # bob's two, refused for good
    again = runner.invoke(pbem_main, ["outbox", "retry", "--waiting", *where])
    assert "0 mail(s) due now" in again.output
    assert daemon.run_once().flush.given_up == 0  # bob's stay given up, not tried again


def test_a_refusing_server_is_retried_with_backoff_then_given_up(
        tmp_path: Path, smtp_catcher: SmtpCatcher) -> None:
    config = configure(tmp_path, smtp_relay(smtp_catcher.port,
                                            "[daemon]\nqueue_lifetime_days = 0.01\n"))
    new_game(config)
    smtp_catcher.refuse(451, times=4)
    clock = Clock()
    daemon = Daemon(config, clock=clock)
    # Two refusals in a row: the server refuses, not one mail; the rest waits.
    first = daemon.run_once().flush
    assert (first.sent, first.failed, first.retry_at) == (0, 2, T0 + timedelta(seconds=30))
    clock.advance(29)
    paused = daemon.run_once().flush
    assert (paused.sent, paused.failed) == (0, 0)
    clock.advance(900)  # past the queue's lifetime (0.01 day, 14.4 min)
    second = daemon.run_once().flush  # the 2nd refusal of each is past the lifetime
    assert (second.sent, second.given_up) == (0, 2)
    third = daemon.run_once().flush
    assert (third.sent, third.given_up) == (4, 0)
    assert len(smtp_catcher.mails) == 4
    with daemon.store.lock():
        left = daemon.store.outbox()
    assert [item.attempts for item in left] == [2, 2]
    assert all((item.last_error or "").startswith(f"{GIVEN_UP}2 attempts in 0 h 15 min; "
                                                  "last: sending to ")
               and "451" in (item.last_error or "") for item in left)


class _MailboxFull(SmtpCatcher):
    """A real SMTP server that answers 452 (try later) for one recipient."""

    full = "bob@example.org"

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          options: list[str]) -> str:
        if address == self.full:
            return "452 4.2.2 mailbox full"
        return await super().handle_RCPT(server, session, envelope, address, options)


def test_one_recipient_refused_for_now_holds_up_nobody_else(tmp_path: Path) -> None:
    catcher = _MailboxFull().start()
    try:
        config = configure(tmp_path, smtp_relay(catcher.port))
        new_game(config)
        clock = Clock()
        daemon = Daemon(config, clock=clock)
        first = daemon.run_once().flush
        assert (first.sent, first.failed) == (4, 1)  # bob's 2nd mail waits for his 1st
        assert {m.rcpt_tos for m in catcher.mails} == {("alice@example.org",),
                                                      ("carol@example.org",)}
        catcher.full = ""
        clock.advance(30)
        assert daemon.run_once().flush.sent == 2
    finally:
        catcher.stop()
    assert {m.rcpt_tos for m in catcher.mails} == {("alice@example.org",), ("bob@example.org",),
                                                  ("carol@example.org",)}


def test_mail_given_up_for_a_replaced_address_does_not_go_to_it_again(
        tmp_path: Path, smtp_catcher: SmtpCatcher) -> None:
    """QA: after `pbem replace` gave bob's seat a new address, `pbem outbox retry
    --given-up` sent the given-up mails to the old one (a welcome with a dead password
    among them). docs/service.md: "mail of the game still queued for the old address is
    dropped"; the new player gets the welcome, and the game as it stands from then on."""
    daemon, runner, where = bob_given_up(tmp_path, smtp_catcher)
    smtp_catcher.reject = set()
    replaced = runner.invoke(pbem_main, ["replace", "g1", "bob", "--address",
                                         "bob2@example.org", *where])
    assert replaced.exit_code == 0, replaced.output
    with daemon.store.lock():
        assert [i for i in daemon.store.outbox() if i.to == "bob@example.org"] == []
    retried = runner.invoke(pbem_main, ["outbox", "retry", "--given-up", *where])
    assert retried.output == "No mail given up.\n"
    daemon.run_once()
    assert ("bob@example.org",) not in {m.rcpt_tos for m in smtp_catcher.mails}
    assert ("bob2@example.org",) in {m.rcpt_tos for m in smtp_catcher.mails}


def test_the_game_master_drops_given_up_mail_for_good(
        tmp_path: Path, smtp_catcher: SmtpCatcher) -> None:
    """``pbem outbox drop --given-up`` (or ID) discards mail the daemon gave up on, after a
    confirmation; it is never sent, and the other mail queued is untouched. Each drop is
    in the game master's history of the game, not in the player's."""
    daemon, runner, where = bob_given_up(tmp_path, smtp_catcher)
    with daemon.store.lock():
        first, second = (i.outbox_id for i in daemon.store.outbox())
    refused = runner.invoke(pbem_main, ["outbox", "drop", *where])
    assert refused.exit_code == 2 and "--given-up" in refused.output
    kept = runner.invoke(pbem_main, ["outbox", "drop", first, *where], input="n\n")
    assert kept.exit_code == 1 and "Drop 1 mail(s) for good, unsent?" in kept.output
    one = runner.invoke(pbem_main, ["outbox", "drop", first, "--reason", "bounced", *where],
                        input="y\n")
    assert one.exit_code == 0 and "1 mail(s) dropped" in one.output
    # Logged like every override, for the game master's eyes alone.
    told = runner.invoke(pbem_main, ["history", "g1", *where]).output
    assert f"dropped mail {first} for good" in told and "Reason: bounced." in told
    assert first not in runner.invoke(pbem_main, ["history", "g1", "--player", "bob",
                                                  *where]).output
    with daemon.store.lock():
        assert [i.outbox_id for i in daemon.store.outbox()] == [second]
    again = runner.invoke(pbem_main, ["outbox", "drop", first, "--yes", *where])
    assert again.exit_code == 1 and "No queued mail has this id" in again.output
    rest = runner.invoke(pbem_main, ["outbox", "drop", "--given-up", "--yes", *where])
    assert rest.exit_code == 0 and "1 mail(s) dropped" in rest.output
    assert runner.invoke(pbem_main, ["outbox", "list", *where]).output == (
        "No mail waiting to be sent.\n")
    smtp_catcher.reject = set()
    daemon.run_once()
    assert ("bob@example.org",) not in {m.rcpt_tos for m in smtp_catcher.mails}
    assert [p.name for p in (daemon.store.root / "outbox").iterdir()
            if p.name.endswith(".mails")] == []
