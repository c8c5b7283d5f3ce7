"""The game master's operations, as plain functions over a ``Service`` (used by the CLI).

Each takes the store's lock (re-entrant: the CLI may hold it already), loads the game, does
its change through a ``Table`` (``pbem.service.gm_ops``) and commits the step as the service
does, in one write: log entries (an engine command, or a GM entry for what only changes the
service's record), snapshot, announcement mails; bot seats answer after. Time is passed in.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pbem.bots import LEVELS, Level
from pbem.engine.codec import from_json
from pbem.engine.commands import Command
from pbem.engine.rules import apply
from pbem.engine.setup import MAX_PLAYERS, MIN_PLAYERS, Setup, new_game
from pbem.engine.state import Event, GameState
from pbem.errors import IllegalCommandError, StoreError
from pbem.mail.address import mail_address
from pbem.orders.names import CARD_ALIASES, NameMatcher, card_matcher
from pbem.service import gm_ops
from pbem.service.deadlines import tick
from pbem.service.entries import command_of, gm_event_of
from pbem.service.mails import welcome_settings
from pbem.service.model import GameService, Timing
from pbem.service.offers import tell_offer_ended
from pbem.service.service import Service
from pbem.service.table import Notice, Table
from pbem.store import Store

PLACES = ("uncontrolled", "dead", "deck", "discards")


class StoreBusyError(StoreError):
    """Another process (the daemon) holds the store's lock for too long."""


@contextmanager
def locked(store: Store, timeout: float | None = None) -> Iterator[None]:
    """Hold the store's lock; StoreBusyError if it is not free within ``timeout`` seconds."""
    with ExitStack() as stack:
        try:
            stack.enter_context(store.lock(timeout))
        except StoreError as error:
            raise StoreBusyError(error.message, suggestion=error.suggestion) from error
        yield


# --- creating and starting ---------------------------------------------------------------------


