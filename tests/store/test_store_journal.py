"""The store's journals (append-only JSON lines) and its outgoing bundles, at the edges a
killed writer, a power cut or a long-running daemon leave them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pbem.store import OutboxItem, Store
from pbem.store.journal import Journal, Journals


def journal(path: Path) -> Journal:
    return Journal(path, "id", "at")


def test_readers_read_only_what_was_added_and_see_every_writer(tmp_path: Path) -> None:
    path = tmp_path / "j.log"
    reader, writer = journal(path), journal(path)
    assert reader.values() == {}  # no file yet
    writer.append([{"id": "a", "at": 1}, {"id": "b", "at": 2}])
    assert reader.values() == {"a": 1, "b": 2}
    writer.append([{"id": "a", "at": 3}])  # a later line wins
    assert reader.values() == {"a": 3, "b": 2}
    assert len(reader) == 2


def test_a_writer_knows_what_it_added_unless_another_wrote_since_it_read(
        tmp_path: Path) -> None:
    """Marking a mail sent appends a line, then looks at the journal: a writer that had
    read up to the end keeps what it wrote without reading it back; one that had not
    (another writer added lines meanwhile) says so, and reads them all."""
    path = tmp_path / "j.log"
    first, second = journal(path), journal(path)
    assert first.values() == {}
    assert not first.append([{"id": "a", "at": 1}])  # no file when it looked
    assert first.values() == {"a": 1}
    assert first.append([{"id": "b", "at": 2}])
    assert first.values_read() == {"a": 1, "b": 2} == journal(path).values()
    second.append([{"id": "c", "at": 3}])
    assert not first.append([{"id": "d", "at": 4}])
    assert first.values() == {"a": 1, "b": 2, "c": 3, "d": 4}
    assert first.append([{"id": "a", "at": 5}], flush=False)  # a later line wins
    assert first.values_read() == {"a": 5, "b": 2, "c": 3, "d": 4} == journal(path).values()
    size = path.stat().st_size
    path.unlink()  # written anew, as long as the one read (its inode number may come back)
    path.write_bytes(b'{"id":"z","at":0}'.ljust(size - 1) + b"\n")
    assert not first.append([{"id": "e", "at": 6}])
    assert first.values() == {"z": 0, "e": 6}


def test_a_partial_last_line_is_skipped_then_cut_off_by_the_next_writer(tmp_path: Path) -> None:
    path = tmp_path / "j.log"
    journal(path).append([{"id": "a", "at": 1}])
    with path.open("ab") as handle:
        handle.write(b'{"id": "b", "a')  # a writer killed mid-line
    reader = journal(path)
    assert reader.values() == {"a": 1}
    journal(path).append([{"id": "c", "at": 3}])
    assert path.read_bytes().splitlines()[1:] == [b'{"id":"c","at":3}']
    assert reader.values() == {"a": 1, "c": 3}


def test_a_journal_removed_and_written_anew_is_read_anew(tmp_path: Path) -> None:
    """Even if the new file gets the old one's inode number back, its first line tells."""
    path = tmp_path / "j.log"
    reader = journal(path)
    journal(path).append([{"id": "old", "at": 1}])
    assert reader.values() == {"old": 1}
    path.unlink()
    assert reader.values() == {}
    journal(path).append([{"id": "new", "at": 2}, {"id": "newer", "at": 3}])
    assert reader.values() == {"new": 2, "newer": 3}
    # The same inode and the same length, but other content (a restored copy, say).
    os.truncate(path, 0)
    with path.open("ab") as handle:
        handle.write(b'{"id":"NEW","at":2}\n{"id":"x","at":3}\n{"id":"y","at":4}\n')
    assert reader.values() == {"NEW": 2, "x": 3, "y": 4}


