"""Who the service's mail comes from, and how many replies strangers get: settings of their
own, so the daemon's configuration reads them without loading the service."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

STRANGER_REPLIES = 10  # replies an hour, in all, to addresses that are no player's (unless
# the trusted mail server vouches for the sender: pbem.service.gate)


@dataclass(frozen=True)
class MailIdentity:
    """Who our mail comes from."""

    address: str = "pbem@localhost"
    name: str = "Illuminati PBEM"
    domain: str = "localhost"
    gm_address: str = ""
    site_dir: Path | None = None
    gm_lang: str = "en"  # how the game master's mail is written: language, time zone
    gm_tz: str = "UTC"
    # A game's mail comes from the game's own address, ``local+game@domain`` (a mail
    # server routes each game's answers to its daemon by it; deploy/SCALING.md).
    per_game: bool = False

    def address_of(self, game: str) -> str:
        """Give the address a game's mail comes from and its players write to."""
        if not self.per_game or not game:
            return self.address
        local, _, domain = self.address.rpartition("@")
        return f"{local}+{game.lower()}@{domain}"
