"""The Message-IDs a game's mail came with move with the game (``pbem.service.moves``):
those of the mails it applied and of those refused for it (a wrong password), none of
another game's; in the store it moves to, a copy of any of them is taken for a copy."""

from __future__ import annotations

from pathlib import Path

from transcripts.harness import Mailroom

from pbem.service.moves import move_in, move_out
from pbem.store.memory import MemoryStore


def test_the_mails_a_game_applied_or_refused_are_seen_where_it_moves(tmp_path: Path) -> None:
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", "")])
    room.new_game("other", [("Alice", ""), ("Bob", "")])
    assert room.orders("Alice", "STATUS", game="illu", message_id="<applied@x>")
    assert room.orders("Alice", "STATUS", game="illu", password="wrong",
                       message_id="<refused@x>")  # answered: a wrong password
    assert room.orders("Bob", "STATUS", game="other", password="wrong",
                       message_id="<other@x>")
    data = move_out(room.store, "illu", wait=0, sleep=lambda _: None)
    assert "illu" not in room.store.games()
    there = MemoryStore()
    assert move_in(there, data, room.now) == "illu"
    alice = room.addresses["Alice"]
    assert there.seen("<applied@x>", alice) and there.seen("<refused@x>", alice)
    assert not there.seen("<other@x>", room.addresses["Bob"])
    assert there.inbox() == []
