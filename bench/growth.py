"""Bench: the daemon's cost per order mail at turn 5 and at turn 500 of a game, with 1 and
with 1,000 (or 10,000: ``--games``) games in the store, its memory with that many live
games, its deadline tick over them and its start.

Run: ``.venv/bin/python bench/growth.py [--games 1000] [--samples 30] [--dir /tmp]
[--imap]`` (prints one JSON object; targets: each ratio <= 1.2, memory <= 150 MB, a tick over
all the games when none is due <= 0.1 s). ``--imap`` measures the memory of a daemon taking
its mail from a folder of a real Dovecot (IMAP, IDLE; the orders delivered over LMTP) instead
of the SMTP listener: it needs Dovecot installed and root, as the tests' Dovecot does.

An order is what the daemon does for one mail: store it (``deliver_smtp``), process it
(parse, authenticate, apply, commit, compose the answer) and write the answer into a
Maildir. Each ratio compares medians of orders timed alternately on the two sides, so that
the machine's speed drifting during the run hits both alike; both sides send the same
orders in the same sequence.

The games are real engine games: the bots of ``pbem simulate`` play the first turns (so
every player holds groups and nobody is eliminated), then every player passes, turn after
turn, up to the turn wanted (the basic goal is set out of reach, and the seats' Illuminati
have goals that passing never meets). Bots never reach turn 500 by playing, they win long
before. The log and the snapshot are written into the store the way the service writes
them, and ``Service.replay_check`` confirms they agree. The many games are copies of one
game under other names (written by ``Store.create_games``, one index write per thousand;
their seats share the template's password hashes). The memory is that of a real ``pbem
run`` (the peak resident sets, VmHWM, of its process and its child processes, added) after
a tick over all games and orders to a sample of them; its start is from its launch to its
listener's first answer (with ``--imap``: to its IMAP intake's login). The quiet tick is
the median of five ticks over all the games once the first has noted when each is next due
(none is, for 72 hours).
"""

from __future__ import annotations

import argparse
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
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from servers import Dovecot, children_of  # type: ignore[import-not-found]

from pbem import store as store_module
from pbem.bots.simulate import BotTable
from pbem.daemon.config import load_config
from pbem.daemon.server import Daemon
from pbem.engine.carddata import load_cardset
from pbem.engine.cards import CardSet
from pbem.engine.codec import from_json, to_json
from pbem.engine.commands import BeginTurn, Command, Pass
from pbem.engine.rules import apply
from pbem.engine.setup import Setup
from pbem.engine.state import GameState
from pbem.service.auth import hash_password
from pbem.service.service import Service
from pbem.store import NewGame, Store

TARGET_RATIO = 1.2
TARGET_RSS_MB = 150
TARGET_QUIET_TICK = 0.1  # seconds, a deadline tick over every game when none is due
PLAYERS = (("Alice", "alice@example.org", "The Bavarian Illuminati"),
           ("Bob", "bob@example.org", "The Servants of Cthulhu"),
           ("Carol", "carol@example.org", "The Discordian Society"))
SEED = "b1" * 32
BOT_TURNS = 9  # bots play this many turns first: enough for everyone to hold groups
ORDERS = ("STANDING LIST", "SET HTML OFF", "STANDING DEFEND ANY UPTO 3", "SET HTML ON",
          "PRESS TO {other}\r\nA word in private.\r\nEND PRESS", "STATUS")
REPO = Path(__file__).resolve().parents[1]


def _password(game: str, player: str) -> str:
    """The seat's password: the same in every game (the copies share the template's hashes:
    hashing 30,000 of them would be most of the building)."""
    return f"{player.lower()}-secret"


def _config(root: Path, port: int = 0, imap: str = "") -> Path:
    """Write the daemon's configuration: its listener on ``port``, or, given an [imap]
    section, that intake alone."""
    intake = f"[listener]\nenabled = false\n{imap}" if imap else f"[listener]\nport = {port}\n"
    path = root / "pbem.toml"
    path.write_text(f'[store]\npath = "store"\n[mail]\nmails_per_hour = 1000000\n'
                    f'{intake}[maildir]\npath = "maildirs"\n')
    return path


