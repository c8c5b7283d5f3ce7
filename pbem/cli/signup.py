"""The game master's commands of sign-up by mail, observers, takeover and player records:
``pbem game open``, ``pbem approve``, ``pbem observer add|remove``, ``pbem seat offer``,
``pbem players``. (``pbem game start`` starts a game open for sign-up too.)"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from pbem.cli.games import (
    OPTION_HELP,
    card_pack,
    game,
    game_settings,
    pack_option,
    rule_options,
    said_pack,
    timing_of,
)
from pbem.cli.session import common, counted, game_named, moment_of, session, where_of

if TYPE_CHECKING:
    from pbem.service.service import Service
from pbem.reports.languages import LANGUAGES

__all__ = ["approve", "chat", "observer", "players", "reject", "seat"]


@game.command("open")
@click.argument("game_id", metavar="GAME")
@click.option("--seats", type=click.IntRange(1), required=True,
              help="How many players (2 to 8); the game starts when the last seat is taken.")
@click.option("--deadline-to-fill", "fill_by", metavar="WHEN",
              help="ISO time (UTC unless it says): then the game starts with whoever joined "
              "(two or more), or sign-up closes.")
@click.option("--approval", is_flag=True, help="Each JOIN waits for `pbem approve`.")
@click.option("--observers", is_flag=True, help="Anyone may OBSERVE the game by mail.")
@click.option("--observers-read-press", "press", is_flag=True,
              help="Observers are sent the press to ALL.")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE",
              help=OPTION_HELP + " Kept with the sign-up, in force from the game's start.")
@game_settings
@click.option("--seed", metavar="HEX", default="", help="The secret seed of the dice "
              "(hex; default: random). Only for tests and replays.")
@pack_option("kept with the sign-up, in force from the game's start.")
@common
def open_game(game_id: str, seats: int, fill_by: str | None, approval: bool,
              observers: bool, press: bool, options: tuple[str, ...], language: str,
              seed: str, pack_file: Path | None, **kw: Any) -> None:
    """Open GAME for sign-up by mail: players send JOIN GAME AS <name>."""
    from pbem.service import gm
    from pbem.service.model import iso
    from pbem.service.packs import pack_record
    from pbem.service.signup import Opening

    timing = timing_of(kw)
    where = where_of(kw)
    deadline = iso(moment_of(fill_by, "--deadline-to-fill")) if fill_by else ""
    chosen = rule_options(options)  # (a usage error before the store is made)
    with session(where, create=True) as service:
        pack, cards = card_pack(service.cards, pack_file)
        opening = Opening(seats=seats, fill_by=deadline, approval=approval,
                          options=chosen,
                          timing=timing,
                          lang=language, observers=observers, press=press, seed=seed,
                          cards=pack_record(pack) if pack else None)
        gm.open_game(service, game_id, opening, where.now)
    click.echo(f"Opened {game_id} for sign-up: {seats} seats. Players mail the game's "
               f"address a first line JOIN {game_id} AS <name>; LIST shows it.")
    if pack is not None:
        click.echo(said_pack(pack, cards))


@click.command("approve")
@click.argument("game_id", metavar="GAME")
@click.argument("name")
@common
def approve(game_id: str, name: str, **kw: Any) -> None:
    """Seat NAME, whose JOIN of GAME waits for approval."""
    from pbem.service import gm

    where = where_of(kw)
    with session(where) as service:
        gm.approve(service, game_id, name, where.now)
        started = game_id in service.games()
    click.echo(f"Approved {name} in {game_id}." + (" The game is full: it started." if started
                                                   else ""))


@click.command("reject")
@click.argument("game_id", metavar="GAME")
@click.argument("name")
@click.option("--reason", default="", help="Told to the player.")
@common
def reject(game_id: str, name: str, reason: str, **kw: Any) -> None:
    """Decline NAME's JOIN of GAME (waiting for approval, seated before the start, or on the
    waiting list): they get one mail saying so. A seat freed before the start goes to the
    first on the waiting list, who is told."""
    from pbem.service import gm

    where = where_of(kw)
    with session(where) as service:
        name = gm.reject_join(service, game_id, name, where.now, reason)
    click.echo(f"Declined {name}'s join of {game_id}; {name} is told.")


@game.command("close")
@click.argument("game_id", metavar="GAME")
@click.option("--reason", default="", help="Told to those who joined.")
@common
def close(game_id: str, reason: str, **kw: Any) -> None:
    """Close the sign-up of GAME: it will not start; everyone who joined it (seated, waiting
    for approval, on its waiting list) is told. (A game running ends with `pbem end`.)"""
    from pbem.service import gm

    where = where_of(kw)
    with session(where) as service:
        game_id = open_named(service, game_id, "pbem end")
        told = gm.close_signup(service, game_id, where.now, reason)
    click.echo(f"Closed the sign-up of {game_id}: it will not start"
               + (f"; told {', '.join(told)}." if told else "; nobody had joined."))


def open_named(service: Service, name: str, instead: str) -> str:
    """The id of the game open for sign-up ``name`` names; else the command ends, saying
    what to use for the game of the store it names (``instead``)."""
    found = service.lobby.named(name)
    if found is not None:
        return found
    game_id = game_named(service, name)  # ends the command if no game is called so
    raise click.ClickException(f"{game_id} is not open for sign-up: use `{instead} "
                               f"{game_id}`.")


@click.group("observer")
def observer() -> None:
    """Observers of a game: the public part of every report."""


@observer.command("add")
@click.argument("game_id", metavar="GAME")
@click.argument("address")
@click.option("--language", type=click.Choice(LANGUAGES), default="en", show_default=True)
@common
def observer_add(game_id: str, address: str, language: str, **kw: Any) -> None:
    """ADDRESS observes GAME from now on (told by mail)."""
    from pbem.service import gm

    where = where_of(kw)
    address = where.address(address, "ADDRESS")
    with session(where) as service:
        added = gm.add_observer(service, game_named(service, game_id), address, where.now,
                                lang=language)
    click.echo(f"{address} observes {game_id}." if added
               else f"{address} was not added (a player of {game_id}, or observing already).")


@observer.command("remove")
@click.argument("game_id", metavar="GAME")
@click.argument("address")
@common
def observer_remove(game_id: str, address: str, **kw: Any) -> None:
    """ADDRESS observes GAME no more."""
    from pbem.service import gm

    where = where_of(kw)
    address = where.address(address, "ADDRESS")
    with session(where) as service:
        gone = gm.remove_observer(service, game_named(service, game_id), address, where.now)
    click.echo(f"{address} no longer observes {game_id}." if gone
               else f"{address} did not observe {game_id}.")


@game.command("chat")
@click.argument("game_id", metavar="GAME")
@click.argument("url", required=False, default="")
@click.option("--off", is_flag=True, help="Post to no chat any more.")
@click.option("--language", type=click.Choice(LANGUAGES), default="en", show_default=True,
              help="The language of the posts.")
@common
def chat(game_id: str, url: str, off: bool, language: str, **kw: Any) -> None:
    """GAME posts whose move, the deadlines and the public results to the chat webhook URL
    (Discord, Slack, Matrix, ntfy ...: an apprise URL); needs pip install 'pbem[chat]'."""
    from pbem.errors import ConfigError
    from pbem.service import gm
    from pbem.service.chat import masked
    from pbem.transport.chat import check_url

    if off == bool(url):
        raise click.UsageError("Give the webhook's URL, or --off.")
    if url:
        try:
            check_url(url)
        except ConfigError as error:
            raise click.ClickException(f"{error.message} {error.suggestion or ''}".strip()) \
                from error
    where = where_of(kw)
    with session(where) as service:
        changed = gm.chat(service, game_named(service, game_id), url, where.now, lang=language)
    if url:
        click.echo(f"{game_id} posts to {masked(url)}." if changed
                   else f"{game_id} posted there already.")
    else:
        click.echo(f"{game_id} posts to no chat now." if changed
                   else f"{game_id} posted to no chat.")


@click.group("seat")
def seat() -> None:
    """Seats of a game offered to a new player."""


@seat.command("offer")
@click.argument("game_id", metavar="GAME")
@click.argument("seat_name", metavar="SEAT")
@click.option("--reason", default="", help="Why (the game master's log).")
@common
def seat_offer(game_id: str, seat_name: str, reason: str, **kw: Any) -> None:
    """Offer SEAT of GAME for takeover: the first to mail TAKEOVER GAME SEAT gets it."""
    from pbem.service import gm

    where = where_of(kw)
    with session(where) as service:
        game_id = game_named(service, game_id)
        name = gm.offer_seat(service, game_id, seat_name, where.now, reason=reason)
        told = len(service.lobby.waiting(game_id))
    click.echo(f"Offered {name}'s seat of {game_id}: the first to mail TAKEOVER {game_id} "
               f"{name} gets it ({counted(told, 'address')} of the waiting list told).")


@click.command("players")
@common
def players(**kw: Any) -> None:
    """Every player's record across the games of the store, by address."""
    from pbem.service import gm

    where = where_of(kw)
    with session(where) as service:
        records = gm.players(service)
    if not records:
        click.echo("No player has played a game yet.")
        return
    rows: list[tuple[str, ...]] = [("ADDRESS", "GAMES", "FINISHED", "WON", "LEFT", "MET",
                                    "MISSED", "AGREED")]
    rows += [(a, *map(str, r.values())) for a, r in sorted(records.items())]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        click.echo("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
