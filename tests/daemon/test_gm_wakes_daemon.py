"""A game master's command never holds up the game (issue 43, point 6): a command is one
short step, long work (bot turns) is the daemon's, and the mail a command makes leaves
within moments while the daemon runs, not at its next tick. ``pbem run`` runs as a real
process here, on real time, with a tick of 600 s."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner
from daemons import GAME, configure, new_game, parse, pbem_run, smtp_relay
from servers import SmtpCatcher, free_port, wait_until

from pbem.cli.main import main as pbem_main
from pbem.daemon.wakeup import poke, wake_path
from pbem.service.service import Service
from pbem.store import Store

TICK = 600  # the daemon's tick: far longer than any wait below
# Generous for a loaded machine, yet shorter than the 60 s a loop of the daemon slept at
# most before it was woken by a command: a mail that waited for the loops fails it.
SOON = 25


def _pbem(folder: Path, *args: str) -> str:
    result = CliRunner().invoke(pbem_main, [*args, "--config", str(folder / "pbem.toml")],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def _config(folder: Path, catcher: SmtpCatcher, port: int) -> None:
    configure(folder, smtp_relay(catcher.port).replace("port = 0", f"port = {port}", 1)
              + f"[daemon]\ntick_seconds = {TICK}\n")


def _texts(catcher: SmtpCatcher, to: str) -> list[str]:
    """The plain text of every mail the SMTP server took for ``to``."""
    texts = []
    for caught in list(catcher.mails):
        if to in caught.rcpt_tos:
            body = parse(caught.raw).get_body(("plain",))
            texts.append(" ".join(str(body.get_content()).split()) if body else "")
    return texts


def test_the_mail_of_a_command_leaves_at_once_while_the_daemon_runs(
        tmp_path: Path, smtp_catcher: SmtpCatcher) -> None:
    """`pbem announce` while `pbem run` waits for its next tick (600 s away): the command
    wakes the daemon (its wake pipe), and the announcement reaches the SMTP server within
    moments, not at the daemon's next look (up to 60 s before)."""
    port = free_port()
    _config(tmp_path, smtp_catcher, port)
    config = configure(tmp_path, (tmp_path / "pbem.toml").read_text())
    new_game(config, now=datetime.now(UTC))
    with pbem_run(tmp_path, port):
        # The welcomes and first reports leave at the start: the loops then sleep.
        assert wait_until(lambda: len(smtp_catcher.mails) == 6, timeout=60)
        assert wake_path(config.store).exists()
        _pbem(tmp_path, "announce", GAME, "Tea at five.")
        assert wait_until(lambda: any("Tea at five." in text for text in _texts(
            smtp_catcher, "alice@example.org")), timeout=SOON), len(smtp_catcher.mails)
    log = (tmp_path / "daemon.log").read_text()
    assert "Traceback" not in log, log
    assert not poke(config.store)  # no daemon reads the pipe now: the poke is lost, harmless


def test_bot_on_is_one_step_and_the_daemon_plays_the_bots(
        tmp_path: Path, smtp_catcher: SmtpCatcher) -> None:
    """Every seat given to a bot, one `pbem bot ... on` after another, before the daemon
    runs: each command returns having done one step (the game did not move: the active bot's
    answer waits in the inbox; main played the whole game inside the last command, the
    store's lock held throughout). The daemon then plays the bots, and stops between two of
    their rounds when told to."""
    port = free_port()
    _config(tmp_path, smtp_catcher, port)
    config = configure(tmp_path, (tmp_path / "pbem.toml").read_text())
    new_game(config, now=datetime.now(UTC))
    service = Service(Store(config.store))
    before = service.state(GAME)
    for seat in ("Alice", "Bob", "Carol"):
        _pbem(tmp_path, "bot", GAME, seat, "on")
        now = service.state(GAME)
        assert now.phase != "over" and now.turn_number == before.turn_number, now.turn_number
    assert len(Store(config.store).inbox()) <= 1  # the active bot's orders, not applied yet
    with pbem_run(tmp_path, port):
        assert wait_until(lambda: service.state(GAME).turn_number > before.turn_number,
                          timeout=120, step=0.2), service.state(GAME).turn_number
        # While the daemon plays the bots, round after round, a command gets the store's
        # lock between two rounds (main's daemon held it for the whole game).
        _pbem(tmp_path, "announce", GAME, "Still here.", "--wait", "20")
        assert wait_until(lambda: service.state(GAME).turn_number >= before.turn_number + 3,
                          timeout=120, step=0.2), service.state(GAME).turn_number
    # Told to stop, the daemon stops between two rounds, not once the bots' game is over
    # (it played on to the end, 117 mails in 26 s); the bots' next orders wait in the inbox
    # and are played at the next start.
    stopped = service.state(GAME)
    assert stopped.phase != "over" and Store(config.store).inbox()
    with pbem_run(tmp_path, port):
        assert wait_until(lambda: service.state(GAME).seq > stopped.seq, timeout=60, step=0.2)
    log = (tmp_path / "daemon.log").read_text()
    assert "Traceback" not in log, log


def test_a_bot_given_a_seat_while_the_daemon_runs_plays_at_once(
        tmp_path: Path, smtp_catcher: SmtpCatcher) -> None:
    """`pbem bot g1 Alice on` while the daemon runs: the bot's orders wait in the inbox, and
    the command's poke has the daemon apply them within moments, not at its next tick."""
    port = free_port()
    _config(tmp_path, smtp_catcher, port)
    config = configure(tmp_path, (tmp_path / "pbem.toml").read_text())
    new_game(config, now=datetime.now(UTC))
    service = Service(Store(config.store))
    active = service.state(GAME).active_player.name
    with pbem_run(tmp_path, port):
        assert wait_until(lambda: len(smtp_catcher.mails) == 6, timeout=60)
        seq = service.state(GAME).seq
        _pbem(tmp_path, "bot", GAME, active, "on")
        assert wait_until(lambda: service.state(GAME).seq > seq, timeout=SOON, step=0.2)
        assert wait_until(lambda: not Store(config.store).inbox(), timeout=SOON, step=0.2)
