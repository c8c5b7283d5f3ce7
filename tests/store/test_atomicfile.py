"""Crash-safe writes: several files written together, each whole or not at all."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from pbem.atomicfile import TEMP_SUFFIX, temp_files, write_many_atomic


def test_files_written_together_are_all_replaced(tmp_path: Path) -> None:
    """Every file of the group gets its new bytes; a file that existed is replaced."""
    (tmp_path / "b").mkdir()
    old = tmp_path / "a.json"
    old.write_bytes(b"old")
    write_many_atomic([(old, b"new"), (tmp_path / "b" / "c.eml", b"mail")])
    assert old.read_bytes() == b"new"
    assert (tmp_path / "b" / "c.eml").read_bytes() == b"mail"
    assert list(temp_files(tmp_path)) == []


def test_a_group_that_fails_changes_nothing_and_leaves_no_litter(tmp_path: Path) -> None:
    """A failure before the renames (here: a folder that is not there) leaves every target
    as it was and removes the temp files already written."""
    first = tmp_path / "a.json"
    first.write_bytes(b"old")
    with pytest.raises(FileNotFoundError):
        write_many_atomic([(first, b"new"), (tmp_path / "missing" / "b.json", b"x")])
    assert first.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]


def test_recent_temp_files_are_not_litter_yet(tmp_path: Path) -> None:
    """temp_files(older_than=...) skips a temp file a writer may still be writing."""
    old, young = tmp_path / f".a.1{TEMP_SUFFIX}", tmp_path / f".b.2{TEMP_SUFFIX}"
    old.write_bytes(b"")
    young.write_bytes(b"")
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    assert list(temp_files(tmp_path, older_than=600)) == [old]
    assert sorted(temp_files(tmp_path)) == [old, young]
    # Under the folders whose writers are gone, a young one is litter at once, however
    # deep; elsewhere the age rule holds, however deep.
    for sub in ("locked/deep", "free/deep"):
        (tmp_path / sub).mkdir(parents=True)
    locked = tmp_path / "locked" / "deep" / f".c.3{TEMP_SUFFIX}"
    locked.write_bytes(b"")
    (tmp_path / "free" / "deep" / f".d.4{TEMP_SUFFIX}").write_bytes(b"")
    assert sorted(temp_files(tmp_path, older_than=600, young_in=[tmp_path / "locked"])) \
        == [old, locked]
