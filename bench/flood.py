"""Bench: a flood of hostile mail against a real daemon, and what it costs everyone else
(issue 44, point 4): how long another game's STATUS waits for its answer meanwhile, and
the daemon's peak memory.

Run: ``.venv/bin/python bench/flood.py [--mails 10000] [--seconds 600] [--busy N]
[--dir FOLDER]`` (prints one JSON object). ``--busy N`` runs N processes that only spin
while the flood lasts (a machine shared with other work). ``--hold N`` sends the first N
flood mails while the bench holds the store's lock (the daemon's processing waits, as behind
a long command of the game master or a slow disk, while its listener stores on), then Dan's
first STATUS, and times that one from the lock's release (``behind_backlog_s``): what a
backlog of hostile mail costs another game (fair shares, ``pbem.service.fairness``).

The daemon is a real ``pbem run`` process (with its sending process) on 127.0.0.1, with two
started games: g1 (Alice, Bob, Carol) is flooded, g2 (Dan, Eve, Fay) is not. One SMTP client
sends ``--mails`` mails as fast as the listener takes them, of every hostile kind in turn:
forged strangers' lobby words (LIST, HELP, JOIN, OBSERVE, UNOBSERVE, TAKEOVER) and orders,
Alice's From with wrong passwords, unknown games, junk, and every hundredth a mail of
10,000 STATUS lines (80 KB). Meanwhile Dan sends a STATUS for g2 every ``--every`` seconds
and the bench times it, from the end of its SMTP transaction to the answer's file in his
Maildir. The flood stops at ``--mails`` or ``--seconds``, whichever comes first; the bench
then waits (bounded) for the daemon to drain its inbox and outbox.

Figures: mails sent and the time taken; Dan's answer delays (each, median, max; a STATUS
not answered when the bench ends counts as unanswered); the peak resident memory of the
daemon and of each of its processes (``VmHWM`` from /proc, read just before it is
stopped); the mails the daemon wrote, to whom (forged strangers, Alice, the game master).
"""

from __future__ import annotations

import argparse
import email
import email.policy
import json
import os
import smtplib
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pbem.daemon.config import load_config
from pbem.mail.address import maildir_folder
from pbem.service.service import Service
from pbem.store import Store

REPO = Path(__file__).resolve().parents[1]
SERVICE = "pbem@flood.example"
GM = "gm@flood.example"
STATUS_LINES = 10_000


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _build(root: Path) -> dict[str, str]:
    """The configuration and the two games; give each player's password."""
    port = _free_port()
    (root / "pbem.toml").write_text(
        f'[store]\npath = "store"\n[mail]\naddress = "{SERVICE}"\ngm_address = "{GM}"\n'
        f'[listener]\nport = {port}\n[maildir]\npath = "maildirs"\n')
    config = load_config(root / "pbem.toml", env={})
    service = Service(Store(config.store), replace(config.service_config(), password_cost=10))
    now = datetime.now(UTC)
    passwords: dict[str, str] = {}
    for game, names in (("g1", ("Alice", "Bob", "Carol")), ("g2", ("Dan", "Eve", "Fay"))):
        service.create_game(game, [(n, f"{n.lower()}@example.org", "") for n in names],
                            seed=("5eed" if game == "g1" else "feed") * 16)
        passwords |= service.start_game(game, now)
    return passwords


def _mail(sender: str, n: int, body: str) -> bytes:
    return (f"From: {sender}\r\nTo: {SERVICE}\r\nSubject: x\r\n"
            f"Message-ID: <flood-{n}@example.net>\r\n\r\n{body}\r\n").encode()


def _hostile(n: int) -> tuple[str, bytes]:
    """Flood mail number ``n``: (envelope sender, mail)."""
    stranger = f"victim{n}@example.net"
    kinds = [
        (stranger, "LIST"), (stranger, "HELP"), (stranger, "JOIN g1 AS Mallory"),
        (stranger, "OBSERVE g1"), (stranger, "UNOBSERVE g1"), (stranger, "TAKEOVER g1 Bob"),
        (stranger, "GAME g1 PLAYER Alice PASSWORD x\r\nSTATUS\r\nEND"),
        ("alice@example.org", f"GAME g1 PLAYER Alice PASSWORD guess{n}\r\nSTATUS\r\nEND"),
        (stranger, "GAME nosuch PLAYER X PASSWORD y\r\nSTATUS\r\nEND"),
        (stranger, "buy cheap watches"),
    ]
    if n % 100 == 99:
        return "alice@example.org", _mail("alice@example.org", n, "GAME g1 PLAYER Alice "
                                          "PASSWORD guess\r\n" + "STATUS\r\n" * STATUS_LINES
                                          + "END")
    sender, body = kinds[n % len(kinds)]
    return sender, _mail(sender, n, body)


