"""The game master's commands for whole games: ``pbem game create|start|show``, ``pbem
games``, ``pbem process`` and ``pbem preview``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from pbem.cli.session import (
    common,
    counted,
    explain,
    game_named,
    locked_store,
    session,
    shared_addresses,
    where_of,
)
from pbem.errors import PbemError
from pbem.reports.languages import LANGUAGES

if TYPE_CHECKING:
    from pbem.engine.carddata import CardPack
    from pbem.engine.cards import CardSet
    from pbem.service.history import GameFile
    from pbem.store import Store

__all__ = ["OPTION_HELP", "card_pack", "game", "game_settings", "games", "pack_option",
           "preview", "process", "rule_options", "said_pack", "timing_of"]

F = TypeVar("F", bound=Callable[..., Any])


# --- games -------------------------------------------------------------------------------------


def game_settings(command: F) -> F:
    """The options of a new game's deadlines and language (``game create``, ``game open``):
    every timing docs/service.md documents. ``timing_of`` takes them out as Timing's
    fields."""
    options = [
        click.option("--orders-hours", type=click.FloatRange(0, min_open=True), default=72.0,
                     show_default=True, help="Hours the active player has for orders."),
        click.option("--response-hours", type=click.FloatRange(0, min_open=True),
                     default=24.0, show_default=True,
                     help="Hours the players have to answer an attack."),
        click.option("--reminder-hours", "reminder_hours", multiple=True,
                     type=click.FloatRange(0), default=(12.0,), show_default=True,
                     metavar="HOURS",
                     help="Remind a player this many hours before a deadline they have not "
                     "answered (never in the first half of its period); repeat it for "
                     "several reminders; 0: none."),
        click.option("--miss-limit", type=click.IntRange(1), default=2, show_default=True,
                     help="Tell the game master when a player has missed this many orders "
                     "deadlines in a row (and again at each multiple)."),
        click.option("--early-close/--no-early-close", "close_early", default=True,
                     show_default=True, help="Close a response window as soon as everyone "
                     "asked has answered, or always wait for its deadline."),
        click.option("--registered-address-only/--any-address", "registered_only",
                     default=True, show_default=True, help="Take a player's orders only "
                     "from the address they registered, or from any address (the password "
                     "still needed)."),
        click.option("--language", type=click.Choice(LANGUAGES), default="en",
                     show_default=True, help="The language of the players' mail, the welcome "
                     "included, until each chooses another (SET LANGUAGE)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def timing_of(kw: dict[str, Any]) -> dict[str, Any]:
    """The ``game_settings`` deadlines taken out of a command's keyword arguments, as the
    fields of the game's Timing (``pbem.service.model``)."""
    return {"orders_hours": kw.pop("orders_hours"), "response_hours": kw.pop("response_hours"),
            "reminders": tuple(h for h in kw.pop("reminder_hours") if h > 0),
            "miss_limit": kw.pop("miss_limit"), "close_early": kw.pop("close_early"),
            "require_registered_address": kw.pop("registered_only")}


# Every option of the table (pbem.service.options), its choices, the default first;
# tests/cli/test_game_options.py keeps the two in step.
OPTION_HELP = (
    "A game option (repeat it for several); a value outside its choices is refused. The "
    "rules' variants (docs/cards.md): network_goal=20|25, uncontrolled_refill=0|3, "
    "media_alignment=no|yes, victory_groups=by_players|8..13, agreed_end=yes|no, "
    "max_turns=0 (no cap) or more. "
    "The house rules (docs/service.md): press=white|grey|none, press_in_attack=yes|no, "
    "absence_days=14 (0..365), absence_days_per_game=28 (0..365), stand_in=wait|pass|bot, "
    "require_dkim=no|yes (orders only with an aligned DKIM pass). "
    "`pbem game options` lists them with what each does.")


@click.group("game")
def game() -> None:
    """Create, start and inspect one game."""


def pack_option(kept: str) -> Callable[[F], F]:
    """The ``--cards FILE`` option of the commands that make a game (``kept``: where the
    pack is kept, the end of its help)."""
    return click.option("--cards", "pack_file", type=click.Path(
        exists=True, dir_okay=False, path_type=Path), metavar="FILE",
        help="The game master's own cards (a card pack, docs/cards.md): added to the usual "
        'set ([pack] mode = "add") or replacing it ("replace"); ' + kept)


