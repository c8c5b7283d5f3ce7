"""Turn a raw inbound mail into its order text and the facts the service needs.

Pure: bytes in, an ``InboundMail`` or a ``MailFormatError`` out, never anything else. Mail that
must not be answered (bounces, auto-replies, our own) is *returned* with ``automatic`` set, so a
``MailFormatError`` always concerns a mail the service may answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from pbem.errors import MailFormatError
from pbem.mail.address import address_detail
from pbem.mail.automatic import automatic_reason
from pbem.mail.body import Source, parse_message, part_text, text_candidates
from pbem.mail.envelope import Envelope, first_headers, parse_head, read_envelope, synthetic_id
from pbem.mail.html_text import html_to_text
from pbem.mail.masking import mask_passwords

__all__ = [
    "START_LINE",
    "START_LINE_EXAMPLE",
    "InboundMail",
    "Source",
    "header_summary",
    "html_to_text",
    "mask_passwords",
    "parse_mail",
    "redact_passwords",
    "stand_in",
]

START_LINE = re.compile(r"^[ \t]*game[ \t]+\S+", re.I | re.M)
"""A start line of orders: first word GAME. Shared with the order parser."""
# A line of an order to the server itself, mailed without a password (pbem.orders.signup).
SERVER_LINE = re.compile(r"^[ \t]*(help|list|join|observe|unobserve|takeover)\b", re.I | re.M)

START_LINE_EXAMPLE = "GAME <game> PLAYER <name> PASSWORD <password>"

# The mark of a stand-in for a mail too big to keep (see ``stand_in``): its first line.
_STAND_IN = re.compile(rb"X-Pbem-Too-Big: (\d{1,12})\r?\n")
STAND_IN_HEAD = 64 * 1024  # bytes of a head a stand-in keeps; no real head is longer
_HEAD_END = re.compile(rb"\r?\n\r?\n")

# Lines of a mail's text read as orders (not blank, not quoted), at most: one mail is
# answered once, and no game needs more lines in one mail (issue 44: a mail of 10,000
# STATUS lines). Each line costs a parse and a step's work.
MAX_LINES = 1000
_ORDER_LINE = re.compile(r"^[ \t]*[^\s>]", re.M)

_QUOTED_START_LINE = re.compile(r"^[ \t]*>[ \t>]*game[ \t]+\S+", re.I | re.M)
# The stdlib parser is quadratic in the number of parts, recurses once per nesting level,
# and its header parser is quadratic in a header's length (an 8 KB From took 1.4 s); no
# order mail comes near these limits.
_MAX_PARTS = 100
_MAX_MIME_HEADER = 2000  # characters in one Content-* header, folded lines included
_CONTENT_HEADER = re.compile(rb"^content-([!-9;-~]*)[ \t]*:[^\r\n]*(?:\r?\n[ \t][^\r\n]*)*",
                             re.I | re.M)
# Defect codes that explain why no orders were found, in words for the reply.
# The defects that make a mail unreadable (worded by the catalogue, _mail_refusals).
_DAMAGE = ("mime-multipart-unreadable", "mime-base64")


@dataclass(frozen=True)
class InboundMail:
    """One inbound mail as the service sees it."""

    sender: str  # bare, lower-cased address from From (envelope._sender says why not Reply-To)
    sender_name: str
    message_id: str  # without <>
    message_id_synthetic: bool  # True when the mail had none and we derived one
    date: datetime | None  # always timezone-aware
    subject: str
    in_reply_to: str | None
    references: tuple[str, ...]
    text: str  # the chosen part as normalized text: LF line ends, no trailing blanks
    source: Source
    automatic: str | None  # why this mail must never be answered, or None
    defects: tuple[str, ...]

    @property
    def reply_to(self) -> str | None:
        """The Message-ID an answer refers to (In-Reply-To); None if the mail had none."""
        return None if self.message_id_synthetic else self.message_id


def parse_mail(raw: bytes, *, max_bytes: int = 256 * 1024) -> InboundMail:
    """Give the order text and facts of a raw mail, or raise MailFormatError.

    The text is the first candidate part holding a START_LINE outside quotes: plain body
    parts, then HTML body parts, then text attachments (text/plain, *.txt, or inside an
    attached message). It is decoded (declared charset, else UTF-8, Windows-1252, Latin-1,
    with a defect), format=flowed is undone, HTML becomes lines with blockquotes as '> ',
    line ends are LF, trailing white space and blank end lines are gone, and invisible
    characters (BOM, zero-width space) are dropped and no-break spaces made spaces, so a
    signature line "-- " reads "--". A text of more than ``MAX_LINES`` lines (not blank, not
    quoted) is refused (``too_many_lines``). Automatic mail is returned with its first part's text
    and never raised; over-size mail (checked first, on ``len(raw)``, or a ``stand_in`` for
    one), mail without orders and mail too damaged to read raise MailFormatError with a
    message for the sender.
    """
    stood_for = _STAND_IN.match(raw)
    size = int(stood_for.group(1)) if stood_for else len(raw)
    if size > max_bytes or stood_for:
        return _unreadable(raw, f"over-size: {size} bytes, limit {max_bytes}", MailFormatError(
            key="too_big", size=_kib(size), limit=_kib(max_bytes)))
    parts, longest = _mime_load(raw)
    if parts > _MAX_PARTS:
        return _unreadable(raw, f"too-many-parts: {parts}, limit {_MAX_PARTS}", MailFormatError(
            key="too_many_parts", parts=parts, limit=_MAX_PARTS))
    if longest > _MAX_MIME_HEADER:
        return _unreadable(raw, f"mime-header-too-long: {longest}", MailFormatError(
            key="header_too_long", length=longest, limit=_MAX_MIME_HEADER))
    defects: list[str] = []
    msg = parse_message(raw)
    heads = first_headers(msg)
    envelope = read_envelope(heads, raw, defects)
    automatic = automatic_reason(heads)
    texts: list[str] = []
    for source, part in text_candidates(msg, defects):
        text = part_text(part, source, defects)
        if automatic is not None:  # never acted on: keep the human-readable notice
            return _inbound(envelope, text, source, automatic, defects)
        if START_LINE.search(text) or SERVER_LINE.search(text):
            lines = _order_lines(text)
            if lines > MAX_LINES:
                raise MailFormatError(key="too_many_lines", lines=lines, limit=MAX_LINES)
            return _inbound(envelope, text, source, automatic, defects)
        texts.append(text)
    if automatic is not None:
        return _inbound(envelope, "", "plain", automatic, defects)
    damage = [code for code in _DAMAGE if any(d.startswith(code) for d in defects)]
    if not texts or damage:
        raise MailFormatError(key="damaged", damage=damage, example=START_LINE_EXAMPLE)
    quoted = any(_QUOTED_START_LINE.search(text) for text in texts)
    raise MailFormatError(key="no_orders", quoted=quoted, example=START_LINE_EXAMPLE)


def _order_lines(text: str) -> int:
    """The lines of ``text`` that are neither blank nor quoted."""
    return len(_ORDER_LINE.findall(text))


def stand_in(raw: bytes, size: int | None = None) -> bytes:
    """Give what an intake keeps of a mail too big to keep: its head (at most 64 KB) under a
    first line ``X-Pbem-Too-Big: <its size>``, and no body. ``parse_mail`` reads such a
    stand-in as the over-size mail it stands for, so the sender is answered as a mail
    refused at SMTP is (552): with the limit, and what to do. ``raw`` may be the mail's head
    alone (an IMAP intake fetches no more of a mail its server says is too big), with the
    whole mail's ``size``."""
    end = _HEAD_END.search(raw, 0, STAND_IN_HEAD)
    head = raw[: end.start() if end else STAND_IN_HEAD]
    newline = b"\r\n" if b"\r\n" in head[:2048] else b"\n"
    return b"X-Pbem-Too-Big: %d%s%s%s%s" % (len(raw) if size is None else size, newline, head,
                                           newline, newline)


