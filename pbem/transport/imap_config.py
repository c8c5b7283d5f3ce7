"""IMAP settings: the server, the login, and the folders mail is taken from and filed in."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pbem.errors import ConfigError

Security = Literal["tls", "starttls", "plain"]


@dataclass(frozen=True)
class ImapConfig:
    """Where to fetch mail and where to file it once handled.

    ``processed_folder=None`` leaves handled mail in place, marked \\Seen and \\Flagged.
    ``ca_file`` names extra certificates to trust (a server with a self-signed one).
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

    @property
    def where(self) -> str:
        """Give ``host:port`` for messages."""
        return f"{self.host}:{self.port}"
