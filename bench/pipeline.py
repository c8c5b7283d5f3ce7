"""Bench: order mails end to end through real servers, against the raw transport alone.

End to end: ``n`` order mails wait in a private Dovecot, outside the INBOX, while the
daemon (IMAP intake, the game service, SMTP out) starts; once it is at work they are moved
into the INBOX in one command, and it takes them in, plays them and sends every answer to
an aiosmtpd catcher. Timed from the moment Dovecot announces them to a session in IDLE
(half a second after the move: its notification delay, which the daemon's intake waits for
as any client does and the raw transport never) to the last answer marked sent. Not part
of the figure, as a server does these once: the daemon's start (its child processes take
~0.3 s), and a first mail of each player (its password checked with scrypt, once per player
and process).

Raw transport, in the same run: the same ``n`` mails fetched and filed by ``ImapIntake``
with a ``deliver`` that does nothing, and the same answers (the very bytes the daemon sent)
sent by ``SmtpSender`` to the catcher: everything but the store and the service.

The SMTP catcher runs in a process of its own, as a real mail server does: in this one it
would hold the interpreter's lock for every mail it takes, time both sides would be
charged with.

Also printed: where the daemon's time went, per mail: processing (parse, authenticate,
apply, render, compose, commit) and the deadline ticks in the daemon's main thread; the
CPU of its intake and sending processes (with threads instead, ``--threads``: storing
incoming mail, handing answers to the SMTP server, marking them sent). And the CPU each side
took, the daemon's processes and the catcher's (not Dovecot's): ``cores * raw seconds / CPU
seconds`` bounds the ratio however well the work were spread over the machine's cores.

With ``--rtt-ms R`` both sides reach Dovecot and the SMTP catcher through a proxy that
delays every byte by R/2 ms each way, as a mail server across a network would: the target is
measured on loopback (R = 0); this shows what the daemon makes of a transport's waits.

    .venv/bin/python bench/pipeline.py [n] [--dir FOLDER] [--rtt-ms R] [--threads]
    # JSON; target >= 0.7
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import queue
import random
import socket
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from servers import Dovecot, SmtpCatcher  # type: ignore[import-not-found]

from pbem.daemon.config import load_config
from pbem.daemon.outbox import make_sender
from pbem.daemon.server import Daemon
from pbem.service.service import Service
from pbem.store import Store
from pbem.transport.imap import ImapConfig, ImapIntake, JsonFileCursor
from pbem.transport.sender import SmtpSender

TARGET = 0.7
_STAGING = "staging"  # where the daemon's mails wait while it starts
GAME = "bench"
PLAYERS = (("Alice", "alice@example.org", ""), ("Bob", "bob@example.org", ""),
           ("Carol", "carol@example.org", ""))
ORDERS = ("STANDING LIST", "SET HTML OFF", "STANDING DEFEND ANY UPTO 3", "SET HTML ON",
          "PRESS TO {other}\r\nA word in private.\r\nEND PRESS", "STATUS")
T = TypeVar("T")


class _Timed:
    """Wraps the daemon's parts to keep the seconds each spent, excluding waits between."""

    def __init__(self, daemon: Daemon) -> None:
        self.spent: defaultdict[str, float] = defaultdict(float)
        self.processed = 0
        # The daemon's own parts, not the ones it offers other threads.
        service, store, sender = daemon.loop_service, daemon.outbox.store, daemon.sender
        service.process = self._count(self._wrap("process", service.process))  # type: ignore[method-assign]
        service.tick = self._wrap("tick", service.tick)  # type: ignore[method-assign]
        if not daemon.in_processes:  # else these run in the child processes
            daemon.deliver_imap_group = self._wrap(  # type: ignore[method-assign]
                "store_incoming", daemon.deliver_imap_group)
            sender.send = self._wrap("send_smtp", sender.send)  # type: ignore[method-assign]
            store.mark_sent = self._wrap(  # type: ignore[method-assign]
                "mark_sent", store.mark_sent)

    def _wrap(self, part: str, work: Callable[..., T]) -> Callable[..., T]:
        def timed(*args: Any, **kwargs: Any) -> T:
            began = time.perf_counter()
            try:
                return work(*args, **kwargs)
            finally:
                self.spent[part] += time.perf_counter() - began
        return timed

    def _count(self, work: Callable[..., int]) -> Callable[..., int]:
        def counted(*args: Any, **kwargs: Any) -> int:
            done = work(*args, **kwargs)
            self.processed += done
            return done
        return counted


