"""Turn a raw inbound mail into its order text and the facts the service needs.

Pure: bytes in, an ``InboundMail`` or a ``MailFormatError`` out, never anything else. Mail that
must not be answered (bounces, auto-replies, our own) is *returned* with ``automatic`` set, so a
``MailFormatError`` always concerns a mail the service may answer.
"""

from __future__ import annotations

import codecs
import email
import email.headerregistry
import email.message
import email.parser
import email.policy
import hashlib
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from html.parser import HTMLParser
from typing import Literal

from pbem.errors import MailFormatError
from pbem.mail.automatic import automatic_reason

START_LINE = re.compile(r"^[ \t]*game[ \t]+\S+", re.I | re.M)
"""A start line of orders: first word GAME. Shared with the order parser."""

START_LINE_EXAMPLE = "GAME <game> PLAYER <name> PASSWORD <password>"

Source = Literal["plain", "html", "attachment"]

_QUOTED_START_LINE = re.compile(r"^[ \t]*>[ \t>]*game[ \t]+\S+", re.I | re.M)
_MAX_DEPTH = 12  # MIME nesting deeper than any mail client writes; bounds the work
# The stdlib parser is quadratic in the number of parts, recurses once per nesting level,
# and its header parser is quadratic in a header's length (an 8 KB From took 1.4 s), and it
# re-reads Content-* headers many times per part; no order mail comes near these limits.
_MAX_PARTS = 100
_MAX_MIME_HEADER = 2000  # characters in one Content-* header, folded lines included
_CONTENT_HEADER = re.compile(rb"^content-([!-9;-~]*)[ \t]*:[^\r\n]*(?:\r?\n[ \t][^\r\n]*)*",
                             re.I | re.M)
_MAX_HEADER = 2000  # characters of From, Subject... read; the rest is cut before parsing
_LOGICAL_HEADER = re.compile(rb"^[^\s:]+[ \t]*:[^\r\n]*(?:\r?\n[ \t][^\r\n]*)*", re.M)
_HEADER_LIMIT = 64 * 1024  # a head larger than this is not a mail we can help
_SURROGATE = re.compile("[\udc80-\udcff]")
_MSG_ID = re.compile(r"<([!-;=?-~]{1,250})>")  # printable ASCII without < and >
_BARE_MSG_ID = re.compile(r"[!-;=?-~]{1,250}")
# Invisible or look-alike characters that would keep an order word from matching.
_INVISIBLE = str.maketrans({"\ufeff": None, "\u200b": None, "\x00": None,
                            "\xa0": " ", "\u202f": " ", "\u2028": "\n", "\u2029": "\n"})
# A repaired multipart's boundary is a delimiter line followed by a header line.
_DELIMITER = re.compile(rb"^--([0-9A-Za-z'()+_,./:=?-]{1,70})[ \t]*\r?\n[A-Za-z][\w-]*:", re.M)
# Defect codes that explain why no orders were found, in words for the reply.
_DAMAGE = {
    "mime-multipart-unreadable": "its parts could not be told apart",
    "mime-base64": "its encoded text is broken",
}


@dataclass(frozen=True)
class InboundMail:
    """One inbound mail as the service sees it."""

    sender: str  # bare, lower-cased address from From (see _sender for why not Reply-To)
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


@dataclass(frozen=True)
class _Envelope:
    sender: str
    sender_name: str
    message_id: str
    synthetic: bool
    date: datetime | None
    subject: str
    in_reply_to: str | None
    references: tuple[str, ...]


