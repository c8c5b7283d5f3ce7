"""The store's inbox on disk: a file per group of mails received, done marks, the seen index,
and the mail of a store written by layout 2."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import tracemalloc
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from pbem.store import Store, mail_id_for
from pbem.store.seen import SeenIndex

WHEN = "2024-05-01T09:00:00"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """Give a store holding its lock, with one game "g1"."""
    s = Store(tmp_path / "store")
    with s.lock():
        s.create_game("g1", {})
        yield s


def group(n: int, first: int = 0) -> list[tuple[bytes, str, str]]:
    """Give mails first..first+n-1 as the intake hands them over."""
    return [(f"mail {k}".encode(), f"<m{k}@example.org>", f"p{k}@example.org")
            for k in range(first, first + n)]


def kept(store: Store, mails: list[tuple[bytes, str, str]]) -> list[str]:
    """Give the ids of mails received now, each new."""
    ids = store.receive_many(mails, received_at=WHEN)
    assert None not in ids
    return [mail_id for mail_id in ids if mail_id is not None]


def names(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def seen_rows(root: Path) -> dict[str, str]:
    """Give the seen index's group file name by mail id, read as any SQLite client would."""
    with closing(sqlite3.connect(root / "seen.sqlite")) as index:
        return dict(index.execute("SELECT mail_id, grp FROM seen").fetchall())


def test_mails_received_together_are_one_file_until_all_are_done(store: Store) -> None:
    """One file created per group received, none per mail taken off: the group file stays in
    inbox/ while any of its mails waits, then moves to mail/, named in the seen index."""
    received = store.receive_many([*group(3), group(1)[0]], received_at=WHEN)
    assert received[3] is None  # the same mail twice in one group is kept once
    ids = [mail_id for mail_id in received if mail_id is not None]
    [name] = names(store.root / "inbox")
    assert name.endswith(".mails")
    store.inbox_done(ids[0], ids[2])
    assert [item.mail_id for item in store.inbox()] == [ids[1]]
    assert names(store.root / "inbox") == [name] and names(store.root / "mail") == []
    store.inbox_done(ids[1])
    assert store.inbox() == [] and names(store.root / "inbox") == []
    assert names(store.root / "mail") == [name]
    assert (store.root / "done.log").read_bytes() == b""  # no group in inbox/ needs its marks
    assert seen_rows(store.root) == dict.fromkeys(ids[:3], name)
    fresh = Store(store.root)
    assert [fresh.raw_mail(m) for m in ids[:3]] == [b"mail 0", b"mail 1", b"mail 2"]


def test_a_mail_stays_seen_across_restarts_and_other_store_objects(tmp_path: Path) -> None:
    """The intake and the processing each have their own store object: a copy of a mail
    the other took off (its group gone from inbox/ meanwhile) is still a copy, and so after
    a restart, waiting or done."""
    intake, processing = Store(tmp_path), Store(tmp_path)
    first, second = kept(intake, group(2)), kept(intake, group(2, first=2))
    with processing.lock():
        processing.inbox_done(*first)
    assert names(tmp_path / "mail") != []
    assert intake.receive_many(group(4), received_at=WHEN) == [None] * 4
    restarted = Store(tmp_path)
    assert restarted.receive_many(group(5), received_at=WHEN)[:4] == [None] * 4
    assert all(restarted.seen(f"<m{k}@example.org>", f"p{k}@example.org") for k in range(5))
    last = mail_id_for("<m4@example.org>")
    assert [item.mail_id for item in restarted.inbox()] == [*second, last]
    assert restarted.raw_mail(first[1]) == b"mail 1"


def test_done_marks_lost_in_a_crash_are_redone_by_recover(store: Store) -> None:
    """A power cut may lose done marks (they are not flushed) or the move of a group all of
    whose mails are done: recover takes off the mails whose steps are committed, and moves
    the group."""
    ids = kept(store, group(3))
    store.commit("g1", log_entries=[{"n": 0}], snapshot={}, mail_ids=ids[:2])
    store.inbox_done(ids[0])
    (store.root / "done.log").write_bytes(b"")  # the mark lost
    store.recover()
    assert [item.mail_id for item in store.inbox()] == [ids[2]]
    # The last mark written, the process killed before the move.
    [name] = names(store.root / "inbox")
    with (store.root / "done.log").open("ab") as marks:
        marks.write(b'{"mail_id":"%s","group":"%s"}\n' % (ids[2].encode(), name.encode()))
    assert Store(store.root).inbox() == []
    store.recover()
    assert names(store.root / "inbox") == [] and names(store.root / "mail") == [name]
    assert Store(store.root).receive_many(group(3), received_at=WHEN) == [None] * 3


