"""What the daemon's IMAP intake does with a mail for a game moving between daemons
(``MailIntake.route_imap``), by the game its topmost Delivered-To names: taken, held in the
folder while the game moves out, refiled into the folder its move names once it left (taken
as before when none was named), and held when refiled here before its game was imported."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from pbem.daemon.intake import MailIntake
from pbem.store import Store
from pbem.transport.imap import Aside


def mail(delivered_to: str | None) -> bytes:
    head = f"Delivered-To: {delivered_to}\r\n" if delivered_to else ""
    # A Delivered-To a sender wrote sits below the server's: only the topmost counts.
    return (f"{head}Delivered-To: pbem+forged@games.test\r\nFrom: a@example.org\r\n"
            "Message-ID: <m@example.org>\r\n\r\nGAME g1 PLAYER Alice PASSWORD x\r\n").encode()


def test_a_moving_games_mail_is_held_then_refiled_or_taken(tmp_path: Path) -> None:
    store = Store(tmp_path / "store")
    with store.lock():
        for game in ("g1", "g2", "g3"):
            store.create_game(game, {})
    intake = MailIntake(store, lambda: datetime.now(UTC), 10_000, lambda: None)

    def route(raw: bytes, refiled: bool) -> Aside | None:
        [aside] = intake.route_imap([(raw, refiled)])
        return aside

    assert route(mail("pbem+g1@games.test"), False) is None  # staying: taken
    assert route(mail(None), False) is None  # no game in the address: taken
    store.moving("g1", to_folder="pbem-b")
    store.moving("g2")
    assert route(mail("pbem+G1@games.test"), False) == Aside()  # moving: held
    assert route(mail("<pbem+g2@games.test>"), False) == Aside()
    with store.lock():
        store.retire_game("g1")
        store.retire_game("g2")
    assert route(mail("pbem+g1@games.test"), False) == Aside("pbem-b")  # gone: refiled
    assert route(mail("pbem+g2@games.test"), False) is None  # no folder: as before
    # Refiled here by another daemon: held until its game is here, then taken.
    assert route(mail("pbem+g4@games.test"), True) == Aside()
    assert route(mail("pbem+g3@games.test"), True) is None
    assert route(mail("pbem+g4@games.test"), False) is None  # not refiled: no such game
    with store.lock():
        store.create_game("g4", {})
    assert route(mail("pbem+g4@games.test"), True) is None
    # A group's mails of one game fare alike: the store is asked once per game in it.
    store.moving("g3")
    assert intake.route_imap([(mail("pbem+g3@games.test"), False), (mail(None), False),
                              (mail("pbem+G3@games.test"), True)]) == [Aside(), None, Aside()]