def header_summary(raw: bytes) -> tuple[str, str, bool]:
    """Give (sender, message_id, whether that id is synthetic) of any mail, best effort, for
    replying; never raises."""
    try:
        envelope = read_envelope(first_headers(parse_head(raw)), raw, [])
        return envelope.sender, envelope.message_id, envelope.synthetic
    except Exception:  # a last resort for replies: any failure still yields an id
        return "", synthetic_id(raw), True


def receipt(raw: bytes) -> tuple[bytes, str, str]:
    """Give what the store keeps a received mail by: its bytes, Message-ID and sender."""
    sender, message_id, _ = header_summary(raw)
    return raw, message_id, sender


def delivered_detail(raw: bytes) -> str:
    """Give the detail of the address the mail was delivered to (``game`` in
    ``pbem+game@...``; "" if none), as the topmost ``Delivered-To`` says: the envelope
    recipient, written by the server that delivered it into the mailbox (Dovecot's LMTP and
    LDA, Postfix's local delivery), the only one a sender cannot write; never raises."""
    try:
        value = first_headers(parse_head(raw)).get("delivered-to")
    except Exception:
        return ""
    return address_detail(str(value)) if value else ""


def redact_passwords(text: str) -> str:
    """Give the text with the password blanked on every start line (quoted or not)."""
    return "".join(_redact_line(line) for line in text.splitlines(keepends=True))


