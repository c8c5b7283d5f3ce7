"""Compose outgoing mail as bytes ready for SMTP: deterministic, UTF-8, marked as ours.

Pure: the date and the Message-ID are given, and even the MIME boundaries are derived from
the content, so the same mail always gives the same bytes. A resend after a crash is then
byte-identical and recognizable by its Message-ID, and golden tests can compare output.
"""

from __future__ import annotations

import base64
import binascii
import email.errors
import email.policy
import email.utils
import hashlib
import json
import re
from dataclasses import dataclass
from datetime import datetime
from email.header import Header
from email.headerregistry import Address
from functools import lru_cache
from typing import Any

from pbem.mail.automatic import OWN_HEADER, OWN_MARK_HEADER

# CRLF line ends: smtplib sends bytes as they are, and servers refuse bare LF
# (a defence against SMTP smuggling). Headers stay 7-bit (RFC 2047 words), so no relay
# needs SMTPUTF8.
_MAX_LINE = 78  # RFC 5322's recommended limit; longer text lines go quoted-printable


class _Policy(email.policy.Compat32):
    """compat32, with CRLF, and a header that fits on its line written as it is: the
    folding machinery costs more than the rest of a mail and has nothing to do there."""

    def fold_binary(self, name: str, value: Any) -> bytes:
        if (isinstance(value, str) and value.isascii() and "\n" not in value
                and len(name) + len(value) + 2 <= _MAX_LINE):
            return f"{name}: {value}\r\n".encode("ascii")
        return super().fold_binary(name, value)


_POLICY = _Policy(linesep="\r\n", max_line_length=_MAX_LINE)


_ID_PART = r"[!-;=?-~]+"  # printable ASCII without < and >
_MSG_ID = re.compile(rf"<?({_ID_PART}@{_ID_PART})>?")
_REF_ID = re.compile(rf"<?({_ID_PART})>?")
_DOMAIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?")
_HEADER_NAME = re.compile(r"[!-9;-~]+")  # RFC 5322 field name: printable ASCII but ':'
# Headers compose writes itself; an extra header may not replace them.
_OWNED_HEADERS = frozenset(
    name.lower()
    for name in (
        "From", "To", "Cc", "Bcc", "Subject", "Date", "Message-ID", "In-Reply-To",
        "References", "MIME-Version", "Content-Type", "Content-Transfer-Encoding",
        "Content-Disposition", "Auto-Submitted", "X-Auto-Response-Suppress",
        OWN_HEADER, OWN_MARK_HEADER,
    )
)


@dataclass(frozen=True, kw_only=True)
class OutgoingMail:
    """One mail to send. ``message_id`` is chosen by the caller (see ``message_id_for``)."""

    to: str
    to_name: str = ""
    from_addr: str
    from_name: str = ""
    subject: str
    text: str
    html: str | None = None
    attachments: tuple[tuple[str, str, bytes], ...] = ()  # (filename, mimetype, content)
    # Pictures the HTML shows by "cid:<content id>": (content id without <>, mimetype, content)
    inline: tuple[tuple[str, str, bytes], ...] = ()
    message_id: str  # with or without <>
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()  # the thread before in_reply_to, oldest first
    date: datetime  # timezone-aware; there is no clock here
    game: str | None = None
    headers: tuple[tuple[str, str], ...] = ()  # extra (name, value) pairs

    def __post_init__(self) -> None:
        for field, value in (("to", self.to), ("from_addr", self.from_addr)):
            if not is_address(value):
                raise ValueError(f"OutgoingMail.{field} is not a mail address: {value!r}")
        if self.date.tzinfo is None or self.date.utcoffset() is None:
            raise ValueError(f"OutgoingMail.date must be timezone-aware, got {self.date!r}")
        if not _MSG_ID.fullmatch(self.message_id):
            raise ValueError(f"OutgoingMail.message_id is not a Message-ID: {self.message_id!r}")
        for ref in (*self.references, *([self.in_reply_to] if self.in_reply_to else [])):
            if not _REF_ID.fullmatch(ref):
                raise ValueError(f"OutgoingMail: {ref!r} is not a Message-ID")
        for filename, mimetype, _ in self.attachments:
            if mimetype.count("/") != 1 or not filename:
                raise ValueError(f"OutgoingMail: attachment {filename!r} has mimetype "
                                 f"{mimetype!r}; give a name and a type like 'text/plain'")
        for cid, mimetype, _ in self.inline:
            if self.html is None or not _REF_ID.fullmatch(cid) or mimetype.count("/") != 1:
                raise ValueError(f"OutgoingMail: inline picture {cid!r} ({mimetype!r}) needs "
                                 "an HTML part, a Content-ID like a Message-ID, and a type")
        for name, _ in self.headers:
            if not _HEADER_NAME.fullmatch(name) or name.lower() in _OWNED_HEADERS:
                raise ValueError(f"OutgoingMail: extra header {name!r} is not allowed; "
                                 f"compose writes {name!r} itself or it is not a header name")


