"""The game master's view of what happened: ``pbem history``, ``export``, ``replay``,
``verify`` and the static web site, ``pbem archive build``; and moving a game to another
store: ``pbem export --move`` and ``pbem import``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from pbem.atomicfile import write_private
from pbem.cli.session import (
    common,
    counted,
    explain,
    game_named,
    held,
    session,
    where_of,
)
from pbem.errors import PbemError
from pbem.reports.languages import LANGUAGES

__all__ = ["archive", "export", "history_command", "import_game", "replay", "verify"]


# --- histories ---------------------------------------------------------------------------------


@click.command("history")
@click.argument("game_id", metavar="GAME")
@click.option("--player", help="Only what this player may see (their own view, their own "
              "secrets included).")
@common
def history_command(game_id: str, player: str | None, **kw: Any) -> None:
    """Print GAME's timeline, turn by turn (step numbers are for `pbem rollback`).

    Without --player it is the game master's view: every hand, secret goal and hidden
    treasury of a game in progress. Keep it to yourself."""
    from pbem.orders.names import NameMatcher
    from pbem.service import history
    from pbem.service.postmaster import forged_for

    where = where_of(kw)
    with session(where) as service:
        game_id = game_named(service, game_id)
        record = history.read_game(service.store, game_id)
        cards = record.played_with(service.cards)
        if player is not None:
            try:
                player = NameMatcher([p.name for p in record.state.players],
                                     what="player").match(player)
            except PbemError as error:
                raise click.BadParameter(explain(error), param_hint="--player") from error
        forged = forged_for(service.store, game_id) if player is None else []
    click.echo(history.timeline_text(cards, record, player), nl=False)
    if forged:  # the game master's view: mail the trusted mail server called forged
        click.echo(f"\nMail naming {game_id} set aside as forged, by the word of the trusted "
                   f"mail server ({len(forged)}; not read, not answered):")
        for mail in forged[-50:]:
            click.echo(f"  {mail['at']}  {mail['sender']}  {mail['verdict']}")
        if len(forged) > 50:
            click.echo(f"  (the last 50 of {len(forged)})")


@click.command("export")
@click.argument("game_id", metavar="GAME")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write to this file instead of standard output.")
@click.option("--move", is_flag=True, help="Move the game out of this store, for `pbem "
              "import` into another (deploy/SCALING.md): the export holds the players' "
              "password hashes, and the game leaves this store.")
@click.option("--to-folder", metavar="FOLDER", help="With --move, for a daemon reading an "
              "IMAP folder: once the game left, refile the mail for its own address that "
              "reaches this daemon's folder into FOLDER (the new daemon's, in the same "
              "account).")
@common
def export(game_id: str, output: Path | None, move: bool, to_folder: str | None,
           **kw: Any) -> None:
    """Write GAME as JSON: setup, seats (no password hashes), log (GM entries too), snapshot.

    While the game runs the export holds its secret seed: keep it to yourself.

    With --move the game's own address's mail is held (the daemon's listener answers 450,
    and the sending mail server retries) while the daemon catches up with the mail the game
    received and queued, waiting up to --wait seconds; then the game is written out and
    taken out of this store. Switch its route to the new daemon once it is imported there.
    The mail a daemon's IMAP intake finds for the game meanwhile stays in its folder; with
    --to-folder it is refiled into that folder once the game left (deploy/SCALING.md).
    """
    from pbem.service import history, moves

    where = where_of(kw)
    if to_folder is not None and not move:
        raise click.UsageError("--to-folder goes with --move.")
    imap = where.config.imap
    if to_folder is not None and imap is not None and to_folder == imap.folder:
        raise click.UsageError(f"--to-folder {to_folder} is this daemon's own folder: give "
                               "the folder of the daemon the game moves to.")
    if move:
        if output is None:
            raise click.UsageError("--move needs --output: the game leaves this store.")
        with session(where) as service:
            game_id = game_named(service, game_id)
            store = service.store
        try:
            data = moves.move_out(store, game_id, where.wait, to_folder=to_folder)
        except PbemError as error:
            raise click.ClickException(explain(error)) from error
    else:
        with session(where) as service:
            game_id = game_named(service, game_id)
            data = history.export(history.read_game(service.store, game_id))
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        write_private(output, text.encode("utf-8"))
    except OSError as error:
        if move:  # the game left the store: its only copy is this text
            click.echo(text, nl=False)
        raise click.ClickException(f"Cannot write {output}: {error.strerror or error}. "
                                   "Give a file in a folder that exists and you may "
                                   "write to." + (" The game was moved out of this store: "
                                                  "its export is printed above; keep it."
                                                  if move else "")) from error
    click.echo(f"Wrote {output} ({len(data['log'])} log entries)."
               + (f" {game_id} left this store: import it with `pbem import {output}`, then "
                  "route its address to that daemon." if move else ""))


@click.command("import")
@click.argument("source", metavar="FILE", type=click.Path(dir_okay=False, path_type=Path))
@common
def import_game(source: Path, **kw: Any) -> None:
    """Create the game FILE holds (written by `pbem export GAME --move` on another store) in
    this store, as it was; refuses a game id this store has already."""
    from pbem.service import moves

    where = where_of(kw)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise click.ClickException(f"Cannot read {source}: {error}.") from error
    if not isinstance(data, dict):
        raise click.ClickException(f"{source} is not a game exported by pbem.")
    with session(where, create=True) as service:
        game_id = moves.move_in(service.store, data, where.now, cards=service.cards)
    click.echo(f"Imported {game_id} ({len(data['log'])} log entries). Route its address "
               "to this daemon now: its mail waits at the mail server until then.")


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
    from pbem.engine.codec import to_json
    from pbem.service import history

    if check and to is not None:
        raise click.UsageError("--check compares the whole log with the snapshot: drop --to.")
    where = where_of(kw)
    with session(where) as service:
        game_id = game_named(service, game_id)
        record = history.read_game(service.store, game_id)
        cards = record.played_with(service.cards)
    try:
        if check:
            difference = history.replay_difference(cards, record)
            if difference:
                raise click.ClickException(f"The log and the snapshot differ: {difference}.")
            click.echo(f"{game_id}: replaying its "
                       f"{counted(len(record.log), 'log entry', 'log entries')} gives the "
                       "snapshot exactly.")
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
    from pbem.service import history

    where = where_of(kw)
    with session(where) as service:
        game_id = game_named(service, game_id)
        record = history.read_game(service.store, game_id)
        cards = record.played_with(service.cards)
    if record.state.phase != "over" and not running:
        raise click.ClickException(
            f"{game_id} is not over: its seed is still secret. Add --running to check it "
            "anyway (as the game master).")
    result = history.verify(cards, record)
    click.echo(f"Seed:       {result.seed}")
    click.echo(f"SHA-256:    {result.commitment}")
    click.echo(f"Checked:    {counted(result.setup_draws, 'draw')} of the setup, "
               f"{counted(result.steps, 'step')}, {counted(result.rolls, 'roll')}.")
    if result.ok:
        click.echo("Every roll and shuffle matches the seed, and the seed its commitment.")
        return
    for problem in result.problems:
        click.echo(f"PROBLEM: {problem}", err=True)
    raise click.ClickException(f"{counted(len(result.problems), 'problem')} found.")


# --- the archive -------------------------------------------------------------------------------


@click.group("archive")
def archive() -> None:
    """The static web site of every game."""


@archive.command("build")
@click.argument("folder", metavar="DIR", type=click.Path(file_okay=False, path_type=Path))
@click.option("--language", type=click.Choice(LANGUAGES), default=None,
              help="The language of every page. Default: each game's pages in the game's "
              "language (the one most of its players read their mail in), the list of games "
              "in the one all the games share; English otherwise.")
@common
def archive_build(folder: Path, language: str | None, **kw: Any) -> None:
    """Write the archive of all games to DIR: finished games in full, running games as
    every player may see them."""
    from pbem.archive.build import build_game, build_index, game_ids
    from pbem.service import history

    where = where_of(kw)
    with session(where) as service:
        store, cards = service.store, service.cards
        ids = game_ids(store)
    summaries = []
    try:
        with click.progressbar(ids, label="Building the archive",
                               item_show_func=lambda g: g or "") as bar:
            for game_id in bar:
                with held(store, where.wait):
                    record = history.read_game(store, game_id)
                summaries.append(build_game(record.played_with(cards), record, folder,
                                            language))
        build_index(summaries, folder, language)
    except PbemError as error:
        raise click.ClickException(explain(error)) from error
    except OSError as error:
        raise click.ClickException(f"Cannot write the archive to {folder}: "
                                   f"{error.strerror or error}.") from error
    count = len(summaries)
    click.echo(f"Wrote {folder / 'index.html'} ({counted(count, 'game')}).")

