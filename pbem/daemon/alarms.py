"""Alarms: a mail login (IMAP or SMTP, password or OAuth) the server refuses, told to the
game master where they look without mail.

Mail to the game master goes out through the daemon's own way out; when that is the login
that broke (an OAuth login revoked, and sending uses it), the notice would wait in the
outbox until the game master had mended it. So an alarm is also:

- written as a status file, one a fault, in ``<store>/daemon/alarms/`` (``<key>.json``,
  written atomically; each kind of fault is kept by the one process that meets it, so no
  two processes write the same file), removed once the fault is mended; ``pbem doctor``
  and ``pbem games`` show them first (``read_alarms``);
- sent by the second way the configuration's ``[alarm]`` section names, which needs no
  mail login: a local Maildir (``maildir``) the mail is written into, a local command
  (``sendmail``, given the mail on its input and the address as its argument), or a chat
  webhook (``webhook``, an apprise URL: the mail's subject its title, its text the post;
  the optional extra ``pbem[chat]``); and told again that way when it is mended.

The caller logs the fault itself, once (not at every retry).
"""

from __future__ import annotations

import json
import logging
import os
import shlex
import socket
import subprocess
import time
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path

from pbem.atomicfile import write_atomic, write_json_atomic
from pbem.daemon.config import AlarmSettings, DaemonConfig

log = logging.getLogger("pbem.daemon.server")

SENDMAIL_TIMEOUT = 60.0
"""Seconds a ``sendmail`` command may take to take the alarm."""

WEBHOOK_TIMEOUT = 10.0
"""Seconds to connect to the alarm's webhook, and to wait for its answer (the daemon's work
waits meanwhile: the alarm is told once, and a webhook that fails is only logged)."""


@dataclass(frozen=True)
class Alarm:
    """One fault the game master must mend: ``key`` names it (one file), ``what`` is the
    login (IMAP, SMTP), ``error`` and ``steps`` say what failed and what to do."""

    key: str
    what: str
    error: str
    steps: str
    since: str  # ISO time it was first met


SMTP_LOGIN = "smtp-login"
IMAP_LOGIN = "imap-login"
SMTP_SENDING = "smtp-sending"


@dataclass(frozen=True)
class AlarmWords:
    """How an alarm of one key is told: the mail templates when raised and when mended, and
    its line for ``pbem doctor`` and ``pbem games`` (formatted with the alarm's fields)."""

    raised: str
    mended: str
    line: str


_LOGIN = AlarmWords("login_refused", "login_mended",
                    "ALARM since {since}: the mail server refuses pbem's {what} login "
                    "({error}); no mail goes that way until it is mended. {steps}")
WORDS: dict[str, AlarmWords] = {
    SMTP_LOGIN: _LOGIN,
    IMAP_LOGIN: _LOGIN,
    SMTP_SENDING: AlarmWords("sending_failing", "sending_mended",
                             "ALARM since {since}: no mail could be sent through {what}; "
                             "the last error: {error}. {steps}"),
}


def describe(alarm: Alarm) -> str:
    """Give the alarm in one line for the game master (``pbem doctor``, ``pbem games``)."""
    words = WORDS.get(alarm.key, _LOGIN)
    return words.line.format(since=alarm.since, what=alarm.what, error=alarm.error,
                             steps=alarm.steps).strip()


def alarms_folder(store: Path) -> Path:
    """Give the folder of the store the alarms are kept in (one file each)."""
    return store / "daemon" / "alarms"


def read_alarms(store: Path) -> list[Alarm]:
    """Give the alarms raised and not yet mended, oldest first (a file unreadable is
    skipped: it is being replaced)."""
    found: list[Alarm] = []
    folder = alarms_folder(store)
    if not folder.is_dir():
        return found
    for path in sorted(folder.glob("*.json")):
        try:
            value = json.loads(path.read_bytes())
            found.append(Alarm(key=path.stem, what=str(value["what"]),
                               error=str(value["error"]), steps=str(value.get("steps", "")),
                               since=str(value["since"])))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return sorted(found, key=lambda alarm: alarm.since)


