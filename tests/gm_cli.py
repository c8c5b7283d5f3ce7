"""The game master's commands run with click's CliRunner against real stores on disk, and
what the tests read back from those stores.
"""

from __future__ import annotations

import email
from email.message import Message
from email.utils import parseaddr
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from stored_games import SEED
from titles import mail_title

from pbem.cli.gm import cli
from pbem.engine.codec import from_json
from pbem.engine.state import GameState
from pbem.service.model import GameService
from pbem.store import Store

START = "2024-05-01T12:00:00+00:00"
LATER = "2024-05-01T13:00:00+00:00"  # well before the first deadline
PAST_DEADLINE = "2024-05-05T12:00:00+00:00"  # the first orders deadline (72 h) has passed
PLAYERS = ("ann=ann@example.org:Bavarian", "bob=bob@example.org:Gnomes",
           "cy=cy@example.org:Network")


def run(store: Path, *args: str, now: str = LATER, code: int = 0,
        stdin: str | None = None) -> Result:
    """Run one command against ``store``; assert its exit code."""
    result = CliRunner().invoke(cli, [*args, "--store", str(store), "--now", now, "--wait",
                                      "5"], input=stdin, catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


def plain(text: str) -> str:
    """Text with the templates' no-break spaces ("40 MB") and line breaks as spaces."""
    return " ".join(text.replace("\xa0", " ").split())


def started_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding game g, started, its players ann, bob and cy (shared by the GM tests:
    each module makes it once, then each test works on a copy)."""
    store = tmp_path_factory.mktemp("started") / "store"
    run(store, "game", "create", "g", *(a for p in PLAYERS for a in ("--player", p)),
        "--seed", SEED, "--orders-hours", "72", now=START)
    run(store, "game", "start", "g", now=START)
    return store


def snapshot(store: Path, game: str = "g") -> tuple[GameState, GameService]:
    data = Store(store).snapshot(game)
    assert data is not None
    return from_json(GameState, data["state"]), from_json(GameService, data["service"])


def mails(store: Path) -> list[Message]:
    """Every mail queued in the store's outbox, oldest first."""
    return [email.message_from_bytes(item.raw) for item in Store(store).outbox()]


def to(message: Message) -> str:
    return parseaddr(str(message["To"]))[1]


def text_of(message: Message) -> str:
    for part in message.walk():
        if part.get_content_type() == "text/plain":
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            return payload.decode()
    raise AssertionError("no text part")


def gm_mails(store: Path) -> list[Message]:
    return [m for m in mails(store) if "From the game master" in mail_title(m)]


def assert_replays(store: Path, game: str = "g") -> None:
    result = run(store, "replay", game, "--check")
    assert "gives the snapshot exactly" in result.output
