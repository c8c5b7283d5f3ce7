"""``pbem doctor``: the daemon's configuration checked against the real servers and folders.

Each check gives findings in plain words: what is fine, what is wrong (the daemon would
fail or lose its way) and what is merely worth knowing (no IDLE: mail is polled instead).
Nothing here changes the store or any mailbox, but for making the IMAP processed and failed
folders where they are missing, as the daemon would at start: the one way to know whether the
server lets the account make them.
"""

from __future__ import annotations

import errno
import fcntl
import os
import shlex
import shutil
import socket
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from pbem.daemon.alarms import describe, read_alarms
from pbem.daemon.config import DaemonConfig, ListenerSettings
from pbem.daemon.outbox import make_sender, read_hold
from pbem.errors import ConfigError
from pbem.store.check import examine as examine_store
from pbem.transport.imap import ImapIntake, JsonFileCursor
from pbem.transport.listener import server_tls
from pbem.transport.oauth import OAuthSettings, Tokens, read_login
from pbem.transport.sender import SmtpSender

Level = Literal["ok", "warning", "problem"]


@dataclass(frozen=True)
class Finding:
    """One thing the doctor found."""

    level: Level
    text: str


def examine(config: DaemonConfig) -> list[Finding]:
    """Give every finding about ``config``, in the order the daemon would meet them."""
    # The alarms the daemon keeps come first: what the game master must mend now.
    findings = [Finding("problem", describe(alarm)) for alarm in read_alarms(config.store)]
    findings.append(Finding("ok", f"configuration read from {config.origin}"))
    findings += _alarm_way(config)
    findings += _folder("game store", config.store)
    findings += _store_files(config.store)
    findings += _running(config)
    if config.listener is not None:
        findings += _port_free(config.listener.host, config.listener.port,
                               running=_daemon_running(config))
        findings += _listener_tls(config.listener)
    oauth = _oauth_settings(config)
    if oauth is not None:
        findings += _oauth(oauth)
    if config.imap is not None:
        findings += _imap(config)
    if config.smtp is not None:
        findings += _smtp(config)
    else:
        findings += _folder("Maildir folder for outgoing mail", config.maildir)
    held = read_hold(config.store)
    if held is not None:
        findings.append(Finding("warning", f"the daemon holds outgoing mail until {held[0]}: "
                                f"{held[1]}"))
    return _advised_once(findings, oauth.steps if oauth is not None else None)


def _advised_once(findings: list[Finding], steps: str | None) -> list[Finding]:
    """Give the OAuth login's steps in the first finding that gives them only: one refused
    login fails the token check, the IMAP and SMTP logins and holds the sending, and the
    game master reads what to do once."""
    if not steps:
        return findings
    told = False
    kept: list[Finding] = []
    for finding in findings:
        if steps in finding.text and told:
            finding = replace(finding, text=finding.text.replace(steps, "(see above)"))
        told = told or steps in finding.text
        kept.append(finding)
    return kept


def _alarm_way(config: DaemonConfig) -> list[Finding]:
    """The second way an alarm goes ([alarm]): its Maildir writable, its command there."""
    findings: list[Finding] = []
    if config.alarm.maildir is not None:
        findings += _folder("alarm Maildir", config.alarm.maildir)
    command = config.alarm.sendmail
    if command is not None:
        words = shlex.split(command)
        program = shutil.which(words[0]) if words else None
        findings.append(Finding("ok", f"alarms go to {config.alarm.to} through {program}")
                        if program is not None and config.alarm.to else
                        Finding("problem", f"[alarm] sendmail = {command!r}: "
                                + ("no address to send alarms to (set [alarm] to or [mail] "
                                   "gm_address)" if program is not None
                                   else "no such program")))
    if config.alarm.webhook is not None:
        findings.append(Finding("ok", "alarms are also posted to the [alarm] webhook ("
                                + config.alarm.webhook.partition("://")[0] + "://…)"))
    return findings


def _listener_tls(listener: ListenerSettings) -> list[Finding]:
    """STARTTLS on the listener: its certificate usable, and offered whenever mail may come
    from beyond this machine (order mails carry the players' passwords)."""
    if listener.tls_cert is not None and listener.tls_key is not None:
        try:
            server_tls(listener.tls_cert, listener.tls_key)
        except ConfigError as error:
            return [Finding("problem", str(error))]
        return [Finding("ok", f"the SMTP listener offers STARTTLS with {listener.tls_cert}")]
    if listener.loopback:
        return []
    return [Finding("warning", f"the SMTP listener listens on {listener.host}, beyond this "
                    "machine, without TLS: order mails and the passwords in them would cross "
                    "the network in clear. Give it a certificate ([listener] tls_cert and "
                    "tls_key), or listen on 127.0.0.1 behind a mail server that has one.")]


