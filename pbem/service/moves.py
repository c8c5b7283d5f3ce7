"""Moving a game from one store (one daemon) to another: ``pbem export --move`` and
``pbem import`` (deploy/SCALING.md says how a site splits its games this way).

Moving out marks the game as moving first: from then on the daemon's listener answers mail
to the game's own address with 450, so the sending mail server keeps it until the route to
the new daemon is in place (its IMAP intake leaves the game's mail in its folder, and once
the game left refiles it into ``to_folder`` if one is given: ``pbem.daemon.intake``). Once
the mail received before the mark is processed and every mail of the game is sent, the
game is written out whole (password hashes included, unlike a plain export) with the
records of the mails it applied or the postmaster refused for it (a wrong password), and
taken out of the store. Moving in creates it in the other store as it was: same log,
snapshot and step numbers, so its mails keep their Message-IDs' sequence; the mails'
records join the other store's seen mail, so a copy of one sent again there is ignored, as
it would have been here.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from pbem.engine.cards import CardSet
from pbem.errors import StoreError
from pbem.service import postmaster
from pbem.service.history import export, read_game
from pbem.service.options import check_options
from pbem.store import GameStore

FORMAT = "pbem-game"
VERSION = 2  # as history.export writes
# After the game is marked moving, a mail whose recipient the listener accepted just before
# may still be streaming in: it is stored within this many seconds, and then waited for.
SETTLE_SECONDS = 1.0


def move_out(store: GameStore, game_id: str, wait: float, *, to_folder: str | None = None,
             sleep: Callable[[float], None] = time.sleep) -> dict[str, Any]:
    """Give the game as ``move_in`` takes it, and take it out of ``store``: marked moving
    first, then written out and retired once what it received before (or while a mail
    accepted before was streaming in: ``SETTLE_SECONDS``) is processed and what it queued is
    sent (waiting up to ``wait`` seconds for a running daemon to do so). On a
    timeout or an error the game stays, and its mail flows again. ``to_folder``: the IMAP
    folder the daemon refiles the game's mail into once it left (see ``Departure``)."""
    store.moving(game_id, to_folder=to_folder)
    try:
        sleep(SETTLE_SECONDS)
        before = {item.mail_id for item in store.inbox()}
        until = time.monotonic() + wait
        while True:
            with store.lock():
                waiting = before & {item.mail_id for item in store.inbox()}
                queued = [item for item in store.outbox() if item.game_id == game_id]
                if not waiting and not queued:
                    data = export(read_game(store, game_id))
                    data["move"] = {"setup": store.setup(game_id),
                                    "snapshot": store.snapshot(game_id),
                                    "mails": store.receipts(sorted(
                                        store.every_applied_mail(game_id)
                                        | postmaster.mails_of(store, game_id)))}
                    store.retire_game(game_id)
                    return data
            if time.monotonic() >= until:
                raise StoreError(
                    f"The game still has {len(queued)} mail(s) to send, and "
                    f"{len(waiting)} received mail(s) wait to be processed.", text=game_id,
                    suggestion="Is the daemon running? Let it catch up, or wait longer "
                    "(--wait).")
            sleep(0.1)
    except BaseException:
        store.moving(game_id, on=False)
        raise


def move_in(store: GameStore, data: dict[str, Any], now: datetime,
            cards: CardSet | None = None) -> str:
    """Create in ``store`` the game ``move_out`` wrote, and take the records of the mails it
    applied as seen; give its id. Refuses a game id the store has already (letter case
    aside), and a plain export (it lacks the passwords). With ``cards``, refuses a game
    whose options (the rules' and the house rules) are outside the choices of the one table
    of options (``pbem.service.options``): OptionError, as ``pbem game create`` gives."""
    if data.get("format") != FORMAT or data.get("version") != VERSION:
        raise StoreError("This is not a game exported by pbem.",
                         suggestion="Give a file written by `pbem export GAME --move`.")
    moved = data.get("move")
    game_id = data.get("game")
    if not isinstance(moved, dict) or not isinstance(game_id, str):
        raise StoreError("This export cannot be imported: it was not written for a move, so "
                         "it lacks the players' passwords.", text=str(game_id),
                         suggestion="Write it with `pbem export GAME --move`.")
    if cards is not None:
        check_options(cards, moved_options(moved))
    with store.lock():
        twin = store.game_named(game_id)
        if twin is not None:
            raise StoreError(f"A game with this id exists already here, written {twin!r}.",
                             text=game_id, suggestion="Import it into another store.")
        store.take_receipts(moved.get("mails", []), at=now)  # (none in an older export)
        store.create_game(game_id, moved["setup"], snapshot=moved["snapshot"],
                          log_entries=data["log"])
    return game_id


def moved_options(moved: dict[str, Any]) -> dict[str, Any]:
    """The options of the game an export for a move holds (its setup's and its house
    rules), by name, as stored."""
    record = moved.get("setup")
    setup = record.get("setup") if isinstance(record, dict) else None
    service = record.get("service") if isinstance(record, dict) else None
    if not isinstance(setup, dict) or not isinstance(service, dict):
        raise StoreError("This export cannot be imported: it holds no game's setup.",
                         suggestion="Give a file written by `pbem export GAME --move`.")
    found: dict[str, Any] = {}
    for part in (setup.get("options"), service.get("house")):
        if isinstance(part, dict):
            found.update((k, v) for k, v in part.items() if k != "type")
    return found