def parse_mail(raw: bytes, *, max_bytes: int = 256 * 1024) -> InboundMail:
    """Give the order text and facts of a raw mail, or raise MailFormatError.

    The text is the first candidate part holding a START_LINE outside quotes: plain body
    parts, then HTML body parts, then text attachments (text/plain, *.txt, or inside an
    attached message). It is decoded (declared charset, else UTF-8, Windows-1252, Latin-1,
    with a defect), format=flowed is undone, HTML becomes lines with blockquotes as '> ',
    line ends are LF, trailing white space and blank end lines are gone, and invisible
    characters (BOM, zero-width space) are dropped and no-break spaces made spaces, so a
    signature line "-- " reads "--". Automatic mail is returned with its first part's text
    and never raised; over-size mail (checked first, on ``len(raw)``), mail without orders and
    mail too damaged to read raise MailFormatError with a message for the sender.
    """
    if len(raw) > max_bytes:
        return _unreadable(raw, f"over-size: {len(raw)} bytes, limit {max_bytes}", MailFormatError(
            f"This mail is {_kib(len(raw))} KB, more than the {_kib(max_bytes)} KB we accept.",
            suggestion="Send your orders as plain text, without attachments and without "
            "quoting whole reports."))
    parts, longest = _mime_load(raw)
    if parts > _MAX_PARTS:
        return _unreadable(raw, f"too-many-parts: {parts}, limit {_MAX_PARTS}", MailFormatError(
            f"This mail has {parts} MIME parts, more than the {_MAX_PARTS} we read.",
            suggestion="Send your orders as plain text, without attachments."))
    if longest > _MAX_MIME_HEADER:
        return _unreadable(raw, f"mime-header-too-long: {longest}", MailFormatError(
            f"This mail is damaged (a Content- header is {longest} characters long, more than "
            f"the {_MAX_MIME_HEADER} we read), and no orders could be read from it.",
            suggestion="Send your orders as plain text, without attachments."))
    defects: list[str] = []
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    envelope = _envelope(msg, raw, defects)
    automatic = automatic_reason(msg)
    texts: list[str] = []
    for source, part in _candidates(msg, defects):
        text = _part_text(part, source, defects)
        if automatic is not None:  # never acted on: keep the human-readable notice
            return _inbound(envelope, text, source, automatic, defects)
        if START_LINE.search(text):
            return _inbound(envelope, text, source, automatic, defects)
        texts.append(text)
    if automatic is not None:
        return _inbound(envelope, "", "plain", automatic, defects)
    damage = [words for code, words in _DAMAGE.items() if any(d.startswith(code) for d in defects)]
    if not texts or damage:
        raise MailFormatError(
            f"This mail is damaged ({'; '.join(damage or ['it has no text'])}), and no orders "
            "could be read from it.",
            suggestion=f"Send your orders again as plain text in the mail body, from a line "
            f"like '{START_LINE_EXAMPLE}' to a line END.",
        )
    quoted = any(_QUOTED_START_LINE.search(text) for text in texts)
    raise MailFormatError(
        "No orders found in this mail."
        + (" The only GAME lines in it are quoted (they start with '>'), and quoted lines are "
           "ignored." if quoted else ""),
        suggestion=f"Orders start with a line whose first word is GAME, like "
        f"'{START_LINE_EXAMPLE}', and end with a line END.",
    )


def header_summary(raw: bytes) -> tuple[str, str]:
    """Give (sender, message_id) of any mail, best effort, for replying; never raises."""
    try:
        envelope = _envelope(_head(raw), raw, [])
        return envelope.sender, envelope.message_id
    except Exception:  # a last resort for replies: any failure still yields an id
        return "", _synthetic_id(raw)


def redact_passwords(text: str) -> str:
    """Give the text with the password blanked on every start line (quoted or not)."""
    return "".join(_redact_line(line) for line in text.splitlines(keepends=True))


_REDACTABLE_LINE = re.compile(r"^[ \t>]*(game|password)\b", re.I)
# The secret after PASSWORD: a quoted phrase (closed or not) or one word.
_SECRET = re.compile(
    r"""\bpassword\b[ \t]*[:=]?[ \t]*(?P<secret>"[^"\r\n]*"?|“[^”\r\n]*”?|\S+)""", re.I)


def _redact_line(line: str) -> str:
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
    envelope: _Envelope, text: str, source: Source, automatic: str | None, defects: list[str]
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
    head = _head(raw)
    automatic = automatic_reason(head)
    if automatic is None:
        raise error
    defects = [defect]
    return _inbound(_envelope(head, raw, defects), "", "plain", automatic, defects)


def _mime_load(raw: bytes) -> tuple[int, int]:
    """Give the number of MIME parts and the length of the longest Content-* header."""
    parts = longest = 0
    for found in _CONTENT_HEADER.finditer(raw):
        parts += found.group(1).lower() == b"type"
        longest = max(longest, len(found.group(0)))
    return parts, longest