def _play(cards: CardSet, state: GameState, turns: int) -> list[Command]:
    """Give the commands that bring a new game to the orders phase of turn ``turns``."""
    table = BotTable(cards, state, random.Random(7), check_every=10**9)

    def at(turn: int) -> bool:
        return table.state.turn_number >= turn and table.state.phase == "actions"

    def over() -> bool:
        return table.state.phase == "over"

    while not at(min(turns, BOT_TURNS)):
        table.step()
        if over():
            raise RuntimeError("the bots ended the game early; choose another seed")
    while not at(turns):
        now = table.state
        if now.phase == "turn_start" and now.special is None:
            table.do(BeginTurn())
        elif now.phase == "actions" and now.special is None and now.offer is None:
            table.do(Pass(now.active_player.name))
        else:
            table.step()
        if over():
            raise RuntimeError(f"the game ended at turn {table.state.turn_number}")
    return table.log


def _entries(cards: CardSet, state: GameState, commands: list[Command],
             at: str) -> tuple[list[dict[str, Any]], GameState]:
    """Give the log entries of ``commands`` as the service writes them, and the end state."""
    entries = []
    for command in commands:
        state, events = apply(state, command, cards)
        entries.append({"at": at, "command": to_json(command),
                        "events": [to_json(e) for e in events], "seq": state.seq})
    return entries, state


class _Game:
    """A started game at a given turn, as the store would hold it after that many turns."""

    def __init__(self, service: Service, game_id: str, turns: int, now: datetime) -> None:
        cards, store = service.cards, service.store
        service.create_game(game_id, PLAYERS, options={"victory_groups": 99}, seed=SEED)
        self.setup = from_json(Setup, store.setup(game_id)["setup"])
        start, record = service.state(game_id), service.service_record(game_id)
        self.entries, self.state = _entries(cards, start, _play(cards, start, turns),
                                            now.isoformat())
        seats = tuple(replace(s, password_hash=hash_password(_password(game_id, s.name),
                                                             cost=10))
                      for s in record.seats)
        self.record = replace(record, seats=seats, started=True, turn_seq=self.state.seq,
                              reported=len(self.entries), steps=1,
                              deadline=(now + timedelta(hours=72)).isoformat())
        with store.lock():
            store.commit(game_id, log_entries=self.entries,
                         snapshot={"state": to_json(self.state), "service": to_json(self.record)},
                         expect_length=0)
        if not service.replay_check(game_id):
            raise RuntimeError(f"game {game_id}: the log does not replay to the snapshot")

    def copies(self, store: Store, game_ids: list[str]) -> None:
        """Write the same game under other names, listed in the index together."""
        record = to_json(self.record)
        with store.lock():
            store.create_games([NewGame(
                game_id, {"setup": to_json(replace(self.setup, game=game_id)),
                          "service": record},
                {"state": to_json(replace(self.state, game=game_id)), "service": record},
                self.entries) for game_id in game_ids])


def _order(game: str, n: int) -> tuple[str, bytes]:
    names = [p[0] for p in PLAYERS]
    player = names[n % 3]
    body = ORDERS[n % len(ORDERS)].format(other=names[(n + 1) % 3])
    address = f"{player.lower()}@example.org"
    raw = (f"From: {address}\r\nTo: pbem@localhost\r\nSubject: orders\r\n"
           f"Message-ID: <{game}-{n}-{time.monotonic_ns()}@bench>\r\n\r\n"
           f"GAME {game} PLAYER {player} PASSWORD {_password(game, player)}\r\n{body}\r\nEND\r\n")
    return address, raw.encode()


def _timed(daemon: Daemon, game: str, counter: list[int]) -> Callable[[], float]:
    def one() -> float:
        counter[0] += 1
        sender, raw = _order(game, counter[0])
        began = time.perf_counter()
        daemon.deliver_smtp(raw, sender, ["pbem@localhost"])
        if daemon.process() != 1 or daemon.flush().sent < 1:
            raise RuntimeError(f"the order to {game} was not answered")
        return time.perf_counter() - began
    return one


def _alternate(left: Callable[[], float], right: Callable[[], float],
               samples: int) -> tuple[list[float], list[float]]:
    for _ in range(len(ORDERS)):  # warm: every kind of order once on each side
        left(), right()
    lefts, rights = [], []
    for _ in range(samples):
        lefts.append(left())
        rights.append(right())
    return lefts, rights


