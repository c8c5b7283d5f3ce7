"""The IMAP intake's ``route`` against a real Dovecot and a real Cyrus: a mail held stays
untouched in the folder and is looked at again (without a busy loop) until the route takes
it; a mail refiled moves into another folder of the account, marked so the intake there
knows it."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from servers import Account, MailServer

from pbem.transport.imap import (
    HOLD_SECONDS,
    REFILED,
    Aside,
    ImapConfig,
    ImapIntake,
    JsonFileCursor,
    Router,
)


@pytest.fixture(params=["dovecot", "cyrus"])
def server(request: pytest.FixtureRequest) -> MailServer:
    """Dovecot (folders at the top) and Cyrus (folders under INBOX.)."""
    found: MailServer = request.getfixturevalue(request.param)
    return found


@pytest.fixture
def account(server: MailServer) -> Account:
    return server.add_user()

def mail(tag: str) -> bytes:
    return (f"From: alice@example.org\r\nTo: game@pbem.test\r\nSubject: {tag}\r\n"
            f"Message-ID: <{tag}@example.org>\r\n\r\norders for {tag}\r\n").encode()


def tag_of(raw: bytes) -> str:
    found = re.search(rb"Message-ID: <([^@]+)@", raw)
    assert found, raw
    return found.group(1).decode()


class Holding:
    """Holds the mails tagged hold* while ``holding``, refiles those tagged refile* into
    pbem-b."""

    def __init__(self) -> None:
        self.holding = True

    def __call__(self, mails: Sequence[tuple[bytes, bool]]) -> list[Aside | None]:
        return [self.one(tag_of(raw)) for raw, _ in mails]

    def one(self, tag: str) -> Aside | None:
        if tag.startswith("hold") and self.holding:
            return Aside()
        return Aside("pbem-b") if tag.startswith("refile") else None


def intake(server: MailServer, account: Account, cursor: Path, folder: str, taken: list[str],
           route: Router) -> ImapIntake:
    def deliver(raws: Sequence[bytes]) -> list[BaseException | None]:
        taken.extend(tag_of(raw) for raw in raws)
        return [None] * len(raws)

    config = ImapConfig("127.0.0.1", server.imap_port, account.username, account.password,
                        "plain", folder=folder, processed_folder=f"{folder}-done",
                        poll_seconds=30, timeout=10)
    return ImapIntake(config, None, JsonFileCursor(cursor), deliver_group=deliver, route=route)


def test_a_held_mail_waits_untouched_and_a_refiled_one_moves_marked(
        server: MailServer, account: Account, tmp_path: Path) -> None:
    for tag in ("a", "hold1", "refile1", "b"):
        server.deliver(account, mail(tag))
    taken: list[str] = []
    route = Holding()
    a = intake(server, account, tmp_path / "a.json", "INBOX", taken, route)
    try:
        assert a.fetch_new() == 2
        assert taken == ["a", "b"]
        [(raw, flags)] = server.messages(account, "INBOX")
        assert tag_of(raw) == "hold1" and b"\\Seen" not in flags  # untouched
        [(raw, flags)] = server.messages(account, "pbem-b")
        assert tag_of(raw) == "refile1" and REFILED in flags
        # Nothing new: the wait neither returns at once for the held mail nor sleeps the
        # whole poll: it looks again after HOLD_SECONDS.
        began = time.monotonic()
        a.wait(30)
        assert HOLD_SECONDS * 0.9 <= time.monotonic() - began < 15
        assert a.fetch_new() == 0 and taken == ["a", "b"]
        route.holding = False
        assert a.fetch_new() == 1 and taken == ["a", "b", "hold1"]
    finally:
        a.close()
    assert [tag_of(raw) for raw, _ in server.messages(account, "INBOX-done")] == [
        "a", "b", "hold1"]
    assert server.messages(account, "INBOX") == []
    # The intake of the other folder is told the mail was refiled there.
    asked: list[tuple[str, bool]] = []

    def note(mails: Sequence[tuple[bytes, bool]]) -> list[Aside | None]:
        asked.extend((tag_of(raw), refiled) for raw, refiled in mails)
        return [None] * len(mails)

    b = intake(server, account, tmp_path / "b.json", "pbem-b", taken, note)
    try:
        assert b.fetch_new() == 1
    finally:
        b.close()
    assert asked == [("refile1", True)] and taken[-1] == "refile1"
