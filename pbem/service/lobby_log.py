"""The lobby's log entries (``pbem.service.signup``): one frozen dataclass per kind, like the
games' GM entries (``pbem.service.entries``), read and written by one codec.

The stored form is as it always was, one dict of JSON per entry: ``kind`` first, then the
entry's fields in the order they are declared (an optional field left ``None`` is absent),
``mail_id`` for the answer to a mail, ``at`` last; ``gm``, the game master's doing beside
the change it makes, is stored as its GM entry's ``{"kind", "data"}``. So lobbies written
before read back as the same entries (``tests/service/test_lobby_log.py``).

``changes`` says whether an entry changes the lobby (``signup.FOLDS`` folds it into the
lobby's record) or only says what a mail got (``list``, ``help``, ``refused``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from pbem.errors import StoreError
from pbem.service.entries import GmEvent, gm_event

_LAST = ("mail_id", "at")  # stored after the entry's own fields, in this order


@dataclass(frozen=True)
class LobbyEntry:
    """One entry of the lobby's log."""

    kind: ClassVar[str]
    changes: ClassVar[bool] = True
    mail_id: str | None = field(default=None, kw_only=True)  # the mail it answers
    at: str = field(default="", kw_only=True)  # ISO, set as it is committed

    def stored(self) -> dict[str, Any]:
        """The entry as the log keeps it."""
        own = {f.name: _stored(getattr(self, f.name)) for f in fields(self)
               if f.name not in _LAST and getattr(self, f.name) is not None}
        last = {k: v for k in _LAST if (v := getattr(self, k))}
        return {"kind": self.kind, **own, **last}

    @classmethod
    def from_stored(cls, entry: Mapping[str, Any]) -> LobbyEntry:
        """The entry of this kind the log keeps as ``entry``."""
        at = str(entry.get("at", ""))
        values: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in entry:
                continue
            value = entry[f.name]
            if f.name == "gm" and value is not None:
                value = gm_event(value["kind"], at, value["data"])
            elif isinstance(value, list) and f.name != "opening":
                value = tuple(value)
            values[f.name] = value
        return cls(**values)


def _stored(value: Any) -> Any:
    if isinstance(value, GmEvent):
        return {"kind": value.kind, "data": value.data}
    if isinstance(value, tuple):
        return list(value)
    return value


@dataclass(frozen=True)
class LobbyOpen(LobbyEntry):
    """The game master opened ``game`` for sign-up (``opening``: ``signup.Opening``'s
    fields)."""

    kind = "open"
    game: str
    opening: dict[str, Any]


@dataclass(frozen=True)
class LobbyJoin(LobbyEntry):
    """``name`` joined ``game`` open for sign-up by mail (seated, waiting for approval, or on
    the waiting list as the lobby stands)."""

    kind = "join"
    game: str
    name: str
    address: str
    prefer: tuple[str, ...]
    lang: str


@dataclass(frozen=True)
class LobbyWait(LobbyJoin):
    """A join of a game already started (or overtaken by its start): its waiting list."""

    kind = "wait"


@dataclass(frozen=True)
class LobbyApprove(LobbyEntry):
    """The game master approved the join of ``name``."""

    kind = "approve"
    game: str
    name: str


@dataclass(frozen=True)
class LobbyObserve(LobbyEntry):
    """``address`` will observe ``game`` from its start."""

    kind = "observe"
    game: str
    address: str
    lang: str


@dataclass(frozen=True)
class LobbyStarted(LobbyEntry):
    """``game`` started: the lobby forgets it, but its waiting list."""

    kind = "started"
    game: str


@dataclass(frozen=True)
class LobbyClosed(LobbyEntry):
    """``game`` closed: at its deadline to fill with too few players, or by the game master
    (``by`` "gm", ``why`` "closed" or "deleted")."""

    kind = "closed"
    game: str
    by: str | None = None
    why: str | None = None
    reason: str | None = None
    gm: GmEvent | None = None


@dataclass(frozen=True)
class LobbyReject(LobbyEntry):
    """The game master declined the join of ``name``."""

    kind = "reject"
    game: str
    name: str
    by: str = "gm"
    reason: str = ""
    gm: GmEvent | None = None


@dataclass(frozen=True)
class LobbyExtended(LobbyEntry):
    """The game master moved the deadline to fill ``game`` to ``fill_by`` (ISO)."""

    kind = "extended"
    game: str
    fill_by: str
    hours: float
    by: str = "gm"
    reason: str = ""
    gm: GmEvent | None = None


@dataclass(frozen=True)
class LobbyList(LobbyEntry):
    """A LIST answered."""

    kind = "list"
    changes = False


@dataclass(frozen=True)
class LobbyHelp(LobbyEntry):
    """A HELP answered."""

    kind = "help"
    changes = False


@dataclass(frozen=True)
class LobbyRefused(LobbyEntry):
    """A mail to the lobby refused (a JOIN or OBSERVE of ``game``, or an order unread)."""

    kind = "refused"
    changes = False
    game: str | None = None


LOBBY_KINDS: dict[str, type[LobbyEntry]] = {c.kind: c for c in (
    LobbyOpen, LobbyJoin, LobbyWait, LobbyApprove, LobbyObserve, LobbyStarted, LobbyClosed,
    LobbyReject, LobbyExtended, LobbyList, LobbyHelp, LobbyRefused)}


def lobby_entry(entry: Mapping[str, Any]) -> LobbyEntry:
    """An entry of the lobby's log as stored, read into its type; a kind this version does
    not know is a damaged (or newer) log."""
    kind = LOBBY_KINDS.get(str(entry.get("kind")))
    if kind is None:
        raise StoreError(f"The lobby's log holds an entry of a kind unknown here: "
                         f"{entry.get('kind')}.", suggestion="Run the pbem version that wrote it.")
    return kind.from_stored(entry)


def lobby_entries(log: Iterable[Mapping[str, Any]]) -> Iterator[LobbyEntry]:
    """Every entry of the lobby's log, read, in order."""
    return map(lobby_entry, log)
