"""The game master's ``pbem`` commands: games, overrides, histories and the archive.

Every command reads the daemon's configuration (``--config`` or ``$PBEM_CONFIG``; without it
the embedded default) for the store and the mail settings; ``--store`` (``$PBEM_STORE``)
names another store. It holds the store's lock while it works, so it is safe while the
daemon runs: it waits up to ``--wait`` seconds for the daemon to finish a step. Exit codes:
0 done, 1 refused or a check failed, 2 a usage error, 3 the store stayed busy.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import click

from pbem import gm, gm_text, history
from pbem.archive.build import build_game, build_index, game_ids
from pbem.config import load_config
from pbem.engine.carddata import load_cardset
from pbem.engine.cards import CardSet
from pbem.engine.codec import to_json
from pbem.engine.state import Event, Options
from pbem.errors import PbemError
from pbem.names import CARD_ALIASES, NameMatcher
from pbem.render import environment
from pbem.service.model import Timing
from pbem.service.service import Service, ServiceConfig
from pbem.store import Store

__all__ = ["GM_COMMANDS", "add_gm_commands", "cli"]

F = TypeVar("F", bound=Callable[..., Any])


class BusyError(click.ClickException):
    exit_code = 3


@dataclass(frozen=True)
class Where:
    """The store, the service's settings and the clock the command works with."""

    store: Path
    wait: float
    now: datetime
    config: ServiceConfig


def _where(config_path: Path | None, store: Path | None, wait: float,
           now: str | None) -> Where:
    try:
        config = load_config(config_path)
    except PbemError as error:
        raise click.ClickException(explain(error)) from error
    if store is None:
        root = click.get_current_context().find_root().obj
        given = root.get("store") if isinstance(root, dict) else None
        store = Path(given) if given else config.store
    moment = datetime.now(UTC)
    if now:
        try:
            moment = datetime.fromisoformat(now)
        except ValueError:
            raise click.BadParameter("write a time as 2024-05-01T18:00 (ISO 8601)",
                                     param_hint="--now") from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
    return Where(store, wait, moment, config.service_config())


