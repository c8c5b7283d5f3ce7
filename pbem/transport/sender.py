"""Outgoing mail: hand a finished message to an SMTP server or drop it in a local Maildir.

Both senders raise :class:`TransientSendError` when a later retry may succeed (4xx replies,
a refused or lost connection, a timeout, a login the server refused) and
:class:`PermanentSendError` when this mail can never go (5xx to the sender, recipient or
content). The outbox keeps a mail until ``send`` returned, and spaces retries with
:func:`retry_delay`.
"""

from __future__ import annotations

import email.parser
import email.policy
import hashlib
import logging
import mailbox
import os
import re
import smtplib
import socket
import ssl
import time
from pathlib import Path
from types import TracebackType
from typing import Literal, Protocol

from pbem.atomicfile import fsync_dir, make_dir
from pbem.errors import ConfigError, PbemError
from pbem.mail.address import maildir_folder
from pbem.transport.backoff import backoff_delay
from pbem.transport.imap import is_loopback
from pbem.transport.oauth import (
    REFRESH_MARGIN,
    AccessToken,
    OAuthSettings,
    TokenError,
    TokenRevoked,
    sasl_oauthbearer,
    sasl_xoauth2,
    tokens_for,
)

log = logging.getLogger(__name__)

Security = Literal["tls", "starttls", "plain"]

_LINE_END = re.compile(rb"\r?\n")


class SendError(PbemError):
    """A mail could not be handed over."""


class TransientSendError(SendError):
    """Sending failed for now; the same mail may go through later."""


class RecipientDeferred(TransientSendError):
    """The server refused this recipient or this mail for now (a 4xx at RCPT or after
    DATA): the same mail may go later, and mail to other recipients may go meanwhile."""


class PermanentSendError(SendError):
    """The server refused this mail for good; retrying will not help."""


class LoginImpossible(TransientSendError):
    """No mail can go until the game master mends the login (an OAuth login the provider
    refuses for good): the mail is not at fault, and waits."""


class Sender(Protocol):
    """Anything that can hand one finished mail to one recipient."""

    def send(self, to: str, raw: bytes, *, envelope_from: str) -> None: ...


def retry_delay(attempts: int) -> float:
    """Give the seconds to wait before retry number ``attempts``: 30 s doubling to 1 hour."""
    return backoff_delay(attempts, base=30.0, cap=3600.0)


def _refusal(code: int, reply: bytes | str, what: str, *,
             this_mail: bool = False) -> SendError:
    """Give the error for an SMTP reply code: 4xx transient, anything else permanent.
    ``this_mail``: the reply concerns this recipient or this mail (RCPT, DATA), not the
    session, so a 4xx holds up only this recipient's mail (not 421: the server closes the
    session, and every mail waits for it)."""
    text = reply.decode("utf-8", "replace") if isinstance(reply, bytes) else reply
    message = f"{what}: the server answered {code} {text}"
    if 400 <= code < 500:
        if this_mail and code != 421:
            return RecipientDeferred(message)
        return TransientSendError(message)
    return PermanentSendError(message)


