"""Read the envelope of an inbound mail: sender, ids, date and subject, from its headers.

Hostile headers are cut to a size the stdlib parser copes with, and a header it cannot read
counts as absent, with a defect where the service needs to know.
"""

from __future__ import annotations

import email.headerregistry
import email.message
import email.parser
import email.policy
import email.utils
import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime

from pbem.mail.body import decode_fallback, parse_plain_head, printable

# The stdlib header parser is quadratic in a header's length (an 8 KB From took 1.4 s).
_MAX_HEADER = 2000  # characters of From, Subject... read; the rest is cut before parsing
_LOGICAL_HEADER = re.compile(rb"^[^\s:]+[ \t]*:[^\r\n]*(?:\r?\n[ \t][^\r\n]*)*", re.M)
_HEADER_LIMIT = 64 * 1024  # a head larger than this is not a mail we can help
_SURROGATE = re.compile("[\udc80-\udcff]")
_MSG_ID = re.compile(r"<([!-;=?-~]{1,250})>")  # printable ASCII without < and >
_BARE_MSG_ID = re.compile(r"[!-;=?-~]{1,250}")
_FOLD = re.compile(r"\r?\n(?=[ \t])|[\r\n]")  # removed to unfold a header, as are bare line ends
# One mailbox in its plainest form, "Name <local@domain>" or "local@domain": atoms only, no
# quotes, comments, dots in the name, groups or lists. The header registry reads it as the
# address and the name's words joined by one space; anything else goes to the registry.
# Part of the plain-head shortcut whose figure pbem.mail.body._parse_plain gives.
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_PLAIN_ADDRESS = rf"{_ATOM}(?:\.{_ATOM})*@{_ATOM}(?:\.{_ATOM})*"
_PLAIN_MAILBOX = re.compile(
    rf"[ \t]*(?:(?P<name>(?:{_ATOM}[ \t]+)*)<(?P<angled>{_PLAIN_ADDRESS})>"
    rf"|(?P<bare>{_PLAIN_ADDRESS}))[ \t]*")


Heads = dict[str, str]  # the first value of each header, by its lower-cased name


@dataclass(frozen=True)
class Envelope:
    """What a mail's headers say: who sent it, its ids, date and subject."""

    sender: str
    sender_name: str
    message_id: str
    synthetic: bool
    date: datetime | None
    subject: str
    in_reply_to: str | None
    references: tuple[str, ...]


def parse_head(raw: bytes) -> email.message.Message:
    """Give the head of a raw mail parsed (cut to sizes the stdlib parser copes with)."""
    head = _head_bytes(raw)
    plain = parse_plain_head(head)
    if plain is not None:
        return plain
    return email.parser.BytesHeaderParser(policy=email.policy.default).parsebytes(head)


def _head_bytes(raw: bytes) -> bytes:
    """Give the head of a raw mail, without the blank line, each header cut to a size the
    parser copes with."""
    end = min((i for i in (raw.find(b"\n\n"), raw.find(b"\r\n\r\n")) if i >= 0),
              default=len(raw))
    # Even a headers-only parse reads Content-Type, quadratic in its length: cut every
    # header to what the parser copes with (our checks only look at the start of values).
    return _LOGICAL_HEADER.sub(lambda found: found.group(0)[:_MAX_HEADER],
                               raw[: min(end, _HEADER_LIMIT)])


def first_headers(msg: email.message.Message) -> Heads:
    """Give the raw value of the first header of each name, by its lower-cased name: what
    the envelope and the loop guard (``automatic_reason``) read."""
    heads: Heads = {}
    for key, value in msg.raw_items():
        heads.setdefault(key.lower(), value)
    return heads