_REDACTABLE_LINE = re.compile(r"^[ \t>]*(game|password)\b", re.I)
# The secret after PASSWORD: a quoted phrase (closed or not) or one word.
_SECRET = re.compile(
    r"""\bpassword\b[ \t]*[:=]?[ \t]*(?P<secret>"[^"\r\n]*"?|“[^”\r\n]*”?|\S+)""", re.I)


def _redact_line(line: str) -> str:
    """``line`` with its secrets blanked, each as ``******`` (``pbem.mail.masking`` writes
    them over in place in a kept mail)."""
    if not _REDACTABLE_LINE.match(line):
        return line
    pieces: list[str] = []
    pos = 0
    while found := _SECRET.search(line, pos):
        start = found.start("secret")
        if _SECRET.match(line, start):  # "PLAYER password PASSWORD x": the secret is x
            pieces.append(line[pos:start])
            pos = start
            continue
        pieces.append(line[pos:start] + "******")
        pos = found.end()
    pieces.append(line[pos:])
    return "".join(pieces)


def _inbound(
    envelope: Envelope, text: str, source: Source, automatic: str | None, defects: list[str]
) -> InboundMail:
    return InboundMail(
        sender=envelope.sender,
        sender_name=envelope.sender_name,
        message_id=envelope.message_id,
        message_id_synthetic=envelope.synthetic,
        date=envelope.date,
        subject=envelope.subject,
        in_reply_to=envelope.in_reply_to,
        references=envelope.references,
        text=text,
        source=source,
        automatic=automatic,
        defects=tuple(dict.fromkeys(defects)),
    )


def _unreadable(raw: bytes, defect: str, error: MailFormatError) -> InboundMail:
    """Give automatic mail that is too big to read as such; raise ``error`` for any other."""
    # Only the head is read: cheap, and enough to tell a bounce that must not be answered.
    heads = first_headers(parse_head(raw))
    automatic = automatic_reason(heads)
    if automatic is None:
        raise error
    defects = [defect]
    return _inbound(read_envelope(heads, raw, defects), "", "plain", automatic, defects)


def _mime_load(raw: bytes) -> tuple[int, int]:
    """Give the number of MIME parts and the length of the longest Content-* header."""
    parts = longest = 0
    for found in _CONTENT_HEADER.finditer(raw):
        parts += found.group(1).lower() == b"type"
        longest = max(longest, len(found.group(0)))
    return parts, longest


def _kib(size: int) -> int:
    return -(-size // 1024)