@game.command("create")
@click.argument("game_id", metavar="GAME")
@click.option("--player", "players", multiple=True, required=True,
              metavar="NAME=ADDRESS[:ILLUMINATI]",
              help="A player, their address and (if chosen, not dealt) their Illuminati. "
              "Give one --player per player, in seating order.")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE", help=OPTION_HELP)
@game_settings
@click.option("--seed", metavar="HEX", help="The secret seed of the dice (hex; default: "
              "random). Only for tests and replays of a known game.")
@pack_option("kept with the game.")
@common
def create(game_id: str, players: tuple[str, ...], options: tuple[str, ...], language: str,
           seed: str | None, pack_file: Path | None, **kw: Any) -> None:
    """Create GAME for its players; nothing is mailed until `pbem game start`."""
    from pbem.service import gm
    from pbem.service.model import Timing

    timing = Timing(**timing_of(kw))
    where = where_of(kw)
    seats = [(n, where.address(a, "--player"), i) for n, a, i in map(_player, players)]
    chosen = rule_options(options)
    if seed is not None:
        try:
            bytes.fromhex(seed)
        except ValueError:
            raise click.BadParameter("the seed is hex digits, an even number of them",
                                     param_hint="--seed") from None
    with session(where, create=True) as service:
        pack, cards = card_pack(service.cards, pack_file)
        seats = [(n, a, _illuminati(cards, i) if i else "") for n, a, i in seats]
        promise = gm.create_game(service, game_id, seats, options=chosen, seed=seed,
                                 timing=timing, now=where.now, lang=language, pack=pack)
    click.echo(f"Created game {game_id} for {', '.join(s[0] for s in seats)}.")
    if pack is not None:
        click.echo(said_pack(pack, cards))
    shared_addresses([(name, address) for name, address, _ in seats])
    click.echo(f"Dice commitment (SHA-256 of the secret seed): {promise}")
    click.echo(f"Start it with: pbem game start {game_id}")


def card_pack(base: CardSet, pack_file: Path | None) -> tuple[CardPack | None, CardSet]:
    """The pack of ``pack_file`` (None without one) and the cards a game plays with it,
    checked (a ClickException names the card and the field of what is wrong)."""
    from pbem.engine.carddata import read_pack, with_pack

    if pack_file is None:
        return None, base
    try:
        pack = read_pack(pack_file.read_text(encoding="utf-8"), str(pack_file))
        return pack, with_pack(base, pack, str(pack_file))
    except (OSError, UnicodeDecodeError, PbemError) as error:
        raise click.ClickException(explain(error) if isinstance(error, PbemError)
                                   else f"cannot read {pack_file}: {error}") from error


def said_pack(pack: CardPack, cards: CardSet) -> str:
    """What the game master is told of a game's card pack."""
    return (f'With the card pack "{pack.name}" ({pack.mode}): {len(cards.illuminati)} '
            f"Illuminati, {len(cards.groups)} groups, "
            f"{sum(s.copies for s in cards.specials)} special cards.")


def _player(text: str) -> tuple[str, str, str]:
    name, sep, rest = text.partition("=")
    address, _, illuminati = rest.partition(":")
    if not sep or not name.strip() or "@" not in address:
        raise click.BadParameter(f"{text!r} is not NAME=ADDRESS[:ILLUMINATI], e.g. "
                                 "ann=ann@example.org:Bavarian", param_hint="--player")
    return name.strip(), address.strip(), illuminati.strip()


def _illuminati(cards: CardSet, query: str) -> str:
    from pbem.orders.names import NameMatcher

    names = [i.name for i in cards.illuminati]
    try:
        return NameMatcher(names, aliases=cards.aliases(), what="Illuminati").match(query)
    except PbemError as error:
        raise click.BadParameter(explain(error), param_hint="--player") from error


def rule_options(items: tuple[str, ...]) -> dict[str, Any]:
    """The game's options the ``--option KEY=VALUE`` texts give, checked against the one
    table of options (``pbem.service.options``); a value outside its choices ends the
    command (exit 2) naming the option and its choices."""
    from pbem.engine.carddata import load_cardset
    from pbem.service.options import read_options

    try:
        return read_options(load_cardset(), items)
    except PbemError as error:
        raise click.BadParameter(explain(error), param_hint="--option") from None


