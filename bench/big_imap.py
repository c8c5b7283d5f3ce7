"""Bench: big mail over IMAP (issue 44, point 4): the daemon's memory when mails far over the
size limit wait in its IMAP folder, and how long the order after them waits.

Run: ``.venv/bin/python bench/big_imap.py [--mails 10] [--mib 20]`` (prints one JSON
object). A private Dovecot (tests/servers.py) holds ``--mails`` mails of ``--mib`` MiB each
from Alice, then one order mail of Bob's; one pass of a real daemon (``Daemon.run_once``, in
a process of its own, mail out into Maildirs) takes them. Figures: the pass's peak resident
memory (``VmHWM``; ``ru_maxrss`` would count the bench's own, inherited), its seconds, the
mails filed as failed and done on the server, and whether Bob's order was answered. Before
issue 44's fix each big mail was fetched whole (25 of 20 MB: 2.1 GB); now its RFC822.SIZE
is read first and only its head is fetched.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from servers import Dovecot  # noqa: E402

_PASS = textwrap.dedent("""
    import json, sys, time
    from pathlib import Path
    from pbem.daemon.config import load_config
    from pbem.daemon.server import Daemon
    config = load_config(Path(sys.argv[1]), env={})
    began = time.monotonic()
    done = Daemon(config).run_once()
    print(json.dumps({"processed": done.processed, "problems": list(done.problems),
                      "seconds": round(time.monotonic() - began, 2),
                      "peak_rss_mib": round(int(next(
                          line.split()[1] for line in open("/proc/self/status")
                          if line.startswith("VmHWM:"))) / 1024, 1)}))
""")


def _mail(n: int, sender: str, body: str) -> bytes:
    return (f"From: {sender}\r\nTo: game@pbem.test\r\nSubject: orders\r\n"
            f"Message-ID: <big-{n}@example.org>\r\n\r\n{body}\r\n").encode()


def run(mails: int = 10, mib: int = 20) -> dict[str, Any]:
    from pbem.daemon.config import load_config
    from pbem.service.service import Service
    from pbem.store import Store

    dovecot = Dovecot(tls=False)
    try:
        dovecot.start()
        account = dovecot.add_user()
        with tempfile.TemporaryDirectory(prefix="pbem-big-") as temp:
            root = Path(temp)
            (root / "pbem.toml").write_text(f"""[store]
path = "store"
[mail]
address = "game@pbem.test"
gm_address = "gm@example.org"
[imap]
host = "127.0.0.1"
port = {dovecot.imap_port}
security = "plain"
username = "{account.username}"
password = "{account.password}"
answer_earlier_mail = true
[maildir]
path = "maildirs"
""")
            config = load_config(root / "pbem.toml", env={})
            service = Service(Store(config.store), config.service_config())
            service.create_game("g1", [("Alice", "alice@example.org", ""),
                                       ("Bob", "bob@example.org", ""),
                                       ("Carol", "carol@example.org", "")], seed="5eed" * 16)
            from datetime import UTC, datetime
            passwords = service.start_game("g1", datetime.now(UTC))
            line = "# " + "x" * 998 + "\r\n"
            big_body = (f"GAME g1 PLAYER Alice PASSWORD {passwords['Alice']}\r\nSTATUS\r\n"
                        + line * (mib * 1024 * 1024 // len(line)) + "END")
            with dovecot.client(account) as client:
                for n in range(mails):
                    client.append("INBOX", _mail(n, "alice@example.org", big_body))
                client.append("INBOX", _mail(mails, "bob@example.org",
                                             f"GAME g1 PLAYER Bob PASSWORD "
                                             f"{passwords['Bob']}\r\nSTATUS\r\nEND"))
            del big_body
            outcome = subprocess.run([sys.executable, "-c", _PASS, str(root / "pbem.toml")],
                                     capture_output=True, text=True, check=False,
                                     env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
            if outcome.returncode != 0:
                raise RuntimeError(f"the daemon's pass failed: {outcome.stderr[-2000:]}")
            figures = json.loads(outcome.stdout.strip().splitlines()[-1])
            bob = root / "maildirs" / "bob@example.org" / "new"
            answered = any(b"<big-%d@example.org>" % mails in path.read_bytes()
                           for path in bob.iterdir()) if bob.is_dir() else False
            return {"bench": "big_imap", "mails": mails, "mib_each": mib, **figures,
                    "failed_on_server": len(dovecot.messages(account, "pbem-failed")),
                    "done_on_server": len(dovecot.messages(account, "pbem-done")),
                    "small_order_answered": answered}
    finally:
        dovecot.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mails", type=int, default=10)
    parser.add_argument("--mib", type=int, default=20)
    arguments = parser.parse_args()
    print(json.dumps(run(arguments.mails, arguments.mib)))
