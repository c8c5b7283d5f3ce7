"""Raw mail transport rates on loopback, the yardstick for the daemon's pipeline bench.

Measures, each over ``n`` mails: IMAP APPEND and LMTP delivery into a private Dovecot;
fetching and moving them with ImapIntake (deliver does nothing); SmtpSender into an
aiosmtpd catcher on one connection; smtplib into SmtpListener (deliver does nothing).

    .venv/bin/python bench/transport.py [n]     # prints JSON
"""

from __future__ import annotations

import json
import random
import smtplib
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from servers import Dovecot, SmtpCatcher

from pbem.transport.imap import ImapConfig, ImapIntake, JsonFileCursor
from pbem.transport.listener import SmtpListener
from pbem.transport.sender import SmtpSender


def _mail(n: int, body_lines: int = 20) -> bytes:
    body = "".join(f"line {i} of the orders for turn {n}\r\n" for i in range(body_lines))
    return (
        f"From: player{n % 5}@example.org\r\nTo: game@pbem.test\r\nSubject: turn {n}\r\n"
        f"Message-ID: <bench{n}@example.org>\r\n\r\n{body}"
    ).encode()


def _timed(count: int, action: Callable[[], object]) -> dict[str, float]:
    started = time.perf_counter()
    action()
    seconds = time.perf_counter() - started
    return {"mails": count, "seconds": round(seconds, 4), "per_second": round(count / seconds, 1)}


def run(n: int = 500) -> dict[str, dict[str, float]]:
    """Give the rate of each transport step for ``n`` mails."""
    mails = [_mail(i) for i in range(n)]
    results: dict[str, dict[str, float]] = {}
    dovecot = Dovecot(tls=False)
    try:
        dovecot.start()
        account = dovecot.add_user()

        def append_all() -> None:
            with dovecot.client(account) as client:
                for raw in mails:
                    client.append("INBOX", raw)

        def lmtp_all() -> None:
            with smtplib.LMTP("127.0.0.1", dovecot.lmtp_port, local_hostname="bench") as lmtp:
                for raw in mails:
                    lmtp.sendmail("sender@example.org", [account.username], raw)

        results["imap_append"] = _timed(n, append_all)
        results["lmtp_deliver"] = _timed(n, lmtp_all)
        with tempfile.TemporaryDirectory() as state:
            intake = ImapIntake(
                ImapConfig(
                    "127.0.0.1", dovecot.imap_port, account.username, account.password, "plain"
                ),
                lambda raw: None,
                JsonFileCursor(Path(state) / "cursor.json"),
                rng=random.Random(0),
            )
            handled: list[int] = []
            try:
                results["imap_fetch_and_move"] = _timed(
                    2 * n, lambda: handled.append(intake.fetch_new())
                )
            finally:
                intake.close()
            if handled != [2 * n]:
                raise RuntimeError(f"intake handled {handled}, expected {2 * n}")
    finally:
        dovecot.remove()

    catcher = SmtpCatcher().start()
    try:
        with SmtpSender("127.0.0.1", catcher.port, "plain") as sender:
            results["smtp_send"] = _timed(
                n,
                lambda: [sender.send("p@example.org", raw, envelope_from="g@x") for raw in mails],
            )
        catcher.wait_for(n)
    finally:
        catcher.stop()

    with SmtpListener(lambda raw, sender, rcpts: None, port=0) as listener:

        def listen_all() -> None:
            with smtplib.SMTP("127.0.0.1", listener.port, local_hostname="bench") as smtp:
                for raw in mails:
                    smtp.sendmail("p@example.org", ["game@pbem.test"], raw)

        results["smtp_listener_receive"] = _timed(n, listen_all)
    return results


if __name__ == "__main__":
    print(json.dumps(run(int(sys.argv[1]) if len(sys.argv) > 1 else 500), indent=2))
