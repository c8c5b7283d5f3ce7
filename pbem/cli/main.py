"""The ``pbem`` command: one click group; each concern adds its commands here."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from pbem.cli.auth import auth
from pbem.cli.backups import backup, restore
from pbem.cli.cards import cards
from pbem.cli.catalogue import catalogue
from pbem.cli.choices import LaterChoice, levels
from pbem.cli.daemon import doctor, run
from pbem.cli.games import card_pack, pack_option, said_pack
from pbem.cli.gm import add_gm_commands
from pbem.cli.mailbox import read_mailbox
from pbem.cli.outbox import outbox
from pbem.errors import PbemError
from pbem.reports.languages import LANGUAGES

if TYPE_CHECKING:
    from pbem.bots import Level


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pbem")
def main() -> None:
    """Play Illuminati by email: the daemon, the game master's tools, and the archive.

    Every command finds the daemon's configuration (its store, its mail settings) in the
    same place: --config FILE, else $PBEM_CONFIG, else the first found of ./pbem.toml,
    $XDG_CONFIG_HOME/pbem/pbem.toml (~/.config/pbem/pbem.toml) and /etc/pbem/pbem.toml,
    else the embedded default (store in ./var/pbem). Only the commands that log in to a
    mail server (run, doctor, auth login) need its passwords.
    """


main.add_command(cards)
main.add_command(catalogue)
main.add_command(run)
main.add_command(doctor)
main.add_command(outbox)
main.add_command(auth)
main.add_command(backup)
main.add_command(restore)
main.add_command(read_mailbox)
add_gm_commands(main)


@main.command()
@click.option("--games", default=100, show_default=True, type=click.IntRange(1),
              help="How many games to play.")
@click.option("--players", default=4, show_default=True, type=click.IntRange(2, 8),
              help="Players in each game.")
@click.option("--seed", default=1, show_default=True, type=click.IntRange(0),
              help="Seed of the whole run; game i uses a seed derived from it.")
@click.option("--turn-cap", default=300, show_default=True, type=click.IntRange(1),
              help="A game still undecided after this many turns ends as a 'turn cap'.")
@click.option("--level", "levels", multiple=True, type=LaterChoice(levels),
              help="The bots' levels, one per seat in order (repeat it; the rest: normal).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def simulate(games: int, players: int, seed: int, turn_cap: int, levels: tuple[Level, ...],
             as_json: bool) -> None:
    """Play whole games between bots and check every invariant after every command."""
    from pbem.bots.simulate import simulate as run
    from pbem.engine.carddata import load_cardset

    summary = run(load_cardset(), games, players, seed, turn_cap, levels=levels)
    result = {
        "games": summary.games,
        "finished": summary.finished,
        "outcomes": summary.outcomes,
        "winners_by_goal": summary.winners_by_goal,
        "levels": [levels[i] if i < len(levels) else "normal" for i in range(players)],
        "by_illuminati": summary.by_illuminati,
        "by_level": summary.by_level,
        "invariant_violations": len(summary.violations),
        "violations": summary.violations[:20],
        "commands": summary.commands,
        "games_per_second": round(summary.games_per_second, 2),
    }
    if as_json:
        click.echo(json.dumps(result, indent=2))
    else:
        click.echo(f"games played:         {summary.games}")
        click.echo(f"finished:             {summary.finished}")
        for outcome, n in sorted(summary.outcomes.items()):
            click.echo(f"  {outcome + ':':<19} {n}")
        click.echo("winners by goal:")
        for goal, n in sorted(summary.winners_by_goal.items(), key=lambda kv: -kv[1]):
            click.echo(f"  {goal + ':':<34} {n}")
        click.echo("by Illuminati (games, wins, eliminated):")
        for name, row in summary.by_illuminati.items():
            click.echo(f"  {name + ':':<34} {row['games']:>4} {row['wins']:>4} "
                       f"{row['eliminated']:>4}")
        click.echo(f"invariant violations: {len(summary.violations)}")
        for v in summary.violations[:20]:
            click.echo(f"  {v}")
        click.echo(f"games per second:     {summary.games_per_second:.2f}")
    if summary.violations:
        sys.exit(1)


@main.command()
@click.option("--dir", "folder", default="demo", show_default=True,
              type=click.Path(file_okay=False, path_type=Path),
              help="Where the store, the players' Maildirs and the archive go.")
@click.option("--port", default=2525, show_default=True, type=click.IntRange(0, 65535),
              help="The embedded SMTP listener's port on 127.0.0.1 (0: any free port).")
@click.option("--keep-running", is_flag=True,
              help="Leave the first seat to you and keep the daemon running.")
@click.option("--seed", default=None, metavar="HEX", help="The dice seed (default: random).")
@click.option("--level", "levels", multiple=True, type=LaterChoice(levels),
              help="The bots' levels, one per seat in order (repeat it; the rest: normal).")
@click.option("--language", type=click.Choice(LANGUAGES), default="en", show_default=True,
              help="The language of the players' mail.")
@pack_option("the demo game plays with it.")
def demo(folder: Path, port: int, keep_running: bool, seed: str | None,
         levels: tuple[Level, ...], language: str, pack_file: Path | None) -> None:
    """Play a whole game by mail on the embedded default: four bots, real SMTP, local
    Maildirs, then the archive."""
    from pbem.cli.demo import run_demo
    from pbem.engine.carddata import load_cardset

    pack, cards = card_pack(load_cardset(), pack_file)
    if pack is not None:
        click.echo(said_pack(pack, cards))
    try:
        result = run_demo(folder, port=port, keep_running=keep_running, seed=seed,
                          levels=levels, pack=pack, lang=language, echo=click.echo)
    except (PbemError, RuntimeError, OSError) as error:
        raise click.ClickException(str(error)) from error
    won = ", ".join(result.winners) or "nobody"
    click.echo(f"The game ended after {result.turns} turns ({result.outcome}); "
               f"winner: {won}.")
    click.echo(f"Players' mail ({result.mails_sent} mails): {result.maildirs}/<address>/")
    click.echo(f"The archive: {result.archive}")
