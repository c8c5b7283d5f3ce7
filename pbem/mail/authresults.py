"""What the mail system says of a mail's sender: the ``Authentication-Results`` header
(RFC 8601) of the one server the configuration trusts, read into a ``Verdict``.

Pure: a mail's head in, a verdict out. Only the topmost header whose authserv-id is the
trusted one counts (the server adds its own above every header it received; one of that id
further down, or of any other id, may have been written by the sender and is ignored).
A server that checks mail on the way in should also strip headers of its own id from the
mail it receives (RFC 8601 section 5); the topmost rule holds when it does not.

The reading is written here rather than taken from the ``authres`` package: the service
needs a method's result and two properties (``header.d``, ``header.from``), and the grammar
needed for that (comments, quoted strings, ``method/version``) is a few lines; a forged or
broken header reads as no verdict at all, never as a pass.

Alignment (RFC 7489, relaxed): a DKIM signature speaks for a From address when its
``header.d`` is the From's domain or one of them is a subdomain of the other's parent
organisational domain; here, the last two labels of each must agree (the common case; no
public-suffix list is kept, so a signature of ``co.uk`` would align with any ``*.co.uk``,
which no signer can make).
"""

from __future__ import annotations

import email.policy
import re
from dataclasses import dataclass
from email.parser import BytesHeaderParser

__all__ = ["FAIL", "NONE", "PASS", "Verdict", "read_verdict"]

PASS = "pass"  # the From is the sender's own (dmarc pass, or an aligned dkim pass)
FAIL = "fail"  # the From is forged (dmarc fail, or an aligned dkim signature that fails)
NONE = "none"  # nothing known: no trusted header, or no conclusive result

_MAX_HEADERS = 50  # headers of the name looked at, topmost first
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[^\s;=]+|=|;')


@dataclass(frozen=True)
class Verdict:
    """The trusted server's word on a mail: ``value`` one of PASS, FAIL, NONE, and the
    results it rests on, as the header gave them (for the log and the game master:
    "dmarc=fail dkim=none spf=softfail")."""

    value: str = NONE
    results: str = ""
    dkim_aligned: bool = False  # a DKIM signature of the From's domain passed

    @property
    def authenticated(self) -> bool:
        return self.value == PASS

    @property
    def forged(self) -> bool:
        return self.value == FAIL

    def __str__(self) -> str:
        return f"{self.value} ({self.results})" if self.results else self.value


def read_verdict(raw: bytes, authserv_id: str, sender: str) -> Verdict:
    """The verdict on ``sender`` (the From address) of the topmost Authentication-Results
    header of ``authserv_id`` in ``raw`` (its head only is read); NONE when no id is
    trusted or no such header is there."""
    if not authserv_id or not sender:
        return Verdict()
    head = BytesHeaderParser(policy=email.policy.compat32).parsebytes(raw)
    for value in (head.get_all("Authentication-Results") or [])[:_MAX_HEADERS]:
        results = _parse(str(value))
        if results is None:
            continue
        server, found = results
        if server.casefold() != authserv_id.casefold():
            continue
        return _judge(found, sender.rpartition("@")[2].casefold())
    return Verdict()


def _judge(found: list[tuple[str, str, dict[str, str]]], domain: str) -> Verdict:
    """The verdict of one header's results on a From of ``domain``."""
    said = " ".join(f"{method}={result}" for method, result, _ in found)
    dmarc = [result for method, result, _ in found if method == "dmarc"]
    aligned = [result for method, result, props in found
               if method == "dkim" and _aligned(props.get("header.d", ""), domain)]
    signed = "pass" in aligned
    if "fail" in dmarc or (not dmarc and "fail" in aligned and not signed):
        return Verdict(FAIL, said)
    if "pass" in dmarc or signed:
        return Verdict(PASS, said, dkim_aligned=signed)
    return Verdict(NONE, said)


def _aligned(signer: str, domain: str) -> bool:
    signer = signer.strip().strip(".").casefold()
    if not signer or not domain:
        return False
    return signer.split(".")[-2:] == domain.split(".")[-2:]


def _parse(value: str) -> tuple[str, list[tuple[str, str, dict[str, str]]]] | None:
    """(authserv-id, [(method, result, {ptype.property: value})]) of a header's value, or
    None when it does not read."""
    text = _uncommented(" ".join(value.split()))
    if text is None:
        return None
    tokens = _TOKEN.findall(text)
    if not tokens or tokens[0] in (";", "="):
        return None
    server = tokens[0]
    statements: list[list[str]] = [[]]
    for token in tokens[1:]:
        if token == ";":
            statements.append([])
        else:
            statements[-1].append(token.strip('"'))
    found: list[tuple[str, str, dict[str, str]]] = []
    for words in statements[1:]:
        pairs = _pairs(words)
        if not pairs:
            continue
        (method, result), *props = pairs
        if method == "reason":
            continue
        found.append((method.split("/")[0].casefold(), result.casefold(),
                      {k.casefold(): v for k, v in props}))
    return server, found


def _pairs(words: list[str]) -> list[tuple[str, str]]:
    """``a = b`` triples of a statement's words, in order; others (a version) skipped."""
    pairs = []
    i = 0
    while i + 2 < len(words):
        if words[i + 1] == "=":
            pairs.append((words[i], words[i + 2]))
            i += 3
        else:
            i += 1
    return pairs


def _uncommented(text: str) -> str | None:
    """``text`` without its (nested) comments outside quotes; None if they do not close."""
    out: list[str] = []
    depth = 0
    quoted = escaped = False
    for char in text:
        if escaped:
            escaped = False
            if depth == 0:
                out.append(char)
            continue
        if char == "\\":
            escaped = True
            if depth == 0:
                out.append(char)
            continue
        if quoted:
            quoted = char != '"'
            out.append(char)
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                return None
            depth -= 1
        elif depth == 0:
            quoted = char == '"'
            out.append(char)
    return None if depth else "".join(out)
