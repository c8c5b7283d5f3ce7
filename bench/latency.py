"""Bench: how long a player waits, from sending an order mail to the answer in their
mailbox, with 1, 100 and 1,000 active games.

Run: ``.venv/bin/python bench/latency.py [--games 1 100 1000] [--seconds 60] [--rate 10]
[--imap] [--dir FOLDER]`` (prints one JSON object; targets: on the embedded default, p50 <=
0.15 s and p99 <= 0.5 s at 100 active games; through IMAP, p50 within 0.3 s of Dovecot's own
IDLE notification delay, measured in the same run).

The daemon is a real ``pbem run`` process (its sending process too) on a store holding the
active games. In each game Bob and Carol are bot seats (they play their turns and answer the
response windows an attack opens, in the daemon), and Alice is a player whose mail the bench
writes: a bot of her own (``pbem.bots.mailbots``) reads her mailbox and writes the order
mail it calls for (her turn, with its attacks; her answer to an attack on her: "play"),
else a STATUS ("status"); the figures are given for all and for each kind. The players
of all the games together send ``--rate`` mails a second (each game's next mail a random,
exponential, while after its last answer): a fixed load, so that the figures tell what the
number of games costs.

Embedded default: the mail goes to the daemon's SMTP listener, and the answers into its
Maildirs. With ``--imap``: the mail is delivered into a private Dovecot's INBOX (LMTP), as a
mail server would, and the daemon takes it through IMAP IDLE; the answers still go into
Maildirs. A mail's latency is from the moment it was handed over (the SMTP transaction or
the LMTP delivery ended) to the time the daemon's sender wrote the first answer to it (the
Maildir file's modification time, on the same clock: no polling error). With the
environment variable ``PBEM_PROFILE=FILE`` the daemon runs under cProfile, writing FILE.
"""

from __future__ import annotations

import argparse
import email
import email.policy
import json
import os
import random
import smtplib
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from servers import Account, Dovecot  # type: ignore[import-not-found]

from pbem.bots.mailbots import BotSeat, MailBot
from pbem.daemon.config import load_config
from pbem.engine.carddata import load_cardset
from pbem.engine.cards import CardSet
from pbem.service.service import Service
from pbem.store import NewGame, Store

TARGET_P50, TARGET_P99, TARGET_IMAP_OVER_IDLE = 0.15, 0.5, 0.3
REPO = Path(__file__).resolve().parents[1]
SERVICE = "pbem@bench.test"
_HEADERS = email.parser.BytesHeaderParser(policy=email.policy.default)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _alice(game: str) -> str:
    return f"alice.{game}@example.org"


def _build(root: Path, games: int, cards: CardSet, imap: str) -> dict[str, str]:
    """Write the configuration and a store of ``games`` started games (Bob and Carol bots);
    give Alice's password in each. The first game is made by the service (created, started,
    its bots seated); the others are copies of it written straight into the store, under
    their own ids and with Alice's own address (``Store.create_games``)."""
    port = _free_port()
    (root / "pbem.toml").write_text(
        f'[store]\npath = "store"\n[mail]\naddress = "{SERVICE}"\nmails_per_hour = 1000000\n'
        f'[listener]\nport = {port}\n[maildir]\npath = "maildirs"\n{imap}')
    config = load_config(root / "pbem.toml", env={})
    store = Store(config.store)
    service = Service(store, replace(config.service_config(), password_cost=10), cards)
    now = datetime.now(UTC)
    first = "g0000"
    service.create_game(first, (("Alice", _alice(first), ""),
                                ("Bob", f"bob.{first}@example.org", ""),
                                ("Carol", f"carol.{first}@example.org", "")), seed="5eed" * 16)
    password = service.start_game(first, now)["Alice"]
    for bot in ("Bob", "Carol"):
        service.set_bot(first, bot, True, now)
    service.process(now)  # the bots play up to Alice's move (set_bot is one step)
    with store.lock():
        text = json.dumps([store.setup(first), store.snapshot(first), list(store.log(first))])
    copies = [f"g{i:04d}" for i in range(1, games)]
    for at in range(0, len(copies), 1000):
        with store.lock():
            store.create_games([NewGame(game, *json.loads(text.replace(first, game)))
                                for game in copies[at:at + 1000]])
    return dict.fromkeys([first, *copies], password)


