"""Issue 44, point 4 (its last sentence): a daemon's first start on a mailbox answers
nothing that was there before it: it files that mail unanswered, and the game master is
told how many; mail that arrives afterwards is answered as ever.

Real Dovecot, real SMTP catcher. Before, the daemon answered the senders of the old mail
(strangers who never wrote to a game) up to the strangers' hourly cap.
"""

from __future__ import annotations

from pathlib import Path

from clocks import Clock
from daemons import configure, imap_section, new_game, order_mail, parse
from servers import Account, Dovecot, SmtpCatcher

from pbem.daemon.server import Daemon


def _config(tmp_path: Path, dovecot: Dovecot, account: Account, catcher: SmtpCatcher,
            answer: bool) -> Path:
    section = imap_section(dovecot, account).replace(
        "answer_earlier_mail = true", f"answer_earlier_mail = {str(answer).lower()}")
    configure(tmp_path, f"""
[mail]
address = "game@pbem.test"
gm_address = "gm@example.org"
{section}[smtp]
host = "127.0.0.1"
port = {catcher.port}
security = "plain"
""")
    return tmp_path / "pbem.toml"


def _stranger(n: int) -> bytes:
    return (f"From: someone{n}@example.net\r\nTo: game@pbem.test\r\nSubject: hello {n}\r\n"
            f"Message-ID: <old-{n}@example.net>\r\n\r\nLIST\r\n").encode()


def test_the_first_start_files_earlier_mail_unanswered_and_tells_the_game_master(
        tmp_path: Path, dovecot: Dovecot, account: Account, smtp_catcher: SmtpCatcher,
        ) -> None:
    configure_path = _config(tmp_path, dovecot, account, smtp_catcher, answer=False)
    for n in range(12):
        dovecot.deliver(account, _stranger(n), f"someone{n}@example.net")
    from pbem.daemon.config import load_config

    config = load_config(configure_path, env={})
    passwords = new_game(config)
    daemon = Daemon(config, clock=Clock())
    first = daemon.run_once()
    assert first.processed == 0
    assert len(dovecot.messages(account, "pbem-done")) == 12
    assert dovecot.messages(account, "INBOX") == []
    daemon.run_once()  # the notice, queued by the first pass
    to = [mail.rcpt_tos[0] for mail in smtp_catcher.mails]
    assert not any(address.endswith("@example.net") for address in to)
    told = [parse(m.raw) for m in smtp_catcher.mails if m.rcpt_tos == ("gm@example.org",)]
    assert len(told) == 1 and "12" in str(told[0]["Subject"])
    # Mail that arrives once the daemon reads the mailbox is answered.
    dovecot.deliver(account, order_mail(1, "Alice", passwords["Alice"], "STATUS",
                                        to="game@pbem.test"), "alice@example.org")
    assert daemon.run_once().processed == 1
    assert any(parse(m.raw)["In-Reply-To"] == "<order-1@example.org>"
               for m in smtp_catcher.mails)


def test_answer_earlier_mail_answers_it_as_before(
        tmp_path: Path, dovecot: Dovecot, account: Account, smtp_catcher: SmtpCatcher,
        ) -> None:
    from pbem.daemon.config import load_config

    config = load_config(_config(tmp_path, dovecot, account, smtp_catcher, answer=True),
                         env={})
    passwords = new_game(config)
    dovecot.deliver(account, order_mail(1, "Alice", passwords["Alice"], "STATUS",
                                        to="game@pbem.test"), "alice@example.org")
    assert Daemon(config, clock=Clock()).run_once().processed == 1
