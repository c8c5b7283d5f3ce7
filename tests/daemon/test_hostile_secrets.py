"""Issue 44, point 6: secrets stay secret, through the real listener.

Alice sends, over SMTP to the daemon's own listener: a start line with her password typed
again after STEP; a start line pasted into a PRESS to Bob; an HTML-only mail; a mail in
UTF-16, quoted-printable throughout; a mail in quoted-printable whose soft break splits the
password. Then no file anywhere (store, kept mail, every Maildir but her welcome), no line
of the DEBUG log and no mail to Bob, Carol or the game master holds her password, in UTF-8
or UTF-16. And every file the daemon made is its owner's alone (0600, folders 0700).

Before: the press went to Bob with the password in it, the kept mails held it (HTML-only,
UTF-16, quoted-printable, soft break, STEP), the DEBUG log held every DATA line, and the
outgoing Maildir files (welcomes with passwords) were 0644.
"""

from __future__ import annotations

import logging
import os
import smtplib
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner
from daemon_game import GameDaemon
from servers import wait_until

from pbem.cli.main import main as pbem_main

ALICE = "alice@example.org"


def _holding(root: Path, secret: str) -> set[Path]:
    """Give the files under ``root`` that hold ``secret`` in UTF-8 or UTF-16."""
    forms = [secret.encode(codec) for codec in ("utf-8", "utf-16-le", "utf-16-be")]
    return {path for path in root.rglob("*") if path.is_file()
            and any(form in path.read_bytes() for form in forms)}


def _head(n: int, extra: str = "") -> str:
    return (f"From: Alice <{ALICE}>\r\nTo: pbem@localhost\r\nSubject: orders {n}\r\n"
            f"Message-ID: <secret-{n}@example.org>\r\nMIME-Version: 1.0\r\n{extra}")


def _qp(data: bytes, width: int = 20) -> bytes:
    """Quoted-printable of ``data``: every byte as =XX but letters and digits, a soft
    break every ``width`` encoded characters."""
    coded = "".join(chr(b) if chr(b).isalnum() and b < 128 else f"={b:02X}" for b in data)
    lines, line = [], ""
    for piece in [coded[i:i + 3] if coded[i] == "=" else coded[i]
                  for i in _tokens(coded)]:
        if len(line) + len(piece) > width:
            lines.append(line + "=")
            line = ""
        line += piece
    return "\r\n".join([*lines, line]).encode()


def _tokens(coded: str) -> list[int]:
    starts, at = [], 0
    while at < len(coded):
        starts.append(at)
        at += 3 if coded[at] == "=" else 1
    return starts


def _mails(pw: str) -> list[bytes]:
    start = f"GAME g1 PLAYER Alice PASSWORD {pw}"
    return [
        # Her password typed again where the step number goes.
        (_head(1) + f"\r\n{start} STEP {pw}\r\nSTATUS\r\nEND\r\n").encode(),
        # A start line pasted into a press to Bob.
        (_head(2) + f"\r\n{start}\r\nPRESS TO Bob\r\nLook:\r\n{start}\r\n"
         f"my password is {pw}\r\nEND PRESS\r\nEND\r\n").encode(),
        # HTML only.
        (_head(3, "Content-Type: text/html; charset=utf-8\r\n") +
         f"\r\n<html><body><p>{start}</p><p>STANDING LIST</p><p>END</p></body></html>\r\n"
         ).encode(),
        # UTF-16, quoted-printable throughout.
        _head(4, "Content-Type: text/plain; charset=utf-16\r\n"
                 "Content-Transfer-Encoding: quoted-printable\r\n").encode() + b"\r\n"
        + _qp(f"{start}\r\nSTANDING LIST\r\nEND\r\n".encode("utf-16")) + b"\r\n",
        # Quoted-printable, a soft break inside the password.
        _head(5, "Content-Type: text/plain; charset=utf-8\r\n"
                 "Content-Transfer-Encoding: quoted-printable\r\n").encode() + b"\r\n"
        + f"{start[:-5]}=\r\n{start[-5:]}\r\nSTANDING LIST\r\nEND\r\n".encode(),
    ]


