"""Passwords written over in a raw mail, in place, whatever its encoding.

A mail is kept in the store once processed, and kept without the passwords it carried:
``mask_passwords`` gives the same bytes, as many and where they were, with every password a
start line gave written over by ``*``. It reads each text part as a mail program does (its
transfer encoding, base64 or quoted-printable, undone; its charset, UTF-16 included,
decoded; an HTML part's visible text), finds the secret after each ``PASSWORD`` of a start
line there, and writes over every place that secret is in the part (a ``STEP`` it was
mistyped into, a second start line, a quoted copy, the HTML alternative), then encodes the
part again into as many bytes: a quoted-printable soft break inside a password stays where
it was, and each byte of the secret becomes ``*`` (``=2A`` where it was written ``=XX``). A
secret of three characters or fewer is written over only after ``PASSWORD``: everywhere, it
would blank common words.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import email.parser
import email.policy
import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise

from pbem.mail.html_text import html_to_text

_MAX_DEPTH = 12  # MIME nesting deeper than any mail client writes; bounds the work
_SHORTEST = 4  # a shorter secret is masked after PASSWORD only
_HEAD_END = re.compile(rb"\r?\n\r?\n")
_HEADS = email.parser.BytesHeaderParser(policy=email.policy.compat32)
_START = re.compile(r"^[ \t>]*(game|password)\b", re.I)
# The secret after PASSWORD: a quoted phrase (closed or not) or one word.
_SECRET = re.compile(
    r"""\bpassword\b[ \t]*[:=]?[ \t]*(?P<secret>"[^"\r\n]*"?|“[^”\r\n]*”?|\S+)""", re.I)
_QP = re.compile(rb"=(?:\r?\n|[0-9A-Fa-f]{2})|[^=]|=", re.S)
_BASE64_LINES = re.compile(rb"(?:[A-Za-z0-9+/=]+[ \t]*(?:\r?\n|$))+")


@dataclass(frozen=True)
class _Leaf:
    """A part with no parts inside: its type, charset, transfer encoding, and where its
    body is in the raw mail."""

    content_type: str
    charset: str
    encoding: str
    start: int
    end: int


def mask_passwords(raw: bytes) -> bytes:
    """Give ``raw`` with every password of a start line written over by ``*``, in every
    encoding, as many bytes where they were (see the module's docstring). Never raises: a
    mail it cannot read is given back with what it could mask."""
    out = bytearray(raw)
    # As plain bytes: a quoted-printable soft break after a secret is not in it.
    secrets = {secret.removesuffix("=") for secret in _secrets_in(raw.decode("latin-1"))}
    try:
        texts = [(leaf, *_decoded(raw, leaf)) for leaf in _leaves(raw, 0, len(raw), 0)
                 if _is_text(leaf)]
        for leaf, data, _ in texts:
            for text in _readings(data, leaf):
                secrets.update(_secrets_in(text))
        secrets.discard("")
        for leaf, data, spans in texts:
            masked = _masked_data(data, leaf, secrets)
            if masked != data:
                _write_back(out, raw, leaf, data, masked, spans)
    except Exception:  # a last resort: a mail it cannot read is masked as plain bytes below
        out = bytearray(raw)
    # What no part holds (a head, a preamble, a part of no known type) in plain bytes.
    whole = bytes(out)
    for secret in sorted(secrets, key=len, reverse=True):
        if len(secret) >= _SHORTEST:
            for codec in ("utf-8", "latin-1"):
                whole = _stars(whole, secret, codec)
    return _masked_after_password(whole)


def _leaves(raw: bytes, start: int, end: int, depth: int) -> Iterator[_Leaf]:
    """Give the leaf parts of the part ``raw[start:end]`` (its head, a blank line, its
    body)."""
    if depth > _MAX_DEPTH:
        return
    if raw.startswith((b"\r\n", b"\n"), start):
        head, body = b"", start + (2 if raw.startswith(b"\r\n", start) else 1)
    else:
        found = _HEAD_END.search(raw, start, end)
        if found is None:
            head, body = raw[start:end], end
        else:
            head, body = raw[start:found.start()], found.end()
    message = _HEADS.parsebytes(head + b"\n\n")
    kind = message.get_content_type()
    boundary = message.get_boundary() if kind.startswith("multipart/") else None
    if boundary:
        yield from _multipart(raw, body, end, boundary.encode("latin-1"), depth)
    elif kind == "message/rfc822":
        yield from _leaves(raw, body, end, depth + 1)
    else:
        yield _Leaf(kind, str(message.get_content_charset("") or ""),
                    str(message.get("content-transfer-encoding", "")).strip().lower(),
                    body, end)


def _multipart(raw: bytes, start: int, end: int, boundary: bytes,
               depth: int) -> Iterator[_Leaf]:
    """Give the leaf parts of a multipart body ``raw[start:end]``."""
    delimiter = re.compile(rb"^--" + re.escape(boundary) + rb"(--)?[ \t]*(?:\r?\n|\Z)", re.M)
    found = list(delimiter.finditer(raw, start, end))
    for here, after in pairwise(found):
        if here.group(1):  # the closing delimiter
            break
        # The line end before a delimiter is the delimiter's.
        stop = after.start()
        stop -= 2 if raw[stop - 2:stop] == b"\r\n" else 1 if raw[stop - 1:stop] == b"\n" else 0
        yield from _leaves(raw, here.end(), max(here.end(), stop), depth + 1)


def _is_text(leaf: _Leaf) -> bool:
    return leaf.content_type.startswith("text/")


