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
into it (``pbem.transport.listener``). A JMAP or POP3 intake is one module like
``maildir_intake``, its section in ``pbem.daemon.config`` and its row in
``pbem.daemon.intake.INTAKES`` (docs/layout.md).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Protocol

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