class _Probe(threading.Thread):
    """Dan's STATUS for g2 every ``every`` seconds, each timed to its answer."""

    def __init__(self, port: int, password: str, box: Path, every: float) -> None:
        super().__init__(daemon=True)
        self.port, self.password, self.box, self.every = port, password, box, every
        self.stop = threading.Event()
        self.sent: dict[str, float] = {}  # Message-ID -> when its SMTP transaction ended
        self.answered: dict[str, float] = {}
        self._seen: set[str] = set()

    def send(self) -> str:
        """Send Dan's next STATUS; give its Message-ID."""
        message_id = f"<dan-{len(self.sent) + 1}@example.org>"
        raw = (f"From: Dan <dan@example.org>\r\nTo: {SERVICE}\r\nSubject: orders\r\n"
               f"Message-ID: {message_id}\r\n\r\nGAME g2 PLAYER Dan PASSWORD "
               f"{self.password}\r\nSTATUS\r\nEND\r\n").encode()
        with smtplib.SMTP("127.0.0.1", self.port, timeout=60) as smtp:
            smtp.sendmail("dan@example.org", [SERVICE], raw)
        self.sent[message_id] = time.monotonic()
        return message_id

    def run(self) -> None:
        while not self.stop.is_set():
            self.send()
            deadline = time.monotonic() + self.every
            while time.monotonic() < deadline and not self.stop.is_set():
                self.look()
                time.sleep(0.05)
        self.look()

    def look(self) -> None:
        """Note the answers newly in Dan's Maildir (the file's time, on the same clock)."""
        new = self.box / "new"
        try:
            names = [n for n in os.listdir(new) if n not in self._seen]
        except FileNotFoundError:
            return
        for name in names:
            self._seen.add(name)
            path = new / name
            head = email.message_from_bytes(path.read_bytes().split(b"\r\n\r\n", 1)[0],
                                            policy=email.policy.default)
            answers = str(head["In-Reply-To"] or "")
            if answers in self.sent and answers not in self.answered:
                age = time.time() - path.stat().st_mtime  # how long ago it was written
                self.answered[answers] = time.monotonic() - age