def read_envelope(heads: Heads, raw: bytes, defects: list[str]) -> Envelope:
    """Give what the first ``heads`` of a mail say (its ``raw`` bytes make up a missing
    Message-ID); what cannot be read is noted in ``defects``."""
    sender, name = _sender(heads, defects)
    message_id = _ids(_raw_text(heads, "Message-ID"))[:1]
    if not message_id:
        defects.append("message-id-missing: a synthetic id was derived from the raw bytes")
    in_reply_to = _ids(_raw_text(heads, "In-Reply-To"))[:1]
    return Envelope(
        sender=sender,
        sender_name=name,
        message_id=message_id[0] if message_id else synthetic_id(raw),
        synthetic=not message_id,
        date=_date(heads, defects),
        subject=printable(" ".join(_subject(heads).split())),
        in_reply_to=in_reply_to[0] if in_reply_to else None,
        references=tuple(dict.fromkeys(_ids(_raw_text(heads, "References")))),
    )


def _sender(heads: Heads, defects: list[str]) -> tuple[str, str]:
    # From, not Reply-To: the service checks the author against the registered address,
    # and Reply-To names where replies should go, which lists and forwarders rewrite to
    # themselves. Both can be forged; the password is what authenticates.
    for name in ("From", "Sender", "Reply-To"):
        for addr_spec, display_name in _mailboxes(heads, name):
            if name != "From":
                defects.append(f"sender-fallback: no usable From, used {name}")
            return printable(addr_spec.lower()), printable(display_name)
    defects.append("sender-missing: no usable From address")
    return "", ""


def _mailboxes(heads: Heads, name: str) -> list[tuple[str, str]]:
    """Give (address, display name) of each usable mailbox in the first header ``name``."""
    text = _value(heads, name)
    if text is None:
        return []
    plain = None if "=?" in text else _PLAIN_MAILBOX.fullmatch(text)
    if plain is not None:
        return [(plain["angled"] or plain["bare"], " ".join((plain["name"] or "").split()))]
    header = _structured(name, text)
    return [(address.addr_spec, address.display_name)
            for address in getattr(header, "addresses", ())
            if address.username and address.domain]


def _ids(text: str) -> list[str]:
    ids = _MSG_ID.findall(text)
    if not ids and _BARE_MSG_ID.fullmatch(text.strip()):
        ids = [text.strip()]
    return ids


def _date(heads: Heads, defects: list[str]) -> datetime | None:
    text = _value(heads, "Date")
    if text is None:
        return None
    try:  # what the header registry's Date header does, without its re-formatting
        when = email.utils.parsedate_to_datetime(text)
    except ValueError:
        defects.append(f"date-invalid: {text[:60]!r}")
        return None
    # Date parsing has raised other errors on hostile input in several releases; such a
    # Date is just absent (as the header registry, which we used before, made it).
    except Exception:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)  # "-0000" means UTC with no local zone given
    return when


def _subject(heads: Heads) -> str:
    text = _value(heads, "Subject")
    if text is None:
        return ""
    if "=?" not in text:  # the header registry would give it back unchanged
        return text
    header = _structured("Subject", text)
    return "" if header is None else str(header)


def _raw_text(heads: Heads, name: str) -> str:
    """Give the first header called ``name`` unfolded, with 8-bit bytes decoded, unparsed."""
    return _FOLD.sub("", _fix_surrogates(str(heads.get(name.lower(), ""))))


def _value(heads: Heads, name: str) -> str | None:
    """Give the first header called ``name`` as ``_raw_text`` does, cut to a size the parser
    copes with, or None without one."""
    return _raw_text(heads, name)[:_MAX_HEADER] if name.lower() in heads else None


def _structured(name: str, text: str) -> email.headerregistry.BaseHeader | None:
    """Give a header's text parsed by the header registry, or None when that fails."""
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
    return decode_fallback(value.encode("utf-8", "surrogateescape"))[0]


def synthetic_id(raw: bytes) -> str:
    """Give the Message-ID made up from the raw bytes for a mail that has none."""
    return f"sha256-{hashlib.sha256(raw).hexdigest()}@synthetic.pbem.invalid"
