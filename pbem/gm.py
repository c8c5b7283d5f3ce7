"""The game master's operations, as plain functions over a ``Service`` (used by the CLI).

Each takes the store's lock (re-entrant: the CLI may hold it already), loads the game, does
its change through a ``Table`` (``pbem.service.gm_ops``), commits the step as the service
does (log entries, snapshot, announcement mails; bot seats answering), then records the GM
event in the game's meta. Time is passed in.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from pbem.engine.cards import CardSet
from pbem.engine.codec import from_json
from pbem.engine.commands import Command
from pbem.engine.rules import apply
from pbem.engine.setup import MAX_PLAYERS, MIN_PLAYERS, Setup, new_game
from pbem.engine.state import Event, GameState
from pbem.engine.view import view
from pbem.errors import IllegalCommandError, StoreError
from pbem.history import GameFile
from pbem.names import CARD_ALIASES, NameMatcher, card_matcher
from pbem.orders.format import format_order
from pbem.render import environment
from pbem.reports_context import Deadline, deadline_facts, goal_lines, group_facts
from pbem.service import gm_ops
from pbem.service.gm_ops import GmEvent, gm_events, meta_with
from pbem.service.mails import welcome_settings
from pbem.service.model import GameService, Timing, iso, parse_iso
from pbem.service.service import Service
from pbem.service.table import Notice, Table
from pbem.store import Store
from pbem.tree import tree_rows

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
                seed: str | None = None, now: datetime) -> str:
    """A new game, not started; gives the dice commitment (the SHA-256 of the seed).
    Players are (name, address, Illuminati or "" to deal one; any spelling of its name).

    The commitment is recorded at once, so ``verify`` can later hold the revealed seed to it.
    """
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise IllegalCommandError(f"a game needs {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                                  f"not {len(players)}")
    illuminati = NameMatcher([i.name for i in service.cards.illuminati],
                             aliases=CARD_ALIASES, what="Illuminati")
    players = [(name, address, illuminati.match(chosen) if chosen else "")
               for name, address, chosen in players]
    with service.store.lock():
        service.create_game(game_id, players, options=options, timing=timing, seed=seed)
        promise = service.state(game_id).dice.commitment
        event = GmEvent("create", iso(now), 0, {"players": [p[0] for p in players]})
        meta = meta_with({**service.store.meta(game_id), "commitment": promise}, event)
        service.store.commit(game_id, log_entries=[], snapshot=None, meta=meta)
    return promise


def start_game(service: Service, game_id: str, now: datetime) -> dict[str, str]:
    """Welcome mails out and the first turn begun; gives the passwords (GM's eyes only)."""
    with service.store.lock():
        event = GmEvent("start", iso(now), service.store.log_length(game_id),
                        {"commitment": service.state(game_id).dice.commitment})
        passwords = service.start_game(game_id, now)
        service.store.commit(game_id, log_entries=[], snapshot=None,
                             meta=meta_with(service.store.meta(game_id), event))
    return passwords


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
        table.tick()
        service._advance(table)
    steps = tuple((int(e["seq"]), from_json(Command, e["command"]), tuple(
        from_json(Event, x) for x in e["events"])) for e in table.entries)
    return Preview(game_id, now, before, table.service, table.state, steps,
                   tuple((n.kind, n.to) for n in table.notices), inbox)


# --- overrides of the game: engine commands ----------------------------------------------------


def edit_money(service: Service, game_id: str, card: str, amount: int, reason: str,
               now: datetime) -> list[Event]:
    """Set the money on a card (any spelling of its name); logged and announced."""
    with service.store.lock():
        table = service._table(game_id, now)
        events = gm_ops.set_money(table, card_matcher(service.cards).match(card), amount, reason)
        gm_ops.tell_players(table, gm_ops.announcement(events))
        service._advance(table)
        _commit(service, table, now)
    return events


def edit_move(service: Service, game_id: str, card: str, place: str, reason: str,
              now: datetime) -> list[Event]:
    """Put a card in ``place`` (uncontrolled, dead, deck, discards, hand:PLAYER)."""
    with service.store.lock():
        table = service._table(game_id, now)
        name = card_matcher(service.cards).match(card)
        events = gm_ops.move_card(table, name, _place(table.state, place), reason)
        gm_ops.tell_players(table, gm_ops.announcement(events))
        service._advance(table)
        _commit(service, table, now)
    return events


def remove_seat(service: Service, game_id: str, seat: str, now: datetime,
                reason: str = "") -> list[Event]:
    """The player leaves the game (``LeaveGame``): their groups go free, their money to the
    bank; if it was their turn, the next player's begins."""
    with service.store.lock():
        table = service._table(game_id, now)
        _running(table)
        name = _seat(table.service, seat)
        events = gm_ops.remove_seat(table, name)
        event = GmEvent("remove", iso(now), table.log_length, {"seat": name, "reason": reason})
        gm_ops.tell_players(table, gm_ops.announcement(events, event), also=(name,))
        service._advance(table)
        _commit(service, table, now, event)
    return events


def rollback(service: Service, game_id: str, to: int, now: datetime, reason: str = "") -> int:
    """Cut the log back to step ``to`` and rebuild the snapshot by replay; announced.
    Gives the number of log entries cut."""
    store = service.store
    with store.lock():
        log = list(store.log(game_id))
        current = int(log[-1]["seq"]) if log else 0
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
        table = Table(service.cards, state, gm_ops.rolled_back(old, state, length, now), now,
                      length)
        event = GmEvent("rollback", iso(now), length, {"to": to, "from": current,
                                                       "reason": reason})
        gm_ops.tell_players(table, gm_ops.announcement(gm_event=event))
        service._advance(table)
        if not any(n.kind in ("turn_report", "game_over") for n in table.notices):
            for p in table.state.players:
                if p.status != "left":
                    table.notify(Notice("status", p.name))
        # Events of steps cut off stay in the record (the GM did them) but move to the cut.
        kept = [replace(e, position=min(e.position, length))
                for e in gm_events(store.meta(game_id))]
        meta = meta_with({**store.meta(game_id), "gm_events": []}, *kept)
        store.truncate_log(game_id, length, Service._snapshot(state, table.service))
        _commit(service, table, now, event, meta=meta)
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
        if n < len(log):
            state, _ = apply(state, from_json(Command, log[n]["command"]), service.cards)
    around = [max(r for r in rest if r <= length),
              *[r for r in rest if r > length][:1]]
    return at_length, [int(log[r - 1]["seq"]) if r else 0 for r in around]


# --- overrides of the service's record ---------------------------------------------------------


def replace_seat(service: Service, game_id: str, seat: str, address: str, now: datetime,
                 name: str = "", reason: str = "") -> str:
    """Someone new plays ``seat`` from ``address``; gives their new password ("" before the
    start: the welcome mail brings it then). The seat keeps its name in the game."""
    with service.store.lock():
        table = service._table(game_id, now)
        _running(table)
        who = _seat(table.service, seat)
        old = table.service.seat(who).address
        password = service._new_password(game_id, who) if table.service.started else ""
        gm_ops.replace_seat(table, who, address, service._hash(password) if password else "")
        event = GmEvent("replace", iso(now), table.log_length,
                        {"seat": who, "name": name, "address": address.lower(),
                         "old_address": old, "reason": reason})
        if password:
            table.notify(Notice("welcome", who, {
                "password": password, "settings": welcome_settings(table.service.timing)}))
        gm_ops.tell_players(table, gm_ops.announcement(gm_event=event))
        _commit(service, table, now, event)
    return password


def set_bot(service: Service, game_id: str, seat: str, on: bool, now: datetime) -> None:
    """A bot plays ``seat`` (``on``: it acts at once if the game waits for it), or its player
    again (a new password is mailed to the seat's address); announced to the players."""
    with service.store.lock():
        table = service._table(game_id, now)
        _running(table)
        who = _seat(table.service, seat)
        # The event sits where the GM acted, before whatever the bot does at once.
        event = GmEvent("bot", iso(now), table.log_length, {"seat": who, "on": on})
        service.set_bot(game_id, who, on, now)
        table = service._table(game_id, now)
        gm_ops.tell_players(table, gm_ops.announcement(gm_event=event))
        _commit(service, table, now, event)


def pause(service: Service, game_id: str, now: datetime, reason: str = "") -> None:
    """Stop the deadlines until ``resume``."""
    with service.store.lock():
        table = service._table(game_id, now)
        _running(table)
        gm_ops.pause(table)
        event = GmEvent("pause", iso(now), table.log_length, {"reason": reason})
        gm_ops.tell_players(table, gm_ops.announcement(gm_event=event))
        _commit(service, table, now, event)


def resume(service: Service, game_id: str, now: datetime) -> float:
    """Run the deadlines again, moved later by the pause; gives the hours paused."""
    with service.store.lock():
        table = service._table(game_id, now)
        _running(table)
        pauses = [e for e in gm_events(service.store.meta(game_id)) if e.kind == "pause"]
        stopped = gm_ops.resume(table, parse_iso(pauses[-1].at) if pauses else None)
        hours = round(stopped.total_seconds() / 3600, 2)
        event = GmEvent("resume", iso(now), table.log_length, {"paused_hours": hours})
        gm_ops.tell_players(table, gm_ops.announcement(gm_event=event))
        service._advance(table)
        _commit(service, table, now, event)
    return hours


def extend(service: Service, game_id: str, hours: float, now: datetime,
           reason: str = "") -> datetime:
    """Move the running deadline ``hours`` later; gives the new deadline."""
    with service.store.lock():
        table = service._table(game_id, now)
        _running(table)
        window = table.service.window is not None
        deadline = parse_iso(gm_ops.extend(table, hours))
        utc = deadline.astimezone(UTC).strftime("%Y-%m-%d %H:%M")
        event = GmEvent("extend", iso(now), table.log_length,
                        {"hours": hours, "deadline": iso(deadline), "deadline_utc": utc,
                         "window": window, "reason": reason})
        gm_ops.tell_players(table, gm_ops.announcement(gm_event=event))
        _commit(service, table, now, event)
    return deadline


def announce(service: Service, game_id: str, text: str, now: datetime) -> int:
    """Mail ``text`` from the game master to every player; gives how many were mailed."""
    if not text.strip():
        raise IllegalCommandError("the announcement is empty", suggestion="write some text")
    with service.store.lock():
        table = service._table(game_id, now)
        gm_ops.tell_players(table, text)
        event = GmEvent("announce", iso(now), table.log_length, {"text": text})
        _commit(service, table, now, event)
    return len(table.notices)


# --- shared ------------------------------------------------------------------------------------


def _commit(service: Service, table: Table, now: datetime, *events: GmEvent,
            meta: dict[str, Any] | None = None) -> None:
    """Commit the step as the service does (bot seats answering its mails), the GM events
    recorded in the game's meta in the same write."""
    game_id = table.state.game
    record = None
    if events or meta is not None:
        base = meta if meta is not None else service.store.meta(game_id)
        record = meta_with(base, *events)
    service._finish(table, now, meta=record)


def _running(table: Table) -> None:
    if table.state.phase == "over":
        raise IllegalCommandError("the game is over", text=table.state.game)


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


# --- the game master's pictures of a game ------------------------------------------------------


def status(state: GameState, service: GameService) -> str:
    """One word or two: over, not started, paused or running."""
    if state.phase == "over":
        return "over"
    if not service.started:
        return "not started"
    return "paused" if service.paused else "running"


def show_text(cards: CardSet, game: GameFile, now: datetime) -> str:
    """Everything about a game as the game master sees it (secrets included), as text."""
    v = view(cards, game.state, None)
    service, window = game.service, game.service.window
    template = environment().get_template("archive/show.txt.j2")
    return template.render(
        v=v, service=service, status=status(game.state, service),
        deadline=_deadline(service.deadline, now), window=window,
        waiting=[p for p in window.asked if not window.answered(p)] if window else [],
        answered=[a.player for a in window.answers] if window else [],
        window_deadline=_deadline(window.deadline, now) if window else None,
        queue=[format_order(q.order) for q in service.queue],
        standing={s.name: [format_order(o) for o in service.standing_of(s.name)]
                  for s in service.seats},
        trees={p.name: tree_rows(p.structure) for p in v.players},
        goals={p.name: goal_lines(cards, p) for p in v.players},
        resistance={g.name: g.resistance for g in group_facts(
            cards, (c.card for p in v.players for c in p.structure))},
        draws=game.state.dice.draws, deck_top=game.state.deck[:5],
    ).rstrip() + "\n"


def preview_text(seen: Preview) -> str:
    """A preview as text: the steps, the mails and the deadline that would change."""
    before, after, state = seen.before, seen.after, seen.state
    closing = ""
    if before.window is not None and (after.window is None
                                      or after.window.opened != before.window.opened):
        closing = before.window.deadline[:16].replace("T", " ")
    mails: dict[str, list[str]] = {}
    for kind, to in seen.mails:
        mails.setdefault(kind, []).append(to or "the game master")
    steps = [(seq, type(c).__name__ + ("" if c.player in ("*", "") else f" by {c.player}"),
              events) for seq, c, events in seen.steps]
    if state.phase == "over":
        waiting = "The game is over."
    elif not after.started or after.paused:
        waiting = "The game has not started." if not after.started else "The game is paused."
    elif after.window is not None:
        late = [p for p in after.window.asked if not after.window.answered(p)]
        waiting = (f"The response window waits for {', '.join(late) or 'nobody'} until "
                   f"{after.window.deadline[:16].replace('T', ' ')} UTC.")
    else:
        waiting = (f"{state.active_player.name}'s orders are due by "
                   f"{after.deadline[:16].replace('T', ' ') or 'no deadline'} UTC.")
    template = environment().get_template("archive/preview.txt.j2")
    return template.render(
        game=seen.game, when=seen.now.astimezone(UTC).strftime("%Y-%m-%d %H:%M"),
        closing=closing, steps=steps, mails=list(mails.items()),
        deadline_moves=after.deadline != before.deadline,
        after_deadline=after.deadline[:16].replace("T", " "), waiting=waiting,
        inbox=seen.inbox,
    ).rstrip() + "\n"


def _deadline(moment: str, now: datetime) -> Deadline | None:
    return deadline_facts(parse_iso(moment), now, "UTC") if moment else None