def _daemon_memory(root: Path, games: list[str], orders: int,
                   imap: bool = False) -> dict[str, float]:
    """Give the resident memory of a real `pbem run` over the store, in MB: taking its mail
    with its SMTP listener, or (``imap``) from the INBOX of a Dovecot of its own."""
    dovecot = Dovecot(tls=False) if imap else None
    try:
        if dovecot is not None:
            dovecot.start()
            account = dovecot.add_user()
            config = _config(root, imap=f'[imap]\nhost = "127.0.0.1"\n'
                             f'port = {dovecot.imap_port}\nsecurity = "plain"\n'
                             f'username = "{account.username}"\n'
                             f'password = "{account.password}"\n'
                             'answer_earlier_mail = true\n')

            def deliver(mails: list[tuple[str, bytes]]) -> None:
                for sender, raw in mails:
                    dovecot.deliver(account, raw, envelope_from=sender)

            return _measured(root, config, games, orders, deliver,
                             _imap_ready(root, dovecot, account))
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]

        def send(mails: list[tuple[str, bytes]]) -> None:
            with smtplib.SMTP("127.0.0.1", port, local_hostname="bench", timeout=300) as smtp:
                for sender, raw in mails:
                    smtp.sendmail(sender, ["pbem@localhost"], raw)

        def listening() -> bool:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=300) as sock:
                    return sock.recv(3) == b"220"
            except OSError:
                return False

        return _measured(root, _config(root, port), games, orders, send, listening)
    finally:
        if dovecot is not None:
            dovecot.remove()


def _imap_ready(root: Path, dovecot: Any, account: Any) -> Callable[[], bool]:
    """Tell, once asked after the orders went, whether the daemon took every mail of the
    INBOX; before that, whether its intake logged in (as its log says)."""
    def ready() -> bool:
        if b"logged in to" not in (root / "daemon.log").read_bytes():
            return False
        with dovecot.client(account) as client:
            return int(client.folder_status("INBOX", [b"MESSAGES"])[b"MESSAGES"]) == 0
    return ready


