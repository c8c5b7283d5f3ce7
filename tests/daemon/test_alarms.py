"""Issue 39, point 3: a mail login the server refuses (SMTP or IMAP, here a password) is
told to the game master where they look without mail: once in the log, in the store's
alarm files that ``pbem doctor`` and ``pbem games`` show first, and by the second way the
configuration's ``[alarm]`` section names (a local Maildir, a local ``sendmail`` command),
which needs no mail login; it all clears once the login works again. Against a real SMTP
server of the test (aiosmtpd answering 535) and the test Dovecot with a wrong password,
with the daemon run as ``pbem run``."""

from __future__ import annotations

import logging
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from clocks import T0, Clock
from daemons import configure, new_game, parse, pbem_run
from servers import ChatHook, Dovecot, SmtpCatcher, free_port, wait_until

from pbem.cli.main import main as pbem_main
from pbem.daemon.alarms import IMAP_LOGIN, SMTP_LOGIN, SMTP_SENDING, read_alarms
from pbem.daemon.outbox import read_hold, retry_request_file
from pbem.daemon.server import Daemon
from pbem.errors import ConfigError
from pbem.store import Store

GM = "gm@example.org"
# Once asked (pbem outbox retry --waiting), the daemon sends within a pass; the pause it
# lifts lasts 30 s (retry_delay), and the test checks the mail went before its end.
MENDED_WITHIN = 60.0


def alarm_mails(folder: Path) -> list[tuple[str, str]]:
    """Give (subject, text) of each mail in the Maildir ``folder``'s new/, oldest first."""
    new = folder / "new"
    if not new.is_dir():
        return []
    found = []
    for path in sorted(new.iterdir(), key=lambda p: p.stat().st_mtime_ns):
        message = parse(path.read_bytes())
        body = message.get_body(("plain",))
        found.append((str(message["Subject"]),
                      " ".join(body.get_content().split()) if body is not None else ""))
    return found


def cli(*words: str) -> str:
    result = CliRunner().invoke(pbem_main, list(words), env={
        "PBEM_IMAP_PASSWORD": "", "PBEM_SMTP_PASSWORD": ""})
    return result.output


def smtp_toml(listener: int, smtp: int, password: str, alarm: str) -> str:
    return f"""[mail]
gm_address = "{GM}"
[listener]
port = {listener}
[smtp]
host = "127.0.0.1"
port = {smtp}
security = "plain"
username = "pbem"
password = "{password}"
[alarm]
{alarm}"""


def test_a_refused_smtp_login_raises_the_alarm_in_a_maildir_and_the_store_until_mended(
        tmp_path: Path) -> None:
    logins = {"pbem": "right"}
    catcher = SmtpCatcher(logins=logins).start()
    try:
        listener = free_port()
        config = configure(tmp_path, smtp_toml(listener, catcher.port, "wrong",
                                               'maildir = "alarms"'))
        new_game(config)
        waiting = len(Store(config.store).outbox())
        alarms_dir = tmp_path / "alarms"
        with pbem_run(tmp_path, listener):
            # Within seconds, with every mail still waiting: the alarm in the Maildir...
            assert wait_until(lambda: len(alarm_mails(alarms_dir)) == 1, timeout=30)
            [(subject, text)] = alarm_mails(alarms_dir)
            assert "(SMTP)" in subject and "535" in text
            # ... and in the store, shown first by the doctor and by `pbem games`.
            [alarm] = read_alarms(config.store)
            assert (alarm.key, alarm.what) == (SMTP_LOGIN, "SMTP")
            assert "535" in alarm.error
            assert cli("doctor", "--config", str(tmp_path / "pbem.toml")) \
                .startswith("problem: ALARM since ")
            assert cli("games", "--store", str(config.store), "--wait", "5") \
                .startswith("ALARM since ")
            assert catcher.mails == []
            # The game master mends the login (here the server takes the password now)
            # and has the waiting mail sent at once, not at the end of the pause.
            # (the hold is written at the end of the pass that raised the alarm)
            assert wait_until(lambda: read_hold(config.store) is not None, timeout=30)
            held = read_hold(config.store)
            assert held is not None
            logins["pbem"] = "wrong"
            assert "mail(s) due now" in cli("outbox", "retry", "--waiting",
                                            "--store", str(config.store))
            assert wait_until(lambda: read_alarms(config.store) == [],
                              timeout=MENDED_WITHIN, step=0.2)
            assert datetime.now(UTC) < datetime.fromisoformat(held[0])
            assert not retry_request_file(config.store).exists()  # taken by the daemon
            assert wait_until(lambda: len(alarm_mails(alarms_dir)) == 2, timeout=30)
            assert "(SMTP)" in alarm_mails(alarms_dir)[1][0]
            # Every mail goes, and the notice queued in the outbox too.
            catcher.wait_for(waiting + 1, timeout=30)
        assert not cli("games", "--store", str(config.store)).startswith("ALARM")
        log = (tmp_path / "daemon.log").read_text()
        assert log.count("SMTP login impossible") == 1
        assert log.count("the game master asked to send now") == 1
    finally:
        catcher.stop()


