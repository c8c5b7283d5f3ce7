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

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar

from pbem.engine.codec import from_json, to_json
from pbem.engine.commands import Command
from pbem.engine.events import Event, GmNote, GmRename
from pbem.errors import StoreError

# Only the game master's own views show these (``gm_only``: what a rollback cut off of the
# GM entries only they see).
PRIVATE = ("address", "old_address", "gm_only")


@dataclass(frozen=True)
class GmEvent:
    """An override the engine state does not show, as its GM entry records it: one frozen
    dataclass per kind (``GM_KINDS`` by name), its fields the entry's ``data``.

    The stored form is as it always was, ``{"kind", "data"}`` (``data``; a field named in
    ``NAMES`` is stored under another key, an optional field left ``None`` is absent), so logs
    written before read back as the same entries (``tests/service/test_old_logs.py``).
    ``data`` may hold addresses; ``public`` is the entry as the players may see it, unless the
    whole override is ``gm_only``. Templates read the fields, and the optional ones with
    ``get`` (by stored key), as they read the players' copy in a ``GmNote`` event, a dict.
    """

    kind: ClassVar[str]
    gm_only: ClassVar[bool] = False
    NAMES: ClassVar[dict[str, str]] = {}  # field -> its key in the stored data
    at: str = field(default="", kw_only=True)  # set by ``Table.record``

    @property
    def data(self) -> dict[str, Any]:
        """The entry's stored ``data``."""
        return {self.NAMES.get(f.name, f.name): getattr(self, f.name) for f in fields(self)
                if f.name != "at" and getattr(self, f.name) is not None}

    def get(self, key: str, default: Any = None) -> Any:
        """A stored key's value, as a dict gives it (for the templates' optional fields)."""
        return self.data.get(key, default)

    @property
    def public(self) -> GmEvent:
        """The entry without what only the game master may see (addresses)."""
        hidden: dict[str, Any] = {f.name: None for f in fields(self)
                                  if self.NAMES.get(f.name, f.name) in PRIVATE}
        return replace(self, **hidden) if hidden else self

    @property
    def event(self) -> Event:
        """The engine-style event players are shown (in turn reports, histories, mails)."""
        return GmNote(gm_kind=self.kind, entry=self.public.data)

    @classmethod
    def from_data(cls, at: str, data: Mapping[str, Any]) -> GmEvent:
        """The entry of this kind that ``data`` stores."""
        keys = {cls.NAMES.get(f.name, f.name): f.name for f in fields(cls) if f.name != "at"}
        return cls(at=at, **{keys[k]: v for k, v in data.items()})


@dataclass(frozen=True)
class GmCreate(GmEvent):
    kind = "create"
    players: list[str]
    commitment: str = ""


@dataclass(frozen=True)
class GmStart(GmEvent):
    kind = "start"
    commitment: str = ""


@dataclass(frozen=True)
class GmRollback(GmEvent):
    """Back to step ``to`` from ``from_``; ``undone``: the overrides cut off, by kind and time;
    ``kept``: those only the game master sees, whole; players are told the turns."""

    kind = "rollback"
    NAMES: ClassVar[dict[str, str]] = {"from_": "from", "kept": "gm_only"}
    to: int
    from_: int
    reason: str = ""
    undone: list[dict[str, Any]] = field(default_factory=list)
    kept: list[dict[str, Any]] | None = None
    # Where the game went back to and was, as players are told it: the turn and the
    # player to act (absent from rollbacks logged before they were recorded).
    turn: int | None = None
    player: str | None = None
    from_turn: int | None = None
    from_player: str | None = None

    def undone_at(self, kind: type[GmEvent]) -> list[str]:
        """When the overrides of ``kind`` cut off were made (ISO), in log order."""
        return [str(u["at"]) for u in self.undone if GM_KINDS.get(u["kind"]) is kind]


@dataclass(frozen=True)
class GmReplace(GmEvent):
    """``seat`` given to someone new, now called ``name``."""

    kind = "replace"
    seat: str
    name: str
    address: str | None = None
    old_address: str | None = None
    reason: str = ""
    takeover: bool | None = None  # a newcomer's TAKEOVER of the seat offered (by mail)


@dataclass(frozen=True)
class GmRemove(GmEvent):
    kind = "remove"
    seat: str
    reason: str = ""


@dataclass(frozen=True)
class GmAttackCut(GmEvent):
    """The attack under way when the game master ended the game or removed ``seat`` (""
    for the end): ``called_off`` (no money was in it yet), else played out at once."""

    kind = "attack_cut"
    attacker: str
    target: str
    called_off: bool
    seat: str = ""


@dataclass(frozen=True)
class GmBot(GmEvent):
    kind = "bot"
    seat: str
    on: bool
    level: str | None = None


@dataclass(frozen=True)
class GmPause(GmEvent):
    kind = "pause"
    reason: str = ""


@dataclass(frozen=True)
class GmResume(GmEvent):
    """Deadlines run again, ``paused_hours`` later; the running one (``deadline``, ISO, and
    ``deadline_utc`` to read) and a group ``offer``'s answer, if any, as they now stand."""

    kind = "resume"
    paused_hours: float
    window: bool = False
    deadline: str | None = None
    deadline_utc: str | None = None
    offer: dict[str, Any] | None = None


@dataclass(frozen=True)
class GmExtend(GmEvent):
    """The running deadline (the response window's, else the orders') ``hours`` later; with a
    group ``offer``, its answer's too."""

    kind = "extend"
    hours: float
    deadline: str
    deadline_utc: str
    window: bool
    offer: dict[str, Any] | None = None
    reason: str = ""