def _kib(size: int) -> int:
    return -(-size // 1024)


def _head(raw: bytes) -> email.message.EmailMessage:
    end = min((i for i in (raw.find(b"\n\n"), raw.find(b"\r\n\r\n")) if i >= 0),
              default=len(raw))
    # Even a headers-only parse reads Content-Type, quadratic in its length: cut every
    # header to what the parser copes with (our checks only look at the start of values).
    head = _LOGICAL_HEADER.sub(lambda found: found.group(0)[:_MAX_HEADER],
                               raw[: min(end, _HEADER_LIMIT)])
    return email.parser.BytesHeaderParser(policy=email.policy.default).parsebytes(head)


# --- headers -----------------------------------------------------------------------------


def _envelope(msg: email.message.Message, raw: bytes, defects: list[str]) -> _Envelope:
    sender, name = _sender(msg, defects)
    message_id = _ids(_raw_text(msg, "Message-ID"))[:1]
    if not message_id:
        defects.append("message-id-missing: a synthetic id was derived from the raw bytes")
    in_reply_to = _ids(_raw_text(msg, "In-Reply-To"))[:1]
    return _Envelope(
        sender=sender,
        sender_name=name,
        message_id=message_id[0] if message_id else _synthetic_id(raw),
        synthetic=not message_id,
        date=_date(msg, defects),
        subject=_printable(" ".join(_header_text(msg, "Subject").split())),
        in_reply_to=in_reply_to[0] if in_reply_to else None,
        references=tuple(dict.fromkeys(_ids(_raw_text(msg, "References")))),
    )


def _sender(msg: email.message.Message, defects: list[str]) -> tuple[str, str]:
    # From, not Reply-To: the service checks the author against the registered address,
    # and Reply-To names where replies should go, which lists and forwarders rewrite to
    # themselves. Both can be forged; the password is what authenticates.
    for name in ("From", "Sender", "Reply-To"):
        header = _structured(msg, name)
        for address in getattr(header, "addresses", ()):
            if address.username and address.domain:
                if name != "From":
                    defects.append(f"sender-fallback: no usable From, used {name}")
                return _printable(address.addr_spec.lower()), _printable(address.display_name)
    defects.append("sender-missing: no usable From address")
    return "", ""


def _ids(text: str) -> list[str]:
    ids = _MSG_ID.findall(text)
    if not ids and _BARE_MSG_ID.fullmatch(text.strip()):
        ids = [text.strip()]
    return ids


def _date(msg: email.message.Message, defects: list[str]) -> datetime | None:
    header = _structured(msg, "Date")
    when = getattr(header, "datetime", None)
    if header is not None and not isinstance(when, datetime):
        defects.append(f"date-invalid: {str(header)[:60]!r}")
        return None
    if isinstance(when, datetime) and when.tzinfo is None:
        when = when.replace(tzinfo=UTC)  # "-0000" means UTC with no local zone given
    return when


def _header_text(msg: email.message.Message, name: str) -> str:
    header = _structured(msg, name)
    return "" if header is None else str(header)


def _raw_text(msg: email.message.Message, name: str) -> str:
    """Give the first header called ``name`` unfolded, with 8-bit bytes decoded, unparsed."""
    wanted = name.lower()
    for key, value in msg.raw_items():
        if key.lower() == wanted:
            return re.sub(r"\r?\n(?=[ \t])|[\r\n]", "", _fix_surrogates(str(value)))
    return ""


def _structured(msg: email.message.Message, name: str) -> email.headerregistry.BaseHeader | None:
    """Give the first header called ``name`` parsed, cut to a size the parser copes with."""
    if name not in msg:
        return None
    text = _raw_text(msg, name)[:_MAX_HEADER]
    try:
        header: email.headerregistry.BaseHeader = email.policy.default.header_factory(name, text)
    # The stdlib header parser has raised IndexError, AttributeError and others on hostile
    # input in several releases; an unreadable header is just absent.
    except Exception:
        return None
    return header


def _fix_surrogates(value: str) -> str:
    if not _SURROGATE.search(value):
        return value
    return _decode_fallback(value.encode("utf-8", "surrogateescape"))[0]


def _synthetic_id(raw: bytes) -> str:
    return f"sha256-{hashlib.sha256(raw).hexdigest()}@synthetic.pbem.invalid"


def _printable(text: str) -> str:
    """Give the text with any lone surrogate replaced, so it can always be encoded."""
    return text.encode("utf-8", "replace").decode("utf-8")


# --- body --------------------------------------------------------------------------------


def _candidates(
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
        repaired = email.message_from_bytes(head + body, policy=email.policy.default)
        if repaired.is_multipart():
            defects.append(f"mime-boundary-repaired: parts read with boundary "
                           f"{found.group(1).decode('ascii')!r}")
            return repaired
    # Last resort: the raw body as plain text, so unencoded orders can still be found.
    defects.append("mime-multipart-unreadable: no part boundary found; read as plain text")
    return email.message_from_bytes(b"Content-Type: text/plain\n\n" + body,
                                    policy=email.policy.default)


def _part_text(part: email.message.Message, source: Source, defects: list[str]) -> str:
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
    text, used = _decode_fallback(data)
    defects.append(f"{problem}; decoded as {used}")
    return text


def _decodes(data: bytes, codec: str) -> bool:
    try:
        data.decode(codec)
    except UnicodeDecodeError:
        return False
    return True


def _decode_fallback(data: bytes) -> tuple[str, str]:
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
    text = unicodedata.normalize("NFC", _printable(text.translate(_INVISIBLE)))
    lines = [line.rstrip() for line in text.split("\n")]
    return "\n".join(lines).strip("\n")


# --- HTML --------------------------------------------------------------------------------

_BLOCK_TAGS = frozenset({
    "address", "article", "aside", "dd", "div", "dl", "dt", "figure", "footer", "form", "h1",
    "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "section",
    "table", "tbody", "thead", "tfoot", "tr", "ul",
})
_HIDDEN_TAGS = frozenset({"script", "style", "title", "template"})
_HTML_SPACE = re.compile(r"[ \t\r\n\f]+")  # HTML white space; a no-break space stays


class _HtmlText(HTMLParser):
    """Collects the visible text of HTML as lines; blockquotes become '> ' quotes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self._line: list[str] = []
        self._line_depth = 0
        self._depth = 0  # blockquote nesting
        self._hidden = 0
        self._pre = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN_TAGS:
            self._hidden += 1
        elif tag == "br":
            self.end_line(force=True)
        elif tag == "blockquote":
            self.end_line()
            self._depth += 1
        elif tag == "pre":
            self.end_line()
            self._pre += 1
        elif tag in _BLOCK_TAGS:
            self.end_line()
        elif tag in ("td", "th") and self._line:
            self._line.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN_TAGS:
            self._hidden = max(0, self._hidden - 1)
        elif tag == "blockquote":
            self.end_line()
            self._depth = max(0, self._depth - 1)
        elif tag == "pre":
            self.end_line()
            self._pre = max(0, self._pre - 1)
        elif tag in _BLOCK_TAGS:
            self.end_line()

    def handle_data(self, data: str) -> None:
        if self._hidden:
            return
        if self._pre:
            first, *rest = data.split("\n")
            self.add(first)
            for piece in rest:
                self.end_line(force=True)
                self.add(piece)
        else:
            self.add(_HTML_SPACE.sub(" ", data))

    def add(self, text: str) -> None:
        if not self._line:
            text = text if self._pre else text.lstrip(" ")
            self._line_depth = self._depth
        if text:
            self._line.append(text)

    def end_line(self, *, force: bool = False) -> None:
        """End the current line; an empty one only when forced (a <br>)."""
        if self._line or force:
            depth = self._line_depth if self._line else self._depth
            text = "".join(self._line).rstrip()
            self.lines.append(f"{'> ' * depth}{text}".rstrip() if depth else text)
            self._line = []


def html_to_text(html: str) -> str:
    """Give the visible text of an HTML body, one line per block or <br>, quotes as '> '."""
    # This Python's HTMLParser (3.11.7; later security releases fix it) rescans to the end
    # for every '<' that never closes: 120 KB of "<a" took 20 s. After the last '>' no '<'
    # can open a tag, so those become text.
    last = html.rfind(">")
    html = html[: last + 1] + html[last + 1 :].replace("<", "&lt;")
    parser = _HtmlText()
    parser.feed(html)
    parser.close()
    parser.end_line()
    return "\n".join(parser.lines)
