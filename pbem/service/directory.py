"""Who mails from an address: the seat it holds in the games, so that a reply belonging to no
game (the postmaster's) is written in a known player's language and time zone.

A game's seats are read from its snapshot once, then again only when its store file changed
(``GameStore.game_stamp``, as the deadline tick does): a lookup over many games costs one file
status each, not a snapshot each, however much stray mail asks.
"""

from __future__ import annotations

from pbem.engine.codec import from_json
from pbem.errors import disk_trouble
from pbem.service.model import GameService, Seat
from pbem.store import GameStore


class Directory:
    """The seats of every game of a store, found by address."""

    def __init__(self, store: GameStore, *, skip: str) -> None:
        self.store = store
        self.skip = skip  # the postmaster's record: a game of no seats
        self._seats: dict[str, tuple[list[int] | None, tuple[Seat, ...]]] = {}

    def seat_of(self, address: str, game: str | None = None) -> Seat | None:
        """The seat ``address`` holds: in ``game`` if it sits there, else in the newest game
        where it does; None for a stranger."""
        address = address.lower()
        games = [g for g in self.store.games() if g != self.skip]
        first = [game] if game in games else []
        for game_id in first + [g for g in reversed(games) if g != game]:
            try:
                seats = self._seats_of(game_id)
            except Exception as error:  # a damaged game's seats are looked for no further
                if disk_trouble(error):
                    raise
                continue
            seat = seat_at(seats, address)
            if seat is not None:
                return seat
        return None

    def _seats_of(self, game_id: str) -> tuple[Seat, ...]:
        stamp = self.store.game_stamp(game_id)
        kept = self._seats.get(game_id)
        if stamp is not None and kept is not None and kept[0] == stamp:
            return kept[1]
        snapshot = self.store.snapshot(game_id)
        seats = from_json(GameService, snapshot["service"]).seats if snapshot else ()
        self._seats[game_id] = (stamp, seats)
        return seats


def seat_at(seats: tuple[Seat, ...], address: str) -> Seat | None:
    """The seat of the player mailing from ``address`` among ``seats``, None if none."""
    return next((s for s in seats if s.address == address.lower()), None)
