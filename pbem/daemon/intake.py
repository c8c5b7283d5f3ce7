"""What the daemon's intakes do with the mail they take: store it durably, log it, and say so.

Used by the SMTP listener's worker thread in the daemon's process, and by the polled
intakes (``pbem.transport.intake.Intake``: IMAP, a local Maildir) in a process of their own
(see ``pbem.daemon.server``). ``pbem.daemon.config.INTAKES`` registers the polled intakes;
each the configuration sets up is made here by its module's ``INTAKE`` with the daemon's
hooks (``intake_hooks``).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pbem.daemon.alarms import IMAP_LOGIN, Alarm, Alarms
from pbem.daemon.config import DaemonConfig, intake_kind
from pbem.errors import disk_trouble
from pbem.mail.inbound import delivered_detail, receipt, stand_in
from pbem.service.postmaster import Postmaster
from pbem.store import Departure, GameStore, Store
from pbem.transport.imap import (
    Aside,
    GroupDelivery,
    ImapIntake,
    Router,
    UnprocessableMail,
)
from pbem.transport.imap import make_intake as make_imap
from pbem.transport.intake import Intake, IntakeHooks, IntakeKind
from pbem.transport.listener import TryLater

log = logging.getLogger("pbem.daemon.server")


def with_return_path(raw: bytes, envelope_from: str) -> bytes:
    """Give the mail with its envelope sender on top as ``Return-Path``.

    That is what a delivering server writes, and the only Return-Path the loop guard trusts
    (the topmost): a bounce arrives with the null sender and so reads ``Return-Path: <>``.
    """
    bare = "".join(c for c in envelope_from if c.isprintable() and c not in "<>")
    newline = b"\r\n" if b"\r\n" in raw[:2048] else b"\n"
    return b"Return-Path: <" + bare.encode("utf-8", "replace") + b">" + newline + raw


class MailIntake:
    """Stores the mail an intake took, in a store object of the intake's own; calls
    ``stored`` once new mail is durable (to wake the processing).

    Mail is refused for later (``TryLater``: SMTP 452, left on the IMAP server) while the
    store's disk fails (``refusing``, the daemon's last try) or has less free space than
    ``reserve`` bytes: what is left goes to applying the mail already taken."""

    def __init__(self, store: GameStore, clock: Callable[[], datetime], max_bytes: int,
                 stored: Callable[[], None], *, folder: str | None = None,
                 refusing: Callable[[], bool] = lambda: False) -> None:
        self._store = store
        self._clock = clock
        self._max_bytes = max_bytes
        self._on_stored = stored
        self._folder = folder
        self._refusing = refusing
        self.reserve = 2 * max_bytes

    def _room(self) -> None:
        """Raise ``TryLater`` while the store cannot take mail."""
        if self._refusing():
            raise TryLater("the store's disk failed at the last try")
        if self._folder is not None:
            info = os.statvfs(self._folder)
            if info.f_bavail * info.f_frsize < self.reserve:
                raise TryLater(f"the store's disk has less than {self.reserve} bytes free")

    def deliver_smtp(self, raw: bytes, envelope_from: str, rcpt_tos: list[str]) -> None:
        """Store a mail the SMTP listener took; returns once it is durable."""
        self._stored(self._accept([with_return_path(raw, envelope_from)]),
                     f"SMTP from <{envelope_from}>")

    def deliver_imap_group(self, raws: Sequence[bytes]) -> list[BaseException | None]:
        """Store mails fetched together over IMAP, durable together; gives each one's fate
        (see ``pbem.transport.imap.GroupDelivery``)."""
        limit = self._max_bytes
        # The listener refuses these with 552. Here the mail goes to the failed folder, and
        # a stand-in (its head) is stored, so that the sender and the game master are told.
        fates: list[BaseException | None] = [
            UnprocessableMail(f"the mail is {len(raw)} bytes, more than the {limit} allowed")
            if len(raw) > limit else None for raw in raws]
        try:
            mail_ids = self._accept([raw if fate is None else stand_in(raw)
                                     for raw, fate in zip(raws, fates, strict=True)])
        except Exception as error:  # none of them is stored: the intake stops at the first
            return [error]
        self._stored(mail_ids, "IMAP")
        return fates

    def route_imap(self, mails: Sequence[tuple[bytes, bool]]) -> list[Aside | None]:
        """Set aside the mails the IMAP intake fetched (each with whether another daemon
        refiled it here) for a game moving between daemons (the game named by the mail's
        envelope recipient, ``pbem+GAME@``: see ``delivered_detail``), as the listener holds
        them with 450 (deploy/SCALING.md): left in the folder while the game moves out; once
        it left, refiled into the folder its move names (with none, taken, and answered "no
        such game" as before). A mail refiled here for a game this store has not yet waits
        for ``pbem import``. The store is asked once per game: its mails in the group fare
        alike, in order."""
        departures: dict[str, Departure | None] = {}
        asides: list[Aside | None] = []
        for raw, refiled in mails:
            game = delivered_detail(raw).casefold()
            if not game:
                asides.append(None)
                continue
            if game not in departures:
                departures[game] = self._store.departure(game)
            departure = departures[game]
            if departure is None:  # staying, or not here: refiled here, it waits for it
                waits = refiled and self._store.game_named(game) is None
                asides.append(Aside() if waits else None)
            elif not departure.gone:
                asides.append(Aside())
            else:
                asides.append(Aside(departure.to_folder) if departure.to_folder else None)
        return asides

    def _accept(self, raws: Sequence[bytes]) -> list[str | None]:
        """Keep mails durably, together, before the mail server is told they arrived; give
        each one's id, None for one received before."""
        self._room()
        try:
            return self._store.receive_many([receipt(raw) for raw in raws],
                                            received_at=self._clock())
        except OSError as error:
            if disk_trouble(error):
                raise TryLater(f"the store cannot be written: {error}") from error
            raise

    def _stored(self, mail_ids: Sequence[str | None], via: str) -> None:
        """Log what an intake stored (None: received before); say so if any is new."""
        for mail_id in mail_ids:
            if mail_id is None:
                log.info("mail via %s was received before; ignored", via)
            else:
                log.info("stored mail %s via %s", mail_id, via)
        if any(mail_ids):
            self._on_stored()


def make_mail_intake(config: DaemonConfig, clock: Callable[[], datetime],
                     stored: Callable[[], None],
                     refusing: Callable[[], bool] = lambda: False) -> MailIntake:
    """Give the intakes' store keeper, on a store object of its own (storing mail never
    waits for the processing's lock hold)."""
    return MailIntake(Store(config.store), clock, config.max_mail_bytes, stored,
                      folder=str(config.store), refusing=refusing)


def intake_hooks(config: DaemonConfig, name: str, deliver_group: GroupDelivery,
                 clock: Callable[[], datetime], *,
                 route: Router | None = None) -> IntakeHooks:
    """Give what the daemon gives the intake ``name`` (``imap``, ``maildir``): each fetched
    group to ``deliver_group`` (each mail asked ``route`` first: ``MailIntake.route_imap``);
    the game master mailed when the provider refuses its login for good (and an alarm
    raised, cleared once the login works again), when the server refuses the folder handled
    mail is filed in, and how many mails it filed unanswered on its first start on a
    mailbox that held some."""
    label = name.upper()

    def postmaster() -> tuple[Store, Postmaster]:
        store = Store(config.store)
        return store, Postmaster(store, config.service_config().sender, config.mails_per_hour)

    alarms = Alarms(config)

    def login_refused(message: str, suggestion: str) -> None:
        now = clock()
        try:
            alarms.raise_alarm(Alarm(IMAP_LOGIN, label, message, suggestion,
                                     now.isoformat(timespec="seconds")), now)
        except OSError:
            log.exception("could not keep the alarm in the store")
        store, gm = postmaster()
        with store.lock():
            gm.login_refused(label, message, suggestion, now)

    def login_mended() -> None:
        alarms.clear(IMAP_LOGIN, label, clock())

    def folder_refused(folder: str, message: str, suggestion: str) -> None:
        store, gm = postmaster()
        with store.lock():
            gm.folder_refused(folder, message, suggestion, clock())

    def earlier(count: int, folder: str) -> None:
        store, gm = postmaster()
        with store.lock():
            gm.earlier_mail_filed(count, folder, clock())

    return IntakeHooks(deliver_group, config.max_mail_bytes, config.intake_state, route=route,
                       login_refused=login_refused, login_mended=login_mended,
                       folder_refused=folder_refused, earlier=earlier)


def make_imap_intake(config: DaemonConfig, deliver_group: GroupDelivery,
                     clock: Callable[[], datetime], *, route: Router | None = None,
                     ) -> ImapIntake:
    """Give the configured IMAP intake (``pbem.transport.imap.make_intake``) with the
    daemon's hooks (``intake_hooks``)."""
    assert config.imap is not None
    return make_imap(config.imap, intake_hooks(config, "imap", deliver_group, clock,
                                               route=route))


@dataclass(frozen=True)
class PolledIntake:
    """One polled intake a configuration sets up: its kind (declared by its module,
    registered in ``pbem.daemon.config.INTAKES``) and its settings."""

    kind: IntakeKind[Any]
    settings: Any

    @property
    def name(self) -> str:
        """How the log names the kind (``imap``, ``maildir``)."""
        return self.kind.name

    def describe(self, config: DaemonConfig) -> str:
        """Give where it takes mail from, for the log."""
        return self.kind.describe(self.settings)

    def make(self, config: DaemonConfig, mail: MailIntake,
             clock: Callable[[], datetime]) -> Intake:
        """Give the intake, storing through ``mail``."""
        return self.kind.make(self.settings, intake_hooks(
            config, self.kind.name, mail.deliver_imap_group, clock, route=mail.route_imap))


def polled(config: DaemonConfig) -> list[PolledIntake]:
    """The polled intakes ``config`` sets up, in ``INTAKES``' order."""
    return [PolledIntake(intake_kind(section), settings) for section, settings in config.intakes]


def make_polled_intakes(config: DaemonConfig, mail: MailIntake,
                        clock: Callable[[], datetime]) -> list[Intake]:
    """Give each polled intake ``config`` sets up, storing through ``mail``."""
    return [kind.make(config, mail, clock) for kind in polled(config)]


def run_intakes(intakes: Sequence[Intake], stop: threading.Event) -> None:
    """Run the intakes until ``stop`` is set: the last in this thread, the others in
    threads of their own."""
    threads = [threading.Thread(target=intake.run, args=(stop,), name="intake", daemon=True)
               for intake in intakes[:-1]]
    for thread in threads:
        thread.start()
    try:
        if intakes:
            intakes[-1].run(stop)
    finally:
        for thread in threads:
            thread.join(timeout=60)
