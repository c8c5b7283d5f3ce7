"""The store survives a writer SIGKILLed at random moments: nothing lost, nothing twice.

A real writer process (this file run as a script) receives mails, applies each to a game
the way the service does (check applied, commit, mark done), sends or fails outbox mails
and rolls a third game back and forth. The test kills it at seeded random moments and,
after each kill, checks the store from a fresh process state.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from pbem.atomicfile import TEMP_SUFFIX
from pbem.store import OutboxItem, Store, mail_id_for

KILLS = 54
SEED = 20240501
SEGMENT = 4  # small, so segments close (and reopen on rollback) all the time
MAIL_GAMES = ("g1", "g2")
ROLLBACK_GAME = "g3"


def message_id(n: int) -> str:
    return f"<m{n}@crash.test>"


def reply_id(mail_id: str) -> str:
    return f"{mail_id}-reply"


def game_of(n: int) -> str:
    return MAIL_GAMES[n % 2]


def step_entries(length: int, count: int, **fields: Any) -> list[dict[str, Any]]:
    """Give ``count`` log entries that know their own index."""
    return [{"i": length + k, **fields} for k in range(count)]


def apply_inbox(store: Store) -> None:
    """Apply every waiting mail once, as the service does."""
    for item in store.inbox():
        n = int(store.raw_mail(item.mail_id).decode().split()[1])
        game = game_of(n)
        if not store.applied_mails(game, [item.mail_id]):
            length = store.log_length(game)
            entries = step_entries(length, 2, mail=item.mail_id)
            reply = OutboxItem(reply_id(item.mail_id), game, f"p{n}@crash.test",
                               f"<r{n}@pbem>", f"reply to {n}".encode(), f"t{n:08d}")
            store.commit(game, log_entries=entries,
                         snapshot={"length": length + 2, "last": entries[-1]},
                         meta={"mails": n}, mail_ids=[item.mail_id], outbox=[reply],
                         expect_length=length)
        store.inbox_done(item.mail_id)


def roll(store: Store, rng: random.Random) -> None:
    """Grow or cut the rollback game by a random amount."""
    length = store.log_length(ROLLBACK_GAME)
    if length and rng.random() < 0.3:
        cut = rng.randint(0, length)
        last = next(store.log(ROLLBACK_GAME, cut - 1), None) if cut else None
        store.truncate_log(ROLLBACK_GAME, cut, {"length": cut, "last": last})
    else:
        entries = step_entries(length, rng.randint(1, 3))
        store.commit(ROLLBACK_GAME, log_entries=entries,
                     snapshot={"length": length + len(entries), "last": entries[-1]})


def writer(root: Path, seed: int) -> None:
    """Run the service loop for ever (until killed)."""
    rng = random.Random(seed)
    acks = root.parent / "acks"
    store = Store(root, segment_size=SEGMENT)
    with store.lock(timeout=10):
        print("started", flush=True)
        store.recover()
        for game in (*MAIL_GAMES, ROLLBACK_GAME):
            if game not in store.games():
                store.create_game(game, {"name": game})
        print("ready", flush=True)
        n = len(acks.read_text().splitlines()) if acks.exists() else 0
        with acks.open("a") as ack_file:
            while True:
                raw = f"mail {n}".encode()
                store.receive(raw, message_id=message_id(n), received_at=f"t{n:08d}")
                # Only now may the mail server hear "accepted" (None = seen: accepted too).
                ack_file.write(f"{n}\n")
                ack_file.flush()
                n += 1
                apply_inbox(store)
                for item in store.outbox():
                    if rng.random() < 0.3:
                        store.mark_failed(item.outbox_id, error="451 later", retry_at="t",
                                          attempts=item.attempts + 1)
                    else:  # as the daemon does (the item), or as the command line (the id)
                        store.mark_sent(item if rng.random() < 0.5 else item.outbox_id,
                                        sent_at=f"sent {n}")
                roll(store, rng)


def check_files(root: Path) -> None:
    """Every file the store keeps is whole (temp files of a killed write excepted; a
    journal's last line may be partial, and is not read)."""
    for folder, _dirs, names in os.walk(root):
        for name in names:
            data = (Path(folder) / name).read_bytes()
            if name.endswith(".json"):
                json.loads(data)
            elif name.endswith(".log"):
                for line in data[:data.rfind(b"\n") + 1].splitlines():
                    json.loads(line)
            elif name.endswith(".mails"):  # mails queued or received: a header, their bytes
                header, _, mails = data.partition(b"\n")
                sizes = json.loads(header).get("sizes") or [
                    record["size"] for record in json.loads(header)["mails"]]
                assert sum(sizes) == len(mails), name


def check_log(store: Store, game: str) -> list[dict[str, Any]]:
    """The log is gap- and duplicate-free and the snapshot matches its last entry."""
    entries = list(store.log(game))
    assert [e["i"] for e in entries] == list(range(len(entries))), game
    assert store.log_length(game) == len(entries)
    snapshot = store.snapshot(game)
    if entries:
        assert snapshot == {"length": len(entries), "last": entries[-1]}, game
    else:
        assert snapshot in (None, {"length": 0, "last": None}), game
    return entries


def check_store(root: Path) -> None:
    """Everything the killed writer was told is durable, exactly once."""
    check_files(root)
    store = Store(root, segment_size=SEGMENT)
    games = store.games()
    if ROLLBACK_GAME in games:
        check_log(store, ROLLBACK_GAME)
    applied: Counter[str] = Counter()
    for game in MAIL_GAMES:
        if game in games:
            applied.update(e["mail"] for e in check_log(store, game))
    assert set(applied.values()) <= {2}, "a mail was applied twice"
    waiting = {item.mail_id for item in store.inbox()}
    acks = root.parent / "acks"
    for n in map(int, acks.read_text().splitlines() if acks.exists() else []):
        mail_id = mail_id_for(message_id(n))
        assert mail_id in waiting or mail_id in applied, f"acknowledged mail {n} is lost"
    queued = [item.outbox_id for item in store.outbox()]
    assert len(queued) == len(set(queued)), "an outbox mail is queued twice"
    for mail_id in applied:
        reply = reply_id(mail_id)
        sent = store.sent_at(reply) is not None
        assert sent != (reply in queued), f"reply {reply} is lost or both sent and queued"
    for litter in root.rglob(f"*{TEMP_SUFFIX}"):  # recover() leaves a young one: in flight
        os.utime(litter, (0, 0))
    with store.lock(timeout=10):
        store.recover()
        assert not [p for p in root.rglob(f"*{TEMP_SUFFIX}")]
        for game in MAIL_GAMES:
            if game in games:
                assert not store.applied_mails(game, [i.mail_id for i in store.inbox()])


def test_random_kills_lose_nothing_and_repeat_nothing(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    root = tmp_path / "store"
    started = time.monotonic()
    for kill in range(KILLS):
        child = subprocess.Popen([sys.executable, __file__, str(root), str(SEED + kill)],
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None
        assert child.stdout.readline() == "started\n"
        if kill % 5:  # most kills land in the service loop, some during recover()
            assert child.stdout.readline() == "ready\n"
        time.sleep(rng.uniform(0, 0.12))
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
        assert child.returncode == -signal.SIGKILL, "the writer stopped by itself"
        check_store(root)
    store = Store(root)
    lengths = {g: store.log_length(g) for g in store.games()}
    print(f"{KILLS} kills in {time.monotonic() - started:.1f} s; log lengths {lengths}")
    assert min(lengths[g] for g in MAIL_GAMES) > 2 * SEGMENT, "too few steps to close segments"


if __name__ == "__main__":
    writer(Path(sys.argv[1]), int(sys.argv[2]))
