"""Choose the MIME part of a mail that may hold orders, and give it as normalized text.

Decoding is forgiving: a missing, unknown or wrong charset falls back to UTF-8, Windows-1252,
then Latin-1, and says so in a defect.
"""

from __future__ import annotations

import codecs
import email
import email.headerregistry
import email.message
import email.policy
import re
import unicodedata
from collections.abc import Iterator
from typing import Literal

from pbem.mail.html_text import html_to_text

Source = Literal["plain", "html", "attachment"]

_MAX_DEPTH = 12  # MIME nesting deeper than any mail client writes; bounds the work
# Invisible or look-alike characters that would keep an order word from matching.
_INVISIBLE = str.maketrans({"\ufeff": None, "\u200b": None, "\x00": None,
                            "\xa0": " ", "\u202f": " ", "\u2028": "\n", "\u2029": "\n"})
# A repaired multipart's boundary is a delimiter line followed by a header line.
_DELIMITER = re.compile(rb"^--([0-9A-Za-z'()+_,./:=?-]{1,70})[ \t]*\r?\n[A-Za-z][\w-]*:", re.M)


# A head the parser reads as plain "Name: value" lines, folded or not, ended by a blank line:
# field names of printable ASCII, no bare CR, no "From " line, no line it would take for the
# body's start.
_PLAIN_HEAD = re.compile(rb"(?:[!-9;-~]+:[^\r\n]*\r?\n(?:[ \t][^\r\n]*\r?\n)*)+\r?\n")
# The same lines without the blank line and the last line end: a head cut from its mail.
_PLAIN_HEADERS = re.compile(rb"[!-9;-~]+:[^\r\n]*(?:\r?\n(?:[ \t]|[!-9;-~]+:)[^\r\n]*)*")
_LINE = re.compile(r"[^\n]*\n")  # a head's lines, CR LF or LF ended (never the body's)


def parse_message(data: bytes) -> email.message.Message:
    """Give a raw mail parsed with ``email.policy.default``, each distinct header read once."""
    policy = email.policy.default.clone(header_factory=_ReadOnce())
    plain = _parse_plain(data, policy)
    return plain if plain is not None else email.message_from_bytes(data, policy=policy)


def _parse_plain(
    data: bytes, policy: email.policy.EmailPolicy[email.message.EmailMessage]
) -> email.message.Message | None:
    """Give a mail of one part under a plain head as the parser gives it, or None for any
    other: the parser reads such a mail line by line.

    Its head gives the headers as the parser's header lines give them, and all that follows
    the blank line is the content, as the parser takes it when the type is not multipart/*
    or message/* (tests/mail/test_mail_fastpaths.py pins that against the email package of
    the Python running the tests, on every run: a release that parses otherwise fails
    there first).

    Kept for what it buys (measured 2026-12-02 on the shared 2-core machine, best of 9-15
    alternating rounds with the shortcuts switched off and on):
    with ``parse_plain_head`` and the envelope's plain mailboxes, ``parse_mail`` of an
    order mail takes 0.08 ms instead of 0.34 (77% less), and the daemon spends 14% less
    time on an order mail in all; without them the pipeline bench's ratio falls by as much,
    under its floor of 0.85 at the low end of its spread. Client mails in several parts
    (most of tests/mails/) gain nothing.
    """
    head = _PLAIN_HEAD.match(data)
    if head is None:
        return None
    msg = email.message.EmailMessage(policy=policy)
    text = data.decode("ascii", "surrogateescape")  # as the parser decodes bytes
    _set_headers(msg, _LINE.findall(text, 0, head.end())[:-1])  # all but the blank line
    if msg.get_content_maintype() in ("multipart", "message"):
        return None
    msg.set_payload(text[head.end():])
    return msg


def parse_plain_head(head: bytes) -> email.message.Message | None:
    """Give a mail's head alone (no blank line) parsed as BytesHeaderParser parses it with
    ``email.policy.default``, when it is plain as ``_PLAIN_HEAD`` says; else None."""
    if _PLAIN_HEADERS.fullmatch(head) is None:
        return None
    msg = email.message.EmailMessage(policy=email.policy.default)
    # The parser strips the last line's end from a value, so one added changes nothing.
    _set_headers(msg, _LINE.findall(head.decode("ascii", "surrogateescape") + "\n"))
    msg.set_payload("")  # all after the head, which was cut at its end
    return msg