class SmtpSender:
    """Sends over SMTP, keeping one connection open across sends while it lasts.

    ``ca_file`` names extra certificates to trust (a server with a self-signed one). A
    connection unused for ``probe_after`` seconds may have been closed by the server's idle
    timeout, so it is checked with NOOP before a mail is risked on it.
    Not thread safe: give each sending thread its own.
    """

    def __init__(
        self,
        host: str,
        port: int,
        security: Security,
        username: str | None = None,
        password: str | None = None,
        timeout: float = 30,
        *,
        ca_file: str | None = None,
        local_hostname: str | None = None,
        probe_after: float = 10.0,
        oauth: OAuthSettings | None = None,
    ) -> None:
        if security not in ("tls", "starttls", "plain"):
            raise ConfigError("SMTP security must be tls, starttls or plain", text=str(security))
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self._password = password
        self.timeout = timeout
        self._ca_file = ca_file
        # smtplib would look up the machine's name on every connection; once is enough.
        self._local_hostname = local_hostname or socket.getfqdn()
        self._probe_after = probe_after
        self._oauth = oauth
        self._smtp: smtplib.SMTP | None = None
        self._last_used = 0.0
        self._session_ends: float | None = None  # when the session's OAuth token ends

    @property
    def where(self) -> str:
        """Give ``host:port`` for messages."""
        return f"{self.host}:{self.port}"

    def _connect(self) -> smtplib.SMTP:
        """Give a connection that has said EHLO, started TLS and logged in as configured."""
        context = ssl.create_default_context(cafile=self._ca_file)
        smtp: smtplib.SMTP
        if self.security == "tls":
            smtp = smtplib.SMTP_SSL(
                self.host,
                self.port,
                local_hostname=self._local_hostname,
                timeout=self.timeout,
                context=context,
            )
        else:
            smtp = smtplib.SMTP(
                self.host, self.port, local_hostname=self._local_hostname, timeout=self.timeout
            )
        try:
            smtp.ehlo()
            if self.security == "starttls":
                if not smtp.has_extn("starttls"):
                    raise TransientSendError(
                        f"the SMTP server {self.where} does not offer STARTTLS",
                        suggestion="Use security = tls on its TLS port, or plain on loopback.",
                    )
                smtp.starttls(context=context)
                smtp.ehlo()
            if self.username is not None:
                if not smtp.has_extn("auth"):
                    raise TransientSendError(
                        f"the SMTP server {self.where} offers no login (AUTH), "
                        f"but a username is configured",
                        suggestion="Remove the username, or use STARTTLS: many servers "
                        "offer AUTH only after it.",
                    )
                if self._oauth is None:
                    smtp.login(self.username, self._password or "")
                else:
                    token = self._oauth_login(smtp, self.username, self._oauth)
                    self._session_ends = token.expires_at
        except BaseException:
            _quietly_close(smtp)
            raise
        return smtp

    def _oauth_login(self, smtp: smtplib.SMTP, username: str,
                     oauth: OAuthSettings) -> AccessToken:
        """Log in with an OAuth token (XOAUTH2 where offered, else OAUTHBEARER); a refused
        token is replaced by a fresh one once; a fresh one refused too means the game
        master must act (LoginImpossible)."""
        offered = smtp.esmtp_features.get("auth", "").upper().split()
        mechanism = "XOAUTH2" if "XOAUTH2" in offered or "OAUTHBEARER" not in offered \
            else "OAUTHBEARER"
        initial = sasl_xoauth2 if mechanism == "XOAUTH2" else sasl_oauthbearer

        def authenticate(token: AccessToken) -> None:
            # After a refusal the server sends its error as a challenge; the answer is an
            # empty line, then it says 535.
            smtp.auth(mechanism, lambda challenge=None: (
                initial(username, token.token) if challenge is None else ""),
                initial_response_ok=True)

        tokens = tokens_for(oauth)
        try:
            token = tokens.access_token()
            try:
                authenticate(token)
                return token
            except smtplib.SMTPAuthenticationError:
                token = tokens.access_token(fresh=True)
            authenticate(token)
            return token
        except TokenRevoked as error:
            raise LoginImpossible(f"no SMTP login for {username}: {error.message}",
                                  suggestion=error.suggestion) from error
        except TokenError as error:
            raise TransientSendError(f"no SMTP login for {username}: {error.message}",
                                     suggestion=error.suggestion) from error
        except smtplib.SMTPAuthenticationError as error:
            raise LoginImpossible(f"the SMTP server {self.where} refused a fresh OAuth token "
                                  f"for {username} ({_reply(error)})",
                                  suggestion=oauth.steps) from error

    def _connection(self) -> smtplib.SMTP:
        smtp = self._smtp
        if (smtp is not None and self._session_ends is not None
                and self._session_ends - time.time() < REFRESH_MARGIN):
            self.close()  # its token is about to expire: log in again with a fresh one
            smtp = None
        if smtp is not None and time.monotonic() - self._last_used > self._probe_after:
            try:
                alive = smtp.noop()[0] == 250
            except (smtplib.SMTPException, OSError):
                alive = False
            if not alive:
                self.close()
                smtp = None
        if smtp is None:
            smtp = self._connect()
            self._smtp = smtp
        return smtp

    def send(self, to: str, raw: bytes, *, envelope_from: str) -> None:
        """Hand ``raw`` to the server for ``to``; returns once the server accepted it."""
        options = [] if (to + envelope_from).isascii() else ["SMTPUTF8"]
        # smtplib sends bytes as given; SMTP wants CRLF line ends.
        data = _LINE_END.sub(b"\r\n", raw)
        try:
            smtp = self._connection()
        except SendError:
            raise
        except smtplib.SMTPAuthenticationError as error:
            # 535 says the password is wrong, and no mail goes until the game master mends
            # it; 454 and the like are a server's trouble for now.
            kind = LoginImpossible if error.smtp_code == 535 else TransientSendError
            raise kind(
                f"login refused by {self.host} for {self.username} ({_reply(error)})",
                suggestion="Check the SMTP username and password.",
            ) from error
        except (smtplib.SMTPException, OSError) as error:
            # A refused greeting or HELO is the server's trouble, not this mail's.
            raise TransientSendError(
                f"cannot open a session with the SMTP server {self.where}: "
                f"{error or type(error).__name__}"
            ) from error
        try:
            smtp.sendmail(envelope_from, [to], data, mail_options=options)
        except smtplib.SMTPRecipientsRefused as error:
            code, reply = error.recipients.get(to, (550, b"recipient refused"))
            raise self._after_refusal(_refusal(code, reply, f"sending to {to}",
                                               this_mail=True)) from error
        except smtplib.SMTPDataError as error:
            refusal = _refusal(error.smtp_code, error.smtp_error, f"sending to {to}",
                               this_mail=True)
            raise self._after_refusal(refusal) from error
        except smtplib.SMTPSenderRefused as error:
            refusal = _refusal(error.smtp_code, error.smtp_error, f"sending to {to}")
            raise self._after_refusal(refusal) from error
        except smtplib.SMTPNotSupportedError as error:
            self.close()
            raise PermanentSendError(
                f"sending to {to}: the server {self.where} cannot take this mail ({error})"
            ) from error
        except (smtplib.SMTPException, OSError) as error:
            self.close()
            raise TransientSendError(
                f"sending to {to} through {self.where} failed: {error or type(error).__name__}"
            ) from error
        self._last_used = time.monotonic()

    def _after_refusal(self, refusal: SendError) -> SendError:
        """Keep the connection after a refused mail unless the server dropped it."""
        smtp = self._smtp
        if smtp is None or getattr(smtp, "sock", None) is None:
            self.close()
        else:
            self._last_used = time.monotonic()
        return refusal

    def close(self) -> None:
        """Say QUIT, or drop the connection if that fails."""
        smtp, self._smtp = self._smtp, None
        self._session_ends = None
        if smtp is not None:
            _quietly_close(smtp)

    def check(self) -> list[str]:
        """Give the problems found with the SMTP settings, in plain words; empty when fine."""
        problems: list[str] = []
        if self.username is not None and self.security == "plain" and not is_loopback(self.host):
            problems.append(
                f"the SMTP password for {self.username} would cross the network unencrypted: "
                "use security = tls or starttls"
            )
        try:
            smtp = self._connect()
        except SendError as error:
            problems.append(str(error))
        except smtplib.SMTPAuthenticationError as error:
            problems.append(f"login refused by {self.host} for {self.username} ({_reply(error)})")
        except smtplib.SMTPResponseException as error:
            problems.append(f"the SMTP server {self.where} refused the session: {_reply(error)}")
        except (smtplib.SMTPException, OSError) as error:
            problems.append(
                f"cannot talk to the SMTP server {self.where}: {error or type(error).__name__}"
            )
        else:
            _quietly_close(smtp)
        return problems

    def __enter__(self) -> SmtpSender:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _reply(error: smtplib.SMTPResponseException) -> str:
    """Give an SMTP error's code and text as the server wrote them."""
    text = error.smtp_error
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return f"{error.smtp_code} {text}"


