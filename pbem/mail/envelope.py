"""Read the envelope of an inbound mail: sender, ids, date and subject, from its headers.

Hostile headers are cut to a size the stdlib parser copes with, and a header it cannot read
counts as absent, with a defect where the service needs to know.
"""

from __future__ import annotations

import email.headerregistry
import email.message
import email.parser
import email.policy
import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime

from pbem.mail.body import _decode_fallback, _printable

# The stdlib header parser is quadratic in a header's length (an 8 KB From took 1.4 s).
_MAX_HEADER = 2000  # characters of From, Subject... read; the rest is cut before parsing
_LOGICAL_HEADER = re.compile(rb"^[^\s:]+[ \t]*:[^\r\n]*(?:\r?\n[ \t][^\r\n]*)*", re.M)
_HEADER_LIMIT = 64 * 1024  # a head larger than this is not a mail we can help
_SURROGATE = re.compile("[\udc80-\udcff]")
_MSG_ID = re.compile(r"<([!-;=?-~]{1,250})>")  # printable ASCII without < and >
_BARE_MSG_ID = re.compile(r"[!-;=?-~]{1,250}")


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


def _head(raw: bytes) -> email.message.EmailMessage:
    end = min((i for i in (raw.find(b"\n\n"), raw.find(b"\r\n\r\n")) if i >= 0),
              default=len(raw))
    # Even a headers-only parse reads Content-Type, quadratic in its length: cut every
    # header to what the parser copes with (our checks only look at the start of values).
    head = _LOGICAL_HEADER.sub(lambda found: found.group(0)[:_MAX_HEADER],
                               raw[: min(end, _HEADER_LIMIT)])
    return email.parser.BytesHeaderParser(policy=email.policy.default).parsebytes(head)


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
