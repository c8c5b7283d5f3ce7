"""Retry delays: exponential backoff with a cap, and jitter from a generator passed in."""

from __future__ import annotations

import random


def backoff_delay(attempts: int, *, base: float, cap: float) -> float:
    """Give the delay before retry number ``attempts`` (1 = first retry): base·2^(n-1), capped.

    Deterministic, so a test or the outbox can state exactly when a retry is due.
    ``attempts`` below 1 gives 0: nothing has failed yet.
    """
    if attempts < 1:
        return 0.0
    # Compare exponents before computing the power so a large count cannot overflow a float.
    if attempts - 1 >= 64:
        return cap
    return float(min(cap, base * 2 ** (attempts - 1)))


def jittered(delay: float, rng: random.Random) -> float:
    """Give ``delay`` spread over [delay/2, delay] ("equal jitter").

    Many clients reconnecting after one outage would otherwise hit the server in step; half
    the delay stays fixed so a retry never comes sooner than half the backoff.
    """
    half = delay / 2
    return half + rng.uniform(0.0, half)
