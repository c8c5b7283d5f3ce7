"""``pbem mailbox``: read a Maildir, as the demo and the Maildir sender fill them, with
nothing but pbem (no mail client needed: a fresh machine has none)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from email.message import EmailMessage

__all__ = ["read_mailbox"]


@click.command("mailbox")
@click.argument("folder", metavar="MAILDIR",
                type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("which", metavar="[NUMBER|last]", required=False)
def read_mailbox(folder: Path, which: str | None) -> None:
    """List the mails of MAILDIR, oldest first; with NUMBER (or `last`), print that mail:
    its headers and its text part."""
    for sub in ("new", "cur"):
        if not (folder / sub).is_dir():
            raise click.ClickException(f"{folder} is not a Maildir (no {sub}/ in it).")
    mails = _mails(folder)
    if which is None:
        if not mails:
            click.echo(f"No mail in {folder}.")
        for number, mail in enumerate(mails, 1):
            when = _sent(mail).strftime("%Y-%m-%d %H:%M")
            click.echo(f"{number:4}  {when}  {_title(mail)}")
        return
    if which.casefold() == "last" and mails:
        number = len(mails)
    elif which.isdigit() and 1 <= int(which) <= len(mails):
        number = int(which)
    else:
        raise click.BadParameter(f"{which!r}: give a number from 1 to {len(mails)}, or last",
                                 param_hint="NUMBER")
    mail = mails[number - 1]
    for header in ("From", "To", "Date", "Subject"):
        click.echo(f"{header}: {mail.get(header, '')}")
    click.echo("")
    click.echo(_text(mail).rstrip("\n") or "(no text part)")


def _text(mail: EmailMessage) -> str:
    from email.message import EmailMessage

    body = mail.get_body(preferencelist=("plain",))
    return str(body.get_content()) if isinstance(body, EmailMessage) else ""


def _title(mail: EmailMessage) -> str:
    """What the mail is about: a game's mails share their thread's Subject (docs/service.md,
    Threads), so theirs is the line that opens the text."""
    subject = " ".join(str(mail.get("Subject", "")).split())
    if mail.get("X-Pbem-Game") is None:
        return subject
    opening = next((line.strip() for line in _text(mail).splitlines() if line.strip()), "")
    return opening or subject


def _mails(folder: Path) -> list[EmailMessage]:
    """The mails of the Maildir, oldest first (by Date, then by their file's name)."""
    # (imported here: `pbem --help` loads no mail library)
    import email
    import email.policy
    import mailbox as maildirs
    from email.message import EmailMessage

    box = maildirs.Maildir(folder, create=False)
    found = []
    for key in box.iterkeys():
        mail = email.message_from_bytes(box.get_bytes(key), policy=email.policy.default)
        if isinstance(mail, EmailMessage):
            found.append((_sent(mail), key, mail))
    return [mail for _, _, mail in sorted(found, key=lambda f: (f[0], f[1]))]


def _sent(mail: EmailMessage) -> datetime:
    import email.utils

    try:
        when = email.utils.parsedate_to_datetime(str(mail.get("Date", "")))
    except (TypeError, ValueError):
        return datetime.min.replace(tzinfo=UTC)
    return when if when.tzinfo else when.replace(tzinfo=UTC)
