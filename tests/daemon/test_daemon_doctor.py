"""`pbem doctor` against real servers: what it says when all is well and when it is not."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from servers import Account, Dovecot, SmtpCatcher, free_port

from pbem.cli.daemon import doctor


def write(folder: Path, text: str) -> Path:
    path = folder / "pbem.toml"
    path.write_text(text)
    return path


def settings(dovecot: Dovecot, account: Account, smtp_port: int, *,
             password: str | None = None, imap_port: int | None = None,
             smtp_login: str = "", listener_port: int | None = None) -> str:
    return f"""
[store]
path = "store"
[mail]
address = "game@pbem.test"
[listener]
enabled = true
port = {listener_port if listener_port is not None else free_port()}
[imap]
host = "127.0.0.1"
port = {imap_port or dovecot.imap_port}
security = "plain"
username = "{account.username}"
password = "{password or account.password}"
[smtp]
host = "127.0.0.1"
port = {smtp_port}
security = "plain"
{smtp_login}
"""


def check(path: Path) -> Result:
    return CliRunner().invoke(doctor, ["--config", str(path)], env={
        "PBEM_IMAP_PASSWORD": "", "PBEM_SMTP_PASSWORD": ""})


@pytest.fixture
def catcher_with_login() -> Iterator[SmtpCatcher]:
    catcher = SmtpCatcher(logins={"pbem": "s3cret"}).start()
    try:
        yield catcher
    finally:
        catcher.stop()


def test_a_good_configuration(tmp_path: Path, dovecot: Dovecot, account: Account,
                              smtp_catcher: SmtpCatcher) -> None:
    result = check(write(tmp_path, settings(dovecot, account, smtp_catcher.port)))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert f"ok: the game store {tmp_path / 'store'} will be created (its parent is writable)" \
        in lines
    assert (f"ok: IMAP login as {account.username} at 127.0.0.1:{dovecot.imap_port} works "
            "and folder 'INBOX' exists") in lines
    assert f"ok: the SMTP server 127.0.0.1:{smtp_catcher.port} takes a session (plain)" in lines
    assert lines[-1] == "All is well."


def test_a_wrong_imap_password(tmp_path: Path, dovecot: Dovecot, account: Account,
                               smtp_catcher: SmtpCatcher) -> None:
    result = check(write(tmp_path, settings(dovecot, account, smtp_catcher.port,
                                            password="not-the-password")))
    assert result.exit_code == 1
    assert f"problem: login refused by 127.0.0.1 for {account.username}" in result.output
    assert "Check the IMAP username and password." in result.output
    assert result.output.splitlines()[-1].startswith("1 problem(s) found")


def test_closed_ports(tmp_path: Path, dovecot: Dovecot, account: Account) -> None:
    imap_port, smtp_port = free_port(), free_port()  # nothing listens there
    result = check(write(tmp_path, settings(dovecot, account, smtp_port, imap_port=imap_port)))
    assert result.exit_code == 1
    assert f"problem: cannot connect to the IMAP server 127.0.0.1:{imap_port}" in result.output
    assert f"problem: cannot talk to the SMTP server 127.0.0.1:{smtp_port}" in result.output
    assert "Connection refused" in result.output


def test_smtp_login(tmp_path: Path, dovecot: Dovecot, account: Account,
                    catcher_with_login: SmtpCatcher) -> None:
    good = settings(dovecot, account, catcher_with_login.port,
                    smtp_login='username = "pbem"\npassword = "s3cret"')
    result = check(write(tmp_path, good))
    assert result.exit_code == 0, result.output
    assert "(plain, logged in as pbem)" in result.output
    bad = good.replace("s3cret", "wrong")
    result = check(write(tmp_path, bad))
    assert result.exit_code == 1
    assert "problem: login refused by 127.0.0.1 for pbem (535" in result.output


def test_listener_port_in_use_and_store_not_makeable(
        tmp_path: Path, dovecot: Dovecot, account: Account, smtp_catcher: SmtpCatcher) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        text = settings(dovecot, account, smtp_catcher.port, listener_port=port)
        (tmp_path / "blocker").write_text("a file where a folder should be")
        text = text.replace('path = "store"', 'path = "blocker/store"')
        result = check(write(tmp_path, text))
    assert result.exit_code == 1
    assert (f"problem: the SMTP listener port 127.0.0.1:{port} is already in use by another "
            "program") in result.output
    assert f"problem: the game store {tmp_path / 'blocker/store'} cannot be made: " \
        f"{tmp_path / 'blocker'} is a file" in result.output
    assert "2 problem(s) found" in result.output


def test_a_broken_file_is_reported_not_raised(tmp_path: Path) -> None:
    result = check(write(tmp_path, "[imap]\nhost = 'x'\nusername = 'u'\npassword = 'p'\n"
                                   "port = 'imap'\n"))
    assert result.exit_code == 1
    path = tmp_path / "pbem.toml"
    assert result.output == (f"problem: In {path}, [imap] port must be a whole number from 1 "
                             "to 65535, not 'imap'.\n")
