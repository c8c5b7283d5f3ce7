"""What the tests of several daemons sharing one address space share (deploy/SCALING.md):
games on a daemon's store, players writing order mails to each game's own address, the
``pbem`` commands run as the game master runs them, and what reached the players."""

from __future__ import annotations

import email.parser
import email.policy
import json
import os
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from support import REPO

from pbem.daemon.config import DaemonConfig
from pbem.service.service import Service
from pbem.store import Store

DOMAIN = "games.test"
PLAYERS = (("Alice", "alice@example.org", ""), ("Bob", "bob@example.org", ""),
           ("Carol", "carol@example.org", ""))
ORDERS = ("STANDING LIST", "SET HTML OFF", "STATUS", "SET HTML ON")
HEADERS = email.parser.BytesHeaderParser(policy=email.policy.default)


def new_game(config: DaemonConfig, game: str) -> dict[str, str]:
    """Create and start a game on the configured store; give the players' passwords (their
    hashes made cheap: their cost is not under test)."""
    service = Service(Store(config.store), replace(config.service_config(), password_cost=10))
    service.create_game(game, PLAYERS, seed="5eed" * 8)
    return service.start_game(game, datetime.now(UTC))


def pbem(folder: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """Run a ``pbem`` command on ``folder/pbem.toml``, as the game master does."""
    return subprocess.run(
        [sys.executable, "-c", "from pbem.cli.main import main; main()", *arguments, "--config",
         str(folder / "pbem.toml")], env=dict(os.environ, PYTHONPATH=str(REPO)),
        capture_output=True, text=True, timeout=120, check=False)


Send = Callable[[str, str, bytes], None]
"""Sends a mail (envelope sender, game, raw) to the game's own address, pbem+GAME@."""


class Players:
    """The players of the games, writing order mails to each game's own address through
    ``send``; ``sent`` keeps each order's Message-ID by game."""

    def __init__(self, send: Send, passwords: dict[str, dict[str, str]]) -> None:
        self._send, self._passwords = send, passwords
        self.sent: dict[str, list[str]] = {game: [] for game in passwords}
        self.raws: dict[str, bytes] = {}  # each order mail by its Message-ID
        self._n = 0

    def write(self, game: str) -> None:
        self._n += 1
        player = PLAYERS[self._n % 3][0]
        address = f"{player.lower()}@example.org"
        message_id = f"<order-{game}-{self._n}@example.org>"
        raw = (f"From: {player} <{address}>\r\nTo: pbem+{game}@{DOMAIN}\r\n"
               f"Subject: orders {self._n}\r\nMessage-ID: {message_id}\r\n\r\n"
               f"GAME {game} PLAYER {player} PASSWORD {self._passwords[game][player]}\r\n"
               f"{ORDERS[self._n % len(ORDERS)]}\r\nEND\r\n").encode()
        self._send(address, game, raw)
        self.sent[game].append(message_id)
        self.raws[message_id] = raw

    def send_again(self, game: str, message_id: str) -> bytes:
        """Send an order mail again, the very same (a mail server's second delivery)."""
        raw = self.raws[message_id]
        self._send(str(HEADERS.parsebytes(raw)["From"].addresses[0].addr_spec), game, raw)
        return raw


def sent_ids(store: Path) -> list[str]:
    """Give the Message-IDs of the mails a store marked sent, its games moved out too."""
    return [json.loads(line)["message_id"]
            for path in [*store.glob("games/*/sent.log"), *store.glob("moved/*/game/sent.log")]
            for line in path.read_bytes().splitlines()]


def mailboxes(root: Path) -> list[tuple[str, str, str]]:
    """Give (From, In-Reply-To, Message-ID) of every mail delivered into the players'
    Maildirs."""
    return [(str(h["From"]), str(h["In-Reply-To"] or ""), str(h["Message-ID"]))
            for path in root.glob("*/new/*")
            for h in [HEADERS.parsebytes(path.read_bytes())]]


@contextmanager
def writing(players: Players, games: Sequence[str]) -> Iterator[None]:
    """The players keep writing to ``games`` meanwhile (a mail to each every 0.1 s)."""
    stopping = threading.Event()

    def keep_writing() -> None:
        while not stopping.wait(0.1):
            for game in games:
                players.write(game)

    writer = threading.Thread(target=keep_writing)
    writer.start()
    try:
        yield
    finally:
        stopping.set()
        writer.join(60)


def check_each_order_once(players: Players, boxes: Path, stores: dict[str, Path],
                          steps_at_start: int) -> None:
    """Every order was answered once; every mail the stores marked sent is in a mailbox,
    none twice; each game's step count (in its store, ``stores``) grew by exactly the orders
    sent to it."""
    delivered = mailboxes(boxes)
    answers = Counter(in_reply_to for _, in_reply_to, _ in delivered if in_reply_to)
    for game, ids in players.sent.items():
        assert {i: answers[i] for i in ids} == dict.fromkeys(ids, 1), game
    marked = [m for store in sorted(set(stores.values())) for m in sent_ids(store)]
    assert len(marked) == len(set(marked))
    assert sorted(marked) == sorted(message_id for _, _, message_id in delivered)
    for game, store in stores.items():
        record = Service(Store(store)).service_record(game)
        assert record.steps == steps_at_start + len(players.sent[game]), game
