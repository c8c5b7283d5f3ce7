"""Player records across games, by address: deadlines met and missed, games played,
finished, won and left. What a game master looks at to pick reliable players (``pbem
players``, and the players of an open game in the answer to ``LIST``).

Nothing is kept apart: the records are read from the games of the store, each time, so they
always agree with the logs (and a rollback takes its misses back). A seat played by several
addresses in turn (a takeover, a seat replaced by the game master: the log's ``replace``
entries) counts for each address only the turns it held the seat; the one who left it
counts a game left.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from pbem.engine.codec import from_json
from pbem.engine.events import TurnBegins
from pbem.engine.state import GameState
from pbem.service.entries import CommandEntry, GmEntry, GmReplace, log_entries
from pbem.service.model import GameService
from pbem.store import GameStore


@dataclass(frozen=True)
class Record:
    """One address's record across the games of the store."""

    games: int = 0  # games it held a seat in (started ones)
    finished: int = 0  # games over with it still seated and playing
    won: int = 0
    left: int = 0  # games it left, was removed from, or handed its seat on from
    met: int = 0  # turns it ended before their orders deadline
    missed: int = 0  # orders deadlines missed (the turn passed for it)
    agreed: int = 0  # of the games finished, those its players ended by agreement (VOTE END)

    def __add__(self, other: Record) -> Record:
        return Record(*(a + b for a, b in zip(self.values(), other.values(), strict=True)))

    def values(self) -> tuple[int, ...]:
        return (self.games, self.finished, self.won, self.left, self.met, self.missed,
                self.agreed)


def game_records(state: GameState, service: GameService,
                 log: Iterable[Mapping[str, Any]]) -> dict[str, Record]:
    """What one game adds to each address's record."""
    if not service.started:
        return {}
    entries = list(log_entries(log))
    # Who held each seat when: walk the seat changes back from the holders now.
    holder = {s.name: s.address for s in service.seats}
    changes: list[tuple[int, str, str, str]] = []  # (entry index, seat, old, new address)
    for index in range(len(entries) - 1, -1, -1):
        gm = entries[index]
        if (isinstance(gm, GmEntry) and isinstance(gm.gm, GmReplace) and gm.gm.old_address):
            replaced = gm.gm
            seat = replaced.name or replaced.seat
            changes.append((index, seat, replaced.old_address or "", replaced.address or ""))
            holder.pop(seat, None)
            holder[replaced.seat] = replaced.old_address or ""
    changes.reverse()
    out: dict[str, Record] = {}

    def add(address: str, **counts: int) -> None:
        out[address] = out.get(address, Record()) + replace(Record(), **counts)

    for address in set(holder.values()):
        add(address, games=1)
    active, met = "", False  # the player whose turn runs; False once its deadline passed
    pending = iter(changes)
    change = next(pending, None)
    for index, entry in enumerate(entries):
        while change is not None and change[0] <= index:
            _, seat, old, new = change
            add(old, left=1)
            if new not in holder.values():
                add(new, games=1)
            holder.pop(seat, None)
            holder[seat] = new
            change = next(pending, None)
        if isinstance(entry, CommandEntry) and entry.missed:
            # the PASS the deadline gave the player who missed it
            missed = holder.get(entry.command.player)
            if missed:
                add(missed, missed=1)
            active, met = "", False
        for event in entry.events:
            if isinstance(event, TurnBegins):
                # The turn before ended in time: met by whoever held its seat then.
                if active and met and holder.get(active):
                    add(holder[active], met=1)
                active, met = event.player, True
    for p in state.players:
        last = holder.get(p.name)
        if last is None:
            continue
        if p.status in ("left", "removed"):
            add(last, left=1)
        elif state.phase == "over" and p.status == "playing":
            add(last, finished=1, won=int(p.name in state.winners),
                agreed=int(state.outcome == "agreement"))
    return out


def player_records(store: GameStore, skip: Iterable[str]) -> dict[str, Record]:
    """Every address's record across the games of ``store`` (but the records ``skip``)."""
    skipped = set(skip)
    total: dict[str, Record] = {}
    for game_id in store.games():
        snapshot = None if game_id in skipped else store.snapshot(game_id)
        if snapshot is None:
            continue
        state = from_json(GameState, snapshot["state"])
        service = from_json(GameService, snapshot["service"])
        for address, record in game_records(state, service, store.log(game_id)).items():
            total[address] = total.get(address, Record()) + record
    return total
