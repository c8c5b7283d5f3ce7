"""A game created and never started (issue 18.14): it can be deleted, a started one cannot;
replacing one of its seats mails nobody, since nobody has heard of the game yet."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner, Result

from pbem.cli.gm import cli
from pbem.service.gm import delete_game
from pbem.service.service import Service
from pbem.store import Store
from pbem.store.memory import MemoryStore

NOW = "2024-05-01T12:00:00+00:00"
PLAYERS = ("ann=ann@example.org:Bavarian", "bob=bob@example.org:Gnomes")


def run(store: Path, *args: str, code: int = 0) -> Result:
    result = CliRunner().invoke(cli, [*args, "--store", str(store), "--now", NOW],
                                catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


def create(store: Path, game: str) -> None:
    run(store, "game", "create", game, *(a for p in PLAYERS for a in ("--player", p)))


def test_a_game_never_started_is_deleted_and_its_id_is_free_again(tmp_path: Path) -> None:
    store = tmp_path / "s"
    create(store, "g")
    create(store, "h")
    result = run(store, "game", "delete", "G", "--yes")  # any case names it
    assert "Deleted g" in result.output
    assert "g" not in Store(store).games() and "h" in Store(store).games()
    assert not (store / "games" / "g").exists()
    assert Store(store).outbox() == []  # nobody was ever mailed
    create(store, "g")  # the id may be used again
    assert Store(store).games()[-2:] == ["h", "g"]


def test_a_started_game_is_not_deleted(tmp_path: Path) -> None:
    store = tmp_path / "s"
    create(store, "g")
    run(store, "game", "start", "g")
    result = run(store, "game", "delete", "g", "--yes", code=1)
    assert "has started" in result.output and "pbem end g" in result.output
    assert "g" in Store(store).games()


def test_the_memory_store_deletes_as_the_file_store_does() -> None:
    memory = MemoryStore()
    service = Service(memory)
    service.create_game("g", [("ann", "ann@example.org", ""), ("bob", "bob@example.org", "")],
                        now=datetime(2024, 5, 1, tzinfo=UTC))
    delete_game(service, "g")
    assert "g" not in memory.games()


def test_replacing_a_seat_before_the_start_mails_nobody(tmp_path: Path) -> None:
    store = tmp_path / "s"
    create(store, "g")
    run(store, "replace", "g", "bob", "--address", "bobby@example.org", "--name", "bobby")
    assert Store(store).outbox() == []
    run(store, "game", "start", "g")
    sent_to = {item.to for item in Store(store).outbox()}
    assert sent_to == {"ann@example.org", "bobby@example.org"}