def _quietly_close(smtp: smtplib.SMTP) -> None:
    try:
        smtp.quit()
    except (smtplib.SMTPException, OSError):
        smtp.close()


_HEADERS = email.parser.BytesHeaderParser(policy=email.policy.default)


class MaildirSender:
    """Delivers into one Maildir per recipient under ``root`` (``root/<address>/``).

    The folder name is the address in lower case. A mail whose Message-ID was already
    delivered to that address is not delivered again, so resending after a crash does not
    duplicate it; the record of delivered Message-IDs is one empty file per mail under
    ``root/.delivered/<address>/``, named by the SHA-256 of the Message-ID, so the check is
    one lookup. A mail without a Message-ID is always delivered.
    """

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    def maildir_path(self, address: str) -> Path:
        """Give the Maildir folder for ``address``."""
        return self.root / _folder_name(address)

    def send(self, to: str, raw: bytes, *, envelope_from: str) -> None:
        """Deliver ``raw`` into ``to``'s Maildir, unless its Message-ID is already there."""
        name = _folder_name(to)
        if not envelope_from.isprintable() or ">" in envelope_from:
            raise PermanentSendError(
                "cannot deliver locally: the envelope sender is not a plain address",
                text=envelope_from,
            )
        message_id = _HEADERS.parsebytes(raw).get("Message-ID")
        marker = None
        if message_id:
            digest = hashlib.sha256(str(message_id).strip().encode("utf-8")).hexdigest()
            marker = self.root / ".delivered" / name / digest
            if marker.exists():
                log.info("mail %s already delivered to %s; not again", message_id, to)
                return
        # Added the way a delivering server would: Return-Path names the envelope sender.
        stamped = f"Return-Path: <{envelope_from}>\nDelivered-To: {to}\n".encode()
        body = stamped + _LINE_END.sub(b"\n", raw)
        try:
            box = open_maildir(self.root / name)
            key = box.add(body)  # writes to tmp/, fsyncs it, links it into new/
            # A welcome holds a password: the file is its owner's alone, as its folder is
            # (made 0700: no one else could open it meanwhile).
            os.chmod(self.root / name / "new" / key, 0o600)
            fsync_dir(self.root / name / "new")
            if marker is not None:
                make_dir(marker.parent)
                # Recorded after the mail is safe: a crash in between repeats, never loses.
                fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                try:
                    os.write(fd, (key + "\n").encode())
                finally:
                    os.close(fd)
                fsync_dir(marker.parent)
        except OSError as error:
            raise TransientSendError(
                f"cannot write the mail for {to} under {self.root}: {error}"
            ) from error


def open_maildir(path: Path) -> mailbox.Maildir:
    """Give the Maildir at ``path``, made (with its parents) if missing. Safe while another
    thread or process makes it too: ``Maildir(create=True)`` checks, then makes, and fails
    with FileExistsError when the other one made it in between."""
    for sub in ("tmp", "new", "cur"):
        make_dir(path / sub)  # 0700, its parents too: the mail in it is its owner's alone
    return mailbox.Maildir(path, create=False)


def _folder_name(address: str) -> str:
    """Give the folder name for an address, refusing any that could escape ``root``."""
    name = maildir_folder(address)
    if name is None:
        raise PermanentSendError(
            "cannot deliver locally to this address: it is not a plain mail address",
            text=address,
        )
    return name
