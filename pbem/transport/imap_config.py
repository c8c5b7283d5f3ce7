"""IMAP settings: the server, the login, and the folders mail is taken from and filed in."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pbem.errors import ConfigError
from pbem.transport.oauth import OAuthSettings

Security = Literal["tls", "starttls", "plain"]
MAX_IDLE_SECONDS = 29 * 60


@dataclass(frozen=True)
class ImapConfig:
    """Where to fetch mail and where to file it once handled.

    ``processed_folder=None`` leaves handled mail in place, marked \\Seen and \\Flagged.
    ``ca_file`` names extra certificates to trust (a server with a self-signed one).
    With ``oauth`` the login is SASL XOAUTH2 (or OAUTHBEARER) with an OAuth2 access token,
    and ``password`` is unused. IDLE is renewed every ``idle_seconds``: at most 29 minutes,
    as RFC 2177 asks (servers may end an IDLE after 30). ``answer_earlier_mail``: see
    ``ImapIntake``'s ``earlier``.
    """

    host: str
    port: int
    username: str
    password: str = field(repr=False)
    security: Security = "tls"
    folder: str = "INBOX"
    processed_folder: str | None = "pbem-done"
    failed_folder: str = "pbem-failed"
    poll_seconds: float = 60.0
    idle_seconds: float = 300.0
    timeout: float = 30.0
    ca_file: str | None = None
    oauth: OAuthSettings | None = None
    # On the intake's first start on the folder (no position kept yet), answer the mail
    # already there (True), or file it unanswered (False: it was not written to us).
    answer_earlier_mail: bool = False

    def __post_init__(self) -> None:
        if self.security not in ("tls", "starttls", "plain"):
            raise ConfigError(
                "IMAP security must be tls, starttls or plain",
                text=str(self.security),
            )
        if self.folder in (self.processed_folder, self.failed_folder):
            raise ConfigError(
                "the IMAP intake folder must differ from the processed and failed folders",
                text=self.folder,
            )
        if min(self.poll_seconds, self.idle_seconds, self.timeout) <= 0:
            raise ConfigError("IMAP poll, idle and timeout seconds must be positive")
        if self.idle_seconds > MAX_IDLE_SECONDS:
            raise ConfigError("IMAP idle_seconds must be at most 1740 (29 minutes): servers "
                              "may end an IDLE after 30 (RFC 2177)",
                              text=str(self.idle_seconds))

    @property
    def where(self) -> str:
        """Give ``host:port`` for messages."""
        return f"{self.host}:{self.port}"