def test_no_password_in_any_answer_press_log_or_kept_mail(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    game = GameDaemon(tmp_path)
    pw = game.passwords["Alice"]
    welcome = _holding(tmp_path, pw)  # her welcome: where her password belongs
    assert len(welcome) == 1
    caplog.clear()
    answered = len(game.mails()[ALICE])
    with game.listening() as port, smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        for raw in _mails(pw):
            smtp.sendmail(ALICE, ["pbem@localhost"], raw)
        assert wait_until(lambda: len(game.mails().get(ALICE, [])) >= answered + 5,
                          timeout=60), game.text_to(ALICE)
        assert wait_until(lambda: any("Look:" in text for text in game.text_to(
            "bob@example.org")), timeout=30)
    press = next(text for text in game.text_to("bob@example.org") if "Look:" in text)
    assert "GAME g1 PLAYER Alice PASSWORD ******" in press and "my password is ******" in press
    assert _holding(tmp_path, pw) == welcome
    leaks = [record.name for record in caplog.records
             if pw in record.getMessage() or pw in repr(record.args)]
    assert leaks == []


def _loose(root: Path) -> list[str]:
    """Give the files and folders under ``root`` that others than the owner may read."""
    return [f"{oct(stat.S_IMODE(path.stat().st_mode))} {path.relative_to(root)}"
            for path in [root, *root.rglob("*")]
            if stat.S_IMODE(path.stat().st_mode) & 0o077]


def test_every_file_that_can_hold_a_secret_is_the_owners_alone(tmp_path: Path) -> None:
    old = os.umask(0o022)  # as a default login shell has it
    try:
        game = GameDaemon(tmp_path)
        with game.listening() as port, smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
            smtp.sendmail(ALICE, ["pbem@localhost"], _mails(game.passwords["Alice"])[0])
            assert wait_until(lambda: len(game.mails()[ALICE]) >= 3, timeout=60)
        assert _loose(game.config.store) == []  # the store and its outgoing Maildirs
        config = ["--config", str(tmp_path / "pbem.toml")]
        plain = tmp_path / "exports" / "g1.json"
        plain.parent.mkdir()
        runner = CliRunner()
        done = runner.invoke(pbem_main, ["export", "g1", "-o", str(plain), *config])
        assert done.exit_code == 0, done.output
        moved = tmp_path / "exports" / "g1-moved.json"
        done = runner.invoke(pbem_main, ["export", "g1", "--move", "-o", str(moved),
                                         "--wait", "5", *config])
        assert done.exit_code == 0, done.output
        assert b"password_hash" in moved.read_bytes()
        assert [stat.S_IMODE(p.stat().st_mode) for p in (plain, moved)] == [0o600, 0o600]
    finally:
        os.umask(old)


def test_the_imap_transcript_keeps_no_mail_and_no_login(
        caplog: pytest.LogCaptureFixture) -> None:
    """imaplib's DEBUG transcript, as imapclient logs it: a fetched mail and a LOGIN line
    never reach the log; a command's tag and name do."""
    import pbem.transport.imap_connection  # noqa: F401  (installs the filter, as the daemon)

    caplog.set_level(logging.DEBUG)
    transcript = logging.getLogger("imapclient.imaplib")
    transcript.debug("> %r", b"A1 LOGIN pbem s3cr3t-login")
    transcript.debug('untagged_responses[FETCH] 0 += ["%r"]',
                     b"GAME g1 PLAYER Alice PASSWORD s3cr3t-order\r\nSTATUS\r\n")
    transcript.debug("> %r", b"A2 IDLE")
    assert [r.getMessage() for r in caplog.records] == ["> b'A1 LOGIN", "> b'A2 IDLE"]