@game.command("options")
def options_table() -> None:
    """List every game option --option takes, with its default and its choices: the rules'
    variants (declared with the cards), then the house rules (docs/service.md)."""
    from pbem.engine.carddata import load_cardset
    from pbem.service.options import option_table

    table = option_table(load_cardset())
    rows = [("OPTION", "DEFAULT", "CHOICES")] + [
        (o.name, o.shown(o.default), o.described()) for o in table]
    widths = [max(len(row[i]) for row in rows) for i in range(2)]
    for row, option in zip(rows, (None, *table), strict=True):
        click.echo(f"{row[0].ljust(widths[0])}  {row[1].ljust(widths[1])}  {row[2]}")
        if option is not None and option.doc:
            click.echo(click.wrap_text(option.doc, initial_indent="    ",
                                       subsequent_indent="    "))


@game.command("start")
@click.argument("game_id", metavar="GAME")
@click.option("--show-passwords", is_flag=True,
              help="Print the players' passwords (they are mailed in any case).")
@common
def start(game_id: str, show_passwords: bool, **kw: Any) -> None:
    """Start GAME: passwords made, welcome mails queued, the first turn begins."""
    from pbem.service import gm

    where = where_of(kw)
    with session(where) as service:
        opened = {g.casefold(): g for g in service.lobby.open_games()}
        if game_id.casefold() in opened:  # open for sign-up: start with who joined
            game_id = opened[game_id.casefold()]
            passwords = gm.start_open(service, game_id, where.now)
        else:
            game_id = game_named(service, game_id)
            passwords = gm.start_game(service, game_id, where.now)
    click.echo(f"Started {game_id}: welcome mails queued for {', '.join(passwords)}.")
    if show_passwords:
        for name, password in passwords.items():
            click.echo(f"  {name}: {password}")


@game.command("delete")
@click.argument("game_id", metavar="GAME")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@common
def delete(game_id: str, yes: bool, **kw: Any) -> None:
    """Delete GAME, created and never started (a started game is refused: end it)."""
    from pbem.service import gm

    where = where_of(kw)
    with session(where) as service:
        opened = service.lobby.named(game_id)  # open for sign-up: those who joined are told
        game_id = opened or game_named(service, game_id)
        if not yes:
            click.confirm(f"Delete {game_id} for good?", abort=True)
        if opened:
            told = gm.close_signup(service, game_id, where.now, deleted=True)
        else:
            gm.delete_game(service, game_id)
    if opened:
        click.echo(f"Deleted {game_id}, open for sign-up: "
                   + (f"told {', '.join(told)}." if told else "nobody had joined."))
        return
    click.echo(f"Deleted {game_id}: it was never started, so nobody was mailed about it.")


@game.command("show")
@click.argument("game_id", metavar="GAME")
@click.option("--json", "as_json", is_flag=True, help="The state and service record as JSON.")
@common
def show(game_id: str, as_json: bool, **kw: Any) -> None:
    """Everything about GAME, secrets included: the game master sees it all."""
    from pbem.cli import gm_text
    from pbem.service import history
    from pbem.service.chat import masked

    where = where_of(kw)
    with session(where) as service:
        opened = service.lobby.named(game_id)
        if opened is not None:  # open for sign-up: no game record yet, the lobby's
            from pbem.cli.gm_text import opening_text
            from pbem.service.signup import LOBBY

            opening = service.lobby.open_games()[opened]
            waiting = service.lobby.meta()["waiting"].get(opened, [])
            log = list(service.store.log(LOBBY))
            if as_json:
                click.echo(json.dumps({"game": opened, "open_for_signup": {
                    **opening, "waiting": waiting}}, indent=1, ensure_ascii=False))
            else:
                click.echo(opening_text(opened, opening, waiting, log), nl=False)
            return
        game_id = game_named(service, game_id)
        record = history.read_game(service.store, game_id)
        cards = record.played_with(service.cards)
    if as_json:
        snapshot = history.export(record)["snapshot"]
        audience = snapshot["service"].get("audience", {})
        if audience.get("chat"):  # the webhook's URL holds its token: never shown
            audience["chat"] = masked(audience["chat"])
        click.echo(json.dumps(snapshot, indent=1, ensure_ascii=False))
        return
    click.echo(gm_text.show_text(cards, record, where.now), nl=False)


