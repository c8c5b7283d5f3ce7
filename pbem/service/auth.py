"""Player passwords: generated, sent once in the welcome mail, kept only as a salted scrypt hash."""

from __future__ import annotations

import hashlib
import hmac
import secrets

# Words that read well on a phone and survive any mail client; 3 words and 2 digits give
# about 24 bits, plenty against guessing by mail at one answered failure an hour.
_WORDS = (
    "agent", "arrow", "bank", "black", "bribe", "cabal", "chaos", "cipher", "cloak", "code",
    "comet", "coup", "crown", "cult", "delta", "eagle", "ember", "enigma", "eye", "fnord",
    "gnome", "gold", "grid", "ink", "iris", "jade", "key", "lamp", "laser", "lodge", "lotus",
    "mask", "moon", "myth", "nexus", "oath", "omen", "onyx", "orbit", "owl", "plot", "prism",
    "pyramid", "quill", "raven", "relic", "rune", "saber", "seal", "shadow", "sigil", "slush",
    "spire", "star", "swiss", "tower", "triad", "ufo", "vault", "veil", "vortex", "wand",
)
COST = 14  # log2 of scrypt's N: 16 MB and about 0.1 s a check here
_R, _P = 8, 1
# A one-time key the server makes for itself (a bot seat's answer: pbem.service.bot_seats)
# has 128 random bits: no guessing reaches it, so its hash needs no slow scrypt. At COST, the
# bot seats' keys took 11 of the daemon's 24 s in bench/latency.py at 100 games.
KEY_COST = 1


def new_password() -> str:
    """A fresh password such as ``raven-lodge-fnord-42``."""
    words = [secrets.choice(_WORDS) for _ in range(3)]
    return "-".join([*words, f"{secrets.randbelow(100):02d}"])


def new_key() -> str:
    """A fresh one-time key of 128 random bits, for a mail the server writes itself."""
    return secrets.token_hex(16)


def hash_password(password: str, salt: bytes | None = None, cost: int = COST) -> str:
    """``scrypt$<log2 N>$<salt hex>$<hash hex>`` for storing.

    The cost travels with the hash, so a site (or a test) may choose a cheaper one without
    making older hashes unreadable.
    """
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=2**cost, r=_R, p=_P, dklen=32,
                            maxmem=max(2**25, 2**cost * _R * 256))
    return f"scrypt${cost}${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str) -> bool:
    """True when ``password`` matches the stored hash (constant-time comparison)."""
    fields = stored.split("$")
    if len(fields) == 3:  # the first form, before the cost was kept: always COST 14
        fields = [fields[0], "14", fields[1], fields[2]]
    if len(fields) != 4 or fields[0] != "scrypt" or not fields[1].isdigit():
        return False
    _, cost, salt_hex, digest_hex = fields
    if not 1 <= int(cost) <= 20:
        return False
    try:
        salt = bytes.fromhex(salt_hex)
    except ValueError:
        return False
    expected = hash_password(password, salt, int(cost)).split("$")[3]
    return hmac.compare_digest(expected, digest_hex)