def maildir_deliver(folder: Path, raw: bytes) -> Path:
    """Write ``raw`` into the Maildir ``folder`` (made if need be) as a new mail: into
    ``tmp/`` first, then renamed into ``new/``, as a Maildir wants it."""
    for sub in ("tmp", "new", "cur"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    name = f"{time.time_ns()}.P{os.getpid()}.{socket.gethostname().replace('/', '_')}"
    path = folder / "tmp" / name
    write_atomic(path, raw)
    final = folder / "new" / name
    os.replace(path, final)
    return final


def sendmail_deliver(command: str, to: str, raw: bytes) -> None:
    """Hand ``raw`` to the local ``command`` (sendmail's way: ``-i -- to``, the mail on its
    input); raises OSError when it cannot run or fails."""
    words = [*shlex.split(command), "-i", "--", to]
    try:
        done = subprocess.run(words, input=raw, capture_output=True, timeout=SENDMAIL_TIMEOUT,
                              check=False)
    except subprocess.TimeoutExpired as error:
        raise OSError(f"{words[0]} took more than {SENDMAIL_TIMEOUT:.0f} s") from error
    if done.returncode != 0:
        raise OSError(f"{words[0]} ended with status {done.returncode}: "
                      f"{done.stderr.decode(errors='replace').strip()}")


class Alarms:
    """Raises and clears the alarms of one process, in the store and by the configured
    second way."""

    def __init__(self, config: DaemonConfig) -> None:
        self._store = config.store
        self._settings: AlarmSettings = config.alarm
        self._sender = config.service_config().sender

    def _file(self, key: str) -> Path:
        return alarms_folder(self._store) / f"{key}.json"

    def raise_alarm(self, alarm: Alarm, now: datetime) -> None:
        """Keep ``alarm`` in the store and send it the second way; nothing more if it is
        kept already (told before, by this process or one before it)."""
        path = self._file(alarm.key)
        if path.exists():
            return
        value = asdict(alarm)
        del value["key"]
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomic(path, value)
        self._tell(WORDS.get(alarm.key, _LOGIN).raised, f"alarm-{alarm.key}-{alarm.since}",
                   now, what=alarm.what, error=alarm.error, steps=alarm.steps,
                   since=alarm.since)

    def clear(self, key: str, what: str, now: datetime) -> None:
        """Remove the alarm ``key`` if it is kept, and say so the second way."""
        path = self._file(key)
        if not path.exists():
            return
        path.unlink(missing_ok=True)
        log.info("%s works again: its alarm (%s) is cleared", what, key)
        self._tell(WORDS.get(key, _LOGIN).mended,
                   f"alarm-{key}-mended-{now.isoformat(timespec='seconds')}", now, what=what)

    def _tell(self, template: str, mail_id: str, now: datetime, **words: str) -> None:
        """Send the mail ``template`` to the alarm's address by each way configured; a way
        that fails is logged, never raised."""
        # The mail's words: imported here, so that reading the alarms (`pbem games`,
        # `pbem doctor`) loads no templates.
        from pbem.service.postmaster import gm_mail

        settings = self._settings
        to = settings.to or self._sender.gm_address
        if settings.maildir is None and settings.sendmail is None and settings.webhook is None:
            return
        if not to:
            log.warning("no address for the alarm mail: set [alarm] to or [mail] gm_address")
            return
        try:
            raw = gm_mail(self._sender, mail_id, template, now, to, **words).raw
        except Exception:  # the alarm must never stop the daemon's work
            log.exception("could not write the alarm mail")
            return
        if settings.maildir is not None:
            try:
                maildir_deliver(settings.maildir, raw)
                log.info("alarm written into the Maildir %s", settings.maildir)
            except OSError:
                log.exception("could not write the alarm into the Maildir %s",
                              settings.maildir)
        if settings.sendmail is not None and to:
            try:
                sendmail_deliver(settings.sendmail, to, raw)
                log.info("alarm handed to %s for %s", settings.sendmail, to)
            except OSError:
                log.exception("could not hand the alarm to %s", settings.sendmail)
        if settings.webhook is not None:
            webhook_deliver(settings.webhook, raw)


def webhook_deliver(url: str, raw: bytes) -> None:
    """Post the alarm mail ``raw`` to the chat webhook ``url`` (its subject the title, its
    text the post), once; a failure is logged (the URL never: it holds the hook's token)."""
    from pbem.transport.chat import ChatPoster
    from pbem.transport.sender import RecipientDeferred

    try:
        ChatPoster(lambda _to: url, timeout=WEBHOOK_TIMEOUT).send("alarm", raw)
        log.info("alarm posted to the [alarm] webhook (%s)", url.partition("://")[0])
    except RecipientDeferred as error:
        log.error("could not post the alarm to the [alarm] webhook: %s", error)
    except Exception:  # apprise's own; the alarm must never stop the daemon's work
        log.exception("could not post the alarm to the [alarm] webhook")
