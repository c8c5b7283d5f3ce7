"""Observers of a game: who reads the public part of its reports without a seat.

An observer is added by mail (``OBSERVE <game>``, when the game is open to observers) or by
the game master (``pbem observer add``), and leaves with ``UNOBSERVE <game>`` or ``pbem
observer remove``. Each change is a GM entry of the game's log (``observer``, for the game
master's eyes only: it names an address), so history shows it. From then on the observer
is sent the public report at every turn report and the game-over mail (``Table.report``),
and press to ALL if the game says so (``tell_observers``). See docs/service.md.
"""

from __future__ import annotations

from dataclasses import replace

from pbem.service.entries import GmObserver
from pbem.service.model import Observer
from pbem.service.notices import Letter, ObserverPress, ObserverReport
from pbem.service.table import Table


def tell_observers(table: Table, sender: str, text: str) -> None:
    """Press to ALL from ``sender``, relayed to the observers when the game lets them read
    it."""
    audience = table.service.audience
    if audience.press:
        for o in audience.observers:
            table.notify(ObserverPress(o.address, sender=sender, text=text, lang=o.lang,
                                       tz=o.tz))


def observe(table: Table, address: str, *, lang: str = "en", by_gm: bool = False,
            answers: str | None = None) -> bool:
    """``address`` observes the game from now on (by mail only when the game is open to
    observers); the answer says so, with the public report of the game as it stands.
    Gives whether it was added."""
    address = address.lower()
    audience = table.service.audience
    why = ("over" if table.state.phase == "over"
           else "closed" if not (by_gm or audience.open)
           else "player" if any(s.address == address for s in table.service.seats)
           else "already" if audience.observer(address) is not None else "")
    if why:
        table.notify(Letter(address, "observe_refused", (("why", why),), answers, lang=lang))
        return False
    observers = (*audience.observers, Observer(address, lang=lang))
    table.service = replace(table.service, audience=replace(audience, observers=observers))
    table.record(GmObserver(address, on=True, by_gm=by_gm))
    table.notify(Letter(address, "observing", (("press", audience.press),), answers,
                        lang=lang))
    if table.service.started:
        table.notify(ObserverReport(address, since=table.service.reported, lang=lang))
    return True


def unobserve(table: Table, address: str, *, lang: str = "en", by_gm: bool = False,
              answers: str | None = None) -> bool:
    """``address`` observes the game no more; the answer says so. Gives whether it did."""
    address = address.lower()
    audience = table.service.audience
    found = audience.observer(address)
    if found is None:
        table.notify(Letter(address, "unobserved", (("was", False),), answers, lang=lang))
        return False
    observers = tuple(o for o in audience.observers if o.address != address)
    table.service = replace(table.service, audience=replace(audience, observers=observers))
    table.record(GmObserver(address, on=False, by_gm=by_gm))
    table.notify(Letter(address, "unobserved", (("was", True),), answers, lang=found.lang))
    return True
