"""The store's lock is shared fairly (issue 43, point 6): a process that takes it round
after round (the daemon, bots answering bots) lets in a command of the game master that
polls for it, between two rounds, rather than starve it for a whole game."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from pbem.store import Store


def test_a_poller_gets_the_lock_between_the_rounds_of_a_busy_taker(tmp_path: Path) -> None:
    """One thread takes the lock (blocking, as the daemon does) for 0.1 s at a time, again
    and again, for 8 s; another polls for it with a 4 s wait, as `pbem` does (--wait). It gets
    it (before, the taker won nearly every release: the poller tries only every 20 ms)."""
    Store(tmp_path / "store")  # the layout
    stop = threading.Event()
    rounds = [0]

    def busy() -> None:
        store = Store(tmp_path / "store")
        until = time.monotonic() + 8
        while not stop.is_set() and time.monotonic() < until:
            with store.lock():
                rounds[0] += 1
                time.sleep(0.1)

    taker = threading.Thread(target=busy)
    taker.start()
    try:
        while rounds[0] < 2:  # the taker is at work
            time.sleep(0.01)
        poller = Store(tmp_path / "store")
        with poller.lock(timeout=4):
            got_at = rounds[0]
    finally:
        stop.set()
        taker.join()
    assert got_at >= 2
    assert not (tmp_path / "store" / "lock.waiting").exists()
