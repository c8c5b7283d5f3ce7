"""Takeover by mail: the game master offers a seat whose player dropped out (``pbem seat
offer``), and a newcomer answers ``TAKEOVER <game> <seat>`` from their own address. The
first to answer gets the seat's welcome with a new password; the seat keeps its name, and
the log's ``replace`` entry (with ``takeover``) says from when the new address plays it, so
the old player's record keeps the seat's past (``pbem.service.records``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from pbem.errors import IllegalCommandError
from pbem.orders.names import NameMatcher
from pbem.service.entries import GmReplace, GmSeatOffered
from pbem.service.mails import welcome_settings
from pbem.service.notices import GmNews, Letter, Welcome
from pbem.service.table import Table


def offer_seat(table: Table, seat: str, reason: str = "",
               tell: Sequence[tuple[str, str]] = ()) -> str:
    """Offer ``seat`` (any unambiguous spelling) for takeover; ``tell`` are (address,
    language) to mail the offer to (the game's waiting list). Gives the seat's name."""
    name = NameMatcher([s.name for s in table.service.seats], what="seat").match(seat)
    if table.state.phase == "over" or not table.state.player(name).playing:
        raise IllegalCommandError(f"{name} is no longer playing",
                                  suggestion="only a seat still in the game can be offered")
    audience = table.service.audience
    if name not in audience.offered:
        table.service = replace(table.service, audience=replace(
            audience, offered=(*audience.offered, name)))
    table.record(GmSeatOffered(name, reason))
    for address, lang in tell:
        table.notify(Letter(address, "seat_offered", (("seat", name),), lang=lang))
    return name


def take_over(table: Table, seat: str, address: str, password: str, password_hash: str, *,
              lang: str = "en", answers: str | None = None) -> str:
    """``address`` plays the offered ``seat`` from now on, with ``password`` (its hash is
    kept): the welcome goes to them, the other players are told a new player sits there.
    Refused (the answer says why) when the seat is not offered or the address plays in the
    game already. Gives the address that played the seat before ("" when refused)."""
    address = address.lower()
    audience = table.service.audience
    name = next((s for s in audience.offered if s.casefold() == seat.casefold()), "")
    why = ("over" if table.state.phase == "over"
           else "not_offered" if not name
           else "player" if any(s.address == address for s in table.service.seats) else "")
    if why:
        table.notify(Letter(address, "takeover_refused", (("why", why), ("seat", seat)),
                            answers, lang=lang))
        return ""
    old = table.service.seat(name).address
    seats = tuple(replace(s, address=address, password_hash=password_hash, misses=0,
                          bot=False, bot_password="", bot_keys=(), lang=lang)
                  if s.name == name else s
                  for s in table.service.seats)
    observers = tuple(o for o in audience.observers if o.address != address)
    table.service = replace(table.service, seats=seats, audience=replace(
        audience, offered=tuple(s for s in audience.offered if s != name),
        observers=observers))
    event = table.record(GmReplace(name, name, address, old, takeover=True))
    table.notify(Welcome(name, password, welcome_settings(table.service.timing)))
    for p in table.state.players:
        if not p.departed and p.name != name:
            table.notify(GmNews(p.name, (), event))
    return old
