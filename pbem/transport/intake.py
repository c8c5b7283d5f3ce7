"""What a mailbox the daemon takes mail from is to it: ``Intake``, as ``Sender`` is for the
way out (``pbem.transport.sender``).

An intake fetches the new mail of its mailbox and hands it, a group at a time, to the
daemon's ``GroupDelivery`` (``MailIntake.deliver_imap_group`` in ``pbem.daemon.intake``),
which stores the group durably and gives each mail's fate: ``None`` (stored), an
``UnprocessableMail`` (its stand-in stored: the mail is taken, and filed as failed), or one
error alone when nothing was stored (the disk full, ``TryLater``): the mail stays in the
mailbox for the next pass. Only then may the intake mark the mail handled in its mailbox.

Two intakes are polled today: IMAP (``pbem.transport.imap.ImapIntake``, ``[imap]``) and a
local Maildir a delivery agent fills (``pbem.transport.maildir_intake``,
``[maildir_intake]``). The SMTP listener is no polled intake: the sending server delivers
into it (``pbem.transport.listener``).

Each intake's module declares what it is to the daemon, ``INTAKE``: an ``IntakeKind`` with
its configuration section's keys, how they are read into its settings (through
``SectionValues``, the configuration file's reader, which names the key and the file on a
mistake), how the log names it, and how it is made from ``IntakeHooks`` (what the daemon
gives every intake). ``pbem.daemon.config.INTAKES`` registers it, one row: its section's
name and its module. So a JMAP or POP3 intake is one module like ``maildir_intake`` and that
row (docs/layout.md).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from pbem.errors import ConfigError

if TYPE_CHECKING:
    from pbem.transport.oauth import OAuthSettings

GroupDelivery = Callable[[Sequence[bytes]], Sequence[BaseException | None]]
"""Store a group of mails durably; gives each one's fate (see the module's text)."""


class Intake(Protocol):
    """A mailbox polled for new mail."""

    def fetch_new(self) -> int:
        """Hand every mail new in the mailbox to the delivery, a group at a time; mark
        those stored handled; give how many were handled."""
        ...

    def run(self, stop: threading.Event) -> None:
        """Fetch pass after pass until ``stop`` is set; a pass that fails is logged and
        tried again later, never the end of the intake."""
        ...

    def close(self) -> None:
        """Let go of the mailbox (a connection, a lock)."""
        ...


class SectionValues(Protocol):
    """One section of the configuration file, read typed (``pbem.daemon.config``'s reader):
    each method gives the key's value, or its default when the file leaves the key out, and
    raises ``ConfigError`` naming the key and the file when it is not what is wanted."""

    origin: str
    """The file read, for messages."""
    section: str
    values: dict[str, Any]
    """The keys the file gives, as TOML read them."""

    def fail(self, key: str, wanted: str, value: object) -> ConfigError:
        """Gives the error saying ``key`` must be ``wanted``, not ``value``."""
        ...

    def text(self, key: str, default: str) -> str:
        """A quoted string."""
        ...

    def optional_text(self, key: str) -> str | None:
        """A quoted string, None when left out or empty."""
        ...

    def flag(self, key: str, default: bool) -> bool:
        """true or false."""
        ...

    def whole(self, key: str, default: int, low: int, high: int) -> int:
        """A whole number from ``low`` to ``high``."""
        ...

    def seconds(self, key: str, default: float) -> float:
        """A number of seconds above 0."""
        ...

    def choice(self, key: str, default: str, choices: tuple[str, ...]) -> str:
        """One of ``choices``."""
        ...

    def path(self, key: str, default: Path) -> Path:
        """A path, relative ones taken from the file's folder."""
        ...

    def file(self, key: str) -> str | None:
        """The path of a file that exists, None when left out."""
        ...

    def required(self, key: str) -> str:
        """A quoted string the section must give."""
        ...


AUTH = ("password", "oauth2")
"""The ways a section's ``auth`` logs in."""


@dataclass(frozen=True)
class Logins:
    """What reading a section that logs in to a server needs beyond the section: the
    environment (passwords), whether the command logs in at all (``logins``: else a secret
    missing is no mistake), and the [oauth] section read (None: there is none)."""

    env: Mapping[str, str]
    logins: bool
    oauth: OAuthSettings | None

    def password(self, values: SectionValues) -> str | None:
        """The section's password: from ``PBEM_<SECTION>_PASSWORD`` in the environment,
        else its ``password`` key, else None."""
        return self.env.get(password_env(values.section)) or values.optional_text("password")

    def oauth_for(self, values: SectionValues) -> OAuthSettings | None:
        """The OAuth settings when the section logs in with ``auth = "oauth2"``."""
        if values.choice("auth", "password", AUTH) == "password":
            return None
        if self.oauth is None:
            raise ConfigError(f"In {values.origin}, [{values.section}] auth = \"oauth2\" "
                              "needs an [oauth] section.",
                              suggestion="Add [oauth] with provider and client_id (see "
                              "deploy/PROVIDERS.md).")
        return self.oauth


def password_env(section: str) -> str:
    """The environment variable that gives a section's password (``PBEM_IMAP_PASSWORD``)."""
    return f"PBEM_{section.upper()}_PASSWORD"


@dataclass(frozen=True)
class IntakeHooks:
    """What the daemon gives an intake it makes: where each fetched group goes to be stored
    (``deliver_group``), the largest mail it takes whole, a folder for the intake's own
    state (its cursor), and what the daemon does when the intake meets trouble the game
    master is to hear of. An intake uses those it needs."""

    deliver_group: GroupDelivery
    max_bytes: int
    state: Path
    route: Callable[[Sequence[tuple[bytes, bool]]], Sequence[Any]] | None = None
    """Asked which fetched mails to set aside (``pbem.transport.imap.Router``)."""
    login_refused: Callable[[str, str], None] = lambda message, suggestion: None
    """The login refused for good (the message, what to do)."""
    login_mended: Callable[[], None] = lambda: None
    folder_refused: Callable[[str, str, str], None] = lambda folder, message, hint: None
    """The server refused a folder (its name, the message, what to do)."""
    earlier: Callable[[int, str], None] = lambda count, folder: None
    """How many mails found at the first start were filed unanswered, and from where."""


Settings = TypeVar("Settings")


@dataclass(frozen=True)
class IntakeKind(Generic[Settings]):
    """What an intake's module declares (``INTAKE``): its name in the log, its section's
    keys, how the section is read into its settings, how the log names one configured,
    and how one is made."""

    name: str
    keys: tuple[str, ...]
    read: Callable[[SectionValues, Logins], Settings]
    describe: Callable[[Settings], str]
    make: Callable[[Settings, IntakeHooks], Intake]
