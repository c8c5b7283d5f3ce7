"""The game master's overrides of a running game: ``pbem rollback``, ``pbem edit``, the
seats (``replace``, ``remove``, ``bot``), the deadlines (``pause``, ``resume``, ``extend``),
``pbem announce`` and ``pbem end``."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from pbem.cli.choices import LaterChoice, levels
from pbem.cli.session import (
    common,
    counted,
    game_named,
    session,
    shared_addresses,
    where_of,
)

if TYPE_CHECKING:
    from pbem.bots import Level
    from pbem.engine.events import Event

__all__ = ["announce", "bot", "edit", "end_game", "extend", "pause", "remove_seat",
           "replace_seat", "resume", "rollback"]


@click.command("rollback")
@click.argument("game_id", metavar="GAME")
@click.option("--to", "to", type=click.IntRange(0), required=True, metavar="STEP",
              help="The step to go back to (`pbem history GAME` numbers them).")
@click.option("--reason", default="", help="Told to the players.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@common
def rollback(game_id: str, to: int, reason: str, yes: bool, **kw: Any) -> None:
    """Undo every step of GAME after step --to; the players are told.

    The player to move then has a full orders period from now, or the deadline they had
    if that is later (an extension is not lost)."""
    from pbem.service import gm

    where = where_of(kw)
    if not yes:
        click.confirm(f"Undo every step of {game_id} after step {to}?", abort=True)
    with session(where) as service:
        game_id = game_named(service, game_id)
        cut = gm.rollback(service, game_id, to, where.now, reason)
    click.echo(f"{game_id} is back at step {to}: {counted(cut, 'log entry', 'log entries')} "
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
    from pbem.service import gm

    where = where_of(kw)
    with session(where) as service:
        game_id = game_named(service, game_id)
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
    from pbem.service import gm

    where = where_of(kw)
    with session(where) as service:
        game_id = game_named(service, game_id)
        events = gm.edit_move(service, game_id, card, place, reason, where.now)
    _echo_events(events)


def _echo_events(events: list[Event]) -> None:
    from pbem.reports.context import report_events
    from pbem.reports.templating import environment

    module = environment().get_template("_events.txt.j2").module
    for e in report_events(events, None):  # the GM sees all, each thing said once
        click.echo(module.event(e))  # type: ignore[attr-defined]


@click.command("end")
@click.argument("game_id", metavar="GAME")
@click.option("--winner", "winners", multiple=True, metavar="SEAT",
              help="A player who wins (repeat for a shared victory; none: no one wins).")
@click.option("--reason", required=True, help="Why: told to the players in the last mail.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@common
def end_game(game_id: str, winners: tuple[str, ...], reason: str, yes: bool,
             **kw: Any) -> None:
    """End GAME now, won by each --winner or by no one: for what the rules do not end (a
    player left alone, players agreeing to stop). Every player gets the game's last mail,
    with its secret seed. An attack waiting for answers is called off if no money is in it
    yet, else played out first (docs/service.md)."""
    from pbem.service import gm

    where = where_of(kw)
    # A seat named twice wins once (the engine counts it once too): the question says so.
    named: dict[str, str] = {}
    for winner in winners:
        named.setdefault(winner.casefold(), winner)
    winners = tuple(named.values())
    if not yes:
        won = f"won by {' and '.join(winners)}" if winners else "with no winner"
        click.confirm(f"End {game_id} now, {won}?", abort=True)
    with session(where) as service:
        game_id = game_named(service, game_id)
        events = gm.end_game(service, game_id, winners, where.now, reason)
    _echo_events(events)


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
    from pbem.service import gm

    where = where_of(kw)
    address = where.address(address, "--address")
    with session(where) as service:
        game_id = game_named(service, game_id)
        password = gm.replace_seat(service, game_id, seat, address, where.now, name=name)
        seats = service.service_record(game_id).seats
    shared_addresses([(s.name, s.address) for s in seats])
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
    """Take SEAT out of GAME: their groups go free, their money to the bank.

    An attack waiting for answers is first called off (theirs, no money in it yet) or played
    out without their answer (docs/service.md)."""
    from pbem.service import gm

    where = where_of(kw)
    if not yes:
        click.confirm(f"Remove {seat} from {game_id} for good?", abort=True)
    with session(where) as service:
        game_id = game_named(service, game_id)
        events = gm.remove_seat(service, game_id, seat, where.now, reason)
    _echo_events(events)


@click.command("bot")
@click.argument("game_id", metavar="GAME")
@click.argument("seat")
@click.argument("switch", type=click.Choice(["on", "off"], case_sensitive=False))
@click.option("--level", type=LaterChoice(levels), default="normal", show_default=True,
              help="How well the bot plays (on a seat a bot plays already: change it).")
@common
def bot(game_id: str, seat: str, switch: str, level: Level, **kw: Any) -> None:
    """Let a bot play SEAT of GAME (on), or its player again (off)."""
    from pbem.service import gm

    where = where_of(kw)
    on = switch.lower() == "on"
    with session(where) as service:
        game_id = game_named(service, game_id)
        gm.set_bot(service, game_id, seat, on, where.now, level)
    click.echo(f"A bot plays {seat} now. Level: {level}." if on
               else f"{seat} is played by its player again; a new password is mailed.")


@click.command("pause")
@click.argument("game_id", metavar="GAME")
@click.option("--reason", default="", help="Told to the players.")
@common
def pause(game_id: str, reason: str, **kw: Any) -> None:
    """Stop GAME's deadlines until `pbem resume`."""
    from pbem.service import gm

    where = where_of(kw)
    with session(where) as service:
        game_id = game_named(service, game_id)
        gm.pause(service, game_id, where.now, reason)
    click.echo(f"{game_id} is paused.")


