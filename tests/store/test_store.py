"""The game store against real files and real second processes: what only files show (the
interface's behaviour, on these files and on the twin in memory alike, is
tests/store/test_store_contract.py's)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from storing import mail, receive, step

from pbem.errors import StoreError
from pbem.store import Store, mail_id_for

SEGMENT = 4  # small, so a handful of commits closes segments


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """Give a store holding its lock, with one game "g1"."""
    s = Store(tmp_path / "store", segment_size=SEGMENT)
    with s.lock():
        s.create_game("g1", {"players": ["ann", "bob"], "seed": "x"})
        yield s





# ---- layout and lock ---------------------------------------------------------------------


def test_a_new_store_makes_its_folders_and_reopens(tmp_path: Path) -> None:
    root = tmp_path / "deep" / "store"
    Store(root)
    assert {p.name for p in root.iterdir()} >= {"inbox", "mail", "outbox", "games"}
    with Store(root).lock():
        assert Store(root).games() == []


def test_the_lock_is_reentrant_and_released_after_the_outer_block(tmp_path: Path) -> None:
    s = Store(tmp_path)
    with s.lock(), s.lock():
        s.create_game("g1", {})
    with pytest.raises(StoreError):
        s.create_game("g2", {})
    with Store(tmp_path).lock(timeout=0):  # another holder gets it at once
        pass


HOLDER = """
import sys, time
from pathlib import Path
from pbem.store import Store
with Store(Path(sys.argv[1])).lock():
    print("locked", flush=True)
    hold = float(sys.argv[2])
    if hold < 0:
        sys.stdin.readline()
    else:
        time.sleep(hold)