def test_a_damaged_journal_line_is_skipped_and_named_in_the_log(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A damaged line stops nothing (done.log is the whole store's): the lines around it
    still count, and the log names the file (``pbem doctor`` does too)."""
    path = tmp_path / "sent.log"
    path.write_bytes(b'{"id":"a","at":1}\n\0\0\0\0\n{"id":"b","at":2}\n')  # a power cut
    assert journal(path).values() == {"a": 1, "b": 2}
    assert "sent.log has 1 damaged line(s)" in caplog.text


def test_journals_in_memory_are_bounded_by_their_records(tmp_path: Path) -> None:
    """Each journal is counted when taken (it is taken on every use): four of two records
    each, taken twice, leave the last two within five records."""
    kept = Journals(kept=5)
    for n in range(4):
        path = tmp_path / f"{n}.log"
        journal(path).append([{"id": str(k), "at": k} for k in range(2)])
        kept.get(path, "id", "at").values()
        kept.get(path, "id", "at")
    assert [p.name for p in kept._open] == ["2.log", "3.log"]
    first = kept.get(tmp_path / "0.log", "id", "at")
    assert first.values() == {"0": 0, "1": 1}  # read again from its file when needed


def item(n: int) -> OutboxItem:
    return OutboxItem(f"g1-o{n}", "g1", f"p{n}@x.test", f"<o{n}@pbem.test>", b"mail %d" % n,
                      "2024-05-01T10:00:00")


def test_a_bundle_stays_until_its_last_mail_is_sent(tmp_path: Path) -> None:
    store = Store(tmp_path / "store")
    with store.lock():
        store.create_game("g1", {})
        store.commit("g1", log_entries=[{"i": 0}], snapshot={}, outbox=[item(1), item(2)])
    bundles = list((store.root / "outbox").iterdir())
    assert len(bundles) == 1
    first, second = store.outbox()
    store.mark_sent(first, sent_at="t1")
    assert bundles[0].exists() and store.outbox() == [second]
    store.mark_sent(second, sent_at="t2")
    assert not bundles[0].exists() and store.outbox() == []
    assert (store.sent_at("g1-o1"), store.sent_at("g1-o2")) == ("t1", "t2")
    store.mark_sent(second, sent_at="t3")  # again: harmless, the first time is kept
    assert store.sent_at("g1-o2") == "t2"


def test_sent_marks_reach_the_disk_before_their_mails_bytes_go(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A mark is flushed lazily (a killed process loses nothing, a power cut only resends
    under the same Message-ID), but always before the bundle holding the mail's bytes is
    removed, and before a commit's hot file forgets the mail: otherwise a power cut could
    leave a queued mail whose bytes are gone."""
    store = Store(tmp_path / "store")
    with store.lock():
        store.create_game("g1", {})
        store.commit("g1", log_entries=[{"i": 0}], snapshot={}, outbox=[item(1), item(2)])
    sent_log = store.root / "games" / "g1" / "sent.log"
    events: list[str] = []
    flush, unlink = os.fdatasync, os.unlink

    def flushed(fd: int) -> None:
        if os.path.samefile(f"/proc/self/fd/{fd}", sent_log):
            events.append("flush sent.log")
        flush(fd)

    def removed(path: str | os.PathLike[str], **kwargs: object) -> None:
        events.append(f"remove {Path(path).suffix}")
        unlink(path, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "fdatasync", flushed)
    monkeypatch.setattr(os, "unlink", removed)
    first, second = store.outbox()
    store.mark_sent(first, sent_at="t1")
    assert events == []  # one mark: no flush of its own
    store.mark_sent(second, sent_at="t2")
    assert events == ["flush sent.log", "remove .mails"]

    with store.lock():  # a commit forgetting mail marked sent flushes the marks first
        store.commit("g1", log_entries=[{"i": 1}], snapshot={}, outbox=[item(3), item(4)])
    events.clear()
    store.mark_sent(store.outbox()[0], sent_at="t3")
    assert events == []
    with store.lock():
        store.commit("g1", log_entries=[{"i": 2}], snapshot={}, outbox=[])
    assert events == ["flush sent.log"]
