"""DKIM checked by the embedded SMTP listener itself (``[listener] check_dkim``; the
optional extra ``pbem[dkim]``, dkimpy): each mail it takes gets an
``Authentication-Results`` header of the trusted authserv-id on top, saying whether each
DKIM signature verified and for which domain (RFC 8601). The service reads it as it reads a
mail server's (``pbem.mail.authresults``): being topmost, it is the one that counts, and a
header of that id written by the sender below it counts for nothing.

Only DKIM: SPF needs the connecting client's address and DMARC the domain's policy, which a
mail server or a milter in front of the listener checks better; trust that server's header
instead when there is one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

__all__ = ["RESOLVE", "available", "stamp"]

MAX_SIGNATURES = 5  # signatures checked at most (each may cost a DNS query)

# Answers a DNS TXT query (a name, bytes) with the record (bytes), or None: dkimpy's own
# resolver (dnspython) when None. Tests answer from the test, with no network.
RESOLVE: Callable[..., bytes | None] | None = None


def available() -> bool:
    """Whether dkimpy is installed (``pip install 'pbem[dkim]'``)."""
    try:
        import dkim  # noqa: F401
    except ImportError:
        return False
    return True


def stamp(raw: bytes, authserv_id: str) -> bytes:
    """``raw`` with our Authentication-Results header on top: for each DKIM signature (at
    most ``MAX_SIGNATURES``) ``dkim=pass`` or ``dkim=fail`` with its ``header.d``, a
    signature that cannot be checked ``dkim=permerror`` or ``dkim=temperror``; none at all:
    ``dkim=none``."""
    import dkim

    results: list[str] = []
    count = _signatures(raw)
    for index in range(min(count, MAX_SIGNATURES)):
        checker = dkim.DKIM(raw)
        extra: dict[str, Any] = {"dnsfunc": RESOLVE} if RESOLVE is not None else {}
        try:
            good = checker.verify(idx=index, **extra)
            result = "pass" if good else "fail"
        except dkim.DnsTimeoutError:
            result = "temperror"
        except dkim.DKIMException as error:
            log.info("a DKIM signature could not be checked: %s", error)
            result = "permerror"
        domain = (checker.domain or b"").decode("ascii", "replace")
        results.append(f"dkim={result} header.d={domain}" if domain else f"dkim={result}")
    said = "; ".join(results) or "dkim=none"
    return f"Authentication-Results: {authserv_id}; {said}\r\n".encode() + raw


def _signatures(raw: bytes) -> int:
    """How many DKIM-Signature headers the mail's head holds."""
    head = raw.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
    return sum(1 for line in head.splitlines()
               if line[:15].lower() == b"dkim-signature:")