def _set_headers(msg: email.message.Message, lines: list[str]) -> None:
    """Give ``msg`` the headers of a plain head's lines as the parser's header lines give
    them: a line that begins with a space or tab continues the header before it."""
    folded: list[str] = []
    for line in lines:
        if line[0] not in " \t" and folded:  # a new header: the one before is complete
            msg.set_raw(*msg.policy.header_source_parse(folded))
            folded = []
        folded.append(line)
    msg.set_raw(*msg.policy.header_source_parse(folded))


class _ReadOnce:
    """The default header factory, parsing each (name, value) once per mail. The parser and
    the getters (get_content_type, get_param...) parse a part's Content-Type anew on every
    call, a dozen times per part, and that was most of the time a mail took."""

    def __init__(self) -> None:
        self._read: dict[tuple[str, str], email.headerregistry.BaseHeader] = {}

    def __call__(self, name: str, value: str) -> email.headerregistry.BaseHeader:
        header = self._read.get((name, value))
        if header is None:
            # Headers are immutable, so handing the same one out again is safe.
            header = self._read[name, value] = email.policy.default.header_factory(name, value)
        return header


def text_candidates(
    msg: email.message.Message, defects: list[str]
) -> Iterator[tuple[Source, email.message.Message]]:
    """Give the parts that may hold orders, best first: plain body, HTML body, attachments."""
    plains: list[email.message.Message] = []
    htmls: list[email.message.Message] = []
    attachments: list[email.message.Message] = []
    for part, enclosed, ctype in _leaves(msg, defects):
        filename = part.get_filename() or ""
        attached = enclosed or bool(filename) or part.get_content_disposition() == "attachment"
        if ctype == "text/plain" or filename.lower().endswith(".txt"):
            (attachments if attached else plains).append(part)
        elif ctype == "text/html" and not attached:
            htmls.append(part)
    yield from (("plain", p) for p in plains)
    yield from (("html", p) for p in htmls)
    yield from (("attachment", p) for p in attachments)


def _leaves(
    msg: email.message.Message, defects: list[str]
) -> Iterator[tuple[email.message.Message, bool, str]]:
    """Give every leaf part, whether it is inside an enclosed message, and its content type."""
    stack: list[tuple[email.message.Message, int, bool]] = [(msg, 0, False)]
    while stack:
        part, depth, enclosed = stack.pop()
        defects.extend(f"mime: {type(d).__name__}" for d in part.defects)
        if depth > _MAX_DEPTH:
            defects.append(f"mime-too-deep: parts nested over {_MAX_DEPTH} levels were skipped")
            continue
        # Only a multipart's payload is read here: a leaf's get_payload() decodes 8-bit
        # text with the declared charset, which raises on a charset such as "a\0b".
        children = part.get_payload() if part.is_multipart() else None
        ctype = part.get_content_type()  # parsed anew on every call: read it once
        if isinstance(children, list):
            inner = enclosed or ctype.startswith("message/")
            stack.extend((child, depth + 1, inner) for child in reversed(children)
                         if isinstance(child, email.message.Message))
        elif ctype.startswith("multipart/"):
            stack.append((_repair_multipart(part, defects), depth + 1, enclosed))
        else:
            yield part, enclosed, ctype


def _repair_multipart(part: email.message.Message, defects: list[str]) -> email.message.Message:
    """Give a multipart whose boundary was wrong or missing re-read with the one it uses."""
    # decode=True gives the raw bytes (see _leaves for why not get_payload()).
    payload = part.get_payload(decode=True)
    body = payload if isinstance(payload, bytes) else b""
    found = _DELIMITER.search(body)
    if found is not None:
        ctype = part.get_content_type().encode("ascii", "replace")
        head = b'Content-Type: %s; boundary="%s"\n\n' % (ctype, found.group(1))
        repaired = parse_message(head + body)
        if repaired.is_multipart():
            defects.append(f"mime-boundary-repaired: parts read with boundary "
                           f"{found.group(1).decode('ascii')!r}")
            return repaired
    # Last resort: the raw body as plain text, so unencoded orders can still be found.
    defects.append("mime-multipart-unreadable: no part boundary found; read as plain text")
    return parse_message(b"Content-Type: text/plain\n\n" + body)