def compose(mail: OutgoingMail) -> bytes:
    """Give the mail as RFC 5322 bytes with CRLF line ends, ready for SMTP.

    Written directly, as the email package's compat32 generator writes the same headers and
    parts (tests/mail/test_mail_fastpaths.py pins that): every header value here is ours and
    already checked, so building and walking Message objects (most of the time a mail
    took) buys nothing. Headers are still folded by the email package's policy.
    """
    fold = _POLICY.fold_binary
    head = [
        # Checked in OutgoingMail.__post_init__; RFC 2047 words for a name that is not ASCII.
        _fold_address("From", mail.from_name, mail.from_addr),
        _fold_address("To", mail.to_name, mail.to),
        fold("Subject", _header_text(mail.subject, "Subject")),
        fold("Date", email.utils.format_datetime(mail.date)),
        fold("Message-ID", _angled(mail.message_id)),
    ]
    if mail.in_reply_to:
        head.append(fold("In-Reply-To", _angled(mail.in_reply_to)))
    thread = (*mail.references, *([mail.in_reply_to] if mail.in_reply_to else []))
    if thread:
        head.append(fold("References", " ".join(_angled(ref) for ref in dict.fromkeys(thread))))
    # RFC 3834: a reply to a mail is auto-replied, anything else (reports, reminders)
    # auto-generated. Either one stops well-behaved responders from answering us.
    head.append(_AUTO_REPLIED if mail.in_reply_to else _AUTO_GENERATED)
    # Exchange's own switch (MS-OXCMAIL 2.1.3.2.20): no out-of-office or auto-replies to
    # this mail, while the delivery failure reports we want to see still come.
    head.append(_NO_AUTO_RESPONSE)
    if mail.game:
        head.append(fold(OWN_HEADER, _header_text(mail.game, OWN_HEADER)))
    else:
        head.append(_OWN_MARK)
    # No Precedence header: it is non-standard (RFC 3834 prefers Auto-Submitted), and
    # "bulk" or "list" lets providers file a player's personal report as bulk mail.
    head.extend(fold(name, _header_text(value, name)) for name, value in mail.headers)
    head.append(_MIME_VERSION)
    body = _text_part(mail.text, "plain")
    if mail.html is not None or mail.attachments:
        body = _multiparts(mail, body)
    out: list[bytes] = []
    _write(out, _Part((*head, *body.headers), body.payload, body.boundary))
    return b"".join(out)


@dataclass(frozen=True)
class _Part:
    """A MIME part to write: its headers (folded), and its content as written or its parts."""

    headers: tuple[bytes, ...]
    payload: bytes | tuple[_Part, ...]
    boundary: str = ""


def _write(out: list[bytes], part: _Part) -> None:
    """Append the part's bytes as email.generator.BytesGenerator writes them with _POLICY."""
    out.extend(part.headers)
    out.append(b"\r\n")  # the blank line after the headers
    if isinstance(part.payload, bytes):
        out.append(part.payload)
        return
    delimiter = f"--{part.boundary}\r\n".encode("ascii")
    for index, inner in enumerate(part.payload):
        out.append(b"\r\n" + delimiter if index else delimiter)
        _write(out, inner)
    out.append(f"\r\n--{part.boundary}--\r\n".encode("ascii"))


