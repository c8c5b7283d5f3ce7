"""`pbem export --move` and `pbem import` without a daemon: the game leaves one store whole
and comes into another as it was; a plain export, or an id the store has, is refused."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from pbem.cli.gm import cli
from pbem.service.service import Service
from pbem.store import Departure, Store

NOW = "2024-05-01T12:00:00+00:00"


def pbem(store: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, [*args, "--store", str(store), "--now", NOW, "--wait", "5"],
                              catch_exceptions=False)


def started(store: Path) -> None:
    created = pbem(store, "game", "create", "g1", "--player", "ann=ann@example.org",
                   "--player", "bob=bob@example.org", "--player", "cy=cy@example.org")
    assert created.exit_code == 0, created.output
    assert pbem(store, "game", "start", "g1").exit_code == 0


def test_a_game_moves_whole_and_keeps_its_passwords(tmp_path: Path) -> None:
    a, b, moved = tmp_path / "a", tmp_path / "b", tmp_path / "g1.json"
    started(a)
    before = Service(Store(a))
    record, log = before.service_record("g1"), list(before.store.log("g1"))
    # Its welcomes wait in the outbox: nobody sends them here, so the move cannot finish.
    waited = pbem(a, "export", "g1", "--move", "-o", str(moved), "--wait", "0")
    assert waited.exit_code == 1 and "mail(s) to send" in waited.output
    assert "g1" in Store(a).games() and not Store(a).retired("g1")  # it stays, mail flows
    store_a = Store(a)
    for item in store_a.outbox():
        store_a.mark_sent(item, sent_at=NOW)
    assert pbem(a, "export", "g1", "--move", "-o", str(moved)).exit_code == 0
    assert "g1" not in Store(a).games()
    assert Store(a).retired("G1")  # its address's mail is held from now on
    assert (a / "moved" / "g1" / "game" / "hot.json").exists()
    # The game master still sees it (issue 43.2): listed, and said where it went.
    assert "g1: moved to another store." in pbem(a, "games").output
    assert "g1 moved to another store" in pbem(a, "game", "show", "g1").output
    imported = pbem(b, "import", str(moved))
    assert imported.exit_code == 0, imported.output
    after = Service(Store(b))
    assert after.service_record("g1") == record  # the password hashes too
    assert list(after.store.log("g1")) == log
    again = pbem(b, "import", str(moved))
    assert again.exit_code == 1 and "exists already" in again.output


def test_a_plain_export_is_not_imported(tmp_path: Path) -> None:
    started(tmp_path / "a")
    exported = tmp_path / "g1.json"
    assert pbem(tmp_path / "a", "export", "g1", "-o", str(exported)).exit_code == 0
    assert "password_hash" not in exported.read_text()
    refused = pbem(tmp_path / "b", "import", str(exported))
    assert refused.exit_code == 1 and "lacks the players' passwords" in refused.output
    assert json.loads(exported.read_text())["game"] == "g1"
    assert "g1" in Store(tmp_path / "a").games()  # a plain export moves nothing


def test_the_folder_a_game_moves_to_is_kept_with_its_move(tmp_path: Path) -> None:
    """--to-folder (for a daemon reading IMAP) goes with --move, and names another folder
    than the daemon's own; it is kept in the game's move mark for the IMAP intake."""
    a = tmp_path / "a"
    started(a)
    store_a = Store(a)
    for item in store_a.outbox():
        store_a.mark_sent(item, sent_at=NOW)
    alone = pbem(a, "export", "g1", "--to-folder", "pbem-b")
    assert alone.exit_code == 2 and "goes with --move" in alone.output
    config = tmp_path / "a.toml"
    config.write_text(f'[store]\npath = "{a}"\n[imap]\nhost = "127.0.0.1"\n'
                      'username = "u"\npassword = "p"\nfolder = "pbem-a"\n')
    own = CliRunner().invoke(cli, ["export", "g1", "--move", "--to-folder", "pbem-a", "-o",
                                   str(tmp_path / "g1.json"), "--config", str(config)])
    assert own.exit_code == 2 and "own folder" in own.output
    moved = pbem(a, "export", "g1", "--move", "--to-folder", "pbem-b", "-o",
                 str(tmp_path / "g1.json"))
    assert moved.exit_code == 0, moved.output
    assert Store(a).departure("g1") == Departure("g1", gone=True, to_folder="pbem-b")
