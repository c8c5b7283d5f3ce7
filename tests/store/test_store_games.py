"""The store's list of games, read once while it does not change; file stamps; the due index.

Routing a mail names its game; with many games the index file is big, so the store keeps
what it read and reads it again only when the file changed (in this process or another).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pbem.errors import StoreError
from pbem.store import Store, file_stamp
from pbem.store import games as games_module
from pbem.store import games as store_games
from pbem.store.tinyfile import TinyFile


@pytest.fixture
def no_margin(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files count as stamped as soon as written (the margin guards coarse clocks)."""
    monkeypatch.setattr(store_games, "STAMP_MARGIN", 0.0)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The store files the games module reads from now on (TinyDB files), in order."""
    read: list[Path] = []
    real = TinyFile

    def counting(path: Path) -> TinyFile:
        read.append(path)
        return real(path)

    monkeypatch.setattr(games_module, "TinyFile", counting)
    return read


def created(root: Path, *game_ids: str) -> Store:
    store = Store(root)
    with store.lock():
        for game_id in game_ids:
            store.create_game(game_id, {})
    return store


def test_a_game_is_found_by_its_name_in_any_letter_case(tmp_path: Path) -> None:
    """Players write the game's name as they like: ILLU1 and Illu1 both name illu1."""
    store = created(tmp_path, "illu1", "Other.Game")
    assert store.game_named("ILLU1") == "illu1"
    assert store.game_named("other.game") == "Other.Game"
    assert store.game_named("illu2") is None


def test_the_newest_of_two_games_differing_in_case_gets_the_mail(tmp_path: Path) -> None:
    """As the routing always did: the later game of the index wins a case-blind name."""
    store = created(tmp_path, "illu", "ILLU")
    assert store.game_named("Illu") == "ILLU"
    assert store.games() == ["illu", "ILLU"]


def test_the_index_file_is_read_once_while_it_does_not_change(
        tmp_path: Path, no_margin: None, reads: list[Path]) -> None:
    """Many lookups, one read; creating a game makes the next lookup read it again."""
    store = created(tmp_path, "g1", "g2")
    reads.clear()
    for _ in range(5):
        assert store.games() == ["g1", "g2"] and store.game_named("G2") == "g2"
    assert [p.name for p in reads] == ["index.json"]
    with store.lock():
        store.create_game("g3", {})
    reads.clear()
    assert store.game_named("g3") == "g3" and store.games() == ["g1", "g2", "g3"]
    assert [p.name for p in reads if p.name == "index.json"] == ["index.json"]


def test_a_game_created_by_another_process_is_routed_at_once(
        tmp_path: Path, no_margin: None) -> None:
    """The GM's command line creates a game while the daemon runs: the daemon's store
    object, which read the index before, finds the new game on the next mail."""
    daemon = created(tmp_path, "g1")
    assert daemon.game_named("g2") is None
    created(tmp_path, "g2")  # another Store object: the daemon's cache is not told
    assert daemon.game_named("g2") == "g2"
    assert daemon.games() == ["g1", "g2"]


def test_the_index_just_written_is_read_once_per_lock_hold(
        tmp_path: Path, reads: list[Path]) -> None:
    """A game just created has no stamp yet (its index file is too new to tell a later
    change apart), but while the lock is held only the holder writes the index: mails
    routed during one hold read it once. Once the lock goes, a game another process
    creates is found on the next mail."""
    store = created(tmp_path, "g1")
    reads.clear()
    with store.lock():
        for _ in range(5):
            assert store.game_named("G1") == "g1" and store.game_named("g2") is None
    assert [p.name for p in reads] == ["index.json"]
    created(tmp_path, "g2")  # another Store object, between two lock holds
    with store.lock():
        assert store.game_named("g2") == "g2"


def test_a_file_just_written_has_no_stamp_yet(tmp_path: Path) -> None:
    """Within the margin a later change might bear the same times: no stamp is given."""
    path = tmp_path / "f.json"
    path.write_text("{}")
    assert file_stamp(path) is None
    assert file_stamp(tmp_path / "missing.json") is None


def test_a_stamp_changes_when_the_file_is_replaced_by_one_of_the_same_size(
        tmp_path: Path, no_margin: None) -> None:
    """The store replaces files whole (a rename): the stamp tells even same-size
    contents apart, and stays the same while nothing is written."""
    path = tmp_path / "f.json"
    path.write_text('{"a": 1}')
    first = file_stamp(path)
    assert first is not None and file_stamp(path) == first
    temp = tmp_path / "f.json.tmp"
    temp.write_text('{"a": 2}')
    os.replace(temp, path)
    assert file_stamp(path) not in (None, first)


def test_a_game_stamp_changes_with_each_commit(tmp_path: Path, no_margin: None) -> None:
    """Every commit rewrites the game's hot file, so its stamp changes."""
    store = created(tmp_path, "g1")
    before = store.game_stamp("g1")
    with store.lock():
        store.commit("g1", log_entries=[{"n": 1}], snapshot={"x": 1})
    after = store.game_stamp("g1")
    assert before is not None and after is not None and after != before
    with store.lock():
        store.commit("g1", log_entries=[], snapshot={"x": 2})
    assert store.game_stamp("g1") not in (None, after)


def test_the_due_index_is_kept_and_a_damaged_one_is_empty(tmp_path: Path) -> None:
    """What the tick notes is read back as written; a damaged file costs only time."""
    store = Store(tmp_path)
    assert store.due_index() == {}
    with pytest.raises(StoreError, match="lock"):
        store.set_due_index({"g1": {"due": None}})
    with store.lock():
        store.set_due_index({"g1": {"stamp": [1, 2, 3, 4], "due": None}})
    assert store.due_index() == {"g1": {"stamp": [1, 2, 3, 4], "due": None}}
    (tmp_path / "due.json").write_text("{not json")
    assert store.due_index() == {}
    (tmp_path / "due.json").write_text("[1, 2]")
    assert store.due_index() == {}
