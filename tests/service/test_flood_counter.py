"""The per-sender flood counter forgets senders (issue 21, point 8): its memory stays
bounded however many addresses mail, each once."""

from __future__ import annotations

import tracemalloc
from datetime import timedelta

from clocks import T0

from pbem.service.postmaster import Postmaster
from pbem.service.settings import MailIdentity
from pbem.store.memory import MemoryStore

SENDERS = 200_000


def test_two_hundred_thousand_senders_cost_bounded_memory() -> None:
    """200,000 senders, one mail each over four hours (one every 72 ms): the counter keeps
    the last hour's at most, and never more than its bound (main kept all 200,000: 47 MB);
    a sender over the limit is still caught."""
    postmaster = Postmaster(MemoryStore(), MailIdentity(), mails_per_hour=3)
    step = timedelta(hours=4) / SENDERS
    tracemalloc.start()
    try:
        for n in range(SENDERS):
            postmaster.flooding(f"sender{n}@example.net", T0 + n * step)
        kept, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    print(f"{SENDERS} senders: the flood counter holds {kept / 2**20:.1f} MB")
    assert kept < 8 * 2**20
    end = T0 + SENDERS * step
    assert [postmaster.flooding("eve@example.net", end) for _ in range(4)] == [
        False, False, False, True]