def part_text(part: email.message.Message, source: Source, defects: list[str]) -> str:
    """Give a text part's content decoded, unflowed and normalized."""
    data = part.get_payload(decode=True)
    if not isinstance(data, bytes):
        data = b""
    for defect in part.defects:
        if "Base64" in type(defect).__name__:
            defects.append(f"mime-base64: {type(defect).__name__} in a {source} part")
    text = _decode_body(data, part.get_content_charset(), source, defects)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if source == "html" or part.get_content_type() == "text/html":
        text = html_to_text(text)
    elif str(part.get_param("format", "")).lower() == "flowed":
        text = _unflow(text, delsp=str(part.get_param("delsp", "")).lower() == "yes")
    return _normalize(text)


def _decode_body(data: bytes, charset: str | None, source: Source, defects: list[str]) -> str:
    if not charset:
        if data.isascii():
            return data.decode("ascii")
        problem = f"charset-missing: the {source} part has 8-bit text and no charset"
    else:
        try:
            codec = codecs.lookup(charset).name
            # Mail labelled Latin-1 is in practice often Windows-1252, a superset; the WHATWG
            # Encoding Standard decodes that label so too.
            if codec == "iso8859-1" and not data.isascii() and _decodes(data, "cp1252"):
                codec = "cp1252"
            return data.decode(codec)
        # LookupError also for codecs that are not text encodings (rot13, zlib); ValueError
        # for names such as "a\0b".
        except (LookupError, ValueError, TypeError) as exc:
            kind = "mismatch" if isinstance(exc, UnicodeError) else "unknown"
            problem = (f"charset-{kind}: the {source} part " +
                       ("is not valid " if kind == "mismatch" else "declares ") + repr(charset))
    text, used = decode_fallback(data)
    defects.append(f"{problem}; decoded as {used}")
    return text


def _decodes(data: bytes, codec: str) -> bool:
    try:
        data.decode(codec)
    except UnicodeDecodeError:
        return False
    return True


def decode_fallback(data: bytes) -> tuple[str, str]:
    """Give the bytes decoded as UTF-8, else Windows-1252, else Latin-1, and which was used."""
    for codec in ("utf-8", "cp1252"):
        try:
            return data.decode(codec), codec
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1"), "latin-1"


def _unflow(text: str, *, delsp: bool) -> str:
    """Give format=flowed text (RFC 3676) with soft line breaks joined and stuffing removed."""
    lines: list[str] = []
    pending: str | None = None  # a flowed line waiting for its continuation
    pending_depth = 0
    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):
            content = content[1:]  # space-stuffing
        flowed = content.endswith(" ") and content != "-- "  # the signature line is fixed
        if flowed and delsp:
            content = content[:-1]
        if pending is not None:
            if depth == pending_depth:
                content = pending + content
            else:  # quote depth changed inside a paragraph: RFC 3676 says end it there
                lines.append(_quoted(pending_depth, pending))
        if flowed:
            pending, pending_depth = content, depth
        else:
            lines.append(_quoted(depth, content))
            pending = None
    if pending is not None:
        lines.append(_quoted(pending_depth, pending))
    return "\n".join(lines)


def _quoted(depth: int, content: str) -> str:
    return f"{'>' * depth} {content}" if depth else content


def _normalize(text: str) -> str:
    """Give text with invisible characters removed, NFC, no trailing spaces or blank ends."""
    text = unicodedata.normalize("NFC", printable(text.translate(_INVISIBLE)))
    lines = [line.rstrip() for line in text.split("\n")]
    return "\n".join(lines).strip("\n")



def printable(text: str) -> str:
    """Give the text with any lone surrogate replaced, so it can always be encoded."""
    return text.encode("utf-8", "replace").decode("utf-8")