def _processes(pid: int) -> list[int]:
    """The daemon's process and its children, grandchildren..."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                children = Path(f"/proc/{current}/task/{task}/children").read_text().split()
                todo += [int(c) for c in children]
        except OSError:
            continue
    return found


def _peak_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _count_out(maildirs: Path) -> dict[str, int]:
    counts = {"forged_strangers": 0, "alice": 0, "game_master": 0, "other": 0}
    if not maildirs.is_dir():
        return counts
    for folder in maildirs.iterdir():
        new = folder / "new"
        if not new.is_dir():
            continue
        n = len(os.listdir(new))
        key = ("forged_strangers" if folder.name.startswith("victim")
               else "alice" if folder.name.startswith("alice")
               else "game_master" if folder.name.startswith("gm") else "other")
        counts[key] += n
    return counts


def run(mails: int = 10_000, seconds: float = 600.0, every: float = 2.0,
        folder: str | None = None, busy: int = 0, hold: int = 0) -> dict[str, Any]:
    process = None
    spinners: list[subprocess.Popen[bytes]] = []
    peaks: dict[int, int] = {}
    with tempfile.TemporaryDirectory(prefix="pbem-flood-", dir=folder) as temp:
        root = Path(temp)
        try:
            passwords = _build(root)
            config = load_config(root / "pbem.toml", env={})
            assert config.listener is not None
            port = config.listener.port
            log = (root / "daemon.log").open("ab")
            process = subprocess.Popen(
                [sys.executable, "-m", "pbem.cli.daemon", "run", "--config",
                 str(root / "pbem.toml")], env=dict(os.environ, PYTHONPATH=str(REPO)),
                stdout=log, stderr=subprocess.STDOUT)
            until = time.monotonic() + 120
            while b"daemon running" not in (root / "daemon.log").read_bytes():
                if time.monotonic() > until or process.poll() is not None:
                    raise RuntimeError("the daemon did not start")
                time.sleep(0.1)
            store = Store(config.store)
            until = time.monotonic() + 120
            while store.outbox() and time.monotonic() < until:  # the welcomes
                time.sleep(0.2)
            before = _count_out(config.maildir)
            folder_name = maildir_folder("dan@example.org")
            assert folder_name is not None
            probe = _Probe(port, passwords["Dan"], config.maildir / folder_name, every)
            spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                         for _ in range(busy)]
            began = time.monotonic()
            sent = 0
            with smtplib.SMTP("127.0.0.1", port, timeout=120) as smtp:
                if hold:  # a backlog: the daemon's processing waits on the store's lock
                    with store.lock():
                        while sent < min(hold, mails):
                            sender, raw = _hostile(sent)
                            smtp.sendmail(sender, [SERVICE], raw)
                            sent += 1
                        behind = probe.send()
                    probe.sent[behind] = time.monotonic()  # timed from the lock's release
                probe.start()
                while sent < mails and time.monotonic() - began < seconds:
                    sender, raw = _hostile(sent)
                    smtp.sendmail(sender, [SERVICE], raw)
                    sent += 1
                    if sent % 500 == 0:
                        for pid in _processes(process.pid):
                            peaks[pid] = max(peaks.get(pid, 0), _peak_kib(pid))
            flood_seconds = time.monotonic() - began
            until = time.monotonic() + min(seconds, 600)
            while (store.inbox() or store.outbox()) and time.monotonic() < until:
                for pid in _processes(process.pid):
                    peaks[pid] = max(peaks.get(pid, 0), _peak_kib(pid))
                time.sleep(0.5)
            drained = time.monotonic() - began
            time.sleep(2 * every)  # Dan's last STATUS
            probe.stop.set()
            probe.join(120)
            for pid in _processes(process.pid):
                peaks[pid] = max(peaks.get(pid, 0), _peak_kib(pid))
            after = _count_out(config.maildir)
        finally:
            for spinner in spinners:
                spinner.kill()
                spinner.wait()
            if process is not None:
                process.terminate()
                try:
                    process.wait(60)
                except subprocess.TimeoutExpired:  # too busy to stop: the figures stand
                    process.kill()
                    process.wait(60)
    delays = [probe.answered[m] - at for m, at in probe.sent.items() if m in probe.answered]
    first = probe.sent.get("<dan-1@example.org>")
    behind_backlog = (round(probe.answered["<dan-1@example.org>"] - first, 3)
                      if hold and first is not None and "<dan-1@example.org>" in probe.answered
                      else None)
    return {
        "bench": "flood", "mails_sent": sent, "flood_seconds": round(flood_seconds, 1),
        "mails_per_second": round(sent / flood_seconds, 1) if flood_seconds else None,
        "drained_after_seconds": round(drained, 1),
        "other_game_status": {
            "sent": len(probe.sent), "answered": len(delays),
            "median_s": round(statistics.median(delays), 3) if delays else None,
            "p90_s": round(sorted(delays)[int(0.9 * (len(delays) - 1))], 3)
            if delays else None,
            "max_s": round(max(delays), 3) if delays else None,
            "over_5_s": sum(1 for d in delays if d > 5),
            "behind_backlog_s": behind_backlog},
        "peak_rss_mib": {"total": round(sum(peaks.values()) / 1024, 1),
                         "largest_process": round(max(peaks.values(), default=0) / 1024, 1),
                         "processes": len(peaks)},
        "mails_out_during_flood": {k: after[k] - before[k] for k in after},
        "busy_processes": busy, "held_backlog": hold, "cores": len(os.sched_getaffinity(0)),
        "load_average": os.getloadavg()}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mails", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--every", type=float, default=2.0,
                        help="seconds between the other game's STATUS mails")
    parser.add_argument("--dir", default=None)
    parser.add_argument("--busy", type=int, default=0,
                        help="processes spinning during the flood (a loaded machine)")
    parser.add_argument("--hold", type=int, default=0,
                        help="send this many flood mails while the daemon's processing waits "
                        "(the bench holds the store's lock), then the other game's first "
                        "STATUS, timed from the release")
    arguments = parser.parse_args()
    print(json.dumps(run(arguments.mails, arguments.seconds, arguments.every,
                         arguments.dir, arguments.busy, arguments.hold)))