@click.command("resume")
@click.argument("game_id", metavar="GAME")
@common
def resume(game_id: str, **kw: Any) -> None:
    """Run GAME's deadlines again, moved later by the time it was paused."""
    from pbem.reports.context import utc_minute
    from pbem.service import gm

    where = where_of(kw)
    with session(where) as service:
        game_id = game_named(service, game_id)
        hours, deadline, answer = gm.resume(service, game_id, where.now)
    moved = f"its deadlines moved {hours:g} h later" if hours else "its deadlines stay"
    if deadline is not None:
        moved += f": the deadline is now {utc_minute(deadline)} UTC"
    if answer is not None:
        moved += f", the answer to the group offered is due {utc_minute(answer)} UTC"
    click.echo(f"{game_id} runs again; {moved}.")


@click.command("extend")
@click.argument("game_id", metavar="GAME")
@click.option("--hours", type=click.FloatRange(0, min_open=True), required=True,
              help="How much later the running deadline falls.")
@click.option("--reason", default="", help="Told to the players.")
@common
def extend(game_id: str, hours: float, reason: str, **kw: Any) -> None:
    """Move GAME's running deadline later: the response window's, else the orders'; with a
    group offered and unanswered, the answer's and the orders' (the turn waits for it). A
    game open for sign-up: its deadline to fill (one is set if it had none)."""
    from pbem.reports.context import utc_minute
    from pbem.service import gm

    where = where_of(kw)
    with session(where) as service:
        opened = service.lobby.named(game_id)
        if opened is not None:  # open for sign-up: its deadline to fill
            fill_by = gm.extend_signup(service, opened, hours, where.now, reason)
            click.echo(f"The deadline to fill {opened} is now {utc_minute(fill_by)} UTC; "
                       "those who joined are told.")
            return
        game_id = game_named(service, game_id)
        deadline, answer = gm.extend(service, game_id, hours, where.now, reason)
    if answer is not None:
        click.echo(f"The answer to the group offered in {game_id} is now due "
                   f"{utc_minute(answer)} UTC; the orders deadline is now "
                   f"{utc_minute(deadline)} UTC.")
    else:
        click.echo(f"The deadline of {game_id} is now {utc_minute(deadline)} UTC.")


@click.command("announce")
@click.argument("game_id", metavar="GAME")
@click.argument("text")
@common
def announce(game_id: str, text: str, **kw: Any) -> None:
    """Mail TEXT to every player of GAME ("-" reads it from standard input)."""
    from pbem.service import gm

    where = where_of(kw)
    if text == "-":
        text = sys.stdin.read()
    with session(where) as service:
        game_id = game_named(service, game_id)
        count = gm.announce(service, game_id, text, where.now)
    click.echo(f"Announcement queued for {counted(count, 'player')}.")
