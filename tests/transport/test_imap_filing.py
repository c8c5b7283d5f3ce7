"""A filing cut short between the COPY and the EXPUNGE (or inside a server's MOVE) is finished
on the next pass: each mail ends up once in the processed folder, whatever the server and the
point of the cut (``pbem.transport.imap_cursor.Filing``).

The cut is made by a proxy between the intake and a real server (``servers.ImapCutter``), at
a chosen command, so it happens every run. Cyrus does MOVE as a copy then an expunge, and a
restart between the two left a mail in both folders (the restart test of test_imap.py failed
about 2 runs in 5 on Cyrus): "inside MOVE" turns the MOVE into the COPY it begins with, then
cuts. The next pass is made by a new intake on the same state file, as a daemon killed there
and started again would make it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from servers import ImapCutter, MailServer

from pbem.transport.imap import ImapConfig, ImapError, ImapIntake, JsonFileCursor

# (the command cut at, whether the server gets it, the rewriting of its words)
_CUTS: dict[str, tuple[bytes, bool, tuple[bytes, bytes] | None]] = {
    "before MOVE": (rb"UID MOVE ", False, None),
    "inside MOVE": (rb"UID MOVE ", True, (rb"^UID MOVE ", b"UID COPY ")),
    "before COPY": (rb"UID COPY ", False, None),
    "after COPY": (rb"UID COPY ", True, None),
    "after STORE": (rb"UID STORE .*\\Deleted", True, None),
}
_MOVING = ("dovecot", "cyrus")
_COPYING = ("bare_dovecot", "cyrus_without_move")  # no MOVE: COPY, STORE, EXPUNGE
CASES = [(server, cut) for server in _MOVING for cut in ("before MOVE", "inside MOVE")] + [
    (server, cut) for server in _COPYING for cut in ("before COPY", "after COPY", "after STORE")]


def raw(headers: str, body: str) -> bytes:
    return (f"From: alice@example.org\r\nTo: game@pbem.test\r\n{headers}\r\n{body}\r\n"
            ).encode()


@pytest.mark.parametrize(("name", "cut"), CASES)
def test_a_filing_cut_short_files_each_mail_once(
        name: str, cut: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    server: MailServer = request.getfixturevalue(name)
    account = server.add_user()
    # Filed long ago, byte for byte the last mail of the new ones: not taken for its copy.
    earlier = raw("Subject: orders\r\nMessage-ID: <earlier@example.org>\r\n", "pass")
    server.append(account, earlier, "pbem-done")
    mails = [
        # One Message-ID, sent twice (the second mended): two mails, each filed.
        raw("Subject: orders\r\nMessage-ID: <twice@example.org>\r\n", "pass"),
        raw("Subject: orders\r\nMessage-ID: <twice@example.org>\r\n", "pass\r\npress hi"),
        # No Message-ID, and the same bytes twice: two mails all the same.
        raw("Subject: no id\r\n", "pass"),
        raw("Subject: no id\r\n", "pass"),
        earlier,
    ]
    for mail in mails:
        server.append(account, mail)  # APPEND: these bytes, no Received line of the server's
    command, passed, rewrite = _CUTS[cut]
    delivered: list[bytes] = []
    cursor = tmp_path / "state" / "cursor.json"
    with ImapCutter(server.imap_port, command, passed=passed, rewrite=rewrite) as cutter:
        intake = ImapIntake(config(server, account.username, account.password, cutter.port),
                            delivered.append, JsonFileCursor(cursor))
        try:
            with pytest.raises(ImapError):
                intake.fetch_new()
        finally:
            intake.close()
        assert cutter.cut.is_set()
    assert sorted(delivered) == sorted(mails)
    again = ImapIntake(config(server, account.username, account.password, server.imap_port),
                       delivered.append, JsonFileCursor(cursor))
    try:
        again.fetch_new()
        assert again.fetch_new() == 0
    finally:
        again.close()
    assert sorted(mail for mail, _ in server.messages(account, "pbem-done")) == sorted(
        [earlier, *mails])
    assert server.messages(account, "INBOX") == []
    # Mail not filed before the cut is delivered again (the store knows it by Message-ID).
    assert set(delivered) == set(mails)
    assert JsonFileCursor(cursor).filing() is None


def config(server: MailServer, username: str, password: str, port: int) -> ImapConfig:
    return ImapConfig("127.0.0.1", port, username, password, "plain", poll_seconds=1,
                      timeout=10)
