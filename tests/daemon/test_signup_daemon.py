"""A whole game from sign-up to game over through the daemon on the embedded default (store
in ./var/pbem, replies into Maildirs there): real SMTP to the listener, real files, the game
master's real ``pbem`` commands. With an observer from before the start to the last mail,
an absence given by mail, and a seat taken over by mail half way.

The listener listens on a free port rather than the default 2525, so that this test and
test_daemon's own embedded-default test never fight over the port under pytest-xdist.
"""

from __future__ import annotations

import email
import email.message
import email.policy
import re
import smtplib
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from clocks import T0, Clock
from daemons import serving
from servers import wait_until

from pbem.cli.main import main as pbem_main
from pbem.daemon.config import load_config
from pbem.daemon.server import Daemon
from pbem.engine.codec import from_json
from pbem.engine.state import GameState
from pbem.service.signup import LOBBY, replay
from pbem.store import Store

GAME = "g1"
SEED = "5eed" * 16
TO = "pbem@localhost"
_PASSWORD = re.compile(r"YOUR PASSWORD\r?\n-+\r?\n(\S+)")


class Players:
    """People mailing the daemon's listener, reading their Maildirs."""

    def __init__(self, port: int, boxes: Path) -> None:
        self.port = port
        self.boxes = boxes
        self.sent = 0

    def mail(self, address: str, body: str) -> None:
        self.sent += 1
        raw = (f"From: <{address}>\r\nTo: {TO}\r\nSubject: mail {self.sent}\r\n"
               f"Message-ID: <m{self.sent}@example.org>\r\n\r\n{body}\r\n").encode()
        with smtplib.SMTP("127.0.0.1", self.port, local_hostname="test", timeout=30) as smtp:
            smtp.sendmail(address, [TO], raw)

    def box(self, address: str) -> list[email.message.EmailMessage]:
        folder = self.boxes / address / "new"
        if not folder.is_dir():
            return []
        mails = []
        for path in sorted(folder.iterdir(), key=lambda p: p.stat().st_mtime_ns):
            message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
            assert isinstance(message, email.message.EmailMessage)
            mails.append(message)
        return mails

    def subjects(self, address: str) -> list[str]:
        return [self.about(m) for m in self.box(address)]

    def about(self, message: email.message.EmailMessage) -> str:
        """What a mail is about: its subject, or a game mail's first line."""
        return f"{message['Subject']} {self.text(message).splitlines()[0]}"

    def text(self, message: email.message.EmailMessage) -> str:
        body = message.get_body(("plain",))
        assert body is not None
        return str(body.get_content())

    def await_mail(self, address: str, subject_part: str, count: int = 1) -> str:
        """The text of the ``count``-th mail to ``address`` whose subject holds
        ``subject_part``, once it is delivered."""
        def found() -> list[email.message.EmailMessage]:
            # A game's mail has its thread's subject: what it is about opens its text.
            return [m for m in self.box(address) if subject_part in self.about(m)]
        assert wait_until(lambda: len(found()) >= count, timeout=60), (
            address, subject_part, self.subjects(address))
        return self.text(found()[count - 1])

    def password(self, address: str) -> str:
        found = _PASSWORD.search(self.await_mail(address, "Welcome"))
        assert found is not None
        return found.group(1)


def state(store: Path) -> GameState:
    snapshot = Store(store).snapshot(GAME)
    assert snapshot is not None
    return from_json(GameState, snapshot["state"])


