"""The store holds players' addresses (``sent.log``, the hot files, received mail): under a
umask of 022, which would leave files world-readable, a real daemon's store is still its
owner's only, every file 0600 and every folder 0700."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from robust_kit import config, new_game, new_port, order, running_daemon, send, wait_settled
from robust_kit import write_config as configure


@pytest.fixture
def open_umask() -> Iterator[None]:
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def test_store_files_are_the_owners_only_under_umask_022(tmp_path: Path,
                                                          open_umask: None) -> None:
    store = tmp_path / "store"
    port = new_port()
    path = configure(tmp_path, store, port=port)
    passwords = new_game(config(path), "modes")
    with running_daemon(path, port, tmp_path / "daemon.log"):  # inherits the umask
        for n, player in enumerate(sorted(passwords)):
            assert send(port, order(f"modes-{n}", "modes", player, passwords[player])) == 250
        assert wait_settled(store)
    looked = 0
    wide = []
    for folder, dirs, files in os.walk(store):
        for name in dirs:
            looked += 1
            if stat.S_IMODE((Path(folder) / name).stat().st_mode) != 0o700:
                wide.append(f"{folder}/{name}/")
        for name in files:
            looked += 1
            if stat.S_IMODE((Path(folder) / name).stat().st_mode) & 0o077:
                wide.append(f"{folder}/{name}")
    assert stat.S_IMODE(store.stat().st_mode) == 0o700
    assert looked > 20 and any(store.glob("games/*/sent.log"))
    assert wide == []
