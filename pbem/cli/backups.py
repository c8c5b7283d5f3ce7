"""``pbem backup`` and ``pbem restore``: the store copied whole while the daemon runs, and put
back (``pbem.store.backup``; deploy/BACKUPS.md has a timer that runs it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from pbem.cli.session import BusyError, common, counted, explain, where_of
from pbem.errors import PbemError, StoreError

__all__ = ["backup", "restore"]


@click.command("backup")
@click.argument("dest", type=click.Path(dir_okay=True, path_type=Path))
@common
def backup(dest: Path, **kwargs: Any) -> None:
    """Copy the whole store into the file DEST (a .tar.gz, 0600), consistent while the daemon
    runs: it waits for the step in progress, and the daemon waits for the copy. A folder as
    DEST gets a file named by the time."""
    from pbem.store.backup import back_up

    where = where_of(kwargs)
    if dest.is_dir():
        dest = dest / f"pbem-store-{where.now:%Y-%m-%dT%H%M%S}.tar.gz"
    try:
        done = back_up(where.store, dest, where.now, wait=where.wait)
    except StoreError as error:
        if (where.store / "games").is_dir():
            raise BusyError(explain(error)) from error
        raise click.ClickException(explain(error)) from error
    click.echo(f"{done.path}: {counted(len(done.games), 'game')}, "
               f"{counted(done.files, 'file')}, {done.size} bytes, as of {done.taken}.")


@click.command("restore")
@click.argument("archive", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@common
def restore(archive: Path, **kwargs: Any) -> None:
    """Put the copy ARCHIVE (from `pbem backup`) back as the store (the configuration's, or
    --store), which must not exist yet or be empty. Run `pbem doctor` afterwards, then start
    the daemon."""
    from pbem.store.backup import restore as put_back

    where = where_of(kwargs)
    try:
        done = put_back(archive, where.store)
    except PbemError as error:
        raise click.ClickException(explain(error)) from error
    click.echo(f"{where.store}: {counted(len(done.games), 'game')} restored as of "
               f"{done.taken}. Check it with `pbem doctor`, then start the daemon.")