@click.command("games")
@common
def games(**kw: Any) -> None:
    """List the games of the store, in every state: open for sign-up, not started, running,
    paused, over, moving or moved to another store."""
    from pbem.daemon.alarms import describe, read_alarms

    where = where_of(kw)
    for alarm in read_alarms(where.store):  # first: what the game master must mend now
        click.echo(describe(alarm))
    with locked_store(where) as store:
        records = _records(store) if store.games() else []  # an empty store loads no service
        opened = _open_games(store) if store.games() else {}
        waiting = _waiting_lists(store) if store.games() else {}
        departures = {d.game_id: d for d in store.departures()}
    for game_id, o in sorted(opened.items()):
        seated = [p["name"] for p in o["players"] if p["approved"]]
        asking = [p["name"] for p in o["players"] if not p["approved"]]
        queued = [p["name"] for p in waiting.get(game_id, [])]
        click.echo(f"{game_id}: open for sign-up, {len(seated)} of {o['seats']} seats taken"
                   + (f" ({', '.join(seated)})" if seated else "")
                   + (f"; waiting for your approval: {', '.join(asking)}" if asking else "")
                   + (f"; waiting list: {', '.join(queued)}" if queued else "")
                   + (f"; until {o['fill_by'][:16]}" if o["fill_by"] else "") + ".")
    gone = sorted(d.game_id for d in departures.values() if d.gone)
    for game_id in gone:
        told = departures[game_id].to_folder
        click.echo(f"{game_id}: moved to another store"
                   + (f" (its mail refiled into {told})" if told else "") + ".")
    if not records:
        if not opened and not gone:
            click.echo("No games yet. Create one with `pbem game create`.")
        return
    from pbem.cli import gm_text

    rows = [("GAME", "STATUS", "TURN", "STEP", "PLAYERS", "DEADLINE")]
    for r in records:
        state = r.state
        status = gm_text.status(r.state, r.service)
        if state.phase == "over":
            status = f"over: {', '.join(state.winners) or state.outcome}"
        elif r.service.started:
            status += f", {state.active_player.name} to play"
        if r.game in departures:
            status += ", moving out"
        deadline = "" if state.phase == "over" else (
            r.service.window.deadline if r.service.window else r.service.deadline)
        rows.append((r.game, status, str(state.turn_number), str(state.seq),
                     ", ".join(p.name for p in state.players), deadline[:16]))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        click.echo("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    for game_id in sorted(g for g in waiting if g not in opened and waiting[g]):
        click.echo(f"{game_id}: waiting list: {', '.join(p['name'] for p in waiting[game_id])}"
                   f" (told of seats offered; pbem reject {game_id} NAME takes one off).")


def _records(store: Store) -> list[GameFile]:
    from pbem.service import history
    from pbem.service.postmaster import POSTMASTER
    from pbem.service.signup import LOBBY

    return [history.read_game(store, g) for g in store.games() if g not in (POSTMASTER, LOBBY)]


def _waiting_lists(store: Store) -> dict[str, list[dict[str, Any]]]:
    """Each game's waiting list (the lobby's record), by game."""
    from pbem.service.signup import LOBBY

    return dict(store.meta(LOBBY).get("waiting", {})) if LOBBY in store.games() else {}


def _open_games(store: Store) -> dict[str, Any]:
    """The games open for sign-up (the lobby's record: ``pbem.service.signup``)."""
    from pbem.service.signup import LOBBY

    return dict(store.meta(LOBBY).get("open", {})) if LOBBY in store.games() else {}


# --- running -----------------------------------------------------------------------------------


@click.command("process")
@common
def process(**kw: Any) -> None:
    """Process the waiting mail now, run the deadlines, and let bot seats play."""
    from pbem.service import gm

    where = where_of(kw)
    with session(where) as service:
        done = gm.process(service, where.now)
    click.echo(f"{counted(done.mails, 'mail')} processed.")
    for game_id, steps in sorted(done.steps.items()):
        click.echo(f"{game_id}: {counted(steps, 'step')} logged.")


@click.command("preview")
@click.argument("game_id", metavar="GAME")
@common
def preview(game_id: str, **kw: Any) -> None:
    """What `pbem process` would do to GAME now (or at --now), without doing it."""
    from pbem.cli import gm_text
    from pbem.service import gm

    where = where_of(kw)
    with session(where) as service:
        game_id = game_named(service, game_id)
        seen = gm.preview(service, game_id, where.now)
    click.echo(gm_text.preview_text(seen), nl=False)
