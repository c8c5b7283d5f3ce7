"""Takeover by mail: the game master offers a seat whose player dropped out (``pbem seat
offer``), and a newcomer answers ``TAKEOVER <game> <seat>`` from their own address. The
first to answer gets the seat's welcome with a new password, then the report of the game as
it stands with its order form; the seat keeps its name, and the log's ``replace`` entry
(with ``takeover``) says from when the new address plays it, so the old player's record
keeps the seat's past (``pbem.service.records``). The old player is mailed that the seat
passed on, and their later mail to the game gets that answer, not a wrong password's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from pbem.errors import IllegalCommandError
from pbem.orders.names import NameMatcher
from pbem.service.entries import GmReplace, GmSeatOffered
from pbem.service.model import Former, GameService, Seat, iso
from pbem.service.notice_mails import welcome_settings
from pbem.service.notices import GmNews, Letter, ResponseRequest, StatusReport, Welcome
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


def offered_seat(service: GameService, seat: str) -> str:
    """The seat ``seat`` names (in any case) if the game master offers it now, else ""."""
    return next((s for s in service.audience.offered if s.casefold() == seat.casefold()), "")


def take_over(table: Table, seat: str, address: str, password: str, password_hash: str, *,
              lang: str = "en", answers: str | None = None) -> str:
    """``address`` plays the offered ``seat`` from now on, with ``password`` (its hash is
    kept): the welcome goes to them, the other players are told a new player sits there.
    Refused (the answer says why) when the seat is not offered or the address plays in the
    game already. Gives the address that played the seat before ("" when refused)."""
    address = address.lower()
    audience = table.service.audience
    name = offered_seat(table.service, seat)
    why = ("over" if table.state.phase == "over"
           else "not_offered" if not name
           else "player" if any(s.address == address for s in table.service.seats) else "")
    if why:
        table.notify(Letter(address, "takeover_refused", (("why", why), ("seat", seat)),
                            answers, lang=lang))
        return ""
    was = table.service.seat(name)
    # The newcomer starts with none of the former player's own settings (language, time
    # zone, mail and report, absences): those are a person's, not the seat's.
    fresh = Seat(name, address)
    seats = tuple(replace(s, address=address, password_hash=password_hash, misses=0,
                          bot=False, bot_password="", bot_keys=(), lang=lang, tz=fresh.tz,
                          html=fresh.html, json=fresh.json, mail=fresh.mail,
                          report=fresh.report, folded=fresh.folded, untold=fresh.untold,
                          folded_mails=fresh.folded_mails,
                          absences=fresh.absences,
                          pictured=fresh.pictured,
                          away_hash=fresh.away_hash)
                  if s.name == name else s
                  for s in table.service.seats)
    observers = tuple(o for o in audience.observers if o.address != address)
    table.service = replace(table.service, seats=seats, audience=replace(
        audience, offered=tuple(s for s in audience.offered if s != name),
        observers=observers))
    event = table.record(GmReplace(name, name, address, was.address, takeover=True))
    table.notify(Welcome(name, password,
                         welcome_settings(table.service.timing, table.service.house),
                         answers=answers))
    passed_on(table, name, was, tell=True)
    for p in table.state.players:
        if not p.departed and p.name != name:
            table.notify(GmNews(p.name, (), event))
    return was.address


def passed_on(table: Table, name: str, was: Seat, *, tell: bool) -> None:
    """Seat ``name``, played until now as ``was``, has a new player (welcomed already):
    they get the report of the game as it stands, with its order form (and the request
    for their answer, if the open window waits for it); the one it passed from is
    remembered (``Seat.former``), so that their later mail to the game is told the seat is
    no longer theirs (``seat_gone``), and with ``tell`` (a takeover) gets one mail saying
    so, which carries the answers to their order mails folded away. The game master who
    replaces a player (``pbem replace``) tells them as they see fit: their address may be
    why they are replaced."""
    seat = table.service.seat(name)
    if was.address != seat.address:
        former = Former(was.address, iso(table.now), was.lang, was.tz)
        seat = replace(seat, former=(*seat.former, former))
        table.service = replace(table.service, seats=tuple(
            seat if s.name == name else s for s in table.service.seats))
        if tell:  # answering too the order mails whose answers were folded away
            table.notify(Letter(was.address, "seat_passed", (("seat", name),),
                                lang=was.lang, tz=was.tz, folded=was.folded,
                                folded_mails=was.folded_mails))
    if table.state.phase == "over" or not table.state.player(name).playing:
        return
    table.notify(StatusReport(name))
    window = table.service.window
    if window is not None and name in window.asked and not window.answered(name):
        table.notify(ResponseRequest(name))


def former_holder(service: GameService, address: str, player: str) -> Seat | None:
    """The seat ``address`` played before it passed on, if it holds none of the game now:
    the one named ``player`` if that is one of them. Their mail is answered that the seat is
    no longer theirs, instead of as a wrong password; the answer goes to that address, so a
    forged sender learns nothing from it."""
    address = address.lower()
    if any(s.address == address for s in service.seats):
        return None
    held = [s for s in service.seats if any(f.address == address for f in s.former)]
    return next((s for s in held if s.name.casefold() == player.casefold()),
                held[0] if held else None)


def seat_gone(table: Table, seat: Seat, address: str, answers: str | None) -> None:
    """Answer a mail of orders from ``address``, who played ``seat`` before it passed on:
    nothing was done, the seat is someone else's now."""
    former = next(f for f in reversed(seat.former) if f.address == address.lower())
    table.notify(Letter(address, "seat_gone", (("seat", seat.name),), answers,
                        lang=former.lang, tz=former.tz))