@dataclass
class _Player:
    """Alice in one game: her bot, the mails she has read, the order she waits on."""

    game: str
    box: Path
    password: str
    bot: MailBot | None = None
    outgoing: list[bytes] = field(default_factory=list)  # what her bot wrote, to send
    read: set[str] = field(default_factory=set)
    waiting: str | None = None  # the Message-ID of her last order, until answered
    kind: str = ""  # its kind (see next_mail)
    sent_at: float = 0.0
    next_at: float = 0.0
    status_n: int = 0

    def new_mails(self) -> list[tuple[Path, bytes]]:
        """Give the mails in her mailbox she has not read yet (now read)."""
        try:
            names = sorted(os.listdir(self.box))
        except FileNotFoundError:
            return []
        new = [n for n in names if n not in self.read]
        self.read.update(new)
        return [(self.box / n, (self.box / n).read_bytes()) for n in new]

    def next_mail(self) -> tuple[str, bytes]:
        """Her next order mail and its kind: what her bot wrote ("play"), else a STATUS."""
        if self.outgoing:
            raw = self.outgoing.pop()
            self.outgoing.clear()
            return "play", raw
        self.status_n += 1
        return "status", (
                f"From: Alice <{_alice(self.game)}>\r\nTo: {SERVICE}\r\nSubject: status\r\n"
                f"Message-ID: <status-{self.game}-{self.status_n}@example.org>\r\n\r\n"
                f"GAME {self.game} PLAYER Alice PASSWORD {self.password}\r\n"
                "STATUS\r\nEND\r\n").encode()


class _Bench:
    """The players of every game, each writing her next mail a while after the answer to
    her last; ``latencies`` holds the seconds each measured mail waited for its answer."""

    def __init__(self, root: Path, passwords: dict[str, str], cards: CardSet,
                 deliver: Callable[[str, bytes], None], rate: float,
                 rng: random.Random) -> None:
        self.deliver, self.rate, self.rng = deliver, rate, rng
        self.players = []
        for game, password in passwords.items():
            player = _Player(game, root / "maildirs" / _alice(game) / "new", password)
            player.bot = MailBot(cards, BotSeat(game, "Alice", password, _alice(game),
                                                SERVICE), player.outgoing.append)
            self.players.append(player)
        self.latencies: list[float] = []
        self.by_kind: dict[str, list[float]] = {"status": [], "play": []}
        self._measure_from = 0.0

    def _think(self) -> float:
        return self.rng.expovariate(self.rate / len(self.players))

    def _check(self, player: _Player) -> None:
        """Read her new mail; when her order is answered, note how long that took and let
        her bot read what came."""
        mails = player.new_mails()
        answers = [path for path, raw in mails if player.waiting in _answered(raw)]
        if answers:
            if player.sent_at >= self._measure_from:
                waited = min(p.stat().st_mtime for p in answers) - player.sent_at
                self.latencies.append(waited)
                self.by_kind[player.kind].append(waited)
            player.waiting = None
            player.next_at = time.time() + self._think()
        if mails and player.bot is not None:
            player.bot.receive([raw for _, raw in mails])

    def _send(self, player: _Player) -> None:
        player.kind, raw = player.next_mail()
        player.waiting = str(_HEADERS.parsebytes(raw)["Message-ID"])
        self.deliver(_alice(player.game), raw)
        player.sent_at = time.time()

    def run(self, seconds: float, warm: float) -> None:
        """Play for ``warm`` seconds unmeasured, then ``seconds`` measured."""
        began = time.time()
        self._measure_from = began + warm
        for player in self.players:
            player.next_at = began + self._think()
        while time.time() < began + warm + seconds:
            for player in self.players:
                if player.waiting is not None:
                    self._check(player)
                elif time.time() >= player.next_at:
                    self._check(player)  # her bot reads what came meanwhile first
                    self._send(player)
            time.sleep(0.002)


def _answered(raw: bytes) -> list[str]:
    """The Message-IDs a mail answers: its In-Reply-To, and its References (an answer
    folded into a later mail is named there: docs/service.md, "Fewer mails")."""
    headers = _HEADERS.parsebytes(raw)
    return f"{headers['In-Reply-To'] or ''} {headers['References'] or ''}".split()


def _smtp_deliver(port: int) -> Callable[[str, bytes], None]:
    def deliver(sender: str, raw: bytes) -> None:
        with smtplib.SMTP("127.0.0.1", port, local_hostname="bench", timeout=60) as smtp:
            smtp.sendmail(sender, [SERVICE], raw)
    return deliver


def _lmtp_deliver(dovecot: Dovecot, box: Account) -> Callable[[str, bytes], None]:
    def deliver(sender: str, raw: bytes) -> None:
        dovecot.deliver(box, raw, sender)
    return deliver


def _idle_delay(dovecot: Dovecot, account: Account, samples: int = 5) -> list[float]:
    """Give Dovecot's IDLE notification delay: from a delivery's end to EXISTS in IDLE."""
    delays = []
    with dovecot.client(account) as watcher:
        watcher.select_folder("INBOX", readonly=True)
        for n in range(samples):
            watcher.idle()
            dovecot.deliver(account, f"Subject: probe {n}\r\n\r\nprobe\r\n".encode())
            delivered = time.time()
            while not any(kind == b"EXISTS" for _, kind, *_ in watcher.idle_check(timeout=10)):
                pass
            delays.append(time.time() - delivered)
            watcher.idle_done()
    return delays


