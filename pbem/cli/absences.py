"""The game master's view of the players' absences (``SET ABSENCE``): ``pbem absences``."""

from __future__ import annotations

from typing import Any

import click

from pbem.cli.session import common, game_named, session, where_of

__all__ = ["absences"]


@click.command("absences")
@click.argument("game_id", metavar="GAME")
@click.option("--cancel", "seat", metavar="SEAT",
              help="Cancel this seat's absences (all of them, or --number's); the player, "
              "the others and you are told.")
@click.option("--number", type=click.IntRange(1), metavar="N",
              help="With --cancel: only the seat's N-th absence, as listed.")
@common
def absences(game_id: str, seat: str | None, number: int | None, **kw: Any) -> None:
    """List the absences the players of GAME gave, numbered by seat (times in UTC); or
    cancel some."""
    from pbem.service import gm

    where = where_of(kw)
    with session(where) as service:
        game_id = game_named(service, game_id)
        if seat is not None:
            gone = gm.cancel_absence(service, game_id, seat, number, now=where.now)
            click.echo(f"Cancelled {len(gone)} absence{'s' if len(gone) != 1 else ''} "
                       f"of {seat} in {game_id}.")
        listed = gm.absences(service, game_id)
        record = service.service_record(game_id)
    if not listed:
        click.echo(f"No absences in {game_id} (stand-in: {record.house.stand_in}).")
        return
    click.echo(f"Absences in {game_id} (stand-in: {record.house.stand_in}):")
    numbers: dict[str, int] = {}
    for name, absence in listed:
        numbers[name] = numbers.get(name, 0) + 1
        click.echo(f"  {name} {numbers[name]}: {absence.start[:16].replace('T', ' ')} to "
                   f"{absence.end[:16].replace('T', ' ')} UTC")
