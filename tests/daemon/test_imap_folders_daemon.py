"""Issue 39, point 1: the daemon on IMAP servers whose folders sit under ``INBOX.`` (Cyrus
with ``altnamespace: no``, Courier), and a folder the server refuses: an error at start,
in ``pbem doctor``, and one mail to the game master."""

from __future__ import annotations

import email.message
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from clocks import Clock
from daemons import imap_config, new_game, order_mail, outbox_settled, parse, serving
from servers import Account, Cyrus, MailServer, SmtpCatcher, wait_until

from pbem.cli.daemon import doctor
from pbem.daemon.config import load_config
from pbem.daemon.server import Daemon
from pbem.service.service import Service
from pbem.store import Store


@pytest.fixture(params=["cyrus", "inbox_dovecot", "inbox_slash_dovecot"])
def server(request: pytest.FixtureRequest) -> MailServer:
    """Cyrus IMAP, and Dovecots with their folders under INBOX. (as on Courier) and under
    INBOX/."""
    found: MailServer = request.getfixturevalue(request.param)
    return found


@pytest.fixture
def account(server: MailServer) -> Account:
    return server.add_user()


def test_a_game_plays_with_folders_under_inbox(
        tmp_path: Path, server: MailServer, account: Account,
        smtp_catcher: SmtpCatcher) -> None:
    """Orders taken from the INBOX, filed in INBOX.pbem-done (INBOX/pbem-done), answered;
    the doctor names the folders where the mail goes."""
    config = imap_config(tmp_path, server, account, smtp_catcher)
    passwords = new_game(config)
    with serving(Daemon(config, clock=Clock())) as daemon:
        smtp_catcher.wait_for(6, timeout=20)  # the welcomes and first reports
        server.deliver(account, order_mail(1, "Alice", passwords["Alice"], "STATUS",
                                           to="game@pbem.test"), "alice@example.org")
        server.deliver(account, order_mail(2, "Bob", passwords["Bob"],
                                           "SET TIMEZONE Europe/Paris", to="game@pbem.test"),
                       "bob@example.org")
        assert wait_until(lambda: len(server.messages(account, "pbem-done")) == 2, 30)
        assert wait_until(lambda: outbox_settled(daemon), 20)
        mails = smtp_catcher.wait_for(9, timeout=20)
    assert server.messages(account, "INBOX") == []
    with server.client(account) as client:
        names = {name for _, _, name in client.list_folders()}
    assert {server.full("pbem-done"), server.full("pbem-failed")} <= names
    assert "pbem-done" not in names
    answered = {parse(m.raw)["In-Reply-To"] for m in mails[6:]}  # and a fresh report
    assert answered == {"<order-1@example.org>", "<order-2@example.org>", None}
    service = Service(Store(config.store), config.service_config())
    assert service.service_record("g1").seat("Bob").tz == "Europe/Paris"
    result = CliRunner().invoke(doctor, ["--config", str(tmp_path / "pbem.toml")])
    prefix = server.personal_prefix
    assert (f"ok: the account's folders are under '{prefix}': handled mail is filed in "
            f"'{prefix}pbem-done', failed mail filed in '{prefix}pbem-failed'"
            in result.output.splitlines()), result.output


def test_a_folder_the_server_refuses_is_an_error_in_the_doctor_and_one_mail_to_the_gm(
        tmp_path: Path, server: MailServer, account: Account,
        smtp_catcher: SmtpCatcher) -> None:
    refused = "user.nobody-here.done" if isinstance(server, Cyrus) else "x" * 300
    imap_config(tmp_path, server, account, smtp_catcher, mail='gm_address = "gm@example.org"')
    toml = tmp_path / "pbem.toml"
    toml.write_text(toml.read_text().replace("poll_seconds = 2",
                                             f'poll_seconds = 2\nprocessed_folder = "{refused}"'))
    config = load_config(toml, env={})
    result = CliRunner().invoke(doctor, ["--config", str(toml)])
    assert result.exit_code != 0
    problems = [line for line in result.output.splitlines() if line.startswith("problem:")]
    assert len(problems) == 1 and refused in problems[0], result.output
    assert problems[0].count("Make that folder") == 1
    assert "All is well" not in result.output
    passwords = new_game(config)
    server.deliver(account, order_mail(1, "Alice", passwords["Alice"], "STATUS",
                                       to="game@pbem.test"), "alice@example.org")
    store = Store(config.store)

    def told() -> list[email.message.EmailMessage]:
        """The notices to the game master, queued (they leave with the sending loop's next
        pass, within a minute) or sent."""
        raws = [item.raw for item in store.outbox() if item.to == "gm@example.org"]
        raws += [m.raw for m in smtp_catcher.mails if m.rcpt_tos == ("gm@example.org",)]
        return [parse(raw) for raw in raws]

    with serving(Daemon(config, clock=Clock())):
        assert wait_until(lambda: len(told()) >= 1, 30)
        time.sleep(3)  # the intake tries again meanwhile: no second notice
        assert len(told()) == 1
    [gm] = told()
    assert refused[:40] in str(gm["Subject"])
    text = gm.get_body(("plain",)).get_content()
    assert text.count("Make that folder") == 1
    assert [raw for raw, _ in server.messages(account, "INBOX")]  # waits on the server