"""


def hold_lock(root: Path, seconds: float) -> subprocess.Popen[str]:
    """Give a second process that holds the store lock (until stdin closes if seconds < 0)."""
    child = subprocess.Popen([sys.executable, "-c", HOLDER, str(root), str(seconds)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    assert child.stdout.readline() == "locked\n"
    return child


def test_a_second_process_holding_the_lock_makes_a_timeout_fail(tmp_path: Path) -> None:
    s = Store(tmp_path)
    child = hold_lock(tmp_path, -1)
    try:
        started = time.monotonic()
        with pytest.raises(StoreError, match=f"in use by process {child.pid}"), s.lock(0.3):
            pass
        assert time.monotonic() - started >= 0.3
        with pytest.raises(StoreError, match="without holding"):
            s.create_game("g1", {})
    finally:
        child.communicate("\n", timeout=10)
    with s.lock(timeout=0):
        s.create_game("g1", {})
    assert s.games() == ["g1"]


def test_a_lock_held_by_another_program_is_not_blamed_on_a_gone_process(
        tmp_path: Path) -> None:
    """A backup holds the locks with flock(1) (deploy/BACKUPS.md), which writes no process
    id: the id left by the last pbem process that took the lock is not named."""
    s = Store(tmp_path)
    with s.lock():
        pass  # leaves this process's id in the file: make it one that does not run
    (tmp_path / "lock").write_text("999999999\n")
    backup = subprocess.Popen(["flock", str(tmp_path / "lock"), "sh", "-c", "echo held; sleep 30"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert backup.stdout is not None and backup.stdout.readline() == "held\n"
        with pytest.raises(StoreError, match="in use by another program"), s.lock(0.2):
            pass
    finally:
        backup.kill()
        backup.wait()


@pytest.mark.parametrize("timeout", [None, 10.0])
def test_lock_waits_for_the_other_process_to_let_go(tmp_path: Path, timeout: float | None) -> None:
    s = Store(tmp_path)
    child = hold_lock(tmp_path, 0.4)
    started = time.monotonic()
    with s.lock(timeout):
        waited = time.monotonic() - started
        s.create_game("g1", {})
    child.wait(timeout=10)
    assert waited >= 0.2  # the child held it 0.4 s after saying "locked"


# ---- inbox -------------------------------------------------------------------------------


def test_a_message_id_is_seen_once_even_after_done_and_reopen(store: Store) -> None:
    mail_id = receive(store, 1)
    assert mail_id == mail_id_for("m1@example.org ")
    assert store.receive(b"again", message_id=" m1@example.org", received_at="t") is None
    store.inbox_done(mail_id)
    store.inbox_done(mail_id)  # idempotent
    assert store.inbox() == []
    assert Store(store.root).inbox() == []
    assert store.receive(b"again", message_id="<m1@example.org>", received_at="t") is None
    assert store.raw_mail(mail_id) == b"mail 1"


def test_a_message_id_another_sender_used_first_does_not_drop_a_mail(store: Store) -> None:
    """A mail program that gives every mail the same Message-ID must not have one player's
    orders taken for a copy of another's: the id counts per sender (any case); a copy
    from the same sender is still a copy, and so is a mail received before senders were
    kept."""
    first = store.receive(b"alice's", message_id="<same@x>", received_at="t",
                          sender="alice@example.org")
    second = store.receive(b"bob's", message_id="<same@x>", received_at="t",
                           sender="bob@example.org")
    assert first is not None and second is not None and first != second
    assert store.raw_mail(second) == b"bob's"
    for sender in ("Alice@Example.org", "bob@example.org"):  # copies
        assert store.receive(b"copy", message_id="<same@x>", received_at="t",
                             sender=sender) is None
    store.inbox_done(first, second)
    assert store.seen("<same@x>", "bob@example.org")
    assert not store.seen("<same@x>", "carol@example.org")
    old = store.root / "inbox" / "0000000009.0123456789abcdef.mails"  # a record, no sender
    old.write_bytes(b'{"mails":[{"mail_id":"%s","message_id":"<old@x>","received_at":"t",'
                    b'"seq":9,"size":3}]}\nold' % mail_id_for("<old@x>").encode())
    assert store.receive(b"copy", message_id="<old@x>", received_at="t",
                         sender="bob@example.org") is None


def test_mail_is_received_while_another_holds_the_store_lock(tmp_path: Path) -> None:
    """Receiving takes the inbox's own lock: an intake stores mail (and so can tell the mail
    server it has it) while a round of mail is being processed under the store's lock; two
    receivers at once still number their mails apart."""
    busy, intake, other = Store(tmp_path), Store(tmp_path), Store(tmp_path)
    with busy.lock():
        got: list[str | None] = []
        for n in range(2):
            worker = threading.Thread(target=lambda n=n: got.append(receive(intake, n)))
            worker.start()
            worker.join(5)
            assert not worker.is_alive(), "receiving waited for the store lock"
        got.append(receive(other, 2))
    items = busy.inbox()
    assert [i.mail_id for i in items] == got
    seqs = [read_seq(tmp_path, i.mail_id) for i in items]
    assert seqs == sorted(set(seqs))


@pytest.mark.parametrize("left", ["index.json", "sent"])
def test_a_store_of_the_earlier_layout_is_refused_untouched(tmp_path: Path, left: str) -> None:
    """A store of layout 1 (a file per mail, no ``format`` file) would be misread: its
    waiting mail ignored, its sent mail sent again."""
    (tmp_path / left).mkdir()
    with pytest.raises(StoreError, match="has layout 1") as refused:
        Store(tmp_path)
    assert "new store folder" in str(refused.value.suggestion)
    assert [p.name for p in tmp_path.iterdir()] == [left]
    Store(tmp_path / "new")
    assert (tmp_path / "new" / "format").read_text() == "4\n"
    Store(tmp_path / "new")  # and opened again


def read_seq(root: Path, mail_id: str) -> int:
    for path in (root / "inbox").glob("*.mails"):
        with path.open("rb") as handle:
            for record in json.loads(handle.readline())["mails"]:
                if record["mail_id"] == mail_id:
                    value: int = record["seq"]
                    return value
    raise AssertionError(f"{mail_id} is not in inbox/")


def test_arrival_order_survives_done_items_and_a_new_lock_hold(tmp_path: Path) -> None:
    s = Store(tmp_path)
    with s.lock():
        ids = [receive(s, n) for n in range(3)]
        s.inbox_done(ids[0])
    with s.lock():
        ids.append(receive(s, 3))
    assert [i.mail_id for i in s.inbox()] == ids[1:]


# ---- games -------------------------------------------------------------------------------


def test_a_game_is_created_with_its_first_snapshot_all_or_nothing(store: Store) -> None:
    """One commit point for a new game: listed with its snapshot and first entries, or not
    at all; a creation that died before listing it may be done again, but a folder with
    anything committed since is never overwritten."""
    store.create_game("g2", {"seed": 2}, snapshot={"s": 0}, log_entries=[{"i": 0}])
    assert (store.snapshot("g2"), list(store.log("g2"))) == ({"s": 0}, [{"i": 0}])

    def unlist(game: str) -> None:  # the index as it was before the game was listed
        index = json.loads((store.root / "index.json").read_bytes())
        index["games"] = {k: v for k, v in index["games"].items() if v["game_id"] != game}
        (store.root / "index.json").write_text(json.dumps(index))
        store.forget_index()

    unlist("g2")
    store.create_game("g2", {"seed": 3}, snapshot={"s": 1})
    assert (store.setup("g2"), store.snapshot("g2"), store.log_length("g2")) == (
        {"seed": 3}, {"s": 1}, 0)
    store.commit("g2", log_entries=[{"i": 0}], snapshot={"s": 2})
    unlist("g2")
    with pytest.raises(StoreError, match="index does not list"):
        store.create_game("g2", {})
    assert store.snapshot("g2") == {"s": 2}


# ---- commit and log ----------------------------------------------------------------------


def test_commit_appends_and_log_streams_across_closed_segments(store: Store) -> None:
    for n in range(11):
        step(store, n)
    assert store.log_length("g1") == 11
    assert [e["n"] for e in store.log("g1")] == list(range(11))
    for since in (0, 3, 4, 5, 8, 10, 11, 20):
        assert [e["n"] for e in store.log("g1", since)] == list(range(since, 11))
    assert sorted(p.name for p in (store.root / "games/g1/segments").iterdir()) == [
        "0000000000.json", "0000000004.json"]
    assert store.snapshot("g1") == {"last": 10}
    with pytest.raises(StoreError, match="negative"):
        store.log("g1", -1)


def test_a_step_of_many_entries_can_close_several_segments(store: Store) -> None:
    store.commit("g1", log_entries=[{"n": n} for n in range(10)], snapshot={"last": 9})
    store.commit("g1", log_entries=[], snapshot={"last": 9, "checked": True})
    assert [e["n"] for e in store.log("g1", 2)] == list(range(2, 10))
    assert store.snapshot("g1") == {"last": 9, "checked": True}


def test_applied_mails_stay_correct_after_their_segment_closes(store: Store) -> None:
    ids = [receive(store, n) for n in range(12)]
    for n, mail_id in enumerate(ids[:10]):
        step(store, n, mail_ids=[mail_id])
    store.commit("g1", log_entries=[], snapshot=None, mail_ids=[ids[10]])  # a refused order
    assert store.applied_mails("g1", ids) == set(ids[:11])
    store.create_game("g2", {})
    assert store.applied_mails("g2", ids) == set()
    with pytest.raises(StoreError, match="already applied"):
        step(store, 99, mail_ids=[ids[11], ids[2]])
    assert store.log_length("g1") == 10
    assert Store(store.root).applied_mails("g1", [ids[0], ids[9]]) == {ids[0], ids[9]}


def test_a_failed_commit_changes_nothing_a_reader_trusts(store: Store) -> None:
    mail_id = receive(store, 1)
    with pytest.raises(StoreError, match="JSON"):
        store.commit("g1", log_entries=[{"n": 0}], snapshot={"bad": {1, 2}},
                     mail_ids=[mail_id], outbox=[mail(0)])
    assert store.log_length("g1") == 0 and store.snapshot("g1") is None
    assert store.applied_mails("g1", [mail_id]) == set()  # its marker is only a hint
    assert store.outbox() == []  # its bytes were written but nothing points to them
    step(store, 0, mail_ids=[mail_id], outbox=[mail(0)])  # the redo
    assert store.applied_mails("g1", [mail_id]) == {mail_id}
    assert [o.outbox_id for o in store.outbox()] == ["g1-o0"]


def test_commit_rewrites_neither_the_index_nor_other_games(store: Store) -> None:
    store.create_game("g2", {})
    others = [store.root / "index.json", store.root / "games/g2/hot.json"]
    before = [os.stat(p).st_ino for p in others]
    for n in range(6):
        step(store, n)
    assert [os.stat(p).st_ino for p in others] == before


def test_the_hot_file_does_not_grow_with_the_log(tmp_path: Path) -> None:
    s = Store(tmp_path, segment_size=64)
    hot = tmp_path / "games/g/hot.json"
    sizes = {}
    with s.lock():
        s.create_game("g", {})
        for n in range(0, 528, 8):  # steps of 8 entries, each with a mail in and a mail out
            s.commit("g", log_entries=[{"n": n + i} for i in range(8)], snapshot={"last": n},
                     mail_ids=[receive(s, n)], outbox=[mail(n, "g")])
            s.mark_sent(f"g-o{n}", sent_at="t")
            sizes[n + 8] = hot.stat().st_size
    # The same place in the open segment (520 = 8 * 64 + 8): only the digits of indexes differ.
    assert sizes[520] <= sizes[8] * 1.1
    assert max(sizes.values()) <= max(sizes[n] for n in range(8, 65, 8)) * 1.1
    assert [e["n"] for e in s.log("g", 510)] == list(range(510, 528))


# ---- rollback ----------------------------------------------------------------------------


def test_truncate_inside_the_open_segment(store: Store) -> None:
    ids = [receive(store, n) for n in range(6)]
    for n in range(6):
        step(store, n, mail_ids=[ids[n]])
    store.truncate_log("g1", 5, {"last": 4})
    assert [e["n"] for e in store.log("g1")] == [0, 1, 2, 3, 4]
    assert store.snapshot("g1") == {"last": 4}
    assert store.applied_mails("g1", ids) == set(ids[:5])


def test_truncate_into_a_closed_segment_and_grow_again(store: Store) -> None:
    ids = [receive(store, n) for n in range(10)]
    for n in range(10):
        step(store, n, mail_ids=[ids[n]])
    store.truncate_log("g1", 2, {"last": 1})
    assert [e["n"] for e in store.log("g1")] == [0, 1]
    assert store.applied_mails("g1", ids) == set(ids[:2])
    for n in range(2, 9):  # new history over the stale segment files
        step(store, 100 + n)
    assert [e["n"] for e in store.log("g1")] == [0, 1, *range(102, 109)]
    assert store.applied_mails("g1", ids) == set(ids[:2])  # old markers point at new segments
    step(store, 200, mail_ids=[ids[5]])  # a rolled-back mail can be applied again
    assert store.applied_mails("g1", ids) == {*ids[:2], ids[5]}
    store.truncate_log("g1", 0, {})
    assert list(store.log("g1")) == [] and store.applied_mails("g1", ids) == set()
    with pytest.raises(StoreError, match="cannot cut"):
        store.truncate_log("g1", 1, {})


# ---- outbox ------------------------------------------------------------------------------


def test_mark_failed_then_mark_sent_twice(store: Store) -> None:
    step(store, 0, outbox=[mail(1), mail(2)])
    store.mark_failed("g1-o1", error="451 try later", retry_at="2024-05-01T10:05:00",
                      attempts=1)
    failed = store.outbox()[0]
    assert (failed.attempts, failed.retry_at, failed.last_error) == (
        1, "2024-05-01T10:05:00", "451 try later")
    store.mark_sent("g1-o1", sent_at="2024-05-01T10:05:01")
    store.mark_sent("g1-o1", sent_at="2024-05-01T10:09:00")  # idempotent: keeps the first
    assert store.sent_at("g1-o1") == "2024-05-01T10:05:01"
    assert [i.outbox_id for i in store.outbox()] == ["g1-o2"]
    with pytest.raises(StoreError, match="already sent"):
        store.mark_failed("g1-o1", error="x", retry_at="t", attempts=2)
    with pytest.raises(StoreError, match="No queued mail"):
        store.mark_sent("nope", sent_at="t")
    with pytest.raises(StoreError, match="No queued mail"):
        store.mark_failed("nope", error="x", retry_at="t", attempts=1)
    store.mark_sent("g1-o2", sent_at="t")
    assert store.outbox() == [] and list((store.root / "outbox").iterdir()) == []


def test_unsent_counts_the_queued_mails_until_each_is_marked_sent(store: Store) -> None:
    assert store.unsent() == 0
    store.create_game("g2", {})
    step(store, 0, outbox=[mail(1), mail(2)])
    step(store, 0, game="g2", outbox=[mail(1, "g2")])
    assert store.unsent() == 3
    store.mark_sent("g1-o2", sent_at="t")
    assert store.unsent() == 2
    for item in store.outbox():
        store.mark_sent(item, sent_at="t")
    assert store.unsent() == 0


# ---- restart -----------------------------------------------------------------------------


def test_recover_drops_litter_of_a_killed_writer(store: Store) -> None:
    with pytest.raises(StoreError):
        store.commit("g1", log_entries=[], snapshot={"bad": float("nan")}, outbox=[mail(5)])
    litter = [store.root / "games/g1/.hot.json.abc.tmp", store.root / "inbox/.x.mail.a.tmp"]
    for path in litter:  # however young: their writers hold the store's or the inbox's lock
        path.write_bytes(b'{"half')
    (store.root / "daemon").mkdir()
    old_cursor = store.root / "daemon/.imap-cursor.json.abc.tmp"
    old_cursor.write_bytes(b'{"half')
    os.utime(old_cursor, (time.time() - 3600, time.time() - 3600))
    in_flight = store.root / "daemon/.imap-cursor.json.def.tmp"  # its writer takes no lock
    in_flight.write_bytes(b'{"be')
    # Nor does the sending process, raising an alarm in daemon/alarms/ while the main one
    # recovers at its start (the alarm was lost so, and the game master never told).
    (store.root / "daemon/alarms").mkdir()
    alarm = store.root / "daemon/alarms/.smtp-login.json.ghi.tmp"
    alarm.write_bytes(b'{"wh')
    store.recover()
    assert not any(path.exists() for path in [*litter, old_cursor])
    assert in_flight.exists() and alarm.exists()
    assert list((store.root / "outbox").iterdir()) == []
    assert store.snapshot("g1") is None


def test_a_damaged_file_is_reported_not_guessed(store: Store) -> None:
    (store.root / "games/g1/hot.json").write_text('{"game": {"1": ')
    with pytest.raises(StoreError, match=r"games/g1/hot.json is damaged"):
        store.snapshot("g1")


def test_every_file_the_store_writes_is_json_a_mail_or_the_seen_index(store: Store) -> None:
    mail_id = receive(store, 0)
    for n in range(6):
        step(store, n, mail_ids=[mail_id] if n == 0 else [], outbox=[mail(n)])
    store.mark_sent("g1-o0", sent_at="t")
    store.inbox_done(mail_id)
    kinds = set()
    for path in store.root.rglob("*"):
        kinds.add(path.suffix)
        if path.suffix == ".json":
            json.loads(path.read_bytes())
        elif path.suffix == ".log":  # a journal: a JSON value a line
            assert all(json.loads(line) for line in path.read_bytes().splitlines())
        elif path.suffix == ".mails":  # mails queued or received: a header, then their bytes
            header, _, mails = path.read_bytes().partition(b"\n")
            sizes = json.loads(header).get("sizes") or [
                record["size"] for record in json.loads(header)["mails"]]
            assert sum(sizes) == len(mails)
            kinds.add(path.parent.name)
        elif path.name.startswith("seen.sqlite"):  # the seen index, and SQLite's WAL files
            kinds.add("seen.sqlite")
        else:
            assert path.is_dir() or path.suffix == ".lock" or path.name in ("lock", "format"), path
    assert {".log", ".mails", "outbox", "mail", "seen.sqlite"} <= kinds
    with closing(sqlite3.connect(store.root / "seen.sqlite")) as index:
        assert index.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert index.execute("SELECT mail_id FROM seen").fetchall() == [(mail_id,)]