def gm(store: Path, *args: str) -> str:
    result = CliRunner().invoke(pbem_main, [*args, "--store", str(store),
                                            "--now", T0.isoformat()])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_game_from_sign_up_to_game_over_by_mail(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config(None, env={})  # the embedded default
    assert config.store == tmp_path / "var" / "pbem" and config.smtp is None
    assert config.listener is not None
    config = replace(config, listener=replace(config.listener, port=0))
    store = config.store
    store.mkdir(parents=True)
    gm(store, "game", "open", GAME, "--seats", "3", "--observers", "--option",
       "max_turns=7", "--seed", SEED)
    with serving(Daemon(config, clock=Clock())) as daemon:
        port = daemon.listener_port
        assert port is not None
        people = Players(port, tmp_path / "var" / "pbem" / "maildirs")
        people.mail("dan@example.org", "LIST")
        assert f"{GAME}: 0 of 3 seats taken" in people.await_mail("dan@example.org", "Games")
        people.mail("eve@example.org", f"OBSERVE {GAME}")
        people.await_mail("eve@example.org", "You observe the game")
        for name, prefer in (("Alice", "Network"), ("Bob", "UFOs"), ("Carol", "")):
            people.mail(f"{name.lower()}@example.org",
                        f"JOIN {GAME} AS {name}" + (f" PREFER {prefer}" if prefer else ""))
        seats = {name: (f"{name.lower()}@example.org",
                        people.password(f"{name.lower()}@example.org"))
                 for name in ("Alice", "Bob", "Carol")}
        assert {p.name: p.illuminati for p in state(store).players}["Alice"] == "The Network"
        people.mail("dan@example.org", f"JOIN {GAME} AS Dan")
        assert "waiting list" in people.await_mail("dan@example.org", "On the waiting list")

        def play_turn() -> None:
            seq = state(store).seq
            active = state(store).active_player.name
            address, password = seats[active]
            people.mail(address, f"GAME {GAME} PLAYER {active} PASSWORD {password}\r\nPASS"
                        "\r\nEND")
            assert wait_until(lambda: state(store).seq != seq, timeout=60), active

        for _ in range(3):
            play_turn()
        # Carol will be away later in the month: the others and the game master are told,
        # and the game master lists it.
        address, password = seats["Carol"]
        people.mail(address, f"GAME {GAME} PLAYER Carol PASSWORD {password}\r\n"
                    "SET ABSENCE 2024-05-20 TO 2024-05-22\r\nEND")
        people.await_mail("alice@example.org", "Carol will be away")
        assert "Carol 1: 2024-05-20 00:00 to 2024-05-23 00:00 UTC" in gm(store, "absences", GAME)
        # Bob drops out; the game master offers his seat, the waiting list hears of it, and
        # Zoe takes it by mail.
        gm(store, "seat", "offer", GAME, "Bob", "--reason", "Bob is away for good")
        assert f"TAKEOVER {GAME} Bob" in people.await_mail("dan@example.org",
                                                          "A seat is offered")
        people.mail("zoe@example.org", f"TAKEOVER {GAME} Bob")
        seats["Bob"] = ("zoe@example.org", people.password("zoe@example.org"))
        people.await_mail("alice@example.org", "game master")  # told of the new player
        while state(store).phase != "over":
            play_turn()
        people.await_mail("eve@example.org", "Game over")
        assert wait_until(lambda: not Store(store).outbox(), timeout=60)
    # The observer followed the game from the first report to the last mail, and never
    # read a password or a hand.
    eve = people.box("eve@example.org")
    reports = [m for m in eve if "(observer)" in people.about(m)]
    assert all(m["X-Pbem-Game"] == GAME for m in reports)
    turns = state(store).turn_number
    subjects = sorted(people.text(m).splitlines()[0].split(": ")[0] for m in reports)
    assert subjects == sorted([*(f"[{GAME}] Turn {n}" for n in range(1, turns + 1)),
                               f"[{GAME}] Game over"])
    for message in eve:
        text = people.text(message)
        assert "PASSWORD" not in text and "YOUR SPECIAL CARDS" not in text
    # Zoe plays Bob's seat under its name; Bob's address got nothing after the takeover.
    assert any("Bob" in s for s in people.subjects("zoe@example.org"))
    # The records keep the seat's past with Bob; Zoe finished the game in his seat.
    records = gm(store, "players")
    rows = {line.split()[0]: line.split()[1:] for line in records.splitlines()[1:]}
    assert rows["bob@example.org"][:4] == ["1", "0", "0", "1"]  # games finished won left
    assert rows["zoe@example.org"][:4] == ["1", "1", "0", "0"]
    assert rows["alice@example.org"][:2] == ["1", "1"]
    # Every game's log replays to its snapshot; the lobby's log folds to its record.
    assert "gives the snapshot exactly" in gm(store, "replay", GAME, "--check")
    lobby = Store(store)
    assert replay(lobby.log(LOBBY)) == {"open": {}, "waiting": lobby.meta(LOBBY)["waiting"]}
    assert lobby.meta(LOBBY)["open"] == {}
