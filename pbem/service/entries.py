"""The two kinds of entry in a game's log, and how every reader tells them apart.

A **command entry** holds an engine command and the events it caused: replay applies it. A
**GM entry** records an override of the game master that leaves the engine state alone (a
pause, a deadline moved, a seat given to someone new, an announcement, a rollback, the
creation and the start): replay skips it, but it holds its place in the timeline like any
step. Both carry ``at`` (ISO time), ``events`` and ``seq`` (the state's sequence number after
the entry: a GM entry keeps the number of the step before it)::

    {"at": ..., "command": {...}, "events": [...], "seq": 7}
    {"at": ..., "gm": {"kind": "pause", "data": {...}}, "events": [<the "gm" event>], "seq": 7}

The GM entry's single event (kind ``gm``) is what players may see of it: the same facts
without the addresses, rendered in each reader's language like any other event. A GM entry
marked ``gm_only`` (mail the game master dropped unsent: its recipient's business) has no
event: only the game master's own views show it::

    {"at": ..., "gm": {"kind": "drop_mail", "data": {...}, "gm_only": true}, "events": [],
     "seq": 7}
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pbem.engine.codec import from_json, to_json
from pbem.engine.commands import Command
from pbem.engine.events import Event, GmNote, GmRename

# Only the game master's own views show these (``gm_only``: what a rollback cut off of the
# GM entries only they see).
PRIVATE = ("address", "old_address", "gm_only")


@dataclass(frozen=True)
class GmEvent:
    """An override the engine state does not show, as its GM entry records it.

    ``data`` may hold addresses; ``public`` is what the players may see, unless the whole
    override is ``gm_only``.
    """

    kind: str
    at: str
    data: dict[str, Any] = field(default_factory=dict)
    gm_only: bool = False

    @property
    def public(self) -> dict[str, Any]:
        return {k: v for k, v in self.data.items() if k not in PRIVATE}

    @property
    def event(self) -> Event:
        """The engine-style event players are shown (in turn reports, histories, mails)."""
        return GmNote(gm_kind=self.kind, entry=self.public)


def command_entry(command: Command, events: Sequence[Event], at: str, seq: int) -> dict[str, Any]:
    return {"at": at, "command": to_json(command), "events": [to_json(e) for e in events],
            "seq": seq}


def gm_entry(event: GmEvent, seq: int) -> dict[str, Any]:
    if event.gm_only:
        return {"at": event.at, "gm": {"kind": event.kind, "data": event.data, "gm_only": True},
                "events": [], "seq": seq}
    return {"at": event.at, "gm": {"kind": event.kind, "data": event.data},
            "events": [to_json(event.event)], "seq": seq}


def command_of(entry: dict[str, Any]) -> Command | None:
    """The entry's engine command; None for a GM entry."""
    return from_json(Command, entry["command"]) if "command" in entry else None


def gm_event_of(entry: dict[str, Any]) -> GmEvent | None:
    """The entry's GM event; None for a command entry."""
    gm = entry.get("gm")
    return None if gm is None else GmEvent(gm["kind"], entry["at"], dict(gm["data"]),
                                           bool(gm.get("gm_only")))


def commands(log: Iterable[dict[str, Any]]) -> Iterator[Command]:
    """The engine commands of a log, in order: what replay applies."""
    return (c for c in map(command_of, log) if c is not None)


def under_current_names(events: Sequence[Event]) -> list[Event]:
    """The events with who may see each one named as the players are called at the end.

    A seat renamed by the game master (a ``gm_rename`` event) keeps what it was shown under
    its old name: a player's history and reports still show them their own cards.
    """
    now: dict[str, str] = {}  # an old name -> the name at the end of ``events``
    out: list[Event] = []
    for e in reversed(events):
        if isinstance(e, GmRename):
            old, new = e.old, e.new
            now[old] = now.get(new, new)
        elif e.visible_to is not None and now:
            e = replace(e, visible_to=tuple(now.get(n, n) for n in e.visible_to))
        out.append(e)
    return out[::-1]
