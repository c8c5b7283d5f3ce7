"""Big mail over IMAP (issue 44, point 4): a mail over the size limit is judged by its
RFC822.SIZE before it is read whole. Against the suite's real Dovecot, through the daemon's
IMAP intake: only the big mail's head crosses the wire; it is filed in the failed folder,
its sender answered with the limit (as the listener's 552 would), the game master told; the
mail after it is applied."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from clocks import Clock
from daemons import imap_config, new_game, order_mail, parse
from imapclient import IMAPClient
from servers import Account, Dovecot, SmtpCatcher

from pbem.daemon.server import Daemon

BIG = 5 * 1024 * 1024  # bytes of the big mail's body
LIMIT_KIB = 64


def test_a_mail_over_the_limit_is_refused_by_its_size_without_fetching_its_body(
        tmp_path: Path, dovecot: Dovecot, account: Account, smtp_catcher: SmtpCatcher,
        monkeypatch: pytest.MonkeyPatch) -> None:
    config = imap_config(tmp_path, dovecot, account, smtp_catcher,
                         mail=f'max_kib = {LIMIT_KIB}\ngm_address = "gm@example.org"')
    passwords = new_game(config)
    # Each fetch the intake makes, and the largest answer it got.
    fetched: list[tuple[list[bytes], int]] = []
    real_fetch = IMAPClient.fetch

    def spied(self: IMAPClient, messages: Any, data: Any, modifiers: Any = None) -> Any:
        answer = real_fetch(self, messages, data, modifiers)
        largest = max((len(value) for item in answer.values() for value in item.values()
                       if isinstance(value, bytes)), default=0)
        fetched.append(([bytes(d) for d in data], largest))
        return answer

    monkeypatch.setattr(IMAPClient, "fetch", spied)
    big = order_mail(1, "Alice", passwords["Alice"],
                     "STATUS\r\n" + ("# " + "x" * 998 + "\r\n") * (BIG // 1002),
                     to="game@pbem.test")
    small = order_mail(2, "Bob", passwords["Bob"], "SET HTML OFF", to="game@pbem.test")
    dovecot.deliver(account, big, "alice@example.org")
    dovecot.deliver(account, small, "bob@example.org")
    done = Daemon(config, clock=Clock()).run_once()
    assert (done.processed, done.problems) == (2, ())
    # The big mail never crossed whole: no answer of the server was bigger than the limit.
    assert fetched and max(largest for _, largest in fetched) <= LIMIT_KIB * 1024
    assert any(b"RFC822.SIZE" in items for items, _ in fetched)
    # Filed as failed on the server (whole: moved there by the server), the next one done.
    failed = dovecot.messages(account, "pbem-failed")
    assert [parse(raw)["Message-ID"] for raw, _ in failed] == ["<order-1@example.org>"]
    assert len(failed[0][0]) >= len(big)
    assert [parse(raw)["Message-ID"] for raw, _ in dovecot.messages(account, "pbem-done")] \
        == ["<order-2@example.org>"]
    # Answered as the listener's 552 is, and the game master told.
    answers = {m.rcpt_tos: parse(m.raw) for m in smtp_catcher.mails[6:]}
    assert set(answers) == {("alice@example.org",), ("bob@example.org",), ("gm@example.org",)}
    told = answers[("alice@example.org",)]
    assert told["In-Reply-To"] == "<order-1@example.org>"
    text = " ".join(told.get_body(("plain",)).get_content().split())
    assert f"more than the {LIMIT_KIB} KB we accept" in text
    gm = " ".join(answers[("gm@example.org",)].get_body(("plain",)).get_content().split())
    assert "alice@example.org" in gm and f"{LIMIT_KIB} KB" in gm
    size = re.search(r"A mail of (\d+) KB", gm)
    assert size is not None and int(size.group(1)) >= len(big) // 1024  # its size there
