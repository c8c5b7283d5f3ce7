"""A game's history from its log: the timeline, the export, the replay check and the
verification of every roll against the revealed seed.

The log is the truth: a game is its setup plus its commands, and everything here is derived
from them; the GM entries among them (``pbem.service.entries``) hold the game master's other
overrides in their place in the timeline. Nothing here writes to the store.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any, Literal

from pbem.engine import events as ev
from pbem.engine.carddata import CardPack
from pbem.engine.cards import CardSet
from pbem.engine.codec import from_json, to_json
from pbem.engine.commands import Command
from pbem.engine.dice import Dice, commitment, roll_2d6
from pbem.engine.events import Event
from pbem.engine.rules import apply
from pbem.engine.setup import Setup, new_game
from pbem.engine.state import GameState
from pbem.errors import IllegalCommandError, StoreError
from pbem.reports.context import report_events
from pbem.reports.templating import environment
from pbem.service.entries import (
    GmCreate,
    GmEvent,
    GmStart,
    command_of,
    commands,
    gm_event_of,
    under_current_names,
)
from pbem.service.model import GameService
from pbem.service.packs import game_cards, pack_of, pack_record
from pbem.store import GameStore

_ENDS_TURN = {"next_player", "victory", "turn_cap", "no_players"}


@dataclass(frozen=True)
class GameFile:
    """Everything the store keeps about one game, read in one go."""

    game: str
    setup: Setup
    seats: GameService  # the service record the game was created with
    state: GameState  # the snapshot's
    service: GameService  # the snapshot's
    log: tuple[dict[str, Any], ...]  # command entries and GM entries
    pack: CardPack | None = None  # the game master's own cards it was created with

    def played_with(self, base: CardSet) -> CardSet:
        """The cards the game plays with: ``base`` (the daemon's) with its own pack, if any."""
        return base if self.pack is None else game_cards(base, {"cards": pack_record(
            self.pack)})

    @property
    def commands(self) -> Iterator[Command]:
        """The engine commands of the log: what replay applies."""
        return commands(self.log)

    @property
    def gm_events(self) -> list[GmEvent]:
        """The game master's overrides logged as GM entries, oldest first."""
        return [e for e in map(gm_event_of, self.log) if e is not None]

    @property
    def commitments(self) -> list[str]:
        """The dice commitments recorded when the game was created and started."""
        return [e.commitment for e in self.gm_events
                if isinstance(e, GmCreate | GmStart) and e.commitment]


def read_game(store: GameStore, game_id: str) -> GameFile:
    """The game as the store keeps it, read under the store's lock so the parts agree."""
    with store.lock():
        record = store.setup(game_id)
        snapshot = store.snapshot(game_id)
        if snapshot is None or "setup" not in record:
            raise StoreError("This is not a game (it has no setup or no snapshot).",
                             text=game_id)
        return GameFile(
            game=game_id,
            setup=from_json(Setup, record["setup"]),
            seats=from_json(GameService, record["service"]),
            state=from_json(GameState, snapshot["state"]),
            service=from_json(GameService, snapshot["service"]),
            log=tuple(store.log(game_id)),
            pack=pack_of(record),
        )


# --- the timeline ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    """One line group of the timeline: a logged step (seq, time, its events) or a GM entry
    (the step it follows, time, the override)."""

    kind: Literal["step", "gm"]
    seq: int
    at: str
    events: tuple[Event, ...] = ()
    gm_event: GmEvent | None = None


@dataclass(frozen=True)
class Section:
    """One turn of the timeline (turn 0: setting up): its items and the log length at its
    end, so a caller can rebuild the state the turn left."""

    turn: int
    player: str
    items: tuple[Item, ...]
    end: int


def timeline(cards: CardSet, game: GameFile, viewer: str | None = None, *,
             gm_only: bool = False) -> list[Section]:
    """The game turn by turn as ``viewer`` may see it (None: every event); the GM entries
    only the game master sees (``GmEvent.gm_only``) too when ``gm_only`` (their own view, not
    a finished game's archive page).

    A turn runs from the step after the previous turn ended (so start-of-turn cards played
    before the income belong to it) to the step that ends it.
    """
    _, setup_events = new_game(cards, game.setup)
    logged = [[from_json(Event, e) for e in entry["events"]] for entry in game.log]
    logged = _as_now_named(logged)
    sections: list[Section] = []
    items: list[Item] = [Item("step", 0, "", tuple(report_events(setup_events, viewer)))]
    turn, player = 0, ""
    ended, begun = False, True  # the setting up counts as begun: the first turn closes it
    for index, (entry, events) in enumerate(zip(game.log, logged, strict=True)):
        gm_event = gm_event_of(entry)
        if gm_event is not None:
            if gm_only or not gm_event.gm_only:
                items.append(Item("gm", int(entry["seq"]), gm_event.at,
                                  gm_event=gm_event))
            continue
        begins = next((e for e in events if isinstance(e, ev.TurnBegins)), None)
        if ended or (begins is not None and begun):
            sections.append(_section(turn, player, items, index))
            items, turn, player, begun = [], turn + 1, "", False
        if begins is not None:
            turn, player, begun = begins.turn, begins.player, True
        ended = any(e.kind in _ENDS_TURN for e in events)
        shown = tuple(report_events(events, viewer))
        items.append(Item("step", int(entry["seq"]), entry["at"], shown))
    sections.append(_section(turn, player, items, len(game.log)))
    return [s for s in sections if s.items or s.turn == 0]


def _as_now_named(logged: list[list[Event]]) -> list[list[Event]]:
    """Each entry's events, with who may see them named as the players are called now."""
    flat = under_current_names([e for events in logged for e in events])
    out, at = [], 0
    for events in logged:
        out.append(flat[at:at + len(events)])
        at += len(events)
    return out


def _section(turn: int, player: str, items: list[Item], end: int) -> Section:
    return Section(turn, player, tuple(i for i in items if _worth(i)), end)


def _worth(item: Item) -> bool:
    return item.kind == "gm" or bool(item.events)


def timeline_text(cards: CardSet, game: GameFile, viewer: str | None = None) -> str:
    """The timeline as text for the terminal (the game master's, every override of theirs
    included, or a player's own view)."""
    template = environment().get_template("archive/timeline.txt.j2")
    sections = timeline(cards, game, viewer, gm_only=viewer is None)
    return template.render(game=game.game, viewer=viewer, sections=sections).rstrip() + "\n"


# --- export and replay -------------------------------------------------------------------------


def export(game: GameFile) -> dict[str, Any]:
    """The whole game as JSON-ready data, without the players' password hashes (nor the
    password a bot playing a seat uses, which is kept in clear)."""
    return {
        "format": "pbem-game",
        "version": 2,  # 2: the GM's overrides are entries of the log
        "game": game.game,
        "setup": to_json(game.setup),
        "seats": [_seat(s) for s in to_json(game.service)["seats"]],
        "log": list(game.log),
        "snapshot": {"state": to_json(game.state), "service": _unhashed(game.service)},
        "commitment": next(iter(game.commitments), ""),
        **({"cards": pack_record(game.pack)} if game.pack is not None else {}),
    }


_SECRET = ("password_hash", "bot_password", "bot_keys", "away_hash")


def _seat(seat: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in seat.items() if k not in _SECRET}


def _unhashed(service: GameService) -> dict[str, Any]:
    data: dict[str, Any] = to_json(service)
    return {**data, "seats": [_seat(s) for s in data["seats"]]}


def replayed(cards: CardSet, game: GameFile, to: int | None = None) -> GameState:
    """The state the setup and the logged commands lead to at step ``to`` (numbered as
    ``timeline`` and ``pbem rollback`` number them; None: the last)."""
    last = int(game.log[-1]["seq"]) if game.log else 0
    if to is not None and to > last:
        raise IllegalCommandError(f"the game is at step {last}", text=str(to),
                                  suggestion=f"give a step from 0 to {last}")
    state, _ = new_game(cards, game.setup)
    for entry in game.log:
        if to is not None and int(entry["seq"]) > to:
            break
        command = command_of(entry)
        if command is None:
            continue
        try:
            state, _ = apply(state, command, cards)
        except IllegalCommandError as error:
            raise IllegalCommandError(
                f"step {entry['seq']} of the log is refused on replay: {error.message}",
                suggestion="the log or the rules changed since it was written") from error
    return state


def replay_difference(cards: CardSet, game: GameFile) -> str | None:
    """The first difference between the state the log rebuilds and the snapshot, or None."""
    return first_difference(to_json(replayed(cards, game)), to_json(game.state),
                            "state", ("the log gives", "the snapshot has"))


def first_difference(a: Any, b: Any, path: str = "",
                     words: tuple[str, str] = ("one is", "the other is")) -> str | None:
    """Where two JSON values first differ, as a sentence naming the path, or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in [*a, *(k for k in b if k not in a)]:
            if key == "type" and a.get(key) == b.get(key):
                continue
            found = first_difference(a.get(key), b.get(key), f"{path}.{key}", words)
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = first_difference(x, y, f"{path}[{i}]", words)
            if found:
                return found
        if len(a) != len(b):
            return f"{path}: {words[0]} {len(a)} items, {words[1]} {len(b)}"
        return None
    if a != b or type(a) is not type(b):
        return f"{path}: {words[0]} {a!r}, {words[1]} {b!r}"
    return None


# --- verification ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verification:
    """What ``verify`` found: the seed, the commitment, how much was checked, the problems."""

    game: str
    seed: str
    commitment: str
    steps: int
    rolls: int
    setup_draws: int
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def verify(cards: CardSet, game: GameFile) -> Verification:
    """Check every chance outcome against the seed the state reveals.

    The seed's SHA-256 must equal the commitment recorded (and mailed) at the start; the
    setup's shuffles and turn-order rolls take draws 0, 1, ... of the seed's HMAC stream;
    every logged roll must show the dice of the next draws of that stream, in order; and
    the setup plus the log must replay to the very events logged and the snapshot.
    """
    seed = game.state.dice.seed
    problems: list[str] = []
    promised = game.commitments
    if not promised:
        problems.append("No commitment was recorded when the game was created or started, so "
                        "the seed cannot be checked against it.")
    for value in dict.fromkeys(promised):
        if commitment(seed) != value:
            problems.append(f"The seed's SHA-256 is {commitment(seed)}, but the commitment sent "
                            f"at the start was {value}.")
    if game.setup.seed != seed:
        problems.append("The seed in the game's setup differs from the seed the state reveals.")
    state, _ = new_game(cards, replace(game.setup, seed=seed))
    setup_draws = next_draw = state.dice.draws
    rolls = 0
    for n, entry in enumerate(game.log):
        seq = entry.get("seq", n + 1)
        command = command_of(entry)
        if command is None:  # a GM entry: the state stays where it was
            if seq != state.seq:
                problems.append(f"Step {seq}: a GM entry, but a replay is at step {state.seq}.")
            continue
        logged = [from_json(Event, e) for e in entry["events"]]
        for event in logged:
            if not isinstance(event, ev.Rolled):
                continue
            rolls += 1
            draw, dice = event.draw, event.dice
            if draw != next_draw:
                problems.append(f"Step {seq}: the roll claims draw {draw}, but the next draw of "
                                f"the stream is {next_draw}.")
            true_dice, after = roll_2d6(Dice(seed, next_draw if draw is None else draw))
            if dice != true_dice:
                problems.append(f"Step {seq}: the log shows the dice {_dice(dice)} at draw "
                                f"{draw}, but the seed gives {_dice(true_dice)}.")
            next_draw = after.draws
        try:
            state, events = apply(state, command, cards)
        except IllegalCommandError as error:
            problems.append(f"Step {seq}: the command is refused on replay ({error.message}).")
            break
        if to_json(events) != entry["events"]:
            where = first_difference(entry["events"], to_json(events), "events",
                                     ("the log shows", "a replay gives"))
            problems.append(f"Step {seq}: {where}.")
        if seq != state.seq:
            problems.append(f"Step {seq}: a replay is at step {state.seq} here.")
    else:
        if state.dice.draws != next_draw:
            problems.append(f"The replay used {state.dice.draws} draws but the logged rolls "
                            f"account for {next_draw}.")
        difference = first_difference(to_json(state), to_json(game.state), "state",
                                      ("the replay gives", "the snapshot has"))
        if difference:
            problems.append(f"The replay does not end at the snapshot: {difference}.")
    return Verification(game.game, seed, commitment(seed), len(game.log), rolls, setup_draws,
                        tuple(problems))


def _dice(dice: tuple[Any, ...]) -> str:
    return "+".join(str(d) for d in dice) or "none"
