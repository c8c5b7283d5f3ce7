"""The game master dropping queued mail for good, unsent (``pbem outbox drop``), logged.

Every override of the game master is logged: each mail dropped is a GM entry of its game's
log (its id, the seat it was for if one seat has its address, the address, the reason),
written in the same store write that forgets the mail. Where a mail goes and what it says
are its recipient's business, so the entry is ``gm_only``: the game master's ``pbem
history`` shows it, no player's mail, history or archive page does. Mail of the
postmaster's record (no game) is logged in that record, which only the game master reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pbem.service.postmaster import POSTMASTER
from pbem.service.service import Service
from pbem.store import OutboxItem

__all__ = ["drop_mail"]


def drop_mail(service: Service, outbox_ids: Sequence[str], now: datetime,
              reason: str = "") -> list[OutboxItem]:
    """Forget queued mails for good, unsent, each logged in its game (one store write per
    game); gives them. StoreError, before any is dropped, if one was sent or is unknown."""
    with service.store.lock():
        queued = {i.outbox_id: i for i in service.store.outbox()}
        by_game: dict[str, list[OutboxItem]] = {}
        for outbox_id in dict.fromkeys(outbox_ids):
            if outbox_id not in queued:
                service.store.queued_game(outbox_id)  # raises, saying sent or unknown
            item = queued[outbox_id]
            by_game.setdefault(item.game_id, []).append(item)
        for game_id, items in by_game.items():
            if game_id == POSTMASTER:
                service.store.commit(POSTMASTER, log_entries=[
                    {"dropped": i.outbox_id, "to": i.to, "reason": reason} for i in items],
                    snapshot=None, drop=[i.outbox_id for i in items])
                continue
            table = service._table(game_id, now)
            for item in items:
                seats = [s.name for s in table.service.seats if s.address == item.to]
                table.record("drop_mail", {"mail": item.outbox_id, "address": item.to,
                                           "reason": reason}
                             | ({"seat": seats[0]} if len(seats) == 1 else {}), gm_only=True)
            service._finish(table, now, drop=[i.outbox_id for i in items])
    return [item for items in by_game.values() for item in items]
