"""IMAP connection: a logged-in session opened with the configured security, and closed again."""

from __future__ import annotations

import contextlib
import ipaddress
import ssl
from typing import Any

from imapclient import IMAPClient
from imapclient.exceptions import IMAPClientError, LoginError

from pbem.errors import PbemError
from pbem.transport.imap_config import ImapConfig


class ImapError(PbemError):
    """The IMAP server could not be reached, or broke off, or refused a command."""


class ImapLoginError(ImapError):
    """The IMAP server refused the username and password."""


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
        client.login(config.username, config.password)
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
    return client


def quietly_close(client: Any) -> None:
    """Log out, or at least close the socket, ignoring a connection that is already gone."""
    try:
        client.logout()
    except Exception:
        with contextlib.suppress(Exception):
            client.shutdown()