def common(command: F) -> F:
    """The options every game master command takes: the daemon's configuration (for the
    store and who the mails come from), the store, the wait for its lock, the clock."""
    options = [
        click.option("--config", "config_path", metavar="FILE", envvar="PBEM_CONFIG",
                     type=click.Path(dir_okay=False, path_type=Path),
                     help="The daemon's TOML configuration: the store and the mail "
                     "settings [env PBEM_CONFIG; default: the embedded one]."),
        click.option("--store", type=click.Path(file_okay=False, path_type=Path),
                     envvar="PBEM_STORE", help="The game store folder, instead of the "
                     "configuration's [env PBEM_STORE; default ./var/pbem]."),
        click.option("--wait", type=click.FloatRange(0), default=30.0, show_default=True,
                     help="Seconds to wait for the store's lock if the daemon holds it."),
        click.option("--now", metavar="TIME", envvar="PBEM_NOW",
                     help="Act as if the time were this (ISO 8601, UTC unless it says; "
                     "default: now) [env PBEM_NOW]."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@contextmanager
def session(where: Where, *, create: bool = False) -> Iterator[Service]:
    """The service of the store, its lock held; PbemErrors become plain messages."""
    if not create and not (where.store / "games").is_dir():
        raise click.ClickException(
            f"There is no game store at {where.store}. Give --store (or set PBEM_STORE), or "
            "create a game first with `pbem game create`.")
    try:
        store = Store(where.store)
        with gm.locked(store, where.wait):
            yield Service(store, where.config, _cards())
    except gm.StoreBusyError as error:
        raise BusyError(explain(error)) from error
    except PbemError as error:
        raise click.ClickException(explain(error)) from error


def explain(error: PbemError) -> str:
    """A typed error as sentences a person can act on: what is wrong, then what to do."""

    def sentence(text: str) -> str:
        text = text.strip()
        text = text[:1].upper() + text[1:]
        return text if text.endswith((".", "?", "!")) else text + "."

    message = error.message
    if error.text and error.text not in message:
        message += f" ({error.text!r})"
    hint = f" {sentence(error.suggestion)}" if error.suggestion else ""
    return sentence(message) + hint


_CARDS: list[CardSet] = []


def _cards() -> CardSet:
    if not _CARDS:
        _CARDS.append(load_cardset())
    return _CARDS[0]


def where_of(kwargs: dict[str, Any]) -> Where:
    """The ``common`` options taken out of a command's keyword arguments."""
    return _where(kwargs.pop("config_path"), kwargs.pop("store"), kwargs.pop("wait"),
                  kwargs.pop("now"))


# --- games -------------------------------------------------------------------------------------


@click.group("game")
def game() -> None:
    """Create, start and inspect one game."""


@game.command("create")
@click.argument("game_id", metavar="GAME")
@click.option("--player", "players", multiple=True, required=True,
              metavar="NAME=ADDRESS[:ILLUMINATI]",
              help="A player, their address and (if chosen, not dealt) their Illuminati. "
              "Give one --player per player, in seating order.")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE",
              help="A rule option, e.g. network_goal=25, media_alignment=yes, max_turns=40.")
@click.option("--orders-hours", type=click.FloatRange(0, min_open=True), default=72.0,
              show_default=True, help="Hours the active player has for orders.")
@click.option("--response-hours", type=click.FloatRange(0, min_open=True), default=24.0,
              show_default=True, help="Hours the players have to answer an attack.")
@click.option("--seed", metavar="HEX", help="The secret seed of the dice (hex; default: "
              "random). Only for tests and replays of a known game.")
@common
def create(game_id: str, players: tuple[str, ...], options: tuple[str, ...],
           orders_hours: float, response_hours: float, seed: str | None, **kw: Any) -> None:
    """Create GAME for its players; nothing is mailed until `pbem game start`."""
    where = where_of(kw)
    seats = [_player(text) for text in players]
    chosen = _options(options)
    if seed is not None:
        try:
            bytes.fromhex(seed)
        except ValueError:
            raise click.BadParameter("the seed is hex digits, an even number of them",
                                     param_hint="--seed") from None
    with session(where, create=True) as service:
        seats = [(n, a, _illuminati(service.cards, i) if i else "") for n, a, i in seats]
        promise = gm.create_game(service, game_id, seats, options=chosen, seed=seed,
                                 timing=Timing(orders_hours=orders_hours,
                                               response_hours=response_hours),
                                 now=where.now)
    click.echo(f"Created game {game_id} for {', '.join(s[0] for s in seats)}.")
    click.echo(f"Dice commitment (SHA-256 of the secret seed): {promise}")
    click.echo(f"Start it with: pbem game start {game_id}")


def _player(text: str) -> tuple[str, str, str]:
    name, sep, rest = text.partition("=")
    address, _, illuminati = rest.partition(":")
    if not sep or not name.strip() or "@" not in address:
        raise click.BadParameter(f"{text!r} is not NAME=ADDRESS[:ILLUMINATI], e.g. "
                                 "ann=ann@example.org:Bavarian", param_hint="--player")
    return name.strip(), address.strip(), illuminati.strip()


def _illuminati(cards: CardSet, query: str) -> str:
    names = [i.name for i in cards.illuminati]
    try:
        return NameMatcher(names, aliases=CARD_ALIASES, what="Illuminati").match(query)
    except PbemError as error:
        raise click.BadParameter(explain(error), param_hint="--player") from error


def _options(items: tuple[str, ...]) -> dict[str, Any]:
    known = {f.name: f.type for f in fields(Options)}
    chosen: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or key not in known:
            close = ", ".join(known)
            raise click.BadParameter(f"{item!r}: the options are {close} (KEY=VALUE)",
                                     param_hint="--option")
        word = value.strip().lower()
        if known[key] in ("bool", bool):
            if word not in ("yes", "no", "true", "false", "on", "off", "1", "0"):
                raise click.BadParameter(f"{key} is yes or no", param_hint="--option")
            chosen[key] = word in ("yes", "true", "on", "1")
        else:
            try:
                chosen[key] = int(word)
            except ValueError:
                raise click.BadParameter(f"{key} is a whole number",
                                         param_hint="--option") from None
    return chosen


@game.command("start")
@click.argument("game_id", metavar="GAME")
@click.option("--show-passwords", is_flag=True,
              help="Print the players' passwords (they are mailed in any case).")
@common
def start(game_id: str, show_passwords: bool, **kw: Any) -> None:
    """Start GAME: passwords made, welcome mails queued, the first turn begins."""
    where = where_of(kw)
    with session(where) as service:
        passwords = gm.start_game(service, game_id, where.now)
    click.echo(f"Started {game_id}: welcome mails queued for {', '.join(passwords)}.")
    if show_passwords:
        for name, password in passwords.items():
            click.echo(f"  {name}: {password}")


@game.command("show")
@click.argument("game_id", metavar="GAME")
@click.option("--json", "as_json", is_flag=True, help="The state and service record as JSON.")
@common
def show(game_id: str, as_json: bool, **kw: Any) -> None:
    """Everything about GAME, secrets included: the game master sees it all."""
    where = where_of(kw)
    with session(where) as service:
        record = history.read_game(service.store, game_id)
        cards = service.cards
    if as_json:
        click.echo(json.dumps(history.export(record)["snapshot"], indent=1, ensure_ascii=False))
        return
    click.echo(gm_text.show_text(cards, record, where.now), nl=False)


@click.command("games")
@common
def games(**kw: Any) -> None:
    """List the games of the store."""
    where = where_of(kw)
    with session(where) as service:
        records = [history.read_game(service.store, g) for g in service.games()]
    if not records:
        click.echo("No games yet. Create one with `pbem game create`.")
        return
    rows = [("GAME", "STATUS", "TURN", "STEP", "PLAYERS", "DEADLINE")]
    for r in records:
        state = r.state
        status = gm_text.status(r.state, r.service)
        if state.phase == "over":
            status = f"over: {', '.join(state.winners) or state.outcome}"
        elif r.service.started:
            status += f", {state.active_player.name} to play"
        deadline = "" if state.phase == "over" else (
            r.service.window.deadline if r.service.window else r.service.deadline)
        rows.append((r.game, status, str(state.turn_number), str(state.seq),
                     ", ".join(p.name for p in state.players), deadline[:16]))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        click.echo("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())


# --- running -----------------------------------------------------------------------------------


@click.command("process")
@common
def process(**kw: Any) -> None:
    """Process the waiting mail now, run the deadlines, and let bot seats play."""
    where = where_of(kw)
    with session(where) as service:
        done = gm.process(service, where.now)
    click.echo(f"{done.mails} mail{'s' if done.mails != 1 else ''} processed.")
    for game_id, steps in sorted(done.steps.items()):
        click.echo(f"{game_id}: {steps} step{'s' if steps != 1 else ''} logged.")


@click.command("preview")
@click.argument("game_id", metavar="GAME")
@common
def preview(game_id: str, **kw: Any) -> None:
    """What `pbem process` would do to GAME now (or at --now), without doing it."""
    where = where_of(kw)
    with session(where) as service:
        seen = gm.preview(service, game_id, where.now)
    click.echo(gm_text.preview_text(seen), nl=False)


@click.command("rollback")
@click.argument("game_id", metavar="GAME")
@click.option("--to", "to", type=click.IntRange(0), required=True, metavar="STEP",
              help="The step to go back to (`pbem history GAME` numbers them).")
@click.option("--reason", default="", help="Told to the players.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@common
def rollback(game_id: str, to: int, reason: str, yes: bool, **kw: Any) -> None:
    """Undo every step of GAME after step --to; the players are told."""
    where = where_of(kw)
    if not yes:
        click.confirm(f"Undo every step of {game_id} after step {to}?", abort=True)
    with session(where) as service:
        cut = gm.rollback(service, game_id, to, where.now, reason)
    click.echo(f"{game_id} is back at step {to}: {cut} log entr{'ies' if cut != 1 else 'y'} "
               "undone; the players are told.")


@click.group("edit")
def edit() -> None:
    """Change the game by hand (logged as the game master's commands, and announced)."""


@edit.command("money")
@click.argument("game_id", metavar="GAME")
@click.argument("card")
@click.argument("amount", type=click.IntRange(0))
@click.option("--reason", required=True, help="Why: logged and told to the players.")
@common
def edit_money(game_id: str, card: str, amount: int, reason: str, **kw: Any) -> None:
    """Set the money on CARD (in a power structure) to AMOUNT MB."""
    where = where_of(kw)
    with session(where) as service:
        events = gm.edit_money(service, game_id, card, amount, reason, where.now)
    _echo_events(events)


@edit.command("move")
@click.argument("game_id", metavar="GAME")
@click.argument("card")
@click.argument("place")
@click.option("--reason", required=True, help="Why: logged and told to the players.")
@common
def edit_move(game_id: str, card: str, place: str, reason: str, **kw: Any) -> None:
    """Put CARD in PLACE: uncontrolled, dead, deck, discards or hand:PLAYER."""
    where = where_of(kw)
    with session(where) as service:
        events = gm.edit_move(service, game_id, card, place, reason, where.now)
    _echo_events(events)


def _echo_events(events: list[Event]) -> None:
    module = environment().get_template("en/_events.txt.j2").module
    for e in events:
        click.echo(module.event(e))  # type: ignore[attr-defined]


# --- seats -------------------------------------------------------------------------------------


@click.command("replace")
@click.argument("game_id", metavar="GAME")
@click.argument("seat")
@click.option("--address", required=True, help="The new player's address.")
@click.option("--name", default="", help="The new player's own name: the seat is renamed "
              "(in the game, its log and the order language) from now on.")
@click.option("--show-password", is_flag=True, help="Print the new password (it is mailed).")
@common
def replace_seat(game_id: str, seat: str, address: str, name: str, show_password: bool,
                 **kw: Any) -> None:
    """Give SEAT of GAME to someone new: new address, new password mailed to it."""
    if "@" not in address:
        raise click.BadParameter("an address has an @", param_hint="--address")
    where = where_of(kw)
    with session(where) as service:
        password = gm.replace_seat(service, game_id, seat, address, where.now, name=name)
    who = f"{seat} of {game_id}" + (f", now called {name}," if name else "")
    click.echo(f"{who} is now played from {address}"
               + ("; a welcome mail with a new password is queued." if password else "."))
    if show_password and password:
        click.echo(f"  password: {password}")


@click.command("remove")
@click.argument("game_id", metavar="GAME")
@click.argument("seat")
@click.option("--reason", default="", help="Told to the players.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@common
def remove_seat(game_id: str, seat: str, reason: str, yes: bool, **kw: Any) -> None:
    """Take SEAT out of GAME: their groups go free, their money to the bank."""
    where = where_of(kw)
    if not yes:
        click.confirm(f"Remove {seat} from {game_id} for good?", abort=True)
    with session(where) as service:
        events = gm.remove_seat(service, game_id, seat, where.now, reason)
    _echo_events(events)


@click.command("bot")
@click.argument("game_id", metavar="GAME")
@click.argument("seat")
@click.argument("switch", type=click.Choice(["on", "off"], case_sensitive=False))
@common
def bot(game_id: str, seat: str, switch: str, **kw: Any) -> None:
    """Let a bot play SEAT of GAME (on), or its player again (off)."""
    where = where_of(kw)
    with session(where) as service:
        gm.set_bot(service, game_id, seat, switch.lower() == "on", where.now)
    click.echo(f"A bot plays {seat} now." if switch.lower() == "on"
               else f"{seat} is played by its player again; a new password is mailed.")


@click.command("pause")
@click.argument("game_id", metavar="GAME")
@click.option("--reason", default="", help="Told to the players.")
@common
def pause(game_id: str, reason: str, **kw: Any) -> None:
    """Stop GAME's deadlines until `pbem resume`."""
    where = where_of(kw)
    with session(where) as service:
        gm.pause(service, game_id, where.now, reason)
    click.echo(f"{game_id} is paused.")


@click.command("resume")
@click.argument("game_id", metavar="GAME")
@common
def resume(game_id: str, **kw: Any) -> None:
    """Run GAME's deadlines again, moved later by the time it was paused."""
    where = where_of(kw)
    with session(where) as service:
        hours = gm.resume(service, game_id, where.now)
    click.echo(f"{game_id} runs again; its deadlines moved {hours:g} h later.")


@click.command("extend")
@click.argument("game_id", metavar="GAME")
@click.option("--hours", type=click.FloatRange(0, min_open=True), required=True,
              help="How much later the running deadline falls.")
@click.option("--reason", default="", help="Told to the players.")
@common
def extend(game_id: str, hours: float, reason: str, **kw: Any) -> None:
    """Move GAME's running deadline (response window or orders) later."""
    where = where_of(kw)
    with session(where) as service:
        deadline = gm.extend(service, game_id, hours, where.now, reason)
    click.echo(f"The deadline of {game_id} is now {deadline:%Y-%m-%d %H:%M} UTC.")


@click.command("announce")
@click.argument("game_id", metavar="GAME")
@click.argument("text")
@common
def announce(game_id: str, text: str, **kw: Any) -> None:
    """Mail TEXT to every player of GAME ("-" reads it from standard input)."""
    where = where_of(kw)
    if text == "-":
        text = sys.stdin.read()
    with session(where) as service:
        count = gm.announce(service, game_id, text, where.now)
    click.echo(f"Announcement queued for {count} player{'s' if count != 1 else ''}.")


# --- histories ---------------------------------------------------------------------------------


@click.command("history")
@click.argument("game_id", metavar="GAME")
@click.option("--player", help="Only what this player may see (their own view).")
@common
def history_command(game_id: str, player: str | None, **kw: Any) -> None:
    """Print GAME's timeline, turn by turn (step numbers are for `pbem rollback`)."""
    where = where_of(kw)
    with session(where) as service:
        record = history.read_game(service.store, game_id)
        cards = service.cards
        if player is not None:
            try:
                player = NameMatcher([p.name for p in record.state.players],
                                     what="player").match(player)
            except PbemError as error:
                raise click.BadParameter(explain(error), param_hint="--player") from error
    click.echo(history.timeline_text(cards, record, player), nl=False)


@click.command("export")
@click.argument("game_id", metavar="GAME")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write to this file instead of standard output.")
@common
def export(game_id: str, output: Path | None, **kw: Any) -> None:
    """Write GAME as JSON: setup, seats (no password hashes), log (GM entries too), snapshot.

    While the game runs the export holds its secret seed: keep it to yourself.
    """
    where = where_of(kw)
    with session(where) as service:
        data = history.export(history.read_game(service.store, game_id))
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    if output is None:
        click.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")
        click.echo(f"Wrote {output} ({len(data['log'])} log entries).")


@click.command("replay")
@click.argument("game_id", metavar="GAME")
@click.option("--check", is_flag=True,
              help="Compare the rebuilt state with the snapshot; exit 1 at the first "
              "difference.")
@click.option("--to", "to", type=click.IntRange(0), metavar="STEP",
              help="Rebuild only up to this step.")
@click.option("--json", "as_json", is_flag=True, help="Print the rebuilt state as JSON.")
@common
def replay(game_id: str, check: bool, to: int | None, as_json: bool, **kw: Any) -> None:
    """Rebuild GAME's state from its setup and log."""
    if check and to is not None:
        raise click.UsageError("--check compares the whole log with the snapshot: drop --to.")
    where = where_of(kw)
    with session(where) as service:
        record = history.read_game(service.store, game_id)
        cards = service.cards
    try:
        if check:
            difference = history.replay_difference(cards, record)
            if difference:
                raise click.ClickException(f"The log and the snapshot differ: {difference}.")
            click.echo(f"{game_id}: the {len(record.log)} logged steps rebuild the snapshot "
                       "exactly.")
            return
        state = history.replayed(cards, record, to)
    except PbemError as error:
        raise click.ClickException(explain(error)) from error
    if as_json:
        click.echo(json.dumps(to_json(state), indent=1, ensure_ascii=False))
    else:
        click.echo(f"{game_id} rebuilt to step {state.seq}: turn {state.turn_number}, "
                   f"{state.active_player.name} active, phase {state.phase}.")


@click.command("verify")
@click.argument("game_id", metavar="GAME")
@click.option("--running", is_flag=True,
              help="Check a game still running (its seed is known only to the game master).")
@common
def verify(game_id: str, running: bool, **kw: Any) -> None:
    """Recompute every roll and shuffle of GAME from its revealed seed; exit 1 if any
    differs from the log or the seed from the commitment sent at the start."""
    where = where_of(kw)
    with session(where) as service:
        record = history.read_game(service.store, game_id)
        cards = service.cards
    if record.state.phase != "over" and not running:
        raise click.ClickException(
            f"{game_id} is not over: its seed is still secret. Add --running to check it "
            "anyway (as the game master).")
    result = history.verify(cards, record)
    click.echo(f"Seed:       {result.seed}")
    click.echo(f"SHA-256:    {result.commitment}")
    click.echo(f"Checked:    {result.setup_draws} draws of the setup, {result.steps} steps, "
               f"{result.rolls} rolls.")
    if result.ok:
        click.echo("Every roll and shuffle matches the seed, and the seed its commitment.")
        return
    for problem in result.problems:
        click.echo(f"PROBLEM: {problem}", err=True)
    raise click.ClickException(f"{len(result.problems)} problem"
                               f"{'s' if len(result.problems) != 1 else ''} found.")


# --- the archive -------------------------------------------------------------------------------


@click.group("archive")
def archive() -> None:
    """The static web site of every game."""


@archive.command("build")
@click.argument("folder", metavar="DIR", type=click.Path(file_okay=False, path_type=Path))
@common
def archive_build(folder: Path, **kw: Any) -> None:
    """Write the archive of all games to DIR: finished games in full, running games as
    every player may see them."""
    where = where_of(kw)
    with session(where) as service:
        store, cards = service.store, service.cards
        ids = game_ids(store)
    summaries = []
    try:
        with click.progressbar(ids, label="Building the archive",
                               item_show_func=lambda g: g or "") as bar:
            for game_id in bar:
                with gm.locked(store, where.wait):
                    record = history.read_game(store, game_id)
                summaries.append(build_game(cards, record, folder))
        build_index(summaries, folder)
    except gm.StoreBusyError as error:
        raise BusyError(explain(error)) from error
    except PbemError as error:
        raise click.ClickException(explain(error)) from error
    click.echo(f"Wrote {folder / 'index.html'} ({len(summaries)} games).")


GM_COMMANDS: tuple[click.Command, ...] = (
    game, games, process, preview, rollback, edit, replace_seat, remove_seat, bot, pause,
    resume, extend, announce, history_command, export, replay, verify, archive,
)


def add_gm_commands(group: click.Group) -> None:
    """Add every game master command to ``group`` (the ``pbem`` command)."""
    for command in GM_COMMANDS:
        group.add_command(command)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """The game master's commands on their own (the `pbem` command carries them too)."""


add_gm_commands(cli)
