"""What every game master command shares: its options, the store's lock held while it
works, and typed errors turned into messages a person can act on.

The CLI starts at once: a module of ``pbem.cli`` imports click and little else at its top,
and each command imports the service, the store and the engine when it runs
(``tests/cli/test_cli_start.py`` checks it; ``bench/cli_start.py`` measures it)."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from pbem.cli.daemon import config_option
from pbem.errors import AddressError, PbemError, StoreError

if TYPE_CHECKING:
    from pbem.daemon.config import DaemonConfig
    from pbem.engine.cards import CardSet
    from pbem.service.service import Service
    from pbem.store import GameStore, Store

__all__ = ["BusyError", "Where", "common", "counted", "explain", "game_named", "session",
           "where_of"]

F = TypeVar("F", bound=Callable[..., Any])


class BusyError(click.ClickException):
    exit_code = 3


@dataclass(frozen=True)
class Where:
    """The store, the daemon's configuration and the clock the command works with."""

    store: Path
    wait: float
    now: datetime
    config: DaemonConfig

    def address(self, text: str, option: str) -> str:
        """``text`` as a seat's address, checked as every address is (pbem.mail.address),
        and as one the sender configured delivers to (mail goes out into Maildirs without
        [smtp]); else the command ends naming it."""
        from pbem.mail.address import deliverable

        try:
            return deliverable(text, maildir=self.config.smtp is None)
        except AddressError as error:
            raise click.BadParameter(explain(error), param_hint=option) from None


def _where(config_path: Path | None, store: Path | None, wait: float,
           now: str | None) -> Where:
    from pbem.cli.daemon import configured

    try:  # the game master's commands log in to no server: no password needed
        config = configured(config_path, logins=False)
    except PbemError as error:
        raise click.ClickException(explain(error)) from error
    if store is None:
        root = click.get_current_context().find_root().obj
        given = root.get("store") if isinstance(root, dict) else None
        store = Path(given) if given else config.store
    moment = moment_of(now, "--now") if now else datetime.now(UTC)
    return Where(store, wait, moment, config)


def common(command: F) -> F:
    """The options every game master command takes: the daemon's configuration (for the
    store and who the mails come from), the store, the wait for its lock, the clock."""
    options = [
        config_option,
        click.option("--store", type=click.Path(file_okay=False, path_type=Path),
                     envvar="PBEM_STORE", help="The game store folder, instead of the "
                     "configuration's [store] path [env PBEM_STORE]."),
        click.option("--wait", type=click.FloatRange(0), default=30.0, show_default=True,
                     help="Seconds to wait for the store's lock if the daemon holds it."),
        click.option("--now", metavar="TIME", envvar="PBEM_NOW",
                     help="Act as if the time were this (ISO 8601, UTC unless it says; "
                     "default: now) [env PBEM_NOW]."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@contextmanager
def session(where: Where, *, create: bool = False) -> Iterator[Service]:
    """The service of the store, its lock held; PbemErrors become plain messages."""
    from pbem.service.service import Service

    with locked_store(where, create=create) as store:
        yield Service(store, where.config.service_config(), _cards())


@contextmanager
def locked_store(where: Where, *, create: bool = False) -> Iterator[Store]:
    """The store alone, its lock held, for a command that needs no more (``pbem games``
    on a store without games loads no service); PbemErrors become plain messages.

    Once the command is done and the lock let go, a daemon running on the store is woken
    (``pbem.daemon.wakeup``): the mail the command queued leaves at once, and the bot seats
    it called on play, in the daemon, not at its next tick."""
    from pbem.daemon.wakeup import poke
    from pbem.store import Store

    if not create and not (where.store / "games").is_dir():
        raise click.ClickException(
            f"There is no game store at {where.store} (the store of {where.config.origin}). "
            "Give --config or --store (or set PBEM_CONFIG or PBEM_STORE), or create a game "
            "first with `pbem game create`.")
    try:
        store = Store(where.store)
        with held(store, where.wait):
            yield store
    except PbemError as error:
        raise click.ClickException(explain(error)) from error
    poke(where.store)


@contextmanager
def held(store: GameStore, wait: float) -> Iterator[None]:
    """Hold the store's lock; BusyError (exit code 3) if the daemon keeps it longer than
    ``wait`` seconds."""
    with ExitStack() as stack:
        try:
            stack.enter_context(store.lock(wait))
        except StoreError as error:
            raise BusyError(explain(error)) from error
        yield


def game_named(service: Service, name: str) -> str:
    """The id of the game ``name`` names, letter case aside (as a mail may name it); an
    unknown name ends the command with the games whose ids come close."""
    found = service.store.game_named(name)
    if found is not None and found in service.games():
        return found
    opened = service.lobby.named(name)
    if opened is not None:  # (the commands of a game open for sign-up take it themselves)
        raise click.ClickException(
            f"{opened} is open for sign-up and not started: pbem game show, start, close or "
            f"delete, pbem extend, approve and reject take it.")
    departed = service.store.departure(name)
    if departed is not None and departed.gone:
        raise click.ClickException(f"{departed.game_id} moved to another store: its commands "
                                   "run there now (`pbem games` lists what moved).")
    ids = {g.casefold(): g for g in service.games()}
    close = [ids[c] for c in difflib.get_close_matches(name.casefold(), ids, n=3, cutoff=0.5)]
    hint = f"Did you mean {' or '.join(close)}?" if close else "See `pbem games`."
    raise click.ClickException(f"There is no game {name!r} in this store. {hint}")


def explain(error: PbemError) -> str:
    """A typed error as sentences a person can act on: what is wrong, then what to do."""

    def sentence(text: str) -> str:
        text = text.strip()
        # A sentence that begins with the input it is about (a seat's name, "ben is not a
        # player ...") keeps the input's own spelling.
        if not (error.text and text.startswith(error.text)):
            text = text[:1].upper() + text[1:]
        return text if text.endswith((".", "?", "!")) else text + "."

    message = error.message
    if error.text and error.text not in message:
        message += f" ({error.text!r})"
    hint = f" {sentence(error.suggestion)}" if error.suggestion else ""
    return sentence(message) + hint


_CARDS: list[CardSet] = []


def _cards() -> CardSet:
    from pbem.engine.carddata import load_cardset

    if not _CARDS:
        _CARDS.append(load_cardset())
    return _CARDS[0]


def moment_of(text: str, option: str) -> datetime:
    """The time an option gives in ISO 8601 (UTC unless it says)."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise click.BadParameter("write a time as 2024-05-01T18:00 (ISO 8601)",
                                 param_hint=option) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def where_of(kwargs: dict[str, Any]) -> Where:
    """The ``common`` options taken out of a command's keyword arguments."""
    return _where(kwargs.pop("config_path"), kwargs.pop("store"), kwargs.pop("wait"),
                  kwargs.pop("now"))


def shared_addresses(seats: list[tuple[str, str]]) -> None:
    """Point out an address given to several seats (a typo, most often): allowed, since each
    mail names its player, but both passwords then go to one mailbox."""
    by_address: dict[str, list[str]] = {}
    for name, address in seats:
        by_address.setdefault(address.lower(), []).append(name)
    for address, names in by_address.items():
        if len(names) > 1:
            click.echo(f"Note: {' and '.join(names)} share the address {address}: their "
                       "mail (passwords included) goes to one mailbox.")


def counted(n: int, one: str, more: str = "") -> str:
    """``n`` and the noun after it, in the plural unless n is 1 (``more``: an irregular
    plural; by default ``one`` with an s)."""
    return f"{n} {one if n == 1 else more or one + 's'}"
