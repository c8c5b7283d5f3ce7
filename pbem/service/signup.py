"""Sign-up by mail: games the game master opens, players who join them by mail.

The game master opens a game (``pbem game open``: seats, deadline to fill, approval, the
game's options); anyone mails ``LIST`` for the games open and running, and ``JOIN <game>
AS <name> [PREFER <Illuminati>, ...]`` for a seat. A join past the last seat goes on the
game's waiting list; with approval, a join waits for ``pbem approve``. The game is created
and started when its last seat is taken (or when the game master starts it, with two
players or more, or at its deadline to fill): the Illuminati are dealt honouring each
player's preferences in the order they joined, the rest at random from the game's seed,
and each player's welcome brings their password.

Everything lives in one record of the store, the lobby (``LOBBY``), beside the games: its
meta holds the open games and the waiting lists, and its log every change, one entry each
(``apply`` folds an entry into the meta; ``replay`` folds the whole log, which must give
the meta again). Answers are queued in the lobby's record in the same commit.
"""

from __future__ import annotations

import hashlib
import logging
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Protocol

from pbem.engine.carddata import CardPack
from pbem.engine.cards import CardSet
from pbem.engine.setup import MAX_PLAYERS, MIN_PLAYERS, Setup, StartingSeat, with_options
from pbem.engine.state import GameState
from pbem.errors import IllegalCommandError, PbemError, StoreError
from pbem.mail.address import mail_address
from pbem.orders.names import NameMatcher
from pbem.orders.player_names import check_player_name
from pbem.orders.signup import Join
from pbem.reports.context import utc_minute
from pbem.reports.observing import lobby_mail
from pbem.reports.refusals import worded
from pbem.service.entries import (
    GmCreate,
    GmJoinDeclined,
    GmSignupClosed,
    GmSignupExtended,
    GmStart,
)
from pbem.service.gate import Gate
from pbem.service.lobby_log import (
    LOBBY_KINDS,
    LobbyApprove,
    LobbyClosed,
    LobbyEntry,
    LobbyExtended,
    LobbyHelp,
    LobbyJoin,
    LobbyList,
    LobbyObserve,
    LobbyOpen,
    LobbyRefused,
    LobbyReject,
    LobbyStarted,
    LobbyWait,
    lobby_entries,
)
from pbem.service.model import GameService, Observer, Timing, house_rules, iso, parse_iso
from pbem.service.notice_mails import outbox_item
from pbem.service.packs import game_cards, pack_of
from pbem.service.records import Record
from pbem.service.settings import STRANGER_REPLIES, MailIdentity
from pbem.service.table import Table
from pbem.store import GameStore, OutboxItem

log = logging.getLogger(__name__)

LOBBY = "pbem-lobby"  # the store's record of the games open for sign-up


class LobbyHost(Protocol):
    """What the lobby needs of the service: its games, and creating and starting one."""

    cards: CardSet

    def games(self) -> list[str]: ...

    def service_record(self, game_id: str) -> GameService: ...

    def state(self, game_id: str) -> GameState: ...

    def create_game(self, game_id: str, players: Sequence[tuple[str, str, str]], *,
                    options: dict[str, Any] | None = ..., timing: Timing | None = ...,
                    seed: str | None = ..., now: datetime | None = ...,
                    note: Callable[[Table], object] | None = ..., lang: str = ...,
                    pack: CardPack | None = ...) -> None: ...

    def start_game(self, game_id: str, now: datetime,
                   note: Callable[[Table], object] | None = ...) -> dict[str, str]: ...


@dataclass(frozen=True)
class Opening:
    """What the game master set for a game open for sign-up."""

    seats: int
    fill_by: str = ""  # ISO: by then the game starts with whoever joined (2 or more)
    approval: bool = False  # joins wait for ``pbem approve``
    options: dict[str, Any] | None = None  # the rule options (``game create``'s)
    timing: dict[str, Any] | None = None  # Timing's fields
    lang: str = "en"
    observers: bool = False  # anyone may OBSERVE
    press: bool = False  # observers read press to ALL
    seed: str = ""
    # The game master's card pack (``pbem.service.packs.pack_record``), in force from the
    # game's start; None: the daemon's cards (then not stored: the lobby's entry is as it
    # was before packs, and so is an entry written before, which has none).
    cards: dict[str, str] | None = field(default=None, repr=False)


# --- the lobby's state: a fold of its log ------------------------------------------------------