@lru_cache(maxsize=1024)  # a game writes to the same few addresses again and again
def _fold_address(name: str, display_name: str, addr_spec: str) -> bytes:
    return _POLICY.fold_binary(
        name, email.utils.formataddr((_one_line(display_name), addr_spec), "utf-8"))


# The headers that never change, folded once.
_AUTO_REPLIED = _POLICY.fold_binary("Auto-Submitted", "auto-replied")
_AUTO_GENERATED = _POLICY.fold_binary("Auto-Submitted", "auto-generated")
_NO_AUTO_RESPONSE = _POLICY.fold_binary("X-Auto-Response-Suppress", "OOF, AutoReply")
_OWN_MARK = _POLICY.fold_binary(OWN_MARK_HEADER, "1")
_MIME_VERSION = _POLICY.fold_binary("MIME-Version", "1.0")
_TEXT_HEADERS = {
    (subtype, encoding): (_POLICY.fold_binary("Content-Type", f'text/{subtype}; charset="utf-8"'),
                          _POLICY.fold_binary("Content-Transfer-Encoding", encoding))
    for subtype in ("plain", "html") for encoding in ("7bit", "quoted-printable")
}


def _text_part(text: str, subtype: str) -> _Part:
    """A UTF-8 text part: 7bit when it can be, else quoted-printable (readable as it is)."""
    lines = text.splitlines()
    text = "\n".join(lines) + "\n"  # every line end (CR, LF, U+2028...) now LF
    if _transfer_encoding(text, lines) == "7bit":
        return _Part(_TEXT_HEADERS[subtype, "7bit"], text.encode("ascii").replace(b"\n", b"\r\n"))
    # binascii's encoder (in C; the email package's own is Python, 4 times slower)
    # keeps to RFC 2045's 76-character lines; given no CR, it ends lines with LF alone.
    encoded = binascii.b2a_qp(text.encode("utf-8"), istext=True)
    return _Part(_TEXT_HEADERS[subtype, "quoted-printable"], encoded.replace(b"\n", b"\r\n"))


def _multiparts(mail: OutgoingMail, text_part: _Part) -> _Part:
    """Give the text part with the HTML in multipart/alternative, that with the attachments
    in multipart/mixed."""
    boundary = _boundary(mail)  # ending in _0 for the outer multipart, _1 for one inside it
    body = text_part
    if mail.html is not None:
        html = _text_part(mail.html, "html")
        if mail.inline:  # RFC 2387: the HTML and the pictures it shows, one whole
            html = _multipart("related", (html, *(_inline(*p) for p in mail.inline)),
                              boundary + "2")
        body = _multipart("alternative", (body, html),
                          boundary + ("1" if mail.attachments else "0"))
    if mail.attachments:
        body = _multipart("mixed", (body, *(_attachment(*a) for a in mail.attachments)),
                          boundary + "0")
    return body


def _multipart(subtype: str, parts: tuple[_Part, ...], boundary: str) -> _Part:
    before, after = _multipart_type(subtype, len(boundary))
    return _Part((before + boundary.encode("ascii") + after,), parts, boundary)


@lru_cache(maxsize=16)
def _multipart_type(subtype: str, length: int) -> tuple[bytes, bytes]:
    """Give a multipart's Content-Type header folded, in two pieces around its boundary.

    Folding breaks lines only at spaces, ';' and ',', which no boundary from ``_boundary``
    holds: the header folds the same for every boundary of one length.
    """
    stand_in = "x" * length
    folded = _POLICY.fold_binary("Content-Type", f'multipart/{subtype}; boundary="{stand_in}"')
    before, _, after = folded.partition(stand_in.encode("ascii"))
    return before, after