@dataclass(frozen=True)
class GmAnnounce(GmEvent):
    kind = "announce"
    text: str


@dataclass(frozen=True)
class GmDropMail(GmEvent):
    """Mail dropped unsent: where a mail goes is its recipient's business, so only the game
    master's views show it."""

    kind = "drop_mail"
    gm_only = True
    mail: str
    address: str | None = None
    reason: str = ""
    seat: str | None = None


@dataclass(frozen=True)
class GmAbsence(GmEvent):
    """A player's absence given by mail (``SET ABSENCE``; pbem.service.absences): from
    ``start`` (ISO; ``start_utc`` to read) to ``deadline`` (ISO; ``deadline_utc``), and what
    the game does meanwhile (``stand_in``, the house rule)."""

    kind = "absence"
    seat: str
    start: str
    start_utc: str
    deadline: str
    deadline_utc: str
    stand_in: str


@dataclass(frozen=True)
class GmAbsenceCancelled(GmAbsence):
    """An absence cancelled (``CANCEL ABSENCE``), by the game master if ``by_gm``."""

    kind = "absence_cancelled"
    by_gm: bool | None = None


@dataclass(frozen=True)
class GmObserver(GmEvent):
    """``address`` observes the game from now on (``on``), or no longer; by mail, or the
    game master's doing (``by_gm``). It names an address: the game master's views only."""

    kind = "observer"
    gm_only = True
    address: str
    on: bool
    by_gm: bool = False


@dataclass(frozen=True)
class GmChat(GmEvent):
    """The game posts its public events to a chat webhook from now on (``on``), or no
    longer. Only the webhook's ``service`` (its URL's scheme: discord, ntfy ...) is logged,
    never the URL, which holds the webhook's token."""

    kind = "chat"
    gm_only = True
    on: bool
    service: str = ""


@dataclass(frozen=True)
class GmSeatOffered(GmEvent):
    """``seat`` offered for takeover by mail (TAKEOVER)."""

    kind = "seat_offered"
    gm_only = True
    seat: str
    reason: str = ""


# The game master's doings to a game open for sign-up, before it exists: kept in the lobby's
# log (``pbem.service.signup``), beside the change they make there, and read by the game
# master alone (``pbem game show``).


@dataclass(frozen=True)
class GmSignupClosed(GmEvent):
    """The sign-up of ``game`` closed (or the game ``deleted``) before its start; ``told``:
    the names of those who had joined, each told by mail."""

    kind = "signup_closed"
    gm_only = True
    game: str
    told: list[str]
    deleted: bool = False
    reason: str = ""


@dataclass(frozen=True)
class GmJoinDeclined(GmEvent):
    """``name``'s join of ``game`` declined, the player told; ``seated``: the first on the
    waiting list, given the seat it freed, if any."""

    kind = "join_declined"
    gm_only = True
    game: str
    name: str
    seated: str | None = None
    reason: str = ""


@dataclass(frozen=True)
class GmSignupExtended(GmEvent):
    """The deadline to fill ``game`` moved ``hours`` later, to ``fill_by`` (ISO;
    ``fill_by_utc`` to read); those who joined are told."""

    kind = "signup_extended"
    gm_only = True
    game: str
    hours: float
    fill_by: str
    fill_by_utc: str
    reason: str = ""


GM_KINDS: dict[str, type[GmEvent]] = {c.kind: c for c in (
    GmCreate, GmStart, GmRollback, GmReplace, GmRemove, GmBot, GmPause, GmResume, GmExtend,
    GmAnnounce, GmDropMail, GmAbsence, GmAbsenceCancelled, GmObserver, GmChat, GmSeatOffered,
    GmSignupClosed, GmJoinDeclined, GmSignupExtended,
    GmAttackCut)}


def gm_event(kind: str, at: str, data: Mapping[str, Any]) -> GmEvent:
    """The GM entry of ``kind`` that ``data`` stores; a kind this version does not know is a
    damaged (or newer) log."""
    if kind not in GM_KINDS:
        raise StoreError(f"The log holds a game master's entry of a kind unknown here: {kind}.",
                         suggestion="Run the pbem version that wrote it.")
    return GM_KINDS[kind].from_data(at, data)


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
    return None if gm is None else gm_event(gm["kind"], entry["at"], gm["data"])


@dataclass(frozen=True)
class CommandEntry:
    """A command entry of the log, read: the engine command, the events it caused, and
    ``missed``: the PASS the orders deadline gave a player who missed it."""

    at: str
    seq: int
    command: Command
    events: tuple[Event, ...]
    missed: bool = False


@dataclass(frozen=True)
class GmEntry:
    """A GM entry of the log, read: the game master's override, and its event (none when
    only the game master sees it)."""

    at: str
    seq: int
    gm: GmEvent
    events: tuple[Event, ...]


LogEntry = CommandEntry | GmEntry


def log_entry(entry: Mapping[str, Any]) -> LogEntry:
    """A log entry as stored (a dict of JSON), read into its type."""
    events = tuple(from_json(Event, e) for e in entry.get("events", ()))
    at, seq = str(entry.get("at", "")), int(entry.get("seq", 0))
    gm = entry.get("gm")
    if gm is not None:
        return GmEntry(at, seq, gm_event(gm["kind"], at, gm["data"]), events)
    return CommandEntry(at, seq, from_json(Command, entry["command"]), events,
                        bool(entry.get("missed")))


def log_entries(log: Iterable[Mapping[str, Any]]) -> Iterator[LogEntry]:
    """Every entry of a log as stored, read into its type, in order."""
    return map(log_entry, log)


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
