"""A daemon on a real store with one started game, for the tests of mail from outside
(tests/daemon/test_hostile_*.py): mails delivered as the SMTP listener hands them over,
processed by the daemon's own pass, answers read from the Maildirs it writes."""

from __future__ import annotations

import email
import email.message
import email.policy
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from clocks import T0, Clock

from pbem.daemon.config import DaemonConfig, load_config
from pbem.daemon.server import Daemon
from pbem.engine.state import GameState
from pbem.service.service import Service
from pbem.store import Store

GAME = "g1"
PLAYERS = (("Alice", "alice@example.org", ""), ("Bob", "bob@example.org", ""),
           ("Carol", "carol@example.org", ""))
SEED = "5eed" * 8
GM = "gm@example.org"


class GameDaemon:
    """A daemon (clock ``clock``) over ``folder``/store with game g1 started at T0."""

    def __init__(self, folder: Path, toml: str = "", *, seed: str = SEED,
                 players: tuple[tuple[str, str, str], ...] = PLAYERS,
                 listener: str = "") -> None:
        """``listener``: more keys of the [listener] section; ``toml``: more sections."""
        path = folder / "pbem.toml"
        path.write_text(f'[store]\npath = "store"\n[listener]\nport = 0\n{listener}'
                        f'[mail]\ngm_address = "{GM}"\n{toml}')
        self.config: DaemonConfig = load_config(path, env={})
        service = Service(Store(self.config.store),
                          replace(self.config.service_config(), password_cost=10))
        service.create_game(GAME, players, seed=seed)
        self.passwords = service.start_game(GAME, T0)
        self.clock = Clock()
        self.daemon = Daemon(self.config, clock=self.clock)
        self.daemon.run_once()

    def deliver(self, raw: bytes, envelope_from: str = "relay@example.net") -> None:
        """Store a mail as the SMTP listener does (not a bounce: a sender is given)."""
        self.daemon.deliver_smtp(raw, envelope_from, ["pbem@localhost"])

    def run(self) -> None:
        self.daemon.run_once()

    def orders(self, n: int, player: str, body: str, *, password: str | None = None,
               address: str | None = None) -> bytes:
        """Give order mail number ``n`` of ``player`` (Message-ID <order-n@example.org>)."""
        sender = address or f"{player.lower()}@example.org"
        secret = self.passwords[player] if password is None else password
        return (f"From: {player} <{sender}>\r\nTo: pbem@localhost\r\nSubject: orders {n}\r\n"
                f"Message-ID: <order-{n}@example.org>\r\n\r\n"
                f"GAME {GAME} PLAYER {player} PASSWORD {secret}\r\n{body}\r\nEND\r\n").encode()

    def state(self) -> GameState:
        return Service(Store(self.config.store)).state(GAME)

    def mails(self) -> dict[str, list[email.message.EmailMessage]]:
        """Every mail delivered so far, by address."""
        found: dict[str, list[email.message.EmailMessage]] = {}
        root = self.config.maildir
        for folder in sorted(root.iterdir()) if root.is_dir() else []:
            if (folder / "new").is_dir():
                found[folder.name] = [_parse(p.read_bytes())
                                      for p in sorted((folder / "new").iterdir())]
        return found

    def text_to(self, address: str) -> list[str]:
        """The plain text of every mail delivered to ``address``."""
        texts = []
        for message in self.mails().get(address, []):
            body = message.get_body(("plain",))
            assert body is not None
            texts.append(str(body.get_content()))
        return texts


def _parse(raw: bytes) -> email.message.EmailMessage:
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, email.message.EmailMessage)
    return message


@contextmanager
def serving(daemon: Daemon) -> Iterator[int]:
    """Run ``daemon.serve()`` on a thread; give its listener's port; stop it afterwards."""
    ready = threading.Event()
    thread = threading.Thread(target=daemon.serve, kwargs={"ready": ready.set})
    thread.start()
    try:
        assert ready.wait(30), "the daemon did not start"
        assert daemon.listener_port
        yield daemon.listener_port
    finally:
        daemon.request_stop()
        thread.join(30)
    assert not thread.is_alive(), "the daemon did not stop"