def _measured(root: Path, config: Path, games: list[str], orders: int,
              send: Callable[[list[tuple[str, bytes]]], None], ready: Callable[[], bool],
              ) -> dict[str, float]:
    """Run `pbem run` on ``config`` until ``ready`` (its intake at work), ``send`` it orders
    to a sample of the games (envelope sender, raw), wait until they are processed and
    answered (and ``ready`` again: the intake's mail taken), and give its memory."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    began = time.monotonic()
    with (root / "daemon.log").open("wb") as log:
        process = subprocess.Popen([sys.executable, "-m", "pbem.cli.daemon", "run",
                                    "--config", str(config)], env=env, stdout=log,
                                   stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 300
        while not ready():
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("the daemon did not start")
            time.sleep(0.2)
        start_seconds = time.monotonic() - began
        step = max(1, len(games) // orders)
        send([_order(game, n) for n, game in enumerate(games[::step][:orders])])
        store = Store(root / "store")
        while not ready() or store.inbox() or store.outbox():
            if time.monotonic() > deadline:
                raise RuntimeError("the daemon did not process the orders")
            time.sleep(0.2)
        # The daemon and its child processes (sending; the IMAP intake): each one's memory,
        # added.
        pids = [process.pid, *children_of(process.pid)]
        statuses = [Path(f"/proc/{pid}/status").read_text() for pid in pids]
    finally:
        process.terminate()
        process.wait(60)
    figures = {name: 0.0 for name in ("rss_mb", "peak_rss_mb")}
    for status in statuses:
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        for name, key in (("rss_mb", "VmRSS"), ("peak_rss_mb", "VmHWM")):
            figures[name] += int(fields[key].split()[0]) / 1024
    return {name: round(mb, 1) for name, mb in figures.items()} | {
        "processes": len(pids), "start_seconds": round(start_seconds, 2)}


def run(games: int = 1000, samples: int = 30, short: int = 5, long: int = 500,
        folder: str | None = None, memory_orders: int = 100,
        imap: bool = False) -> dict[str, Any]:
    """Give the bench figures as a dict (see the module docstring)."""
    now = datetime.now(UTC)
    cards = load_cardset()
    with tempfile.TemporaryDirectory(prefix="pbem-growth-", dir=folder) as temp:
        base = Path(temp)
        stores = {name: base / name for name in ("turns", "one", "many")}
        for root in stores.values():
            root.mkdir()
            _config(root)
        built = time.perf_counter()
        daemons = {name: Daemon(load_config(root / "pbem.toml", env={}), cards=cards)
                   for name, root in stores.items()}
        young = _Game(daemons["turns"].service, "young", short, now)
        _Game(daemons["turns"].service, "old", long, now)
        template = _Game(daemons["one"].service, "g0000", short, now)
        many = [f"g{i:04d}" for i in range(games)]
        many_store = daemons["many"].store
        for at in range(0, games, 1000):
            template.copies(many_store, many[at:at + 1000])
        build_seconds = time.perf_counter() - built
        # A daemon's index of games was written long before most mails: a file changed
        # within the margin is read again on each use (see pbem.store.file_stamp).
        time.sleep(getattr(store_module, "STAMP_MARGIN", 0.0))
        log_lengths = {"young": len(young.entries),
                       "old": daemons["turns"].store.log_length("old")}
        # Each side counts its own orders, so both send the same orders from the same
        # players in the same sequence (one shared count gave one side the odd orders and
        # the other the even ones: two different mixes, and a ratio about the mix).
        at_short, at_long = _alternate(_timed(daemons["turns"], "young", [0]),
                                       _timed(daemons["turns"], "old", [0]), samples)
        in_one, in_many = _alternate(_timed(daemons["one"], "g0000", [0]),
                                     _timed(daemons["many"], "g0000", [0]), samples)
        for daemon in daemons.values():
            daemon.close()
        tick_began = time.perf_counter()
        daemons["many"].tick()  # the first: it notes when each game is next due
        tick_seconds = time.perf_counter() - tick_began
        quiet_ticks = []
        for _ in range(5):  # none due: each game's stamp and its note in the due index
            tick_began = time.perf_counter()
            daemons["many"].tick()
            quiet_ticks.append(time.perf_counter() - tick_began)
        memory = _daemon_memory(stores["many"], many, memory_orders, imap)
    ms = {name: statistics.median(times) * 1000 for name, times in (
        ("short", at_short), ("long", at_long), ("one", in_one), ("many", in_many))}
    turn_ratio, games_ratio = ms["long"] / ms["short"], ms["many"] / ms["one"]
    # Sample i of a side is its order number len(ORDERS) + 1 + i (after the warm-up).
    kinds = {ORDERS[n].split("\r\n")[0].split(" {")[0].lower(): n for n in range(len(ORDERS))}
    by_kind = {kind: round(statistics.median(t for i, t in enumerate(at_long)
                                             if (len(ORDERS) + 1 + i) % len(ORDERS) == n)
                           / statistics.median(t for i, t in enumerate(at_short)
                                               if (len(ORDERS) + 1 + i) % len(ORDERS) == n), 3)
               for kind, n in kinds.items()}
    return {
        "bench": "daemon_growth",
        "turn_ratio": round(turn_ratio, 3),
        "games_ratio": round(games_ratio, 3),
        "target_ratio": TARGET_RATIO,
        "order_ms_median": {f"turn_{short}": round(ms["short"], 1),
                            f"turn_{long}": round(ms["long"], 1),
                            "games_1": round(ms["one"], 1),
                            f"games_{games}": round(ms["many"], 1)},
        "turn_ratio_by_order": by_kind,
        "log_entries": {f"turn_{short}": log_lengths["young"],
                        f"turn_{long}": log_lengths["old"]},
        "daemon_memory": memory | {"games": games, "orders": memory_orders,
                                   "intake": "imap" if imap else "listener"},
        "target_rss_mb": TARGET_RSS_MB,
        "first_tick_over_all_games_s": round(tick_seconds, 2),
        "quiet_tick_s_median": round(statistics.median(quiet_ticks), 3),
        "target_quiet_tick_s": TARGET_QUIET_TICK,
        "daemon_start_s": memory.pop("start_seconds"),
        "load_average": os.getloadavg(),
        "ok": (turn_ratio <= TARGET_RATIO and games_ratio <= TARGET_RATIO
               and memory["peak_rss_mb"] <= TARGET_RSS_MB
               and statistics.median(quiet_ticks) <= TARGET_QUIET_TICK),
        "samples": samples,
        "build_seconds": round(build_seconds, 1),
        "store_folder": folder or tempfile.gettempdir(),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--dir", default=None, help="where the stores go (default: the temp "
                        "folder; /dev/shm leaves the disk's fsync out)")
    parser.add_argument("--imap", action="store_true", help="measure the memory of a daemon "
                        "reading a real Dovecot folder instead of its SMTP listener")
    arguments = parser.parse_args()
    print(json.dumps(run(arguments.games, arguments.samples, folder=arguments.dir,
                         imap=arguments.imap)))
