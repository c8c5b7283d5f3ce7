"""Passwords blanked where order mail is kept (issue 21, point 8): the store keeps every
mail received, and once processed it keeps it without the password of its start line --
players' mails and the mails of a bot playing a seat alike."""

from __future__ import annotations

import base64
import email
import email.message
import email.policy
from pathlib import Path

import pytest
from clocks import T0
from daemon_game import GAME, GameDaemon

from pbem.bots import mailbots
from pbem.mail.inbound import mask_passwords
from pbem.service import bot_seats
from pbem.service.service import Service
from pbem.store import Store, mail_id_for


def _base64(raw: bytes) -> bytes:
    """The same mail, its text in base64 (as some phones send it)."""
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = base64.encodebytes(body).replace(b"\n", b"\r\n")
    return (head + b"\r\nContent-Type: text/plain; charset=utf-8\r\n"
            b"Content-Transfer-Encoding: base64\r\n\r\n" + lines)


def _kept(store_root: Path) -> bytes:
    """Every byte of every mail file the store keeps."""
    return b"".join(path.read_bytes() for folder in ("inbox", "mail")
                    for path in sorted((store_root / folder).rglob("*")) if path.is_file())


def test_kept_order_mails_hold_no_password_once_processed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game = GameDaemon(tmp_path)
    alice = game.passwords["Alice"]
    game.deliver(game.orders(1, "Alice", "STANDING LIST"))
    quoted = game.orders(2, "Bob", "STATUS").replace(
        b"\r\n\r\n", b"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n", 1)
    game.deliver(quoted)
    game.deliver(game.orders(3, "Carol", "STATUS", password=f'"{alice}"'))  # wrong, quoted
    game.deliver(_base64(game.orders(4, "Alice", "STANDING CLEAR ALL")))
    game.run()
    # A bot takes Carol's seat: its mail (with its own password) goes through the inbox.
    service = Service(Store(game.config.store))
    written: list[str] = []  # the passwords the bot's mails carry
    seat_of = mailbots.BotSeat
    monkeypatch.setattr(bot_seats.mailbots, "BotSeat", lambda **seat: written.append(
        seat["password"]) or seat_of(**seat))
    commits = service.store.log_length(GAME)
    service.set_bot(GAME, "Carol", True, T0)
    game.run()
    assert written
    # The bot's mail was taken (its password worked): Carol's orders are in the log.
    assert any(entry.get("command", {}).get("player") == "Carol"
               for entry in Store(game.config.store).log(GAME, commits))
    kept = _kept(game.config.store)
    assert kept.count(b"GAME g1 PLAYER") >= 4  # the mails are kept...
    assert b"Content-Transfer-Encoding: base64" in kept
    for secret in (alice, game.passwords["Bob"], game.passwords["Carol"], *written):
        assert secret.encode() not in kept  # ... without their passwords
    # Issue 44, point 6: the service record keeps no bot password in clear either; no file
    # of the store does.
    for path in game.config.store.rglob("*"):
        if path.is_file():
            assert not any(secret.encode() in path.read_bytes() for secret in written), path
    assert b"PASSWORD " + b"*" * len(alice) in kept
    # The base64 one read as a mail program reads it: its text masked too.
    coded = email.message_from_bytes(Store(game.config.store).raw_mail(
        mail_id_for("<order-4@example.org>")), policy=email.policy.default)
    assert isinstance(coded, email.message.EmailMessage)
    text = str(coded.get_content())
    assert f"PASSWORD {'*' * len(alice)}\r\nSTANDING CLEAR ALL" in text and alice not in text


def test_masking_keeps_every_byte_in_its_place() -> None:
    raw = (b"From: a@example.org\r\n\r\nHello\r\n> GAME g PLAYER Ann PASSWORD raven-owl-01 "
           b"TURN 3\r\nGAME g PLAYER Ann password: \"two words\"\r\nPASSWORD again\r\n"
           b"\xe9t\xe9\r\n")
    masked = mask_passwords(raw)
    assert len(masked) == len(raw)
    assert b"raven" not in masked and b"two words" not in masked and b"again" not in masked
    assert masked.endswith(b"\xe9t\xe9\r\n") and b"TURN 3" in masked
    text = b"GAME g PLAYER Ann PASSWORD raven-owl-01 TURN 3\nSTATUS\nEND\n" * 3
    coded = (b"Content-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n"
             + base64.encodebytes(text).replace(b"\n", b"\r\n"))
    masked = mask_passwords(coded)
    assert len(masked) == len(coded)
    assert base64.b64decode(masked.split(b"\r\n\r\n")[1]) == text.replace(
        b"raven-owl-01", b"*" * 12)
