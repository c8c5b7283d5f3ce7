"""Benchmark: inbound mails parsed per second over the golden corpus, repeated.

Run ``.venv/bin/python bench/parse.py``; it prints one JSON line. Mails the parser refuses
(over-size, no orders) count too: refusing is work the intake does as well.
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path

from pbem.errors import MailFormatError
from pbem.mail.inbound import parse_mail

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "mails"


def run(seconds: float = 2.0) -> dict[str, object]:
    """Give the parse rate over the golden mails, measured for about ``seconds``."""
    mails = [path.read_bytes() for path in sorted(CORPUS.glob("*.eml"))]
    if not mails:
        raise FileNotFoundError(f"no golden mails (*.eml) in {CORPUS}")
    parsed = 0
    started = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        for raw in mails:
            with contextlib.suppress(MailFormatError):
                parse_mail(raw)
        parsed += len(mails)
        elapsed = time.perf_counter() - started
    return {"bench": "parse", "mails_per_second": round(parsed / elapsed)}


if __name__ == "__main__":
    print(json.dumps(run()))
