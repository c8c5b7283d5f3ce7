"""``Service.step``, the one unit of work of a tick, a mail and every override of the game
master: the game loaded under the store's lock, then advanced, sealed and committed in one
write on a normal exit; nothing written when the body raises or discards the step."""

from __future__ import annotations

from pathlib import Path

import pytest
from transcripts.harness import Mailroom

from pbem.service import gm
from pbem.service.entries import GmAnnounce
from pbem.service.notices import StatusReport


def _stored(room: Mailroom) -> tuple[object, ...]:
    """Everything a step could write of game ``illu``: log, snapshot, queued mail."""
    store = room.store
    return (list(store.log("illu")), store.snapshot("illu"),
            [i.outbox_id for i in store.outbox()])


def test_a_step_commits_once_its_entries_its_number_and_its_mails(tmp_path: Path) -> None:
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", "")])
    room.collect()
    before = room.record("illu").steps
    length = room.store.log_length("illu")
    with room.service.step("illu", room.now) as step:
        step.table.record(GmAnnounce("Sunday"))
        step.table.notify(StatusReport("Alice"))
        assert room.store.log_length("illu") == length  # nothing written before the end
    assert room.store.log_length("illu") == length + 1
    assert room.record("illu").steps == before + 1
    assert [m.to for m in room.collect()] == ["alice@example.org"]


def test_a_step_that_raises_writes_nothing(tmp_path: Path) -> None:
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", "")])
    room.collect()
    stored = _stored(room)
    with pytest.raises(RuntimeError), room.service.step("illu", room.now) as step:
        step.table.record(GmAnnounce("Sunday"))
        step.table.notify(StatusReport("Alice"))
        raise RuntimeError("the GM's command failed half way")
    assert _stored(room) == stored
    with pytest.raises(ValueError):  # the same through an override: a bad place
        gm.edit_move(room.service, "illu", "Gnomes of Zurich", "nowhere", "", room.now)
    assert _stored(room) == stored


def test_a_discarded_step_writes_nothing(tmp_path: Path) -> None:
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", "")])
    room.collect()
    stored = _stored(room)
    with room.service.step("illu", room.now) as step:
        step.table.record(GmAnnounce("Sunday"))
        step.discard()
    assert _stored(room) == stored
    room.at(hours=100)
    seen = gm.preview(room.service, "illu", room.now)  # a rehearsal of the missed deadline
    assert seen.steps
    assert _stored(room) == stored
