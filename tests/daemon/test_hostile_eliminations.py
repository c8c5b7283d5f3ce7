"""Eliminations told once (issue 21, point 7): "You are eliminated" and the game master's
"only one is left playing" went out once per later mail processed in the same round of the
daemon (12 copies instead of 1)."""

from __future__ import annotations

from pathlib import Path

from daemon_game import GAME, GM, GameDaemon
from factory import in_round, place

from pbem.engine.codec import to_json
from pbem.store import Store

LATER = 8  # mails processed in the same round after the one that eliminates


def test_an_elimination_is_told_once_however_many_mails_follow_in_the_round(
        tmp_path: Path) -> None:
    game = GameDaemon(tmp_path, players=(("Alice", "alice@example.org", ""),
                                         ("Bob", "bob@example.org", "")))
    # The player to move is in their fourth turn and holds one group besides their
    # Illuminati: dropping it eliminates them ("A player is eliminated if, at any time after
    # his third turn, he controls no Groups except his Illuminati"); the other holds one too.
    state = game.state()
    mover, other = state.active_player.name, state.players[1 - state.active].name
    group, kept = state.uncontrolled[:2]
    store = Store(game.config.store)
    position = in_round(place(place(state, mover, group), other, kept), 4)
    with store.lock():
        snapshot = store.snapshot(GAME)
        assert snapshot is not None
        store.commit(GAME, log_entries=[], snapshot={**snapshot, "state": to_json(position)})
    game.deliver(game.orders(1, mover, f"DROP {group}"))
    for n in range(2, 2 + LATER):  # the same round: one pass takes them all
        game.deliver(game.orders(n, other, "STATUS" if n % 2 else "STANDING LIST"))
    game.run()
    assert game.state().player(mover).status == "eliminated"
    assert game.state().player(other).playing
    told = [h for _, h in game.headlines(f"{mover.lower()}@example.org")
            if "You are eliminated" in h]
    alone = [h for _, h in game.headlines(GM) if f"Only {other} is left playing" in h]
    print(f"{LATER} mails after the elimination: {len(told)} 'eliminated' mails, "
          f"{len(alone)} 'only one left' notices")
    assert len(told) == 1
    assert len(alone) == 1
    answered = [m for m in game.mails()[f"{other.lower()}@example.org"] if m["In-Reply-To"]]
    assert len(answered) == LATER  # every later mail was processed in that pass
