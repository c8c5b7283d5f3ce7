"""``pbem run`` (the mail daemon) and ``pbem doctor`` (its configuration checked for real)."""

from __future__ import annotations

import logging
import signal
import sys
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

import click

from pbem.errors import ConfigError, PbemError

if TYPE_CHECKING:
    from pbem.daemon.config import DaemonConfig
    from pbem.daemon.logs import LogFormat

__all__ = ["CONFIG_HELP", "config_option", "configured", "doctor", "run"]

# Where every command finds its configuration: pbem.daemon.config.SEARCH_ORDER, written out
# here so that `pbem --help` loads no more than click (tests/cli/test_config_search.py keeps
# the two in step).
CONFIG_HELP = ("The daemon's TOML configuration (deploy/pbem.toml documents it): the store "
               "and the mail settings. Without --config: $PBEM_CONFIG, else the first found "
               "of ./pbem.toml, $XDG_CONFIG_HOME/pbem/pbem.toml (~/.config/pbem/pbem.toml) "
               "and /etc/pbem/pbem.toml, else the embedded default (store in ./var/pbem, SMTP "
               "listener on 127.0.0.1:2525, outgoing mail into Maildirs under "
               "./var/pbem/maildirs).")
config_option = click.option(
    "--config", "config_path", metavar="FILE", envvar="PBEM_CONFIG",
    type=click.Path(dir_okay=False, path_type=Path), help=CONFIG_HELP)


def configured(given: Path | None, *, logins: bool = True) -> DaemonConfig:
    """The configuration a command reads: the file ``given`` (``--config``) or the one the
    search finds (``pbem.daemon.config.find_config``). ``logins``: the command logs in to a
    server, so the passwords it needs must be there (else ConfigError names them)."""
    from pbem.daemon.config import find_config, load_config

    return load_config(find_config(given), logins=logins)


def _fail(error: PbemError, code: int) -> None:
    click.echo(f"pbem: {error}", err=True)
    sys.exit(code)


@click.command("run")
@config_option
@click.option("--once", is_flag=True,
              help="Process the mail waiting now (fetched once over IMAP), run the deadlines, "
              "send the outbox, and exit.")
@click.option("--log-format", type=click.Choice(["text", "json"]), default=None,
              help="How the log is written: lines for a person, or one JSON object a line "
              "(with game, seat and message_id where a line is about one) for a log "
              "shipper [default: the configuration's [daemon] log_format, else text].")
def run(config_path: Path | None, once: bool, log_format: LogFormat | None) -> None:
    """Run the mail daemon until SIGTERM or Ctrl-C (exit 2 on a bad configuration)."""
    from pbem.daemon.logs import set_up_logging
    from pbem.daemon.server import Daemon

    try:
        config = configured(config_path)
    except ConfigError as error:
        _fail(error, 2)
    if log_format is not None:
        config = replace(config, log_format=log_format)
    set_up_logging(config.log_level, config.log_format)
    try:
        daemon = Daemon(config)
        if once:
            done = daemon.run_once()
            click.echo(f"processed {done.processed} mail(s), sent {done.flush.sent}, "
                       f"{done.flush.failed} to retry, {done.flush.given_up} given up")
            for problem in done.problems:
                click.echo(f"pbem: {problem}", err=True)
            sys.exit(1 if done.problems else 0)

        def stop(signum: int, frame: FrameType | None) -> None:
            logging.getLogger("pbem.daemon.server").info(
                "%s received: stopping after the current step", signal.Signals(signum).name)
            daemon.request_stop()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        daemon.serve()
    except ConfigError as error:  # e.g. the listener's port is taken
        _fail(error, 2)
    except PbemError as error:
        _fail(error, 1)


@click.command("doctor")
@config_option
def doctor(config_path: Path | None) -> None:
    """Check the configuration against the real servers and folders (exit 1 if anything is
    wrong)."""
    from pbem.daemon.doctor import examine

    try:
        config = configured(config_path)
    except ConfigError as error:
        click.echo(f"problem: {error}")
        sys.exit(1)
    findings = examine(config)
    for finding in findings:
        click.echo(f"{finding.level}: {finding.text}")
    problems = sum(1 for f in findings if f.level == "problem")
    click.echo("All is well." if not problems else
               f"{problems} problem(s) found: the daemon would not work as configured.")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":  # `python -m pbem.cli.daemon run ...` until pbem.cli.main lists them
    click.Group(commands=[run, doctor])()