def test_the_alarm_is_told_once_by_a_sendmail_command_and_the_log(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Tried again and again, the refusal is logged and told once; a local command takes
    the alarm mail (sendmail's way: -i -- address, the mail on its input)."""
    got = tmp_path / "sendmail-got"
    got.mkdir()
    script = tmp_path / "fake-sendmail"
    script.write_text(f'#!/bin/sh\ncat > "{got}/$$-$3.eml"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    logins = {"pbem": "right"}
    catcher = SmtpCatcher(logins=logins).start()
    try:
        config = configure(tmp_path, smtp_toml(0, catcher.port, "wrong",
                                               f'sendmail = "{script}"\nto = "alarm@gm.test"'))
        new_game(config)
        clock = Clock()
        daemon = Daemon(config, clock=clock)
        with caplog.at_level(logging.INFO):
            for _ in range(3):
                assert daemon.run_once().flush.sent == 0
                clock.advance(3600)
        [alarm] = read_alarms(config.store)
        assert alarm.key == SMTP_LOGIN
        [told] = sorted(got.iterdir())
        assert told.name.endswith("-alarm@gm.test.eml")
        assert "(SMTP)" in str(parse(told.read_bytes())["Subject"])
        logged = [r for r in caplog.records if "SMTP login impossible" in r.getMessage()]
        assert len(logged) == 1 and logged[0].levelno == logging.ERROR
        logins["pbem"] = "wrong"
        assert daemon.run_once().flush.sent > 0
        assert read_alarms(config.store) == []
        assert len(list(got.iterdir())) == 2  # and the news that it works again
    finally:
        catcher.stop()


def test_the_alarm_is_posted_to_a_chat_webhook(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """[alarm] webhook (an apprise URL; here apprise's json:// to an HTTP server of the test
    on 127.0.0.1): the alarm is posted once, its mail's subject the title, and again once
    mended; the webhook's address is in no log line."""
    logins = {"pbem": "right"}
    catcher = SmtpCatcher(logins=logins).start()
    try:
        with ChatHook() as hook:
            config = configure(tmp_path, smtp_toml(0, catcher.port, "wrong",
                                                   f'webhook = "{hook.url}"'))
            assert config.alarm.webhook == hook.url and hook.url not in repr(config.alarm)
            new_game(config)
            clock = Clock()
            daemon = Daemon(config, clock=clock)
            with caplog.at_level(logging.DEBUG):
                for _ in range(2):
                    assert daemon.run_once().flush.sent == 0
                    clock.advance(3600)
                [alarm] = read_alarms(config.store)
                assert alarm.key == SMTP_LOGIN
                assert wait_until(lambda: len(hook.posts) == 1, timeout=10)
                [post] = hook.posts
                assert "(SMTP)" in post["title"]
                assert alarm.error in " ".join(post["message"].split())
                logins["pbem"] = "wrong"
                assert daemon.run_once().flush.sent > 0
                assert wait_until(lambda: len(hook.posts) == 2, timeout=10)
            assert read_alarms(config.store) == []
            logged = "\n".join(r.getMessage() for r in caplog.records)
            assert "alarm posted to the [alarm] webhook (json)" in logged
            assert f"127.0.0.1:{hook.port}" not in logged
    finally:
        catcher.stop()


def test_an_alarm_webhook_apprise_does_not_know_is_a_configuration_error(
        tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"\[alarm\] webhook"):
        configure(tmp_path, '[alarm]\nwebhook = "nosuchservice://x"\n')


def test_a_refused_imap_password_raises_the_alarm_until_mended(
        tmp_path: Path, dovecot: Dovecot) -> None:
    account = dovecot.add_user()
    catcher = SmtpCatcher().start()
    try:
        listener = free_port()
        configure(tmp_path, f"""[mail]
gm_address = "{GM}"
[listener]
enabled = true
port = {listener}
[imap]
host = "127.0.0.1"
port = {dovecot.imap_port}
security = "plain"
username = "{account.username}"
password = "not-{account.password}"
poll_seconds = 2
[smtp]
host = "127.0.0.1"
port = {catcher.port}
security = "plain"
[alarm]
maildir = "alarms"
""")
        store = tmp_path / "store"
        alarms_dir = tmp_path / "alarms"
        with pbem_run(tmp_path, listener):
            assert wait_until(lambda: len(alarm_mails(alarms_dir)) == 1, timeout=30)
            assert "(IMAP)" in alarm_mails(alarms_dir)[0][0]
            [alarm] = read_alarms(store)
            assert (alarm.key, alarm.what) == (IMAP_LOGIN, "IMAP")
            assert cli("doctor", "--config", str(tmp_path / "pbem.toml")) \
                .startswith("problem: ALARM since ")
            assert cli("games", "--store", str(store), "--wait", "5").startswith("ALARM")
            # The mail way works here: the game master's notice goes out too.
            catcher.wait_for(1, timeout=30)
            # The game master mends the password (on the server's side here).
            dovecot.add_user(account.username, f"not-{account.password}")
            assert wait_until(lambda: read_alarms(store) == [], timeout=MENDED_WITHIN,
                              step=0.2)
            assert wait_until(lambda: len(alarm_mails(alarms_dir)) == 2, timeout=30)
        log = (tmp_path / "daemon.log").read_text()
        assert log.count("IMAP login impossible") == 1
    finally:
        catcher.stop()


def test_the_configuration_reads_the_alarm_section(tmp_path: Path) -> None:
    config = configure(tmp_path, f'[mail]\ngm_address = "{GM}"\n[alarm]\nmaildir = "gm"\n'
                                 'sendmail = "/usr/sbin/sendmail -f pbem"\n')
    assert config.alarm.maildir == tmp_path / "gm"
    assert config.alarm.sendmail == "/usr/sbin/sendmail -f pbem"
    assert config.alarm.to == GM  # the game master's by default
    assert configure(tmp_path, "").alarm.maildir is None
    with pytest.raises(ConfigError, match=r"\[alarm\] to must be"):
        configure(tmp_path, '[alarm]\nto = "not an address"\n')


def test_a_server_refusing_every_session_for_a_quarter_hour_raises_the_alarm(
        tmp_path: Path, smtp_catcher: SmtpCatcher) -> None:
    """Not a blip: refused for now (451 at MAIL FROM) again and again, no mail sent for
    SENDING_ALARM_AFTER, sending raises its alarm; the first mail that goes clears it."""
    smtp_catcher.refuse(451, times=8)
    config = configure(tmp_path, f"""[mail]
gm_address = "{GM}"
[listener]
port = 0
[smtp]
host = "127.0.0.1"
port = {smtp_catcher.port}
security = "plain"
[alarm]
maildir = "alarms"
""")
    new_game(config)
    clock = Clock()
    daemon = Daemon(config, clock=clock)
    assert daemon.run_once().flush.sent == 0
    clock.advance(600)
    assert daemon.run_once().flush.sent == 0
    assert read_alarms(config.store) == []  # ten minutes: maybe a blip
    clock.advance(600)
    assert daemon.run_once().flush.sent == 0
    [alarm] = read_alarms(config.store)
    assert alarm.key == SMTP_SENDING and "451" in alarm.error
    assert alarm.since == T0.isoformat(timespec="seconds")
    [(subject, text)] = alarm_mails(tmp_path / "alarms")
    assert f"127.0.0.1:{smtp_catcher.port}" in subject + text and "451" in text
    assert cli("games", "--store", str(config.store)).startswith("ALARM since ")
    for _ in range(10):
        clock.advance(3600)
        if daemon.run_once().flush.sent:
            break
    assert read_alarms(config.store) == []
    assert len(alarm_mails(tmp_path / "alarms")) == 2