def create_game(service: Service, game_id: str, players: Sequence[tuple[str, str, str]], *,
                options: dict[str, Any] | None = None, timing: Timing | None = None,
                seed: str | None = None, now: datetime, lang: str = "en") -> str:
    """A new game, not started; gives the dice commitment (the SHA-256 of the seed).
    Players are (name, address, Illuminati or "" to deal one; any spelling of its name);
    ``lang`` is the language of their mail until each chooses.

    The commitment is recorded at once, so ``verify`` can later hold the revealed seed to it.
    """
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise IllegalCommandError(f"a game needs {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                                  f"not {len(players)}")
    illuminati = NameMatcher([i.name for i in service.cards.illuminati],
                             aliases=CARD_ALIASES, what="Illuminati")
    players = [(name, mail_address(address), illuminati.match(chosen) if chosen else "")
               for name, address, chosen in players]
    def note(table: Table) -> None:
        table.record("create", {"players": [p[0] for p in players],
                                "commitment": table.state.dice.commitment})

    with service.store.lock():
        service.create_game(game_id, players, options=options, timing=timing, seed=seed,
                            now=now, note=note, lang=lang)
        return service.state(game_id).dice.commitment


def start_game(service: Service, game_id: str, now: datetime) -> dict[str, str]:
    """Welcome mails out and the first turn begun; gives the passwords (GM's eyes only)."""
    with service.store.lock():
        return service.start_game(game_id, now, note=lambda table: table.record(
            "start", {"commitment": table.state.dice.commitment}))


# --- running -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Processed:
    """What ``process`` did: mails handled (the bot seats' included), log entries added per
    game."""

    mails: int
    steps: dict[str, int]


def process(service: Service, now: datetime) -> Processed:
    """Handle every waiting mail and run the deadlines (bot seats answer as they go)."""
    with service.store.lock():
        before = {g: service.store.log_length(g) for g in service.games()}
        mails = service.process(now)
        service.tick(now)
        steps = {g: service.store.log_length(g) - before.get(g, 0) for g in service.games()}
    return Processed(mails, {g: n for g, n in steps.items() if n})


@dataclass(frozen=True)
class Preview:
    """What the next step would do at ``now``, computed on a copy and committed nowhere."""

    game: str
    now: datetime
    before: GameService
    after: GameService
    state: GameState
    steps: tuple[tuple[int, Command, tuple[Event, ...]], ...]
    mails: tuple[tuple[str, str], ...]  # (kind, to); to "" is the game master
    inbox: int = 0  # mails waiting in the store's inbox: processed before the deadlines


def preview(service: Service, game_id: str, now: datetime) -> Preview:
    """What ``pbem process`` would do to this game at ``now``: the deadlines due, the window
    closing, the turn going on. (Bot seats answer the step's mails after it: not shown.)"""
    with service.store.lock():
        table = service._table(game_id, now)
        inbox = len(service.store.inbox())
    before = table.service
    if table.state.phase != "over" and table.service.started:
        tick(table)
        service._advance(table)
    steps = tuple((int(e["seq"]), command, tuple(from_json(Event, x) for x in e["events"]))
                  for e in table.entries if (command := command_of(e)) is not None)
    return Preview(game_id, now, before, table.service, table.state, steps,
                   tuple((n.kind, n.to) for n in table.notices), inbox)


# --- overrides of the game: engine commands ----------------------------------------------------


def edit_money(service: Service, game_id: str, card: str, amount: int, reason: str,
               now: datetime) -> list[Event]:
    """Set the money on a card (any spelling of its name); logged and announced."""
    with service.store.lock():
        table = service._table(game_id, now)
        _running(table)
        _started(table, "the cards are dealt at the start (pbem game start)")
        events = gm_ops.set_money(table, card_matcher(service.cards).match(card), amount, reason)
        gm_ops.tell_players(table, events)
        service._advance(table)
        service._finish(table, now)
    return events


def edit_move(service: Service, game_id: str, card: str, place: str, reason: str,
              now: datetime) -> list[Event]:
    """Put a card in ``place`` (uncontrolled, dead, deck, discards, hand:PLAYER)."""
    with service.store.lock():
        table = service._table(game_id, now)
        _running(table)
        _started(table, "the cards are dealt at the start (pbem game start)")
        name = card_matcher(service.cards).match(card)
        events = gm_ops.move_card(table, name, _place(table.state, place), reason)
        gm_ops.tell_players(table, events)
        service._advance(table)
        service._finish(table, now)
    return events


def end_game(service: Service, game_id: str, winners: Sequence[str], now: datetime,
             reason: str = "") -> list[Event]:
    """End the game now, won by ``winners`` (seats, any spelling) or by no one: every player
    gets the game's last mail, with the reason; the archive and history show it."""
    with service.store.lock():
        table = service._table(game_id, now)
        _running(table)
        _started(table, "a game not started yet can simply be left alone")
        names = [_seat(table.service, winner) for winner in winners]
        events = gm_ops.end_game(table, names, reason)
        service._advance(table)
        service._finish(table, now)
    return events


def remove_seat(service: Service, game_id: str, seat: str, now: datetime,
                reason: str = "") -> list[Event]:
    """The game master takes the player out of the game (``GmRemovePlayer``): their groups
    go free, their money to the bank; if it was their turn, the next player's begins. Every
    player is told, the removed one too, the removal and its reason before what follows."""
    with service.store.lock():
        table = service._table(game_id, now)
        _running(table)
        _started(table, "seat someone else with pbem replace, or create a new game with the "
                        "players you want")
        name = _seat(table.service, seat)
        events = gm_ops.remove_seat(table, name, reason)
        gm_ops.tell_players(table, events, also=(name,))
        tell_offer_ended(table, events)
        service._advance(table)
        service._finish(table, now)
    return events


def rollback(service: Service, game_id: str, to: int, now: datetime, reason: str = "") -> int:
    """Cut the log back to step ``to``, rebuild the snapshot by replay and log the rollback
    as a GM entry, in one write; announced. Gives the number of log entries cut."""
    store = service.store
    with store.lock():
        if service.state(game_id).phase == "over":
            # Its seed was revealed at the end: every roll it would make again is known.
            raise IllegalCommandError("the game is over and its seed is public, so it cannot "
                                      "be played on", text=game_id)
        log = list(store.log(game_id))
        current = int(log[-1]["seq"]) if log else 0
        if current == 0:
            raise IllegalCommandError("the game has not moved yet: there is no step to go "
                                      "back to", text=game_id)
        if not 0 <= to < current:
            raise IllegalCommandError(f"the game is at step {current}; it can go back to a step "
                                      f"from 0 to {current - 1}", text=str(to))
        length = sum(1 for entry in log if int(entry["seq"]) <= to)
        setup = from_json(Setup, store.setup(game_id)["setup"])
        state, rest = _replay_to(service, setup, log, length)
        if not gm_ops.at_rest(state):
            raise IllegalCommandError(
                f"step {to} is in the middle of an attack or of a special card",
                suggestion="go back to step " + " or ".join(str(s) for s in rest))
        old = service.service_record(game_id)
        cut = [from_json(Event, e) for entry in log[length:] for e in entry["events"]]
        table = Table(service.cards, state, gm_ops.rolled_back(old, state, length, now, cut),
                      now, length)
        # The overrides cut off stay on record (the GM did them), by kind and time; those
        # only the GM sees (mail dropped: done for good) whole, in the GM's own views.
        cut_off = [e for e in map(gm_event_of, log[length:]) if e]
        undone = [{"kind": e.kind, "at": e.at} for e in cut_off if not e.gm_only]
        kept = [{"kind": e.kind, "at": e.at, "data": e.data} for e in cut_off if e.gm_only]
        event = table.record("rollback", {"to": to, "from": current, "reason": reason,
                                          "undone": undone} | ({"gm_only": kept} if kept else {}))
        gm_ops.tell_players(table, gm=event)
        service._advance(table)
        if not any(n.kind in ("turn_report", "game_over") for n in table.notices):
            for p in table.state.players:
                if not p.departed:
                    table.notify(Notice("status", p.name))
        service._finish(table, now, cut_to=length)
    return len(log) - length


def _replay_to(service: Service, setup: Setup, log: list[dict[str, Any]],
               length: int) -> tuple[GameState, list[int]]:
    """The state after ``length`` entries, and the nearest steps around it at rest."""
    state, _ = new_game(service.cards, setup)
    at_length = state
    rest: list[int] = []  # log lengths after which no attack or special card is under way
    for n in range(len(log) + 1):
        if n == length:
            at_length = state
        if gm_ops.at_rest(state):
            rest.append(n)
        command = command_of(log[n]) if n < len(log) else None
        if command is not None:
            state, _ = apply(state, command, service.cards)
    around = [max(r for r in rest if r <= length),
              *[r for r in rest if r > length][:1]]
    return at_length, [int(log[r - 1]["seq"]) if r else 0 for r in around]


# --- overrides of the service's record ---------------------------------------------------------


def replace_seat(service: Service, game_id: str, seat: str, address: str, now: datetime,
                 name: str = "", reason: str = "") -> str:
    """Someone new plays ``seat`` from ``address``, under ``name`` if given (the seat is
    renamed in the game: ``GmRenamePlayer``); gives their new password ("" before the start:
    the welcome mail brings it then)."""
    address = mail_address(address)
    with service.store.lock():
        table = service._table(game_id, now)
        _running(table)
        who = _seat(table.service, seat)
        old = table.service.seat(who).address
        events = gm_ops.rename_seat(table, who, name, reason) if name.strip() else []
        now_called = str(events[-1].data["new"]) if events else who
        password = service._new_password(game_id, now_called) if table.service.started else ""
        gm_ops.replace_seat(table, now_called, address,
                            service._hash(password) if password else "")
        event = table.record("replace", {"seat": who, "name": now_called,
                                         "address": address.lower(), "old_address": old,
                                         "reason": reason})
        if password:
            table.notify(Notice("welcome", now_called, {
                "password": password, "settings": welcome_settings(table.service.timing)}))
        gm_ops.tell_players(table, events, event)
        service._finish(table, now, drop=_superseded(service, table, old))
    return password


def _superseded(service: Service, table: Table, old: str) -> list[str]:
    """The mails of the game still queued for ``old``, a seat's address just replaced:
    written for the player who left the seat (a welcome with a password that no longer
    works, reports they will not read), and superseded by what the new player is sent (the
    welcome, then every report with the game as it stands). None while another seat of
    the game keeps that address: a queued mail does not say which seat it is for."""
    if any(s.address == old for s in table.service.seats):
        return []
    game = table.state.game
    return [i.outbox_id for i in service.store.outbox() if i.game_id == game and i.to == old]


def set_bot(service: Service, game_id: str, seat: str, on: bool, now: datetime,
            level: Level = "normal") -> None:
    """A bot plays ``seat`` at ``level`` (``on``: it acts at once if the game waits for it;
    a seat a bot plays already changes level), or its player again (a new password is
    mailed to the seat's address); announced to the players."""
    with service.store.lock():
        table = service._table(game_id, now)
        _running(table)
        _started(table, "start it first (pbem game start), then give the seat to a bot")
        who = _seat(table.service, seat)
        if level not in LEVELS:
            raise IllegalCommandError(f"no bot level {level}",
                                      suggestion=f"one of {', '.join(LEVELS)}", text=level)
        was = table.service.seat(who)
        if was.bot == on and (not on or was.bot_level == level):
            raise IllegalCommandError(f"a bot plays {who} already" if on
                                      else f"no bot plays {who}", text=who,
                                      suggestion="give another --level to change how it "
                                      "plays" if on else "")
        entry: dict[str, Any] = {"seat": who, "on": on}
        if on:
            entry["level"] = level

        def note(table: Table) -> None:  # in the seat's own step, before the bot acts
            gm_ops.tell_players(table, gm=table.record("bot", entry))

        service.set_bot(game_id, who, on, now, note=note, level=level)


def announce(service: Service, game_id: str, text: str, now: datetime) -> int:
    """Mail ``text`` from the game master to every player; gives how many were mailed."""
    if not text.strip():
        raise IllegalCommandError("the announcement is empty", suggestion="write some text")
    with service.store.lock():
        table = service._table(game_id, now)
        gm_ops.tell_players(table, gm=table.record("announce", {"text": text}))
        told = len(table.notices)
        service._finish(table, now)
    return told


# --- shared ------------------------------------------------------------------------------------


def _running(table: Table) -> None:
    if table.state.phase == "over":
        raise IllegalCommandError("the game is over", text=table.state.game)


def _started(table: Table, suggestion: str) -> None:
    """Refuse what only a started game can do: its seats get their passwords at the start,
    its deadlines begin then, and before it a game keeps at least two players."""
    if not table.service.started:
        raise IllegalCommandError("the game has not started", text=table.state.game,
                                  suggestion=suggestion)


def _seat(service: GameService, query: str) -> str:
    """The seat's name from any unambiguous spelling of it."""
    return NameMatcher([s.name for s in service.seats], what="seat").match(query)


def _place(state: GameState, place: str) -> str:
    """The engine's name of a place; the player's name of a hand matched loosely."""
    lowered = place.strip().lower()
    if lowered in PLACES:
        return lowered
    if lowered.startswith("hand:"):
        names = [p.name for p in state.players]
        return "hand:" + NameMatcher(names, what="player").match(place.strip()[5:])
    raise IllegalCommandError(f"unknown place {place!r}",
                              suggestion="uncontrolled, dead, deck, discards or hand:PLAYER")
