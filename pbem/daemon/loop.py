"""The loop each part of the daemon runs: work, then wait what the work said or until woken."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from pbem.transport.backoff import backoff_delay

log = logging.getLogger("pbem.daemon.server")

# After a failure of a loop itself (not of one mail), wait this long, doubling.
_LOOP_RETRY_BASE, _LOOP_RETRY_CAP = 1.0, 300.0
MAX_WAIT = 60.0
"""The longest a loop sleeps with nothing due: a bound, not a schedule."""


def run_loop(work: Callable[[], float], wake: threading.Event, stop: threading.Event,
             what: str) -> None:
    """Run ``work`` until ``stop`` is set, waiting the seconds it gives or until ``wake`` is
    set; a failure waits longer each time it repeats."""
    failures = 0
    while not stop.is_set():
        wake.clear()
        try:
            wait = work()
            failures = 0
        except Exception:  # the daemon must outlive any one failure
            failures += 1
            wait = backoff_delay(failures, base=_LOOP_RETRY_BASE, cap=_LOOP_RETRY_CAP)
            log.exception("%s failed; trying again in %.0f s", what, wait)
        if not stop.is_set():  # the stop's wake may have been taken by the work
            wake.wait(wait)