def _orders(n: int, passwords: dict[str, str], tag: str = "bench") -> list[tuple[str, bytes]]:
    names = [p[0] for p in PLAYERS]
    mails = []
    for i in range(n):
        player = names[i % 3]
        body = ORDERS[i % len(ORDERS)].format(other=names[(i + 1) % 3])
        address = f"{player.lower()}@example.org"
        mails.append((address, (
            f"From: {player} <{address}>\r\nTo: game@pbem.test\r\nSubject: orders {i}\r\n"
            f"Message-ID: <{tag}-{i}@example.org>\r\n\r\n"
            f"GAME {GAME} PLAYER {player} PASSWORD {passwords[player]}\r\n{body}\r\nEND\r\n"
        ).encode()))
    return mails


def _left(dovecot: Dovecot, account: Any) -> bool:
    """Tell whether mail still waits in the account's INBOX."""
    with dovecot.client(account) as client:
        client.select_folder("INBOX", readonly=True)
        return bool(client.search("ALL"))


class _DelayProxy:
    """A TCP proxy on 127.0.0.1 that hands every chunk on ``delay`` seconds after it came, in
    each direction: latency, not a bandwidth limit."""

    def __init__(self, port: int, delay: float) -> None:
        self._port, self._delay = port, delay
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = self._server.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:  # closed
                return
            upstream = socket.create_connection(("127.0.0.1", self._port))
            for source, target in ((client, upstream), (upstream, client)):
                pending: queue.Queue[tuple[float, bytes]] = queue.Queue()
                threading.Thread(target=self._read, args=(source, pending), daemon=True).start()
                threading.Thread(target=self._write, args=(target, pending), daemon=True).start()

    def _read(self, source: socket.socket, pending: queue.Queue[tuple[float, bytes]]) -> None:
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                data = b""
            pending.put((time.monotonic() + self._delay, data))
            if not data:
                return

    def _write(self, target: socket.socket, pending: queue.Queue[tuple[float, bytes]]) -> None:
        while True:
            due, data = pending.get()
            time.sleep(max(0.0, due - time.monotonic()))
            try:
                if not data:
                    target.shutdown(socket.SHUT_WR)
                    return
                target.sendall(data)
            except OSError:
                return

    def close(self) -> None:
        self._server.close()


def _catch(conn: Any, other_end: Any) -> None:
    """Run a catcher until told to stop (or until the bench is gone): the child's side."""
    other_end.close()  # so the bench's death ends this process's pipe
    catcher = SmtpCatcher().start()
    conn.send(catcher.port)
    try:
        while (asked := conn.recv()) != "stop":
            conn.send(time.process_time() if asked == "cpu" else
                      [(mail.rcpt_tos[0], mail.raw) for mail in catcher.mails])
    except EOFError:  # the bench died
        pass
    finally:
        catcher.stop()


