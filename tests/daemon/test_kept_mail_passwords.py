"""Passwords blanked where order mail is kept (issue 21, point 8): the store keeps every
mail received, and once processed it keeps it without the password of its start line --
players' mails and the mails of a bot playing a seat alike."""

from __future__ import annotations

from pathlib import Path

from clocks import T0
from daemon_game import GAME, GameDaemon

from pbem.mail.inbound import mask_passwords
from pbem.service.service import Service
from pbem.store import Store


def _kept(store_root: Path) -> bytes:
    """Every byte of every mail file the store keeps."""
    return b"".join(path.read_bytes() for folder in ("inbox", "mail")
                    for path in sorted((store_root / folder).rglob("*")) if path.is_file())


def test_kept_order_mails_hold_no_password_once_processed(tmp_path: Path) -> None:
    game = GameDaemon(tmp_path)
    alice = game.passwords["Alice"]
    game.deliver(game.orders(1, "Alice", "STANDING LIST"))
    quoted = game.orders(2, "Bob", "STATUS").replace(
        b"\r\n\r\n", b"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n", 1)
    game.deliver(quoted)
    game.deliver(game.orders(3, "Carol", "STATUS", password=f'"{alice}"'))  # wrong, quoted
    game.run()
    # A bot takes Carol's seat: its mail (with its own password) goes through the inbox.
    service = Service(Store(game.config.store))
    service.set_bot(GAME, "Carol", True, T0)
    bot = service.service_record(GAME).seat("Carol").bot_password
    assert bot
    game.run()
    kept = _kept(game.config.store)
    assert kept.count(b"GAME g1 PLAYER") >= 4  # the mails are kept...
    for secret in (alice, game.passwords["Bob"], game.passwords["Carol"], bot):
        assert secret.encode() not in kept  # ... without their passwords
    assert b"PASSWORD " + b"*" * len(alice) in kept


def test_masking_keeps_every_byte_in_its_place() -> None:
    raw = (b"From: a@example.org\r\n\r\nHello\r\n> GAME g PLAYER Ann PASSWORD raven-owl-01 "
           b"TURN 3\r\nGAME g PLAYER Ann password: \"two words\"\r\nPASSWORD again\r\n"
           b"\xe9t\xe9\r\n")
    masked = mask_passwords(raw)
    assert len(masked) == len(raw)
    assert b"raven" not in masked and b"two words" not in masked and b"again" not in masked
    assert masked.endswith(b"\xe9t\xe9\r\n") and b"TURN 3" in masked