def empty() -> dict[str, Any]:
    return {"open": {}, "waiting": {}}


def apply(meta: dict[str, Any], entry: LobbyEntry) -> dict[str, Any]:
    """The lobby after ``entry`` (a new dict; ``meta`` is left alone): folded by the
    function ``FOLDS`` gives its type."""
    meta = {"open": {g: dict(o) for g, o in meta["open"].items()},
            "waiting": {g: list(w) for g, w in meta["waiting"].items()}}
    FOLDS[type(entry)](meta, entry)
    return meta


def _opens(meta: dict[str, Any], entry: LobbyEntry) -> None:
    assert isinstance(entry, LobbyOpen)
    meta["open"][entry.game] = {**entry.opening, "players": []}
    meta["waiting"][entry.game] = []


def _applicant(entry: LobbyJoin, approved: bool) -> dict[str, Any]:
    """A player who joined, as the lobby's record keeps them."""
    return {"name": entry.name, "address": entry.address, "prefer": list(entry.prefer),
            "lang": entry.lang, "approved": approved}


def _joined(meta: dict[str, Any], entry: LobbyEntry) -> None:
    assert isinstance(entry, LobbyJoin)
    game = entry.game
    opened = meta["open"][game]
    player = _applicant(entry, not opened["approval"])
    if len(_seated(opened)) >= opened["seats"] and player["approved"]:
        meta["waiting"][game].append(player)
    else:
        opened["players"] = [*opened["players"], player]


def _approved(meta: dict[str, Any], entry: LobbyEntry) -> None:
    assert isinstance(entry, LobbyApprove)
    game = entry.game
    opened = meta["open"][game]
    taken = len(_seated(opened)) >= opened["seats"]
    chosen = next(p for p in opened["players"] if p["name"] == entry.name)
    opened["players"] = [p for p in opened["players"] if p is not chosen]
    if taken:
        meta["waiting"][game].append({**chosen, "approved": True})
    else:
        opened["players"].append({**chosen, "approved": True})


def _waits(meta: dict[str, Any], entry: LobbyEntry) -> None:
    """A join of a game started from the lobby: straight to its waiting list."""
    assert isinstance(entry, LobbyWait)
    meta["waiting"][entry.game].append(_applicant(entry, True))


def _observes(meta: dict[str, Any], entry: LobbyEntry) -> None:
    assert isinstance(entry, LobbyObserve)
    opened = meta["open"][entry.game]
    opened["watchers"] = [*opened.get("watchers", []),
                          {"address": entry.address, "lang": entry.lang}]


def _rejected(meta: dict[str, Any], entry: LobbyEntry) -> None:
    """The game master declined a join: ``name`` leaves the game's applicants; a seat that
    frees before the start goes to the first on the waiting list."""
    assert isinstance(entry, LobbyReject)
    name, game = entry.name, entry.game
    opened = meta["open"].get(game)
    freed = False
    if opened is not None:
        freed = any(p["name"] == name and p["approved"] for p in opened["players"])
        opened["players"] = [p for p in opened["players"] if p["name"] != name]
    waiting = [p for p in meta["waiting"].get(game, []) if p["name"] != name]
    if freed and waiting:
        assert opened is not None
        opened["players"] = [*opened["players"], {**waiting.pop(0), "approved": True}]
    meta["waiting"][game] = waiting


def _extended(meta: dict[str, Any], entry: LobbyEntry) -> None:
    """The game master moved the deadline to fill."""
    assert isinstance(entry, LobbyExtended)
    meta["open"][entry.game]["fill_by"] = entry.fill_by


def _started(meta: dict[str, Any], entry: LobbyEntry) -> None:
    """The lobby forgets the game, but its waiting list (for seats offered later)."""
    assert isinstance(entry, LobbyStarted)
    del meta["open"][entry.game]


def _closed(meta: dict[str, Any], entry: LobbyEntry) -> None:
    """At the deadline to fill with too few players, or by the game master."""
    assert isinstance(entry, LobbyClosed)
    del meta["open"][entry.game]
    meta["waiting"].pop(entry.game, None)


