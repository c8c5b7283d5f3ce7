"""A daemon on a real store with one started game (``daemons.new_game``), for the tests of
mail from outside (tests/daemon/test_hostile_*.py): mails delivered as the SMTP listener
hands them over, processed by the daemon's own pass, answers read from its Maildirs."""

from __future__ import annotations

import email.message
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from clocks import Clock
from daemons import GAME, PLAYERS, configure, maildir, new_game, order_mail, serving

from pbem.daemon.config import DaemonConfig
from pbem.daemon.server import Daemon
from pbem.engine.state import GameState
from pbem.service.service import Service
from pbem.store import Store

GM = "gm@example.org"


class GameDaemon:
    """A daemon (its clock ``clock``) over ``folder``/store with game g1 started at T0; the
    listener on any free port, with more keys of its section in ``listener``; more
    sections in ``toml``."""

    def __init__(self, folder: Path, toml: str = "", *,
                 players: tuple[tuple[str, str, str], ...] = PLAYERS,
                 listener: str = "") -> None:
        self.config: DaemonConfig = configure(folder, f'[listener]\nport = 0\n{listener}'
                                              f'[mail]\ngm_address = "{GM}"\n{toml}')
        self.passwords = new_game(self.config, players=players)
        self.clock = Clock()
        self.daemon = Daemon(self.config, clock=self.clock)
        self.daemon.run_once()

    def deliver(self, raw: bytes, envelope_from: str = "relay@example.net") -> None:
        """Store a mail as the SMTP listener does (not a bounce: a sender is given)."""
        self.daemon.deliver_smtp(raw, envelope_from, ["pbem@localhost"])

    def run(self) -> None:
        self.daemon.run_once()

    def orders(self, n: int, player: str, body: str, *, password: str | None = None) -> bytes:
        """Give order mail number ``n`` of ``player`` (Message-ID <order-n@example.org>)."""
        return order_mail(n, player, self.passwords[player] if password is None else password,
                          body)

    def state(self) -> GameState:
        return Service(Store(self.config.store)).state(GAME)

    def mails(self) -> dict[str, list[email.message.EmailMessage]]:
        """Every mail delivered so far, by address."""
        return maildir(self.config.maildir)

    def text_to(self, address: str) -> list[str]:
        """The plain text of every mail delivered to ``address``."""
        texts = []
        for message in self.mails().get(address, []):
            body = message.get_body(("plain",))
            assert body is not None
            texts.append(str(body.get_content()))
        return texts

    def headlines(self, address: str) -> list[tuple[str, str]]:
        """(In-Reply-To, what the mail is about) of each mail to ``address``: its subject and
        the first line of its text (a game's mails share one subject, their thread's, and
        open with their own)."""
        found = []
        for message in self.mails().get(address, []):
            body = message.get_body(("plain",))
            first = str(body.get_content()).lstrip().split("\n", 1)[0] if body else ""
            found.append((str(message["In-Reply-To"] or ""), f"{message['Subject']} {first}"))
        return found

    @contextmanager
    def listening(self) -> Iterator[int]:
        """The daemon serving (listener, sending loop) on a thread: give its port."""
        with serving(self.daemon) as daemon:
            assert daemon.listener_port
            yield daemon.listener_port