TAKE_OFF = """
import sys
from pathlib import Path
from pbem.store import Store
store = Store(Path(sys.argv[1]))
with store.lock():
    store.inbox_done(*sys.argv[2:])
"""

RECEIVE = """
import sys
from pathlib import Path
from pbem.store import Store
mails = [(b"copy", f"<m{k}@example.org>", f"p{k}@example.org") for k in range(3)]
print(*Store(Path(sys.argv[1])).receive_many(mails, received_at="2024-05-01T09:00:00"))
"""


def python(script: str, *args: str) -> str:
    """Give what a fresh interpreter running the script printed."""
    return subprocess.run([sys.executable, "-c", script, *args], check=True,
                          capture_output=True, text=True, timeout=60).stdout


def test_a_mail_another_process_took_off_is_seen_by_every_process(tmp_path: Path) -> None:
    """The intake's process looks mails up while the daemon's takes them off: a row the
    other process committed counts from then on, in a store object that had read the index
    before (no snapshot of it is kept open), and in a process started later."""
    intake = Store(tmp_path)
    ids = kept(intake, group(2))
    assert intake.receive_many(group(1), received_at=WHEN) == [None]  # looked up: index open
    python(TAKE_OFF, str(tmp_path), *ids)
    assert names(tmp_path / "inbox") == [] and seen_rows(tmp_path).keys() == set(ids)
    assert intake.receive_many(group(2), received_at=WHEN) == [None, None]
    later = python(RECEIVE, str(tmp_path)).split()
    assert later == ["None", "None", mail_id_for("<m2@example.org>")]