def _attachment(filename: str, mimetype: str, content: bytes) -> _Part:
    if filename.isascii():  # Message.add_header's parameter, quoted as it quotes it
        disposition = f'attachment; filename="{email.utils.quote(filename)}"'
    else:  # RFC 2231
        disposition = f"attachment; filename*={email.utils.encode_rfc2231(filename, 'utf-8', '')}"
    # base64.encodebytes ends lines with LF; the generator makes them CRLF but in a
    # message/* or multipart/* part, whose text it writes as it is.
    encoded = base64.encodebytes(content)
    ctype = mimetype.split(";")[0].strip().lower()
    if not (ctype.count("/") == 1 and ctype.split("/")[0] in ("message", "multipart")):
        encoded = encoded.replace(b"\n", b"\r\n")
    return _Part((_POLICY.fold_binary("Content-Type", mimetype),
                  _POLICY.fold_binary("Content-Transfer-Encoding", "base64"),
                  _POLICY.fold_binary("Content-Disposition", disposition)),
                 encoded)


def _inline(cid: str, mimetype: str, content: bytes) -> _Part:
    """A picture the HTML part shows by ``cid:``: inline, named, base64."""
    filename = cid.split("@")[0] + "." + mimetype.split("/")[1]
    return _Part((_POLICY.fold_binary("Content-Type", mimetype),
                  _POLICY.fold_binary("Content-Transfer-Encoding", "base64"),
                  _POLICY.fold_binary("Content-ID", _angled(cid)),
                  _POLICY.fold_binary("Content-Disposition", f'inline; filename="{filename}"')),
                 base64.encodebytes(content).replace(b"\n", b"\r\n"))


def message_id_for(*parts: str, domain: str) -> str:
    """Give a deterministic ``<hash@domain>`` Message-ID for the given parts."""
    if not parts:
        raise ValueError("message_id_for needs at least one part, e.g. game, step, recipient")
    if not _DOMAIN.fullmatch(domain):
        raise ValueError(f"message_id_for: {domain!r} is not a domain name")
    # JSON keeps ("a b", "c") and ("a", "b c") apart, which a plain join would not.
    digest = hashlib.sha256(json.dumps(parts).encode("utf-8")).hexdigest()[:32]
    return f"<{digest}@{domain}>"


@lru_cache(maxsize=4096)  # a game writes to the same few addresses again and again
def is_address(addr_spec: str) -> bool:
    """Tell whether ``addr_spec`` is a mail address (user@domain)."""
    try:
        address = Address(addr_spec=addr_spec)
    # The stdlib address parser raises HeaderParseError, or IndexError on an empty string.
    except (ValueError, IndexError, email.errors.HeaderParseError):
        return False
    return bool(address.username and address.domain)


def _header_text(value: str, name: str) -> str | Header:
    """One line of text for a header; RFC 2047 encoded words unless it is ASCII."""
    line = _one_line(value)
    return line if line.isascii() else Header(line, "utf-8", header_name=name)


# ASCII white space and every line boundary str.splitlines knows (the email package's
# Header splits its text there too). Not str.split(): it also splits at U+00A0, the no-break
# space French puts before : ; ? ! and inside « », and a subject would lose it.
_BREAKS = re.compile("[ \t\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]+")


def _one_line(value: str) -> str:
    # Values can come from player mail (a subject, a name); a line break would end the
    # header, so it becomes a space rather than an error at sending time.
    return _BREAKS.sub(" ", value).strip(" ")


def _angled(message_id: str) -> str:
    return f"<{message_id.strip().strip('<>')}>"


def _transfer_encoding(text: str, lines: list[str]) -> str:
    """Give 7bit for short ASCII lines, else quoted-printable, which keeps text readable."""
    if text.isascii() and max(map(len, lines), default=0) <= _MAX_LINE:
        return "7bit"
    return "quoted-printable"


def _boundary(mail: OutgoingMail) -> str:
    """Give the start of the mail's MIME boundaries; an index ends each one."""
    # Derived from the whole content, so no part can contain its own boundary, and the
    # output does not depend on the random boundaries the generator would pick.
    content = hashlib.sha256()
    for piece in (mail.message_id, mail.text, mail.html or ""):
        content.update(piece.encode("utf-8", "surrogatepass") + b"\0")
    for filename, mimetype, data in (*mail.attachments, *mail.inline):
        content.update(f"{filename}\0{mimetype}\0".encode("utf-8", "surrogatepass") + data)
    return f"=_pbem_{content.hexdigest()[:24]}_"