class _CatcherProcess:
    """An SMTP catcher in a child process on 127.0.0.1; ``mails()`` gives (recipient, raw)
    of each mail caught so far, ``cpu()`` the CPU seconds the child has taken."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("fork")  # before this process has threads
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_catch, args=(child, self._conn), daemon=True)
        self._process.start()
        child.close()  # so the child's death ends this one's pipe (recv raises EOFError)
        self.port: int = self._conn.recv()

    def mails(self) -> list[tuple[str, bytes]]:
        self._conn.send("mails")
        caught: list[tuple[str, bytes]] = self._conn.recv()
        return caught

    def cpu(self) -> float:
        self._conn.send("cpu")
        seconds: float = self._conn.recv()
        return seconds

    def stop(self) -> None:
        with contextlib.suppress(OSError):  # it is gone already
            self._conn.send("stop")
        self._process.join(30)


def _announced(dovecot: Dovecot, account: Any) -> float:
    """Move the staged mails into the account's INBOX; give the moment Dovecot announces
    them to a session in IDLE on it, as it does to the daemon's intake.

    Dovecot tells IDLE sessions of a change half a second after it (its notification delay,
    the same for every client): the raw transport, which fetches knowing the mail is there,
    does not wait for it either, so both are timed from when the mail can be known."""
    with dovecot.client(account) as watcher:
        watcher.select_folder("INBOX", readonly=True)
        watcher.idle()
        _move(dovecot, account, _STAGING, "INBOX")
        while not any(kind == b"EXISTS" for _, kind, *_ in watcher.idle_check(timeout=10)):
            pass
        announced = time.time()
        watcher.idle_done()
    return announced


def _move(dovecot: Dovecot, account: Any, source: str, target: str) -> None:
    """Move every mail of the account's folder ``source`` into ``target``, in one command
    (the staging folder made first if missing)."""
    with dovecot.client(account) as client:
        if not client.folder_exists(_STAGING):
            client.create_folder(_STAGING)
        client.select_folder(source)
        client.move(client.search("ALL"), target)


def _cpu_seconds(pid: int) -> float:
    """Give the CPU seconds (user and system) a process of this machine has taken."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _last_sent(store: Path) -> float:
    """Give the wall-clock time the last answer was marked sent (its journal's last write)."""
    return max(path.stat().st_mtime for path in store.glob("games/*/sent.log"))


def _rate(mails: int, seconds: float) -> dict[str, float]:
    return {"mails": mails, "seconds": round(seconds, 3), "per_second": round(mails / seconds, 2)}