def test_a_crash_between_the_index_and_the_move_is_recovered(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Killed after a group's rows are committed, before its file leaves inbox/: the mails
    are done and seen, their bytes still readable, and recover moves the file."""
    ids = kept(store, group(2))
    store.commit("g1", log_entries=[{"n": 0}], snapshot={}, mail_ids=ids)
    [name] = names(store.root / "inbox")

    def killed(*_: object) -> None:
        raise SystemExit("killed")

    monkeypatch.setattr("pbem.store.inbox.os.replace", killed)
    with pytest.raises(SystemExit):
        store.inbox_done(*ids)
    monkeypatch.undo()
    assert seen_rows(store.root) == dict.fromkeys(ids, name)
    assert names(store.root / "inbox") == [name]
    after = Store(store.root)
    assert after.inbox() == [] and after.raw_mail(ids[1]) == b"mail 1"
    assert after.receive_many(group(2), received_at=WHEN) == [None, None]
    store.recover()
    assert names(store.root / "inbox") == [] and names(store.root / "mail") == [name]
    assert Store(store.root).raw_mail(ids[0]) == b"mail 0"
    assert Store(store.root).receive_many(group(2), received_at=WHEN) == [None, None]


def fake_rows(n: int, first: int = 0) -> list[tuple[str, str]]:
    """Give n seen rows: made-up mail ids, 50 a group."""
    return [(mail_id_for(f"<old{k}@example.org>"), f"{k // 50:010d}.0123456789abcdef.mails")
            for k in range(first, first + n)]


def test_looking_a_mail_up_costs_no_memory_per_mail_ever_seen(tmp_path: Path) -> None:
    """A store that received 200,000 mails: a new store object looks mails up (not seen,
    seen) holding a few kilobytes, not the store's history, in memory."""
    rows = fake_rows(200_000)
    Store(tmp_path)
    SeenIndex(tmp_path / "seen.sqlite").add(rows)
    fresh, index = Store(tmp_path), SeenIndex(tmp_path / "seen.sqlite")
    tracemalloc.start()
    try:
        assert not fresh.seen("<new@example.org>", "ann@example.org")
        assert index.group(rows[123_456][0]) == rows[123_456][1]
        assert index.group(rows[-1][0]) == rows[-1][1]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 256 * 1024


def lookup_steps(root: Path, mail_id: str) -> int:
    """Give the SQLite virtual machine steps one lookup takes in a new store object."""
    index = SeenIndex(root / "seen.sqlite")
    index.group(mail_id)  # the index opened: its set-up is not the lookup's
    steps = 0

    def count() -> int:
        nonlocal steps
        steps += 1
        return 0

    db = index._connection()
    db.set_progress_handler(count, 1)
    index.group(mail_id)
    db.set_progress_handler(None, 1)
    return steps


def test_a_lookup_costs_the_same_with_1000_or_200000_mails_seen(tmp_path: Path) -> None:
    """A lookup is a descent of the index, not a walk through the store's history: as many
    steps of SQLite's machine with 200 times as many mails seen."""
    Store(tmp_path)
    SeenIndex(tmp_path / "seen.sqlite").add(fake_rows(1_000))
    seen, absent = fake_rows(1)[0][0], mail_id_for("<new@example.org>")
    few = lookup_steps(tmp_path, seen), lookup_steps(tmp_path, absent)
    SeenIndex(tmp_path / "seen.sqlite").add(fake_rows(199_000, first=1_000))
    assert (lookup_steps(tmp_path, seen), lookup_steps(tmp_path, absent)) == few
    assert 0 < few[0] < 100


def legacy_mail(path: Path, mail_id: str, message_id: str, seq: int, raw: bytes,
                sender: str | None = None) -> None:
    """Write a mail file as layout 2 did: its record on a line, then its bytes."""
    record = {"mail_id": mail_id, "message_id": message_id, "received_at": WHEN, "seq": seq}
    if sender is not None:
        record["sender"] = sender
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(json.dumps(record).encode() + b"\n" + raw)


def test_a_store_of_layout_2_keeps_its_mail(tmp_path: Path) -> None:
    """Mail received by layout 2 (a file each: inbox/<id>.mail waiting, mail/<aa>/<id>.mail
    done) stays waiting, done and seen; the store says format 4 from then on, so the pbem
    of layout 2 does not overlook the mail received since."""
    root = tmp_path / "store"
    for folder in ("inbox", "mail", "outbox", "games"):
        (root / folder).mkdir(parents=True)
    (root / "format").write_bytes(b"2\n")
    done, waiting = mail_id_for("<done@x>"), mail_id_for("<waiting@x>")
    legacy_mail(root / "mail" / done[:2] / f"{done}.mail", done, "<done@x>", 0, b"done",
                sender=None)  # written before senders were kept
    legacy_mail(root / "inbox" / f"{waiting}.mail", waiting, "<waiting@x>", 7, b"waiting",
                sender="ann@x")
    store = Store(root)
    assert (root / "format").read_bytes() == b"4\n2\n"
    assert store.raw_mail(done) == b"done" and store.raw_mail(waiting) == b"waiting"
    assert store.seen("<done@x>", "bob@x") and store.seen("<waiting@x>", "ann@x")
    assert not store.seen("<waiting@x>", "bob@x")
    received = store.receive_many([(b"new", "<new@x>", "ann@x"), (b"copy", "<done@x>", "ann@x"),
                                   (b"copy", "<waiting@x>", "ann@x")], received_at=WHEN)
    assert received == [mail_id_for("<new@x>"), None, None]
    new = [mail_id_for("<new@x>")]
    assert [item.mail_id for item in Store(root).inbox()] == [waiting, new[0]]
    with store.lock():
        store.inbox_done(waiting, new[0])
        store.inbox_done(done, waiting)  # done before: harmless
    assert store.inbox() == [] and names(root / "inbox") == []
    assert (root / "mail" / waiting[:2] / f"{waiting}.mail").exists()
    reopened = Store(root)
    assert reopened.raw_mail(waiting) == b"waiting" and reopened.raw_mail(new[0]) == b"new"
    assert reopened.receive_many([(b"copy", "<waiting@x>", "ann@x")], received_at=WHEN) == [None]
    assert (root / "format").read_bytes() == b"4\n2\n"
