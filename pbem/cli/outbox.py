"""The game master's view of outgoing mail: ``pbem outbox list``, ``retry`` and ``drop``.

The daemon gives a mail up after too many refusals for now, or at once when the server
refuses it for good (an address that does not exist); it stays in the store, marked. The
game master lists what waits and why, fixes the cause (an address, with ``pbem replace``; the
relay's settings) and queues it again; the daemon sends it on its next pass (within a
minute); or drops it for good, each drop a GM entry of the game's log that only the game
master's views show. After mending a refused login or the relay's settings, ``retry
--waiting`` makes every waiting mail due and lifts the daemon's pause at once (a request
file the daemon's next pass takes, ``pbem.daemon.outbox``). Mail queued for a seat whose
address ``pbem replace`` changed is dropped by the replacement itself (docs/service.md).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import click

from pbem.cli.session import common, session, where_of

if TYPE_CHECKING:
    from pbem.store import OutboxItem

__all__ = ["outbox"]

log = logging.getLogger(__name__)


@click.group("outbox")
def outbox() -> None:
    """Outgoing mail not sent yet: list it, queue given-up mail again, or drop it."""


def moment(iso: str, now: datetime) -> str:
    """Give a time the daemon wrote, to the second in UTC, and how far off it is ("in 42 s",
    "in 3 min 5 s", "12 s ago"): a hold's end read to the minute looks past while it is
    not."""
    from pbem.service.model import parse_iso

    try:
        when = parse_iso(iso)
    except ValueError:
        return iso
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    seconds = round((when - now).total_seconds())
    span = abs(seconds)
    told = f"{span} s" if span < 120 else (f"{span // 60} min {span % 60} s" if span < 7200
                                          else f"{span // 3600} h {span % 3600 // 60} min")
    off = f"in {told}" if seconds > 0 else f"{told} ago" if seconds < 0 else "now"
    return f"{when.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC ({off})"


def given_up(item: OutboxItem) -> bool:
    """True when the daemon will not try this mail again by itself."""
    from pbem.daemon.outbox import GIVEN_UP

    return (item.last_error or "").startswith(GIVEN_UP)


@outbox.command("list")
@click.option("--given-up", "only_given_up", is_flag=True,
              help="Only the mails the daemon gave up on.")
@common
def list_mail(only_given_up: bool, **kw: Any) -> None:
    """List the mails waiting to be sent, oldest first, with their last error, and why the
    daemon holds sending back (a provider's sending limit, a refused login), if it does."""
    from pbem.daemon.outbox import GIVEN_UP, read_hold

    where = where_of(kw)
    with session(where) as service:
        items = [i for i in service.store.outbox() if given_up(i) or not only_given_up]
    held = read_hold(where.store)
    if not items:
        click.echo("No mail given up." if only_given_up else "No mail waiting to be sent.")
        return
    if held is not None:
        click.echo(f"Sending is held until {moment(held[0], where.now)}: {held[1]}.")
    for item in items:
        state = ("given up" if given_up(item) else
                 f"retry at {moment(item.retry_at, where.now)}" if item.retry_at else
                 "held" if held is not None else "due")
        click.echo(f"{item.outbox_id}  game {item.game_id or '-'}  to {item.to}  "
                   f"queued {item.created_at[:16]}  tries {item.attempts}  {state}")
        if item.last_error:
            click.echo(f"    last error: {item.last_error.removeprefix(GIVEN_UP)}")


@outbox.command("retry")
@click.argument("outbox_ids", nargs=-1, metavar="[ID]...")
@click.option("--given-up", "all_given_up", is_flag=True,
              help="Every mail the daemon gave up on.")
@click.option("--waiting", "all_waiting", is_flag=True,
              help="Every mail waiting for a retry, and the daemon's pause lifted: once a "
              "refused login or the relay's settings are mended.")
@common
def retry(outbox_ids: tuple[str, ...], all_given_up: bool, all_waiting: bool,
          **kw: Any) -> None:
    """Queue mails again, as if never tried: the daemon sends them on its next pass, at once
    when it runs."""
    from pbem.atomicfile import make_dir, write_atomic
    from pbem.daemon.outbox import retry_request_file

    if not outbox_ids and not all_given_up and not all_waiting:
        raise click.UsageError("Name the mails to retry (see `pbem outbox list`), or give "
                               "--given-up for all the mails the daemon gave up on, or "
                               "--waiting for all the mails waiting for a retry.")
    where = where_of(kw)
    with session(where) as service:
        ids = list(outbox_ids) + [
            i.outbox_id for i in service.store.outbox() if i.outbox_id not in outbox_ids
            and ((all_given_up and given_up(i)) or (all_waiting and not given_up(i)))]
        for outbox_id in ids:
            service.store.requeue(outbox_id)
        if all_waiting:  # taken by the daemon's next pass, which the session's end wakes
            request = retry_request_file(where.store)
            make_dir(request.parent)
            write_atomic(request, b"")
    if all_waiting:
        click.echo(f"{len(ids)} mail(s) due now; a running daemon sends them at once, "
                   "without waiting out its pause after refusals (a provider's sending "
                   "limit still holds).")
    else:
        click.echo(f"{len(ids)} mail(s) queued again; the daemon sends them within a minute."
                   if ids else "No mail given up.")


@outbox.command("drop")
@click.argument("outbox_ids", nargs=-1, metavar="[ID]...")
@click.option("--given-up", "all_given_up", is_flag=True,
              help="Every mail the daemon gave up on.")
@click.option("--reason", default="", help="Why: logged in the game's log, for you alone.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@common
def drop(outbox_ids: tuple[str, ...], all_given_up: bool, reason: str, yes: bool,
         **kw: Any) -> None:
    """Discard mails for good, unsent: the daemon will never send them.

    Each is logged in its game's log, shown in your `pbem history GAME` and to no player."""
    from pbem.service.gm import drop_mail

    if not outbox_ids and not all_given_up:
        raise click.UsageError("Name the mails to drop (see `pbem outbox list`), or give "
                               "--given-up for all the mails the daemon gave up on.")
    where = where_of(kw)
    with session(where) as service:
        ids = list(outbox_ids) or [i.outbox_id for i in service.store.outbox() if given_up(i)]
        if not ids:
            click.echo("No mail given up.")
            return
        if not yes:
            click.confirm(f"Drop {len(ids)} mail(s) for good, unsent?", abort=True)
        dropped = drop_mail(service, ids, where.now, reason)
    for item in dropped:
        log.warning("game master dropped mail %s (game %s, to %s), unsent", item.outbox_id,
                    item.game_id, item.to)
    click.echo(f"{len(dropped)} mail(s) dropped; they will not be sent.")
