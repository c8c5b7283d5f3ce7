"""The Maildir intake: the mail a local delivery agent (Postfix's ``local``/``virtual``
with ``home_mailbox = Maildir/``, Dovecot's LDA, procmail, fetchmail ...) leaves in a
Maildir, taken in by the daemon with no mail login at all (``[maildir_intake]``).

Each pass takes the files of ``<path>/new`` (a delivery agent writes into ``tmp/`` and
renames into ``new/``, so a file there is whole), oldest first, in groups; once the daemon
stored a group (``GroupDelivery``), each of its mails moves to ``<path>/cur`` with the
Maildir "seen" flag (``:2,S``), so a mail reader pointed at the same Maildir shows it read.
A group the store could not take (the disk full) stays in ``new/`` for the next pass.
A file over ``max_bytes`` is never read whole: its head alone becomes the stand-in that
says its size (``pbem.mail.inbound.stand_in``), as the IMAP intake does by RFC822.SIZE.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from pbem.errors import ConfigError
from pbem.mail.inbound import STAND_IN_HEAD, stand_in
from pbem.transport.imap import UnprocessableMail
from pbem.transport.intake import GroupDelivery, IntakeHooks, IntakeKind, Logins, SectionValues

log = logging.getLogger("pbem.daemon.server")

GROUP = 20  # mails stored together (one fsync'd commit of the store)


@dataclass(frozen=True)
class MaildirIntakeConfig:
    """Where the Maildir is, and how often it is looked at."""

    path: Path
    poll_seconds: float = 10.0

    @property
    def where(self) -> str:
        return f"Maildir {self.path}"


class MaildirIntake:
    """Takes the new mail of one Maildir (an ``Intake``)."""

    def __init__(self, config: MaildirIntakeConfig, deliver_group: GroupDelivery,
                 max_bytes: int | None = None) -> None:
        self.config = config
        self._deliver = deliver_group
        self._max_bytes = max_bytes
        for sub in ("tmp", "new", "cur"):
            (config.path / sub).mkdir(parents=True, exist_ok=True)

    def _new(self) -> list[Path]:
        """The mails waiting, oldest first (by delivery time, then name)."""
        found = []
        for path in (self.config.path / "new").iterdir():
            if path.name.startswith(".") or not path.is_file():
                continue
            try:
                found.append((path.stat().st_mtime, path.name, path))
            except FileNotFoundError:  # taken meanwhile (another reader of the Maildir)
                continue
        return [path for _, _, path in sorted(found)]

    def _read(self, path: Path) -> bytes:
        """The mail of ``path``, or the stand-in of its head when it is over the limit."""
        size = path.stat().st_size
        if self._max_bytes is None or size <= self._max_bytes:
            return path.read_bytes()
        with path.open("rb") as mail:
            head = mail.read(STAND_IN_HEAD)
        log.warning("%s: %s is %d bytes, more than the %d allowed: only its head was read",
                    self.config.where, path.name, size, self._max_bytes)
        return stand_in(head, size)

    def fetch_new(self) -> int:
        handled = 0
        waiting = self._new()
        for start in range(0, len(waiting), GROUP):
            group = waiting[start:start + GROUP]
            fates = self._deliver([self._read(path) for path in group])
            taken = [path for path, fate in zip(group, fates, strict=False)
                     if fate is None or isinstance(fate, UnprocessableMail)]
            for path in taken:
                os.replace(path, self.config.path / "cur" / f"{path.name}:2,S")
            handled += len(taken)
            if len(taken) < len(group):  # the store took none of the rest: next pass
                reason = next((f for f in fates if f is not None
                               and not isinstance(f, UnprocessableMail)), None)
                log.warning("%s: %d mail(s) left in new/ for now: %s", self.config.where,
                            len(group) - len(taken), reason)
                break
        return handled

    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                handled = self.fetch_new()
                if handled:
                    log.info("took in %d mail(s) from %s", handled, self.config.where)
            except Exception:  # the intake must outlive any one failure
                log.exception("%s: the intake's pass failed; trying again", self.config.where)
            stop.wait(self.config.poll_seconds)

    def close(self) -> None:
        """Nothing is held between passes."""


def read_section(values: SectionValues, logins: Logins) -> MaildirIntakeConfig:
    """The [maildir_intake] section: the Maildir's path (required) and how often it is
    looked at."""
    path = values.path("path", Path())
    if path == Path():
        raise ConfigError(f"In {values.origin}, [maildir_intake] has no path.",
                          suggestion="Name the Maildir the delivery agent fills: "
                          "path = \"/var/mail/pbem/Maildir\".")
    return MaildirIntakeConfig(path, values.seconds("poll_seconds", 10.0))


def make_intake(config: MaildirIntakeConfig, hooks: IntakeHooks) -> MaildirIntake:
    """The Maildir intake the daemon runs, storing through ``hooks.deliver_group``."""
    return MaildirIntake(config, hooks.deliver_group, max_bytes=hooks.max_bytes)


INTAKE: IntakeKind[MaildirIntakeConfig] = IntakeKind(
    "maildir", ("path", "poll_seconds"), read_section, lambda c: c.where, make_intake)
"""The Maildir intake, ``[maildir_intake]`` (``pbem.transport.intake.IntakeKind``)."""
