"""The contract of ``GameStore``, run against both stores: the files (``pbem.store.Store``)
and the twin in memory (``pbem.store.memory.MemoryStore``) that the service's tests use.

Each test takes the ``store`` fixture, made once per implementation; the last one plays
the same random operations on both and compares all they give back, errors included, so
the twin cannot drift from the files unnoticed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from storing import mail, receive, step

from pbem.errors import StoreError
from pbem.store import Departure, GameStore, InboxItem, OutboxItem, Store, mail_id_for
from pbem.store.memory import MemoryStore

SEGMENT = 3  # small, so a handful of commits closes the file store's segments


def make(kind: str, root: Path) -> GameStore:
    return Store(root, segment_size=SEGMENT) if kind == "files" else MemoryStore()


@pytest.fixture(params=["files", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[GameStore]:
    """Give a store of each kind holding its lock, with one game "g1"."""
    s = make(request.param, tmp_path / "store")
    with s.lock():
        s.create_game("g1", {"players": ["ann", "bob"], "seed": "x"})
        yield s


@pytest.fixture(params=["files", "memory"])
def unlocked(request: pytest.FixtureRequest, tmp_path: Path) -> GameStore:
    """Give a store of each kind, its lock not held, with one game "g1"."""
    s = make(request.param, tmp_path / "store")
    with s.lock():
        s.create_game("g1", {})
    return s





# ---- the lock ------------------------------------------------------------------------------

WRITES: list[tuple[str, Callable[[GameStore], object]]] = [
    ("inbox_done", lambda s: s.inbox_done("0" * 32)),
    ("create_game", lambda s: s.create_game("g2", {})),
    ("commit", lambda s: s.commit("g1", log_entries=[{}], snapshot={})),
    ("mark_failed", lambda s: s.mark_failed("x", error="e", retry_at="t", attempts=1)),
    ("requeue", lambda s: s.requeue("x")),
    ("truncate_log", lambda s: s.truncate_log("g1", 0, {})),
    ("set_due_index", lambda s: s.set_due_index({})),
    ("recover", lambda s: s.recover()),
]


@pytest.mark.parametrize(("name", "write"), WRITES, ids=[w[0] for w in WRITES])
def test_every_write_outside_the_lock_is_refused(
        unlocked: GameStore, name: str, write: Callable[[GameStore], object]) -> None:
    with pytest.raises(StoreError, match="without holding the store lock"):
        write(unlocked)
    assert unlocked.log_length("g1") == 0 and unlocked.games() == ["g1"]


def test_the_lock_is_reentrant_and_released_after_the_outer_block(unlocked: GameStore) -> None:
    with unlocked.lock(), unlocked.lock():
        unlocked.create_game("g2", {})
    with pytest.raises(StoreError):
        unlocked.create_game("g3", {})


def test_mail_is_received_and_marked_sent_without_the_lock(unlocked: GameStore) -> None:
    mail_id = receive(unlocked, 1)
    with unlocked.lock():
        step(unlocked, 0, mail_ids=[mail_id], outbox=[mail(1)])
    unlocked.mark_sent("g1-o1", sent_at="t")
    assert unlocked.outbox() == [] and [i.mail_id for i in unlocked.inbox()] == [mail_id]


# ---- the inbox -----------------------------------------------------------------------------


def test_receive_keeps_the_raw_mail_and_queues_it_in_arrival_order(store: GameStore) -> None:
    first = store.receive(b"one", message_id="<a@x>", received_at="2024-05-01T12:00:00")
    second = store.receive(b"two", message_id="<b@x>",
                           received_at=datetime(2024, 5, 1, 11, tzinfo=UTC))
    assert first is not None and second is not None
    assert store.inbox() == [InboxItem(first, "<a@x>", "2024-05-01T12:00:00"),
                             InboxItem(second, "<b@x>", "2024-05-01T11:00:00+00:00")]
    assert store.raw_mail(first) == b"one" and store.raw_mail(second) == b"two"


def test_a_message_id_is_seen_once_even_after_done(store: GameStore) -> None:
    mail_id = receive(store, 1)
    assert mail_id == mail_id_for("m1@example.org ")
    assert store.receive(b"again", message_id=" m1@example.org", received_at="t") is None
    store.inbox_done(mail_id)
    store.inbox_done(mail_id)  # idempotent
    assert store.inbox() == [] and store.seen("<m1@example.org>")
    assert store.receive(b"again", message_id="<m1@example.org>", received_at="t") is None
    assert store.raw_mail(mail_id) == b"mail 1"


def test_a_message_id_counts_per_sender(store: GameStore) -> None:
    first, second = store.receive_many(
        [(b"alice's", "<same@x>", "alice@example.org"), (b"bob's", "<same@x>", "bob@x.org")],
        received_at="t")
    assert first is not None and second is None  # together, the second is taken for a copy
    second = store.receive(b"bob's", message_id="<same@x>", received_at="t",
                           sender="bob@x.org")
    assert second is not None and second != first and store.raw_mail(second) == b"bob's"
    assert store.receive(b"copy", message_id="<same@x>", received_at="t",
                         sender="Alice@Example.org") is None
    store.inbox_done(first, second)
    assert store.seen("<same@x>", "bob@x.org") and not store.seen("<same@x>", "cy@x.org")


def test_the_mails_a_game_applied_move_with_it_as_seen(store: GameStore,
                                                       tmp_path: Path) -> None:
    """A moved game's mails (every_applied_mail, receipts) are seen in the store it moves
    to (take_receipts): a copy sent again there is taken for the copy it is."""
    ids = [receive(store, n) for n in range(5)]
    for n, mail_id in enumerate(ids[:4]):  # (segments of 3: one closed, one open)
        step(store, n, mail_ids=[mail_id])
    store.inbox_done(*ids[:4])
    assert store.every_applied_mail("g1") == set(ids[:4])
    receipts = store.receipts([*ids[:4], "f" * 32])
    assert [r["mail_id"] for r in receipts] == ids[:4]
    assert receipts[0]["message_id"] == "<m0@example.org>"
    other = MemoryStore() if isinstance(store, MemoryStore) else Store(tmp_path / "other")
    with other.lock():
        assert other.take_receipts(receipts, at="2024-05-02T00:00:00") == 4
        assert other.take_receipts(receipts[:1], at="2024-05-02T00:00:00") == 0
        assert other.inbox() == []
    assert other.seen("<m2@example.org>") and not other.seen("<m4@example.org>")
    assert other.receive(b"copy", message_id="<m3@example.org>", received_at="t") is None
    assert other.receive(b"new", message_id="<m4@example.org>", received_at="t") == ids[4]
    if isinstance(other, Store):
        with pytest.raises(StoreError, match="its bytes stayed there"):
            other.raw_mail(ids[0])


def test_a_departure_tells_moving_from_gone_and_keeps_the_folder(store: GameStore) -> None:
    assert store.departure("g1") is None
    store.moving("g1", to_folder="pbem-b")
    assert store.departure("G1") == Departure("g1", gone=False, to_folder="pbem-b")
    store.moving("g1", on=False)
    assert store.departure("g1") is None and not store.retired("g1")
    store.moving("g1")
    store.retire_game("g1")
    assert store.departure("g1") == Departure("g1", gone=True, to_folder=None)
    store.create_game("g2", {})
    store.moving("g2", to_folder="pbem-b")
    store.retire_game("g2")
    assert store.departure("g2") == Departure("g2", gone=True, to_folder="pbem-b")
    assert store.departures() == [Departure("g1", gone=True), Departure("g2", gone=True,
                                                                        to_folder="pbem-b")]
    store.create_game("g2", {})  # back again: its mail is its own
    assert store.departure("g2") is None
    assert store.departures() == [Departure("g1", gone=True)]


def test_unknown_or_malformed_mail_ids_are_refused(store: GameStore) -> None:
    known = receive(store, 1)
    with pytest.raises(StoreError, match="No received mail"):
        store.raw_mail("0" * 32)
    with pytest.raises(StoreError, match="No received mail"):
        store.inbox_done(known, "0" * 32)
    assert [i.mail_id for i in store.inbox()] == [known]  # all or nothing
    with pytest.raises(StoreError, match="not a mail id"):
        store.raw_mail("../../etc/passwd")
    with pytest.raises(StoreError, match="without a Message-ID"):
        store.receive(b"x", message_id=" <> ", received_at="t")


# ---- games ---------------------------------------------------------------------------------


def test_create_game_lists_it_and_starts_empty(store: GameStore) -> None:
    store.create_game("G2", {"seed": 2})
    assert store.games() == ["g1", "G2"]
    assert (store.game_named("g2"), store.game_named("nope")) == ("G2", None)
    assert store.setup("G2") == {"seed": 2}
    assert (store.meta("G2"), store.snapshot("G2"), store.log_length("G2")) == ({}, None, 0)
    assert list(store.log("G2")) == []
    with pytest.raises(StoreError, match="already exists"):
        store.create_game("G2", {})
    store.create_game("g2", {}, snapshot={"s": (1, 2)}, log_entries=[{"i": 0}])
    assert store.game_named("G2") == "g2"  # the newest of a name
    assert (store.snapshot("g2"), list(store.log("g2"))) == ({"s": [1, 2]}, [{"i": 0}])


def test_bad_unknown_and_non_json_games_are_refused(store: GameStore) -> None:
    with pytest.raises(StoreError, match="game id is"):
        store.create_game("../x", {})
    with pytest.raises(StoreError) as error:
        store.snapshot("g")
    assert error.value.suggestion == "Did you mean g1?"
    with pytest.raises(StoreError, match="JSON"):
        store.create_game("g2", {"when": datetime(2024, 1, 1)})
    with pytest.raises(StoreError, match="JSON"):
        store.create_game("g2", {}, snapshot={"bad": {1}})
    assert store.games() == ["g1"]
    store.create_game("g2", {"ok": True})
    assert store.setup("g2") == {"ok": True}


def test_a_game_stamp_changes_with_each_write(store: GameStore, monkeypatch:
                                              pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pbem.store.games.STAMP_MARGIN", 0.0)
    assert store.game_stamp("nope") is None
    stamps = [store.game_stamp("g1")]
    step(store, 0, outbox=[mail(1)])
    stamps.append(store.game_stamp("g1"))
    store.mark_failed("g1-o1", error="e", retry_at="t", attempts=1)
    stamps.append(store.game_stamp("g1"))
    assert None not in stamps and len({str(s) for s in stamps}) == 3


def test_the_due_index_is_kept(store: GameStore) -> None:
    assert store.due_index() == {}
    store.set_due_index({"g1": {"due": "2024-05-01T10:00:00"}})
    assert store.due_index() == {"g1": {"due": "2024-05-01T10:00:00"}}
    with pytest.raises(StoreError, match="JSON"):
        store.set_due_index({"g1": {1, 2}})


# ---- commit and the log --------------------------------------------------------------------


def test_commit_appends_and_log_streams_from_any_index(store: GameStore) -> None:
    for n in range(8):
        step(store, n)
    store.commit("g1", log_entries=[{"n": n} for n in range(8, 15)], snapshot=None)
    assert store.log_length("g1") == 15 and store.snapshot("g1") == {"last": 7}
    for since in (0, 2, 3, 4, 8, 14, 15, 20):
        assert [e["n"] for e in store.log("g1", since)] == list(range(since, 15))
    with pytest.raises(StoreError, match="negative"):
        store.log("g1", -1)


def test_snapshot_and_meta_none_keep_the_current_ones(store: GameStore) -> None:
    store.commit("g1", log_entries=[{"n": 0}], snapshot={"s": 1}, meta={"phase": "orders"})
    store.commit("g1", log_entries=[{"n": 1}], snapshot=None)
    assert (store.snapshot("g1"), store.meta("g1")) == ({"s": 1}, {"phase": "orders"})
    store.commit("g1", log_entries=[], snapshot=None, meta={"phase": "window"})
    assert store.meta("g1") == {"phase": "window"}


def test_expect_length_refuses_a_step_computed_for_another_state(store: GameStore) -> None:
    step(store, 0, expect_length=0)
    with pytest.raises(StoreError, match="has 1 log entries; this step was computed for 0"):
        step(store, 1, expect_length=0)
    assert store.log_length("g1") == 1


def test_a_mail_is_applied_once_where_its_step_is(store: GameStore) -> None:
    ids = [receive(store, n) for n in range(12)]
    for n, mail_id in enumerate(ids[:8]):
        step(store, n, mail_ids=[mail_id])
    store.commit("g1", log_entries=[{"n": 8}, {"n": 9}], snapshot=None,
                 mail_ids={ids[8]: 8, ids[9]: 10})  # two steps, the second logged nothing
    assert store.applied_mails("g1", ids) == set(ids[:10])
    store.create_game("g2", {})
    assert store.applied_mails("g2", ids) == set()
    with pytest.raises(StoreError, match="already applied"):
        step(store, 99, mail_ids=[ids[11], ids[2]])
    with pytest.raises(StoreError, match="outside this commit"):
        store.commit("g1", log_entries=[{}], snapshot=None, mail_ids={ids[11]: 3})
    assert store.log_length("g1") == 10 and store.applied_mails("g1", [ids[11]]) == set()
    store.truncate_log("g1", 10, {})  # a mail whose step logged nothing at the end is cut
    assert store.applied_mails("g1", ids) == set(ids[:9])


def test_a_failed_commit_changes_nothing(store: GameStore) -> None:
    mail_id = receive(store, 1)
    with pytest.raises(StoreError, match="JSON"):
        store.commit("g1", log_entries=[{"n": 0}], snapshot={"bad": {1, 2}},
                     mail_ids=[mail_id], outbox=[mail(0)])
    with pytest.raises(StoreError, match="of game g2"):
        step(store, 0, mail_ids=[mail_id], outbox=[mail(1), mail(2, "g2")])
    assert store.log_length("g1") == 0 and store.snapshot("g1") is None
    assert store.applied_mails("g1", [mail_id]) == set() and store.outbox() == []
    step(store, 0, mail_ids=[mail_id], outbox=[mail(0)])  # the redo
    assert store.applied_mails("g1", [mail_id]) == {mail_id}
    assert [o.outbox_id for o in store.outbox()] == ["g1-o0"]


def test_truncate_and_cut_to_undo_steps_and_their_mails(store: GameStore) -> None:
    ids = [receive(store, n) for n in range(10)]
    for n in range(10):
        step(store, n, mail_ids=[ids[n]])
    store.truncate_log("g1", 8, {"last": 7})
    assert [e["n"] for e in store.log("g1")] == list(range(8))
    assert store.applied_mails("g1", ids) == set(ids[:8])
    store.truncate_log("g1", 2, {"last": 1})
    for n in range(2, 9):
        step(store, 100 + n)
    assert [e["n"] for e in store.log("g1")] == [0, 1, *range(102, 109)]
    assert store.applied_mails("g1", ids) == set(ids[:2])
    step(store, 200, mail_ids=[ids[5]], cut_to=1, expect_length=1)  # a rollback and a redo
    assert [e["n"] for e in store.log("g1")] == [0, 200]
    assert store.applied_mails("g1", ids) == {ids[0], ids[5]}
    with pytest.raises(StoreError, match="cannot cut"):
        store.truncate_log("g1", 3, {})


# ---- the outbox ----------------------------------------------------------------------------


def test_outbox_is_oldest_first_across_games_with_the_bytes(store: GameStore) -> None:
    store.create_game("g2", {})
    step(store, 0, outbox=[mail(1, when="2024-05-01T10:02:00")])
    step(store, 0, game="g2", outbox=[mail(1, "g2", "2024-05-01T10:01:00"),
                                      mail(2, "g2", "2024-05-01T10:03:00"),
                                      mail(3, "g2", "2024-05-01T10:02:00")])
    items = store.outbox()
    assert [i.outbox_id for i in items] == ["g2-o1", "g1-o1", "g2-o3", "g2-o2"]
    assert items[1] == mail(1, when="2024-05-01T10:02:00") and store.unsent() == 4


def test_failed_then_sent_twice_then_requeued(store: GameStore) -> None:
    step(store, 0, outbox=[mail(1), mail(2)])
    store.mark_failed("g1-o1", error="451 try later",
                      retry_at=datetime(2024, 5, 1, 10, 5, tzinfo=UTC), attempts=1)
    failed = store.outbox()[0]
    assert (failed.attempts, failed.retry_at, failed.last_error) == (
        1, "2024-05-01T10:05:00+00:00", "451 try later")
    store.requeue("g1-o1")
    assert store.outbox()[0] == mail(1)
    assert store.queued_game("g1-o1") == "g1"
    store.mark_sent(store.outbox()[0], sent_at="2024-05-01T10:05:01")
    store.mark_sent("g1-o1", sent_at="2024-05-01T10:09:00")  # idempotent: keeps the first
    assert store.sent_at("g1-o1") == "2024-05-01T10:05:01" and store.sent_at("g1-o2") is None
    assert [i.outbox_id for i in store.outbox()] == ["g1-o2"] and store.unsent() == 1
    for refused in (lambda: store.mark_failed("g1-o1", error="x", retry_at="t", attempts=2),
                    lambda: store.requeue("g1-o1"), lambda: store.queued_game("g1-o1")):
        with pytest.raises(StoreError, match="already sent"):
            refused()
    for refused in (lambda: store.mark_sent("nope", sent_at="t"),
                    lambda: store.mark_failed("nope", error="x", retry_at="t", attempts=1),
                    lambda: store.queued_game("nope")):
        with pytest.raises(StoreError, match="No queued mail"):
            refused()


def test_the_same_outbox_id_is_queued_once_and_a_drop_forgets_it(store: GameStore) -> None:
    step(store, 0, outbox=[mail(1)])
    step(store, 1, outbox=[mail(1), mail(2), mail(2)])
    assert [i.outbox_id for i in store.outbox()] == ["g1-o1", "g1-o2"]
    store.mark_sent("g1-o1", sent_at="t")
    step(store, 2, outbox=[mail(1)])  # sent: not queued again
    assert [i.outbox_id for i in store.outbox()] == ["g1-o2"]
    step(store, 3, drop=["g1-o2", "g1-o9"])
    assert store.outbox() == [] and store.sent_at("g1-o2") is None
    with pytest.raises(StoreError, match="No queued mail"):
        store.queued_game("g1-o2")
    step(store, 4, outbox=[mail(2)])  # dropped, so it may be queued again
    assert [i.outbox_id for i in store.outbox()] == ["g1-o2"]


def test_recover_takes_off_the_mails_a_committed_step_applied(store: GameStore) -> None:
    ids = [receive(store, n) for n in range(4)]
    for n in range(3):
        step(store, n, mail_ids=[ids[n]])
    store.inbox_done(ids[0])
    store.recover()
    assert [i.mail_id for i in store.inbox()] == [ids[3]]


# ---- the twins, side by side ---------------------------------------------------------------

GAMES = ["g1", "G1", "g2", "bad id"]
MESSAGES = [f"<m{n}@x>" for n in range(12)]
SENDERS = ["ann@x", "ANN@x", "bob@x"]
OUTBOX = [f"{game}-o{n}" for game in GAMES[:3] for n in range(4)]  # ids unique across games


def operation(rng: random.Random, s: GameStore, known: list[str], n: int) -> object:
    """Do one random operation (the same ``rng`` state gives the same one) and give what it
    gave back."""
    game = rng.choice(GAMES[:3] * 4 + GAMES)
    kind = rng.randrange(14)
    if kind == 0:
        return s.create_game(game, {"n": n}, snapshot=rng.choice([None, {"s": n}]),
                             log_entries=[{"e": n}] * rng.randrange(3))
    if kind == 1:
        return s.receive_many([(f"raw {n}".encode(), rng.choice(MESSAGES), rng.choice(SENDERS))
                               for _ in range(rng.randrange(1, 3))], received_at=f"t{n}")
    if kind == 2:
        return s.inbox_done(*rng.sample(known, min(len(known), rng.randrange(3))))
    if kind in (3, 4, 5, 12, 13):
        length = s.log_length(game) if game in s.games() else 0
        own = [o for o in OUTBOX if o.startswith(f"{game}-")]
        outbox = [OutboxItem(o, game if rng.random() < 0.95 else "g1", "to@x", f"<{o}>",
                             o.encode(), f"c{rng.randrange(3)}")
                  for o in rng.sample(own, min(len(own), rng.randrange(3)))]
        mails = rng.sample(known, min(len(known), rng.randrange(3)))
        cut = rng.randrange(length + 2) if rng.random() < 0.15 else None
        return s.commit(game, log_entries=[{"n": n, "i": i} for i in range(rng.randrange(4))],
                        snapshot=rng.choice([None, {"s": n}]),
                        meta=rng.choice([None, {"m": n}]), mail_ids=mails, outbox=outbox,
                        expect_length=rng.choice([None, None, length, length, length + 1]),
                        cut_to=cut, drop=rng.sample(OUTBOX, rng.randrange(2)))
    if kind == 6:
        length = s.log_length(game) if game in s.games() else 0
        return s.truncate_log(game, rng.randrange(length + 2), {"cut": n})
    if kind == 7:
        pending = s.outbox()
        if pending and rng.random() < 0.5:
            return s.mark_sent(rng.choice(pending), sent_at=f"s{n}")
        return s.mark_sent(rng.choice(OUTBOX), sent_at=f"s{n}")
    if kind == 8:
        return s.mark_failed(rng.choice(OUTBOX), error=f"e{n}", retry_at=f"r{n}", attempts=n)
    if kind == 9:
        return s.requeue(rng.choice(OUTBOX))
    if kind == 10:
        return s.set_due_index({"n": n})
    return s.recover()


def seen_by_all(s: GameStore, known: list[str]) -> object:
    """Give everything the interface shows of a store."""
    games = {}
    for game in s.games():
        games[game] = (s.setup(game), s.meta(game), s.snapshot(game), s.log_length(game),
                       list(s.log(game)), list(s.log(game, 2)), s.applied_mails(game, known))
    queued = {}
    for o in OUTBOX:
        try:
            queued[o] = s.queued_game(o)
        except StoreError as error:
            queued[o] = str(error)
    return (s.games(), [s.game_named(g) for g in GAMES], games, s.inbox(),
            [s.raw_mail(m) for m in known], [(m, w) for m in MESSAGES for w in SENDERS
                                             if s.seen(m, w)],
            s.outbox(), s.unsent(), [s.sent_at(o) for o in OUTBOX], queued, s.due_index())


@pytest.mark.parametrize("seed", range(4))
def test_the_twins_give_back_the_same_for_the_same_operations(tmp_path: Path,
                                                              seed: int) -> None:
    """Random operations, the same on both: each gives the same value or the same error,
    and afterwards both show the same through every reading of the interface."""
    files, memory = make("files", tmp_path), make("memory", tmp_path)
    known: list[str] = []
    rngs = random.Random(seed), random.Random(seed)
    with files.lock(), memory.lock():
        for n in range(200):
            results = []
            for rng, s in zip(rngs, (files, memory), strict=True):
                try:
                    results.append(("gave", operation(rng, s, known, n)))
                except StoreError as error:
                    results.append(("refused", str(error)))
            assert results[0] == results[1], f"operation {n}"
            if isinstance(results[0][1], list):  # the ids of mails received
                known += [m for m in results[0][1] if isinstance(m, str) and m not in known]
            assert seen_by_all(files, known) == seen_by_all(memory, known), f"after {n}"