def run(n: int = 200, folder: str | None = None, rtt_ms: float = 0.0,
        threads: bool = False) -> dict[str, Any]:
    """Give both rates, their ratio and the daemon's breakdown for ``n`` order mails."""
    catcher = _CatcherProcess()
    dovecot = Dovecot(tls=False)
    proxies: list[_DelayProxy] = []
    try:
        dovecot.start()
        imap_port, smtp_port = dovecot.imap_port, catcher.port
        if rtt_ms:
            proxies = [_DelayProxy(dovecot.imap_port, rtt_ms / 2000),
                       _DelayProxy(catcher.port, rtt_ms / 2000)]
            imap_port, smtp_port = proxies[0].port, proxies[1].port
        game_box, raw_box = dovecot.add_user(), dovecot.add_user()
        with tempfile.TemporaryDirectory(prefix="pbem-pipeline-", dir=folder) as temp:
            root = Path(temp)
            (root / "pbem.toml").write_text(f"""
[store]
path = "store"
[mail]
address = "game@pbem.test"
mails_per_hour = 1000000
[imap]
host = "127.0.0.1"
port = {imap_port}
security = "plain"
username = "{game_box.username}"
password = "{game_box.password}"
answer_earlier_mail = true
[smtp]
host = "127.0.0.1"
port = {smtp_port}
security = "plain"
""")
            config = load_config(root / "pbem.toml", env={})
            service = Service(Store(config.store), config.service_config())
            service.create_game(GAME, PLAYERS, seed="5eed" * 16)
            passwords = service.start_game(GAME, datetime.now(UTC))
            # The welcome mails go out first: not part of the bench.
            Daemon(config, cards=service.cards).run_once()
            for sender, raw in _orders(n, passwords):
                dovecot.deliver(game_box, raw, sender)
                dovecot.deliver(raw_box, raw, sender)
            _move(dovecot, game_box, "INBOX", _STAGING)
            # A running server's state, not part of the figure either: one mail of each
            # player, before the burst, has the daemon check each password once (scrypt,
            # ~0.1 s, once per player and process) and load what the answers use.
            warm_up = _orders(len(PLAYERS), passwords, tag="warm-up")
            for sender, raw in warm_up:
                dovecot.deliver(game_box, raw, sender)
            daemon = Daemon(config, cards=service.cards,
                            sender=make_sender(config) if threads else None)
            timed = _Timed(daemon)
            ready = threading.Event()
            thread = threading.Thread(target=daemon.serve, kwargs={"ready": ready.set})
            thread.start()
            if not ready.wait(60):
                raise RuntimeError("the daemon did not start")
            store = Store(config.store)
            while timed.processed < len(warm_up) or store.unsent():
                time.sleep(0.05)
            welcomes = len(catcher.mails())
            timed.spent.clear()
            children = daemon.child_pids()
            cpu_began, catcher_began = time.process_time(), catcher.cpu()
            children_began = {role: _cpu_seconds(pid) for role, pid in children.items()}
            wall_began = _announced(dovecot, game_box)
            # Looked at seldom and cheaply: the daemon shares the CPU with this thread.
            while timed.processed < len(warm_up) + n or store.unsent():
                time.sleep(0.05)
            daemon_seconds = _last_sent(config.store) - wall_began
            children_cpu = {role: _cpu_seconds(pid) - children_began[role]
                            for role, pid in children.items()}
            if daemon.child_pids() != children:
                raise RuntimeError("a child process of the daemon was started again")
            daemon_cpu = time.process_time() - cpu_began + sum(children_cpu.values())
            catcher_cpu = catcher.cpu() - catcher_began
            daemon.request_stop()
            thread.join(60)
            answers = catcher.mails()[welcomes:]
            if _left(dovecot, game_box) or store.inbox():
                raise RuntimeError("the daemon left mail unprocessed")

            intake = ImapIntake(
                ImapConfig("127.0.0.1", imap_port, raw_box.username, raw_box.password,
                           "plain"), lambda raw: None, JsonFileCursor(root / "raw-cursor.json"),
                rng=random.Random(0))
            began, cpu_began, catcher_began = (
                time.perf_counter(), time.process_time(), catcher.cpu())
            try:
                fetched = intake.fetch_new()
            finally:
                intake.close()
            with SmtpSender("127.0.0.1", smtp_port, "plain") as smtp:
                for to, raw in answers:
                    smtp.send(to, raw, envelope_from="game@pbem.test")
            raw_seconds = time.perf_counter() - began
            raw_cpu = time.process_time() - cpu_began
            raw_catcher_cpu = catcher.cpu() - catcher_began
            if fetched != n:
                raise RuntimeError(f"the raw intake fetched {fetched} mails, not {n}")
    finally:
        for proxy in proxies:
            proxy.close()
        catcher.stop()
        dovecot.remove()
    daemon_rate, raw_rate = _rate(n, daemon_seconds), _rate(n, raw_seconds)
    cores = len(os.sched_getaffinity(0))
    ratio = daemon_rate["per_second"] / raw_rate["per_second"]
    return {
        "bench": "pipeline",
        "mails": n,
        "answers": len(answers),
        "rtt_ms": rtt_ms,
        "daemon": daemon_rate,
        "raw_transport": raw_rate,
        "ratio": round(ratio, 4),
        "target": TARGET,
        "ok": ratio >= TARGET,
        # CPU of the daemon (this process and its children) and of the SMTP catcher, each side;
        # and the best ratio that CPU allows even if it were spread evenly over every core
        # (Dovecot's share, not measured, would lower it further).
        "cpu_seconds": {"daemon": round(daemon_cpu, 3), "raw_transport": round(raw_cpu, 3),
                        "catcher_for_daemon": round(catcher_cpu, 3),
                        "catcher_for_raw": round(raw_catcher_cpu, 3)},
        "cores": cores,
        "ratio_ceiling_on_all_cores": round(
            min(1.0, cores * raw_seconds / (daemon_cpu + catcher_cpu)), 4),
        "daemon_ms_per_mail": {part: round(seconds / n * 1000, 2)
                               for part, seconds in sorted(timed.spent.items())},
        "child_cpu_ms_per_mail": {role: round(seconds / n * 1000, 2)
                                  for role, seconds in sorted(children_cpu.items())},
        "store_folder": folder or tempfile.gettempdir(),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=200)
    parser.add_argument("--dir", default=None, help="where the store goes (default: the temp "
                        "folder; /dev/shm leaves the disk's fsync out)")
    parser.add_argument("--threads", action="store_true", help="the daemon's intake and "
                        "sending as threads of its process (as with a sender object), not "
                        "processes of their own")
    parser.add_argument("--rtt-ms", type=float, default=0.0, help="round trip added between "
                        "both sides and the mail servers (default 0: loopback, as the target "
                        "is measured)")
    arguments = parser.parse_args()
    print(json.dumps(run(arguments.n, arguments.dir, arguments.rtt_ms, arguments.threads),
                     indent=2))