def _oauth_settings(config: DaemonConfig) -> OAuthSettings | None:
    for settings in (config.imap.oauth if config.imap else None,
                     config.smtp.oauth if config.smtp else None):
        if settings is not None:
            return settings
    return None


def _oauth(settings: OAuthSettings) -> list[Finding]:
    """The OAuth login: kept, refreshable now, with the scopes mail needs."""
    if settings.provider != "microsoft-app":
        path = settings.token_file
        if read_login(path) is None:
            return [Finding("problem", f"no OAuth login is kept in {path}. {settings.steps}")]
        if path.stat().st_mode & 0o077:
            return [Finding("problem", f"the OAuth login file {path} is readable by others: "
                            f"chmod 600 {path}")]
    token, problems = Tokens(settings).check()
    if token is None:
        return [Finding("problem", f"the OAuth token cannot be refreshed: {p}")
                for p in problems]
    findings = [Finding("ok", f"the {settings.provider} OAuth token refreshes (valid for "
                        f"{max(0, int(token.expires_at - time.time())) // 60} more minutes)")]
    return findings + [Finding("problem", p) for p in problems]


def _nearest_existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _folder(what: str, path: Path) -> list[Finding]:
    """Give whether the daemon can write in ``path`` (or create it)."""
    existing = _nearest_existing(path)
    if not existing.is_dir():
        return [Finding("problem", f"the {what} {path} cannot be made: {existing} is a file")]
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as error:
        return [Finding("problem", f"the {what} {path} is not writable "
                        f"({error.strerror or error}); give the daemon's user write access "
                        f"to {existing}")]
    if existing != path:
        return [Finding("ok", f"the {what} {path} will be created (its parent is writable)")]
    return [Finding("ok", f"the {what} {path} is writable")]


def _store_files(store: Path) -> list[Finding]:
    """Give each damaged or missing file of the store (pbem.store.check), or that all
    read whole."""
    damages = examine_store(store)
    if not damages and store.is_dir():
        return [Finding("ok", f"every file of the game store {store} reads whole")]
    return [Finding("problem", f"store file {damage}") for damage in damages]


def _daemon_running(config: DaemonConfig) -> int | None:
    """Give the process id of a daemon running on the store, or None."""
    path = config.store / "daemon" / "running.lock"
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        text = os.pread(fd, 32, 0).decode(errors="replace").strip()
        return int(text) if text.isdigit() else -1
    finally:
        os.close(fd)
    return None


def _running(config: DaemonConfig) -> list[Finding]:
    pid = _daemon_running(config)
    if pid is None:
        return []
    return [Finding("ok", f"a pbem daemon (process {pid}) is running on this store")]


def _port_free(host: str, port: int, running: int | None) -> list[Finding]:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as error:
            if error.errno == errno.EADDRINUSE and running is not None:
                return [Finding("ok", f"the SMTP listener port {host}:{port} is taken, "
                                "presumably by the running daemon")]
            if error.errno == errno.EADDRINUSE:
                return [Finding("problem", f"the SMTP listener port {host}:{port} is already "
                                "in use by another program; stop it or choose another "
                                "[listener] port")]
            if error.errno == errno.EACCES:
                return [Finding("problem", f"the SMTP listener cannot use port {port} without "
                                "root rights; choose a port above 1023")]
            return [Finding("problem", f"the SMTP listener cannot listen on {host}:{port} "
                            f"({error.strerror or error}); check [listener] host")]
    return [Finding("ok", f"the SMTP listener port {host}:{port} is free")]


def _imap(config: DaemonConfig) -> list[Finding]:
    imap = config.imap
    assert imap is not None
    intake = ImapIntake(imap, lambda raw: None, JsonFileCursor(config.imap_cursor))
    problems = intake.check()
    findings = [Finding("warning" if "IDLE" in p else "problem", p) for p in problems]
    if not any(f.level == "problem" for f in findings):
        findings.insert(0, Finding("ok", f"IMAP login as {imap.username} at {imap.where} works "
                                   f"and folder {imap.folder!r} exists"))
        layout = intake.layout
        where = (f"under {layout.prefix!r}" if layout is not None and layout.prefix
                 else "at the top")
        handled = (f"filed in {intake.name(imap.processed_folder)!r}"
                   if imap.processed_folder is not None else "marked seen and flagged")
        findings.insert(1, Finding("ok", f"the account's folders are {where}: handled mail "
                                   f"is {handled}, failed mail filed in "
                                   f"{intake.name(imap.failed_folder)!r}"))
    return findings


def _smtp(config: DaemonConfig) -> list[Finding]:
    smtp = config.smtp
    assert smtp is not None
    sender = make_sender(config)
    assert isinstance(sender, SmtpSender)
    problems = sender.check()
    if problems:
        return [Finding("problem", p) for p in problems]
    login = f", logged in as {smtp.username}" if smtp.username else ""
    return [Finding("ok", f"the SMTP server {sender.where} takes a session "
                    f"({smtp.security}{login})")]