def _percentiles(values: list[float]) -> dict[str, float]:
    if len(values) < 2:
        return {"samples": len(values)}
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return {"samples": len(values), "p50_s": round(cuts[49], 3), "p95_s": round(cuts[94], 3),
            "p99_s": round(cuts[98], 3), "max_s": round(max(values), 3)}


def _measure(games: int, seconds: float, rate: float, imap: bool, folder: str | None,
             cards: CardSet) -> dict[str, Any]:
    dovecot = Dovecot(tls=False) if imap else None
    process = None
    with tempfile.TemporaryDirectory(prefix="pbem-latency-", dir=folder) as temp:
        root = Path(temp)
        try:
            section = ""
            if dovecot is not None:
                dovecot.start()
                box, probe = dovecot.add_user(), dovecot.add_user()
                section = (f'[imap]\nhost = "127.0.0.1"\nport = {dovecot.imap_port}\n'
                           f'security = "plain"\nusername = "{box.username}"\n'
                           f'password = "{box.password}"\n'
                           'answer_earlier_mail = true\n')
            built = time.perf_counter()
            passwords = _build(root, games, cards, section)
            build_seconds = time.perf_counter() - built
            config = load_config(root / "pbem.toml", env={})
            env = dict(os.environ, PYTHONPATH=str(REPO))
            log = (root / "daemon.log").open("ab")
            profile = ["-m", "cProfile", "-o", os.environ["PBEM_PROFILE"]] if os.environ.get(
                "PBEM_PROFILE") else []
            process = subprocess.Popen(
                [sys.executable, *profile, "-m", "pbem.cli.daemon", "run", "--config",
                 str(root / "pbem.toml")], env=env, stdout=log, stderr=subprocess.STDOUT)
            until = time.monotonic() + 120
            while b"daemon running" not in (root / "daemon.log").read_bytes():
                if time.monotonic() > until or process.poll() is not None:
                    raise RuntimeError("the daemon did not start")
                time.sleep(0.1)
            store = Store(config.store)
            while store.outbox():  # the welcomes and first reports
                time.sleep(0.2)
            if dovecot is not None:
                time.sleep(2)  # the intake's IDLE session is open
                deliver = _lmtp_deliver(dovecot, box)
            else:
                assert config.listener is not None
                deliver = _smtp_deliver(config.listener.port)
            bench = _Bench(root, passwords, cards, deliver, rate, random.Random(games))
            bench.run(seconds, warm=min(10.0, seconds / 4))
            idle = _idle_delay(dovecot, probe) if dovecot is not None else []
        finally:
            if process is not None:
                process.terminate()
                process.wait(60)
            if dovecot is not None:
                dovecot.remove()
    figures = {"games": games, "latency": _percentiles(bench.latencies),
               "by_kind": {kind: _percentiles(values) for kind, values in bench.by_kind.items()},
               "build_seconds": round(build_seconds, 1)}
    if idle:
        figures["dovecot_idle_delay_s"] = round(statistics.median(idle), 3)
    return figures


def run(games: Sequence[int] = (1, 100, 1000), seconds: float = 60.0, rate: float = 10.0,
        imap: bool = False, folder: str | None = None) -> dict[str, Any]:
    """Give the figures for each number of active games (see the module docstring)."""
    cards = load_cardset()
    runs = [_measure(n, seconds, rate, imap, folder, cards) | {"load_average": os.getloadavg()}
            for n in games]
    at_100 = next((r for r in runs if r["games"] == 100), None)
    ok = None
    if at_100 is not None and "p50_s" in at_100["latency"]:
        if imap:
            ok = at_100["latency"]["p50_s"] <= (at_100["dovecot_idle_delay_s"]
                                                + TARGET_IMAP_OVER_IDLE)
        else:
            ok = (at_100["latency"]["p50_s"] <= TARGET_P50
                  and at_100["latency"]["p99_s"] <= TARGET_P99)
    return {"bench": "latency", "intake": "imap" if imap else "smtp_listener",
            "rate_per_second": rate, "seconds": seconds, "runs": runs,
            "targets": ({"p50_over_idle_s": TARGET_IMAP_OVER_IDLE} if imap
                        else {"p50_s": TARGET_P50, "p99_s": TARGET_P99}),
            "ok_at_100_games": ok, "cores": len(os.sched_getaffinity(0))}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[1, 100, 1000])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rate", type=float, default=10.0,
                        help="order mails a second, all games together")
    parser.add_argument("--imap", action="store_true")
    parser.add_argument("--dir", default=None)
    arguments = parser.parse_args()
    print(json.dumps(run(arguments.games, arguments.seconds, arguments.rate, arguments.imap,
                         arguments.dir)))