def _decoded(raw: bytes, leaf: _Leaf) -> tuple[bytes, list[tuple[int, int]] | None]:
    """Give a part's body with its transfer encoding undone, and, for quoted-printable,
    where each of its bytes is in the raw mail (``=XX`` is three bytes); None for others
    (base64 is encoded again whole, 7bit and 8bit are the bytes themselves)."""
    body = raw[leaf.start:leaf.end]
    if leaf.encoding == "quoted-printable":
        data, spans = bytearray(), []
        for piece in _QP.finditer(body):
            token = piece.group(0)
            at = leaf.start + piece.start()
            if token.startswith(b"=") and len(token) == 3 and token[1:2] not in b"\r\n":
                data.append(int(token[1:], 16))
                spans.append((at, 3))
            elif token == b"=" or not token.startswith(b"="):
                data += token
                spans.append((at, 1))
            # else a soft line break: no byte
        return bytes(data), spans
    if leaf.encoding == "base64":
        lines = _BASE64_LINES.match(body)
        letters = b"".join((lines.group(0) if lines else b"").split())
        try:
            return base64.b64decode(letters, validate=True), None
        except (binascii.Error, ValueError):
            return b"", None
    return body, None


def _codecs(data: bytes, leaf: _Leaf) -> list[str]:
    """Give the codecs a part's bytes may be in: its charset's (both byte orders for UTF-16
    without a byte order mark), else UTF-8 and Latin-1."""
    try:
        name = codecs.lookup(leaf.charset).name if leaf.charset else ""
    except LookupError:
        name = ""
    if name.startswith("utf-16") or name.startswith("utf-32"):
        width = name[:6]
        if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF32_LE)) or name.endswith("le"):
            return [f"{width}-le"]
        if data.startswith((codecs.BOM_UTF16_BE, codecs.BOM_UTF32_BE)) or name.endswith("be"):
            return [f"{width}-be"]
        return [f"{width}-be", f"{width}-le"]
    return [name] if name and name not in ("utf-8", "iso8859-1") else ["utf-8", "latin-1"]


def _readings(data: bytes, leaf: _Leaf) -> Iterator[str]:
    """Give a part's text as each of its codecs reads it (and an HTML part's visible text)."""
    for codec in _codecs(data, leaf):
        text = data.decode(codec, "replace").lstrip("\ufeff")
        yield text
        if leaf.content_type == "text/html":
            yield html_to_text(text)


def _secrets_in(text: str) -> Iterator[str]:
    """Give the secret after each PASSWORD of a start line of ``text``."""
    for line in text.splitlines():
        if not _START.match(line):
            continue
        pos = 0
        while found := _SECRET.search(line, pos):
            start = found.start("secret")
            if _SECRET.match(line, start):  # "PLAYER password PASSWORD x": the secret is x
                pos = start
                continue
            secret = found.group("secret")
            yield secret
            if len(secret) > 2 and secret[0] in "\"“":  # the phrase inside its quotes too
                yield secret[1:].rstrip("\"”")
            pos = found.end()


def _masked_data(data: bytes, leaf: _Leaf, secrets: set[str]) -> bytes:
    """Give a part's decoded bytes with every secret written over, in each of its codecs."""
    for secret in sorted(secrets, key=len, reverse=True):
        if len(secret) < _SHORTEST:
            continue
        for codec in _codecs(data, leaf):
            data = _stars(data, secret, codec)
    return data


def _stars(data: bytes, secret: str, codec: str) -> bytes:
    """Give ``data`` with ``secret`` in ``codec`` written over by as many bytes of ``*``."""
    try:
        encoded = secret.encode(codec)
        star = "*".encode(codec)
    except (UnicodeError, LookupError):
        return data
    if not encoded or len(encoded) % len(star):
        return data
    return data.replace(encoded, star * (len(encoded) // len(star)))


def _write_back(out: bytearray, raw: bytes, leaf: _Leaf, data: bytes, masked: bytes,
                spans: list[tuple[int, int]] | None) -> None:
    """Write a part's masked bytes into ``out``, encoded as the part was, in as many bytes."""
    if leaf.encoding == "base64":
        body = raw[leaf.start:leaf.end]
        lines = _BASE64_LINES.match(body)
        again = base64.b64encode(masked)
        if lines is None or len(again) != len(b"".join(lines.group(0).split())):
            return
        at = 0
        for piece in re.finditer(rb"[A-Za-z0-9+/=]+", lines.group(0)):
            size = len(piece.group(0))
            out[leaf.start + piece.start():leaf.start + piece.end()] = again[at:at + size]
            at += size
        return
    if spans is None:
        out[leaf.start:leaf.end] = masked
        return
    for n, (was, now) in enumerate(zip(data, masked, strict=True)):
        if was == now:
            continue
        at, size = spans[n]
        if size == 3:
            out[at:at + 3] = b"=%02X" % now
        elif 33 <= now <= 126 and now != ord("="):
            out[at] = now
        else:
            out[at] = ord("*")


def _masked_after_password(raw: bytes) -> bytes:
    """Give ``raw`` with the secret after each PASSWORD of a start line written over, read
    a line at a time as Latin-1 (whatever the encoding: a short secret, a head)."""
    text = raw.decode("latin-1")
    lines = []
    for line in text.splitlines(keepends=True):
        if _START.match(line):
            pieces, pos = [], 0
            while found := _SECRET.search(line, pos):
                start = found.start("secret")
                if _SECRET.match(line, start):
                    pieces.append(line[pos:start])
                    pos = start
                    continue
                secret = found.group("secret")
                if secret.endswith("=") and not line[found.end():].strip("\r\n"):
                    secret = secret[:-1]  # a quoted-printable soft break stays
                pieces.append(line[pos:start] + "*" * len(secret))
                pos = start + len(secret)
            pieces.append(line[pos:])
            line = "".join(pieces)
        lines.append(line)
    return "".join(lines).encode("latin-1")
