"""The game master's ``pbem`` commands: games, overrides, histories and the archive.

Every command reads the daemon's configuration, found as ``pbem run`` finds it (``--config``,
else ``$PBEM_CONFIG``, ``./pbem.toml``, ``$XDG_CONFIG_HOME/pbem/pbem.toml``,
``/etc/pbem/pbem.toml``, else the embedded default: ``pbem.daemon.config.find_config``), for
the store and the mail settings, and needs none of its passwords (it logs in nowhere);
``--store`` (``$PBEM_STORE``) names another store. It holds the store's lock while it
works, so it is safe while the daemon runs: it waits up to ``--wait`` seconds for the daemon
to finish a step. Exit codes: 0 done, 1 refused or a check failed, 2 a usage error, 3 the
store stayed busy.
"""

from __future__ import annotations

import click

from pbem.cli.absences import absences
from pbem.cli.games import game, games, preview, process
from pbem.cli.histories import archive, export, history_command, import_game, replay, verify
from pbem.cli.overrides import (
    announce,
    bot,
    edit,
    end_game,
    extend,
    pause,
    remove_seat,
    replace_seat,
    resume,
    rollback,
)
from pbem.cli.session import BusyError, Where, common, explain, session, where_of
from pbem.cli.signup import approve, observer, players, reject, seat

__all__ = ["GM_COMMANDS", "BusyError", "Where", "add_gm_commands", "cli", "common", "explain",
           "session", "where_of"]


GM_COMMANDS: tuple[click.Command, ...] = (
    game, games, process, preview, rollback, edit, replace_seat, remove_seat, bot, pause,
    resume, extend, announce, end_game, history_command, export, import_game, replay, verify,
    archive, absences, approve, reject, observer, seat, players,
)


def add_gm_commands(group: click.Group) -> None:
    """Add every game master command to ``group`` (the ``pbem`` command)."""
    for command in GM_COMMANDS:
        group.add_command(command)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """The game master's commands on their own (the `pbem` command carries them too)."""


add_gm_commands(cli)