# Each kind of the lobby's log entries that changes it (``changes``), with its fold; the
# others (LIST, HELP, a refusal) only say what a mail got. Checked below.
FOLDS: dict[type[LobbyEntry], Callable[[dict[str, Any], LobbyEntry], None]] = {
    LobbyOpen: _opens, LobbyJoin: _joined, LobbyApprove: _approved, LobbyWait: _waits,
    LobbyObserve: _observes, LobbyStarted: _started, LobbyClosed: _closed,
    LobbyReject: _rejected, LobbyExtended: _extended,
}
assert set(FOLDS) == {k for k in LOBBY_KINDS.values() if k.changes}, "a fold for each change"


def replay(log: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The lobby its whole log gives."""
    meta = empty()
    for entry in lobby_entries(log):
        if entry.changes:
            meta = apply(meta, entry)
    return meta


def _seated(opened: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in opened["players"] if p["approved"]]


def deal(cards: CardSet, players: Sequence[dict[str, Any]], seed: str) -> list[str]:
    """Each player's Illuminati: in the order they joined, the first of their preferences
    still free; then the others at random among those left (from ``seed``)."""
    matcher = NameMatcher([i.name for i in cards.illuminati], aliases=cards.aliases(),
                          what="Illuminati")
    chosen: list[str] = []
    for p in players:
        wanted = [matcher.match(w) for w in p["prefer"]]
        chosen.append(next((w for w in wanted if w not in chosen), ""))
    free = [i.name for i in cards.illuminati if i.name not in chosen]
    rng = random.Random(hashlib.sha256(f"deal:{seed}".encode()).hexdigest())
    rng.shuffle(free)
    return [c or free.pop() for c in chosen]


# --- the lobby ------------------------------------------------------------------------------


class Lobby:
    """The games open for sign-up, in the store's lobby record."""

    def __init__(self, store: GameStore, sender: MailIdentity, games: LobbyHost,
                 records: Callable[[], dict[str, Record]],
                 replies_per_hour: int = STRANGER_REPLIES, *, gate: Gate | None = None) -> None:
        self.store = store
        self.sender = sender
        self.games = games
        self.records = records
        # Anyone may write to the lobby, under any From: its answers to strangers are
        # counted with the postmaster's (``[mail] stranger_replies`` an hour in all, unless
        # the trusted mail server vouches for the sender; ``pbem.service.gate``), so forged
        # senders cannot turn it into a source of backscatter.
        self.gate = gate if gate is not None else Gate(replies_per_hour)
        self.replies_per_hour = self.gate.stranger_replies

    def ensure(self) -> None:
        """The lobby record exists (held lock required)."""
        if LOBBY not in self.store.games():
            self.store.create_game(LOBBY, {"lobby": True})

    def meta(self) -> dict[str, Any]:
        if LOBBY not in self.store.games():
            return empty()
        meta = self.store.meta(LOBBY)
        return {"open": meta.get("open", {}), "waiting": meta.get("waiting", {})}

    def open_games(self) -> dict[str, dict[str, Any]]:
        return dict(self.meta()["open"])

    def waiting(self, game: str) -> list[tuple[str, str]]:
        """The waiting list of ``game``: (address, language) in the order they joined."""
        return [(p["address"], p["lang"]) for p in self.meta()["waiting"].get(game, [])]

    # --- the game master ------------------------------------------------------------------

    def open(self, game_id: str, opening: Opening, now: datetime) -> None:
        """Open a game for sign-up (checks the id, the seats and the options)."""
        taken = [*self.games.games(), *self.open_games()]
        if game_id.casefold() in {g.casefold() for g in taken} or game_id == LOBBY:
            raise StoreError("A game with this id exists already.", text=game_id,
                             suggestion="Choose another id.")
        if not MIN_PLAYERS <= opening.seats <= MAX_PLAYERS:
            raise IllegalCommandError(f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} seats, "
                                      f"not {opening.seats}")
        seats = tuple(StartingSeat(f"P{n}", "") for n in range(opening.seats))
        # The house rules apart from the rules' options, as Service.create_game splits them
        # when the game starts; each raises on a bad option.
        _, rules = house_rules(opening.options or {})
        kept = {k: v for k, v in asdict(opening).items() if k != "cards" or v is not None}
        with_options(game_cards(self.games.cards, kept), Setup(game_id, seats, opening.seed),
                     **rules)
        Timing(**(opening.timing or {}))
        self._commit(now, [LobbyOpen(game_id, kept)])

    def approve(self, game_id: str, name: str, now: datetime) -> None:
        """Seat a player whose join waits for approval (or put them on the waiting list);
        they are told, and the game starts if that was its last seat."""
        opened = self._opened(game_id)
        player = next((p for p in opened["players"]
                       if p["name"].casefold() == name.casefold() and not p["approved"]), None)
        if player is None:
            raise IllegalCommandError(f"no join of {name!r} waits for approval in {game_id}")
        entry = LobbyApprove(game_id, player["name"])
        after = apply(self.meta(), entry)["open"][game_id]
        seated = any(p["name"] == player["name"] for p in _seated(after))
        item = self._item(f"{LOBBY}-approved-{self.store.log_length(LOBBY)}",
                          player["address"], "joined", player["lang"], now, None,
                          game=game_id, player=player["name"],
                          outcome="seated" if seated else "waiting",
                          still=max(0, after["seats"] - len(_seated(after))))
        self._commit(now, [entry], outbox=[item])
        self._start_if_full(game_id, now)

    def named(self, name: str) -> str | None:
        """The id of the game open for sign-up called ``name``, letter case aside."""
        return next((g for g in self.open_games() if g.casefold() == name.casefold()), None)

    def applicants(self, game_id: str) -> list[dict[str, Any]]:
        """Everyone who joined the game and is still in it before its start: seated,
        waiting for approval, on its waiting list (empty for a game not open)."""
        opened = self.open_games().get(game_id)
        return [*opened["players"], *self.meta()["waiting"].get(game_id, [])] if opened else []

    def close(self, game_id: str, now: datetime, *, why: str = "closed",
              reason: str = "") -> list[str]:
        """Close the sign-up of a game open for it (``why``: "closed", or "deleted" by the
        game master): it leaves the lobby and will not start; everyone who joined it
        (seated, waiting for approval, on its waiting list) is told. Gives their names."""
        self._opened(game_id)
        everyone = self.applicants(game_id)
        number = self.store.log_length(LOBBY) if LOBBY in self.store.games() else 0
        items = [self._item(f"{LOBBY}-{why}-{number}-{p['name']}", p["address"],
                            "signup_closed", p["lang"], now, None, game=game_id, why=why,
                            reason=reason) for p in everyone]
        names = [p["name"] for p in everyone]
        done = GmSignupClosed(game_id, names, why == "deleted", reason)
        self._commit(now, [LobbyClosed(game_id, "gm", why, reason, done)], outbox=items)
        return names

    def reject(self, game_id: str, name: str, now: datetime, reason: str = "") -> str:
        """Decline a join: of a player waiting for approval or seated in a game open for
        sign-up, or on a game's waiting list. They get one mail saying so; a seat freed
        before the start goes to the first on the waiting list, who is told. Gives the
        name as the player wrote it."""
        meta = self.meta()
        game_id = next((g for g in meta["waiting"] if g.casefold() == game_id.casefold()),
                       game_id)
        opened = meta["open"].get(game_id)
        listed = [*(opened["players"] if opened else ()), *meta["waiting"].get(game_id, [])]
        player = next((p for p in listed if p["name"].casefold() == name.casefold()), None)
        if player is None:
            raise IllegalCommandError(f"{name!r} has not joined {game_id}", text=name,
                                      suggestion=f"pbem game show {game_id} lists who did")
        entry = LobbyReject(game_id, player["name"], "gm", reason)
        number = self.store.log_length(LOBBY)
        on_list = not any(p is player for p in (opened["players"] if opened else ()))
        items = [self._item(f"{LOBBY}-rejected-{number}", player["address"], "join_rejected",
                            player["lang"], now, None, game=game_id, player=player["name"],
                            waiting=on_list, reason=reason)]
        after = apply(meta, entry)["open"].get(game_id)
        seated = []
        if opened is not None and after is not None:
            before = {p["name"] for p in _seated(opened)}
            seated = [p for p in _seated(after) if p["name"] not in before]
            items += [self._item(f"{LOBBY}-seated-{number}-{p['name']}", p["address"],
                                 "joined", p["lang"], now, None, game=game_id,
                                 player=p["name"], outcome="seated",
                                 still=max(0, after["seats"] - len(_seated(after))))
                      for p in seated]
        entry = replace(entry, gm=GmJoinDeclined(game_id, player["name"],
                                                 seated[0]["name"] if seated else None, reason))
        self._commit(now, [entry], outbox=items)
        return str(player["name"])

    def extend(self, game_id: str, hours: float, now: datetime, reason: str = "") -> datetime:
        """Move the deadline to fill a game open for sign-up ``hours`` later (a game with
        none gets one, ``hours`` from now); those who joined are told. Gives the deadline."""
        opened = self._opened(game_id)
        fill_by = (parse_iso(opened["fill_by"]) if opened["fill_by"] else now) + timedelta(
            hours=hours)
        number = self.store.log_length(LOBBY)
        items = [self._item(f"{LOBBY}-extended-{number}-{p['name']}", p["address"],
                            "signup_extended", p["lang"], now, None, game=game_id,
                            fill_by=utc_minute(fill_by), reason=reason)
                 for p in opened["players"]]
        done = GmSignupExtended(game_id, hours, iso(fill_by), utc_minute(fill_by), reason)
        self._commit(now, [LobbyExtended(game_id, iso(fill_by), hours, "gm", reason, done)],
                     outbox=items)
        return fill_by

    def start(self, game_id: str, now: datetime) -> dict[str, str]:
        """Start an open game now with whoever is seated (``MIN_PLAYERS`` at least)."""
        opened = self._opened(game_id)
        if len(_seated(opened)) < MIN_PLAYERS:
            raise IllegalCommandError(f"{game_id} has {len(_seated(opened))} players seated: "
                                      f"a game needs {MIN_PLAYERS} at least")
        return self._start(game_id, now)

    def tick(self, now: datetime) -> None:
        """Games whose deadline to fill passed: started with whoever joined (``MIN_PLAYERS``
        at least), else closed, and the game master told."""
        entries: list[LobbyEntry] = []
        items: list[OutboxItem] = []
        for game_id, opened in self.open_games().items():
            if not opened["fill_by"] or now < parse_iso(opened["fill_by"]):
                continue
            if len(_seated(opened)) >= MIN_PLAYERS:
                self._start(game_id, now)
                continue
            entries.append(LobbyClosed(game_id))
            items += [self._item(f"{LOBBY}-closed-{game_id}-{p['name']}", p["address"],
                                 "signup_closed", p["lang"], now, None, game=game_id)
                      for p in self.applicants(game_id)]
            items += self._to_gm(f"{LOBBY}-closed-{game_id}", now, game=game_id,
                                 what="closed", names=[p["name"] for p in opened["players"]])
        if entries:
            self._commit(now, entries, outbox=items)

    # --- mail -----------------------------------------------------------------------------

    def list_games(self, mail_id: str, to: str, lang: str, now: datetime,
                   reply_to: str | None) -> None:
        """Answer LIST: the games open for sign-up (who joined, with their records), and
        the games running (turn, players, seats offered, open to observers)."""
        records = self.records()
        opened = []
        for game_id, o in sorted(self.open_games().items()):
            players = [{"name": p["name"], "record": records.get(p["address"], Record())}
                       for p in _seated(o)]
            fill_by = utc_minute(parse_iso(o["fill_by"])) if o["fill_by"] else ""
            opened.append({"game": game_id, "seats": o["seats"], "players": players,
                           "approval": o["approval"], "fill_by": fill_by,
                           "observers": o["observers"], "waiting": len(
                               self.meta()["waiting"].get(game_id, []))})
        running = []
        for game_id in sorted(self.games.games()):
            service = self.games.service_record(game_id)
            if not service.started or self.games.state(game_id).phase == "over":
                continue
            running.append({"game": game_id, "players": [s.name for s in service.seats],
                            "offered": list(service.audience.offered),
                            "observers": service.audience.open})
        self._answer(mail_id, LobbyList(), to, "lobby_list", lang, now, reply_to,
                     opened=opened, running=running, least=MIN_PLAYERS)

    def help(self, mail_id: str, to: str, lang: str, now: datetime, reply_to: str | None,
             message: str = "", suggestion: str = "") -> None:
        """Answer HELP, or a mail to the server that begins with one of its orders and does
        not read (``message`` and ``suggestion`` say why and how to write it): what can be
        mailed to the server, and how."""
        self._answer(mail_id, LobbyRefused() if message else LobbyHelp(), to, "lobby_help",
                     lang, now, reply_to, game="", message=message, suggestion=suggestion)

    def join(self, mail_id: str, to: str, order: Join, lang: str, now: datetime,
             reply_to: str | None) -> None:
        """Answer JOIN: seated, on the waiting list, waiting for approval, or refused.
        ``lang``: the writer's, if they play in a game of the store; else "" (the open
        game's language)."""
        game_id = next((g for g in self.meta()["waiting"]
                        if g.casefold() == order.game.casefold()), "")
        lang = lang or self.open_games().get(game_id, {}).get("lang", "en")
        try:
            entry = self._join_entry(game_id, to, order, lang)
        except PbemError as error:
            message, suggestion = worded(error, lang, self.sender.site_dir)
            running = not game_id and any(g.casefold() == order.game.casefold()
                                          for g in self.games.games())
            self._answer(mail_id, LobbyRefused(order.game), to, "join_refused",
                         lang, now, reply_to, game=order.game, message=message,
                         suggestion=suggestion, running=running)
            return
        opened = self.open_games().get(game_id, {"approval": False, "seats": 0,
                                                   "players": []})
        outcome = ("approval" if opened["approval"]
                   else "waiting" if len(_seated(opened)) >= opened["seats"] else "seated")
        gm = (self._to_gm(f"{LOBBY}-approve-{mail_id}", now, game=game_id,
                          what="approval", names=[entry.name])
              if outcome == "approval" else [])
        self._answer(mail_id, entry, to, "joined", lang, now, reply_to, also=gm,
                     game=game_id, player=entry.name, outcome=outcome, still=max(
                         0, opened["seats"] - len(_seated(opened)) - (outcome == "seated")))
        self._start_if_full(game_id, now)

    def observe(self, mail_id: str, to: str, game_id: str, lang: str, now: datetime,
                reply_to: str | None) -> None:
        """Answer OBSERVE of a game open for sign-up: observed from its start on, if the
        game is open to observers."""
        opened = self.open_games()[game_id]
        lang = lang or opened["lang"]
        watching = [w["address"] for w in opened.get("watchers", [])]
        why = ("closed" if not opened["observers"]
               else "player" if any(p["address"] == to for p in opened["players"])
               else "already" if to in watching else "")
        if why:
            self._answer(mail_id, LobbyRefused(game_id), to, "observe_refused",
                         lang, now, reply_to, game=game_id, why=why)
            return
        self._answer(mail_id, LobbyObserve(game_id, to, lang), to, "observing", lang, now,
                     reply_to,
                     game=game_id, press=opened["press"])

    def _join_entry(self, game_id: str, address: str, order: Join,
                    lang: str) -> LobbyJoin:
        """The log entry of a join, or PbemError saying why it is refused."""
        opened = self.open_games().get(game_id)
        if not game_id or (opened is None and self.games.state(game_id).phase == "over"):
            raise IllegalCommandError(text=order.game, key="not_open", game=order.game)
        everyone = [*(opened["players"] if opened else ()), *self.meta()["waiting"][game_id]]
        seats = () if opened else self.games.service_record(game_id).seats
        if any(p["address"] == address for p in everyone) or any(
                s.address == address for s in seats):
            raise IllegalCommandError(text=address, key="joined_already", game=game_id)
        # Names are checked as ``game create`` checks them (``check_player_name``).
        name = check_player_name(order.name, [*(p["name"] for p in everyone),
                                              *(s.name for s in seats)])
        cards = game_cards(self.games.cards, opened) if opened else self.games.cards
        matcher = NameMatcher([i.name for i in cards.illuminati],
                              aliases=cards.aliases(), what="Illuminati")
        prefer = [matcher.match(p) for p in order.prefer]
        return (LobbyJoin if opened else LobbyWait)(game_id, name, address, tuple(prefer),
                                                    lang)

    # --- inside ---------------------------------------------------------------------------

    def _opened(self, game_id: str) -> dict[str, Any]:
        opened = self.open_games().get(game_id)
        if opened is None:
            raise IllegalCommandError(f"{game_id} is not open for sign-up", text=game_id)
        return opened

    def _start_if_full(self, game_id: str, now: datetime) -> None:
        opened = self.open_games().get(game_id)
        if opened is not None and len(_seated(opened)) >= opened["seats"]:
            self._start(game_id, now)

    def _start(self, game_id: str, now: datetime) -> dict[str, str]:
        """Create and start the game with the players seated; the lobby forgets it (but
        its waiting list, for seats offered later)."""
        opened = self._opened(game_id)
        seated = _seated(opened)
        dealt = deal(game_cards(self.games.cards, opened), seated, opened["seed"] or game_id)
        players = [(p["name"], mail_address(p["address"]), i) for p, i in zip(
            seated, dealt, strict=True)]
        names = [p["name"] for p in seated]

        watchers = tuple(Observer(w["address"], lang=w["lang"])
                         for w in opened.get("watchers", []))

        def started(table: Table) -> None:
            table.record(GmStart(table.state.dice.commitment))
            table.service = replace(
                table.service, audience=replace(
                    table.service.audience, open=opened["observers"], press=opened["press"],
                    observers=watchers),
                seats=tuple(replace(s, lang=p["lang"])
                            for s, p in zip(table.service.seats, seated, strict=True)))

        if game_id not in self.games.games():  # (else made before a crash: started now)
            self.games.create_game(game_id, players, options=opened["options"],
                                   timing=Timing(**(opened["timing"] or {})),
                                   seed=opened["seed"] or None, now=now, lang=opened["lang"],
                                   pack=pack_of(opened),
                                   note=lambda table: table.record(GmCreate(
                                       names, table.state.dice.commitment)))
        passwords = ({} if self.games.service_record(game_id).started  # (before a crash)
                     else self.games.start_game(game_id, now, note=started))
        # Joins still waiting for approval: on the waiting list of the game, and told so.
        asking = [p for p in opened["players"] if not p["approved"]]
        overtaken = [LobbyWait(game_id, p["name"], p["address"], tuple(p["prefer"]), p["lang"])
                     for p in asking]
        number = self.store.log_length(LOBBY)
        told = [self._item(f"{LOBBY}-overtaken-{number}-{p['name']}", p["address"], "joined",
                           p["lang"], now, None, game=game_id, player=p["name"],
                           outcome="overtaken", still=0) for p in asking]
        self._commit(now, [LobbyStarted(game_id), *overtaken],
                     outbox=[*self._to_gm(f"{LOBBY}-started-{game_id}", now, game=game_id,
                                          what="started", names=names), *told])
        return passwords

    def _commit(self, now: datetime, entries: Sequence[LobbyEntry], *,
                mail_id: str = "", outbox: Sequence[OutboxItem] = ()) -> None:
        """One write of the lobby: its log entries (each folded into its record), the mail
        answered, the mails queued."""
        self.ensure()
        meta = self.meta()
        logged = []
        for entry in entries:
            entry = replace(entry, at=iso(now))
            if entry.changes:
                meta = apply(meta, entry)
            logged.append(entry.stored())
        self.store.commit(LOBBY, log_entries=logged, snapshot=None, meta=meta,
                          mail_ids=[mail_id] if mail_id else [], outbox=list(outbox))

    def _answer(self, mail_id: str, entry: LobbyEntry, to: str, template: str,
                lang: str, now: datetime, reply_to: str | None,
                also: Sequence[OutboxItem] = (), **words: Any) -> None:
        """Log ``entry`` of the mail and answer it, if the limits allow: always to a sender
        the trusted mail server vouches for; to a seated player's address once an hour for
        each kind of answer; to anyone else within the hour's budget of replies to strangers
        (the game master's own notices ``also`` go regardless)."""
        answer: list[OutboxItem] = []
        gate = self.gate
        # A seated player's address, not vouched for, is answered once an hour a kind (the
        # From may be forged); a stranger's within the strangers' budget.
        if (gate.verdict.authenticated or (gate.known and gate.once_an_hour(
                f"lobby {template} {to}", now)) or (
                not gate.known and gate.may_answer_stranger(now))):
            answer = [self._item(f"{LOBBY}-{mail_id}", to, template, lang, now, reply_to,
                                 **words)]
        else:
            log.warning("mail %s from %r to the lobby gets no answer: the %d answers an hour "
                        "to strangers are spent", mail_id, to, self.replies_per_hour)
        self._commit(now, [replace(entry, mail_id=mail_id)], mail_id=mail_id,
                     outbox=[*answer, *also])

    def _to_gm(self, outbox_id: str, now: datetime, **words: Any) -> list[OutboxItem]:
        """The game master's notice of sign-up (none without their address)."""
        if not self.sender.gm_address:
            return []
        return [self._item(outbox_id, self.sender.gm_address, "gm_signup",
                           self.sender.gm_lang, now, None, **words)]

    def _item(self, outbox_id: str, to: str, template: str, lang: str, now: datetime,
              reply_to: str | None, **words: Any) -> OutboxItem:
        rendered = lobby_mail(template, lang, self.sender.site_dir, **words)
        item = outbox_item(outbox_id, "", to, "", rendered, now=now, sender=self.sender,
                           in_reply_to=reply_to)
        return replace(item, game_id=LOBBY)
