"""The wake pipe between the game master's commands and the daemon (pbem.daemon.wakeup)."""

from __future__ import annotations

import threading
from pathlib import Path

from pbem.daemon.wakeup import WakeListener, poke, wake_path


def test_a_poke_wakes_the_listener_and_is_lost_harmlessly_without_one(tmp_path: Path) -> None:
    store = tmp_path / "store"
    assert not poke(store)  # no daemon ever ran: nothing to wake, no error
    woken = threading.Event()
    listener = WakeListener(store, woken.set)
    listener.start()
    try:
        assert wake_path(store).stat().st_mode & 0o777 == 0o600
        for _ in range(3):
            woken.clear()
            assert poke(store)
            assert woken.wait(10)
    finally:
        listener.stop()
    assert not poke(store)  # the pipe stays, but nobody reads it: ENXIO, no wait


def test_a_file_in_the_pipes_place_is_replaced(tmp_path: Path) -> None:
    path = wake_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text("not a pipe")
    woken = threading.Event()
    listener = WakeListener(tmp_path, woken.set)
    listener.start()
    try:
        assert poke(tmp_path) and woken.wait(10)
    finally:
        listener.stop()
