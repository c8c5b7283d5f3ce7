"""IMAP connection: a logged-in session opened with the configured security, and closed again.

imapclient hands imaplib's DEBUG transcript (every line the server sends, mails fetched
among them, and every command, a LOGIN's password among them) to the logger
``imapclient.imaplib``: of those records only a command's tag and name reach a log
(``command_names``), so a daemon run at DEBUG keeps no password in its log.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import re
import ssl
from typing import Any

from imapclient import IMAPClient
from imapclient.exceptions import IMAPClientError, LoginError

from pbem.errors import PbemError
from pbem.transport.imap_config import ImapConfig
from pbem.transport.oauth import AccessToken, TokenError, TokenRevoked, tokens_for

_COMMAND = re.compile(r"> b'\w+ \w+")


def command_names(record: logging.LogRecord) -> bool:
    """Tell whether a record of imaplib's transcript may be kept, cutting a command it
    sends to its tag and name (``> b'A1 IDLE``); none of the rest: what it reads (mail)."""
    if record.levelno > logging.DEBUG:
        return True
    found = _COMMAND.match(record.getMessage())
    if found is None:
        return False
    record.msg, record.args = found.group(0), None
    return True


logging.getLogger("imapclient.imaplib").addFilter(command_names)


class ImapError(PbemError):
    """The IMAP server could not be reached, or broke off, or refused a command."""


class ImapLoginError(ImapError):
    """The IMAP server refused the username and password (or the OAuth token)."""


class ImapTokenError(ImapLoginError):
    """No OAuth token could be had for the login (see ``pbem.transport.oauth``)."""

    def __init__(self, error: TokenError) -> None:
        super().__init__(error.message, suggestion=error.suggestion)
        self.cause = error


def is_loopback(host: str) -> bool:
    """True for a host on this machine, where a plain connection exposes no password."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def open_client(config: ImapConfig) -> Any:
    """Give a new logged-in client."""
    return open_session(config)[0]


def open_session(config: ImapConfig) -> tuple[Any, AccessToken | None]:
    """Give a new logged-in client, and the OAuth token it logged in with (None: a
    password login)."""
    context = None
    if config.security != "plain":
        context = ssl.create_default_context(cafile=config.ca_file)
    try:
        client = IMAPClient(
            config.host,
            port=config.port,
            ssl=config.security == "tls",
            ssl_context=context,
            timeout=config.timeout,
        )
    except (OSError, IMAPClientError) as error:
        raise ImapError(
            f"cannot connect to the IMAP server {config.where}: {error}",
            suggestion="Check the host, the port and the security setting.",
        ) from error
    try:
        if config.security == "starttls":
            if not client.has_capability("STARTTLS"):
                raise ImapError(
                    f"the IMAP server {config.where} does not offer STARTTLS",
                    suggestion="Use security = tls on its TLS port, or plain on loopback.",
                )
            client.starttls(context)
        token = _login(client, config)
    except TokenError as error:
        quietly_close(client)
        raise ImapTokenError(error) from error
    except LoginError as error:
        quietly_close(client)
        raise ImapLoginError(
            f"login refused by {config.host} for {config.username} ({error})",
            suggestion="Check the IMAP username and password.",
        ) from error
    except ImapError:
        quietly_close(client)
        raise
    except (OSError, IMAPClientError) as error:
        quietly_close(client)
        raise ImapError(
            f"could not open a session with {config.where}: {error}",
            suggestion="Check the security setting and the server's certificate.",
        ) from error
    return client, token


def _login(client: Any, config: ImapConfig) -> AccessToken | None:
    """Log in with the password, or with an OAuth token: XOAUTH2 where offered (Gmail,
    Outlook), else OAUTHBEARER. A refused token is replaced by a fresh one once: the server
    may have ended it before its time (revoked, or a clock apart); a fresh one refused too
    means the game master must act (TokenRevoked)."""
    oauth = config.oauth
    if oauth is None:
        client.login(config.username, config.password)
        return None
    tokens = tokens_for(oauth)
    login = (client.oauthbearer_login if not client.has_capability("AUTH=XOAUTH2")
             and client.has_capability("AUTH=OAUTHBEARER") else client.oauth2_login)
    token = tokens.access_token()
    try:
        login(config.username, token.token)
        return token
    except LoginError:
        token = tokens.access_token(fresh=True)
    try:
        login(config.username, token.token)
    except LoginError as error:
        raise TokenRevoked(f"{config.host} refused a fresh OAuth token for {config.username} "
                           f"({error})", suggestion=oauth.steps) from error
    return token


def quietly_close(client: Any) -> None:
    """Log out, or at least close the socket, ignoring a connection that is already gone."""
    try:
        client.logout()
    except Exception:
        with contextlib.suppress(Exception):
            client.shutdown()
