"""The shortcuts parsing and composing take agree with the stdlib paths they stand in for.

Inbound headers in their plainest forms skip the header registry, and outgoing mail is
written directly rather than by the email package's generator; these properties pin that the
results are the same, so a Python release that changes either side fails here first.
"""

from __future__ import annotations

import base64
import binascii
import email.headerregistry
import email.message
import email.parser
import email.policy
import email.utils
from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.mail.automatic import OWN_HEADER, OWN_MARK_HEADER
from pbem.mail.body import _parse_plain, _ReadOnce, parse_message, parse_plain_head
from pbem.mail.compose import (
    _MAX_LINE,
    _POLICY,
    OutgoingMail,
    _angled,
    _boundary,
    _header_text,
    _one_line,
    compose,
)
from pbem.mail.envelope import _PLAIN_MAILBOX, _date, _head_bytes, _mailboxes, _subject

FAST = settings(max_examples=300, deadline=None)
ATEXT = "abcXYZ019!#$%&'*+/=?^_`{|}~-"
ATOM = st.text(ATEXT, min_size=1, max_size=6)
DOT_ATOM = st.lists(ATOM, min_size=1, max_size=3).map(".".join)
ADDRESS = st.tuples(DOT_ATOM, DOT_ATOM).map("@".join)
SPACE = st.sampled_from(["", " ", "  ", "\t"])
MAILBOX = st.one_of(
    st.tuples(SPACE, ADDRESS, SPACE).map("".join),
    st.tuples(SPACE, st.lists(st.tuples(ATOM, st.sampled_from([" ", "  ", "\t", " \t "])),
                              max_size=3).map(lambda words: "".join(a + s for a, s in words)),
              ADDRESS, SPACE).map(lambda p: f"{p[0]}{p[1]}<{p[2]}>{p[3]}"),
)


def registry_mailboxes(value: str) -> list[tuple[str, str]]:
    header = email.policy.default.header_factory("From", value)
    assert isinstance(header, email.headerregistry.AddressHeader)
    return [(a.addr_spec, a.display_name) for a in header.addresses if a.username and a.domain]


@FAST
@given(MAILBOX)
def test_plain_mailboxes_read_as_the_registry_reads_them(value: str) -> None:
    assert "=?" in value or _PLAIN_MAILBOX.fullmatch(value)
    assert _mailboxes({"from": value}, "From") == registry_mailboxes(value)


@FAST
@given(st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\r\n"),
               max_size=80))
def test_subjects_read_as_the_registry_reads_them(value: str) -> None:
    assert _subject({"subject": value}) == str(
        email.policy.default.header_factory("Subject", value))


@FAST
@given(st.one_of(
    st.datetimes(timezones=st.timezones()).map(
        lambda d: d.strftime("%a, %d %b %Y %H:%M:%S %z")),
    st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\r\n"),
            max_size=40)))
def test_dates_read_as_the_registry_reads_them(value: str) -> None:
    defects: list[str] = []
    when = _date({"date": value}, defects)
    try:
        header = email.policy.default.header_factory("Date", value)
    except Exception:  # the registry raising: the Date counts as absent, without a defect
        assert when is None and not defects
        return
    assert isinstance(header, email.headerregistry.DateHeader)
    expected = header.datetime
    if expected is not None and expected.tzinfo is None:
        expected = expected.replace(tzinfo=UTC)
    assert when == expected and (when is None) == bool(defects)


def test_each_distinct_header_is_parsed_once_per_mail() -> None:
    raw = (b'Content-Type: multipart/mixed; boundary="b"\n\n--b\n'
           b'Content-Type: text/plain; charset=utf-8\n\nGAME x\n--b--\n')
    msg = parse_message(raw)
    part = msg.get_payload()[0]
    assert isinstance(part, email.message.Message)
    assert part.get("Content-Type") is part.get("Content-Type")
    assert part.get_content_charset() == "utf-8" and msg.get_content_type() == "multipart/mixed"


HEADER_NAME = st.one_of(
    st.sampled_from(["From", "To", "Subject", "Content-Type", "Content-Transfer-Encoding",
                     "MIME-Version", "Received", "X-Mailer", "From ", "X Bad", "", "Sübject"]),
    st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=8))
CONTENT_TYPE = st.sampled_from([
    "text/plain; charset=utf-8", "multipart/mixed; boundary=b", "TEXT/HTML", "message/rfc822",
    "Message/Delivery-Status", "multipart/alternative", "text/plain; format=flowed", "x"])
HEADER_VALUE = st.one_of(
    CONTENT_TYPE,
    st.sampled_from(["quoted-printable", "base64", "", "  x ", "Ann <ann@example.org>",
                     "=?utf-8?q?=C3=A9?="]),
    st.binary(max_size=30).filter(lambda b: b"\n" not in b and b"\r" not in b).map(
        lambda b: b.decode("latin-1")),
    st.text(st.sampled_from("ab :;\t\x0b\x0c\x1c\x1d\x1e\r\x00é"), max_size=12))
LINE_END = st.sampled_from(["\n", "\r\n", "\n", "\r\n", "\r"])
HEAD_LINE = st.tuples(
    st.one_of(st.tuples(HEADER_NAME, st.sampled_from([":", ": ", ":\t", " :"]), HEADER_VALUE)
              .map("".join),
              st.tuples(st.sampled_from([" ", "\t"]), HEADER_VALUE).map("".join),
              CONTENT_TYPE.map(lambda value: f"Content-Type: {value}")),
    LINE_END).map("".join)
BODY = st.binary(max_size=60) | st.sampled_from([b"GAME g\r\nEND\r\n", b"a\rb\n\nc", b""])
# Heads of any lines, and heads of plain lines only (the paths taken for most mail).
PLAIN_LINE = st.tuples(
    st.one_of(HEADER_NAME.filter(lambda n: n.isascii() and " " not in n and ":" not in n
                                 and n != ""), st.just("Content-Type")),
    st.sampled_from([": ", ":"]), HEADER_VALUE.filter(lambda v: "\r" not in v),
    st.lists(st.sampled_from(["\n x", "\n\ty z", "\r\n continued"]), max_size=2).map("".join),
).map("".join)
RAW_MAIL = st.one_of(
    st.tuples(st.lists(HEAD_LINE, max_size=6),
              st.sampled_from(["\n", "\r\n", "", "\r", "x\n"]), BODY).map(
        lambda m: "".join(m[0]).encode("latin-1") + m[1].encode("ascii") + m[2]),
    st.tuples(st.lists(PLAIN_LINE, min_size=1, max_size=6), st.sampled_from(["\n", "\r\n"]),
              BODY).map(lambda m: (m[1].join(m[0]) + m[1] * 2).encode("latin-1") + m[2]),
)


def parsed_state(msg: email.message.Message) -> dict[str, object]:
    """Give all a parsed message holds but its policy, its defects by type."""
    state = {k: v for k, v in vars(msg).items() if k not in ("policy", "defects")}
    return {**state, "defects": [type(d) for d in msg.defects]}


@settings(max_examples=500, deadline=None)
@given(RAW_MAIL)
def test_a_plain_head_parses_as_the_parser_parses_it(raw: bytes) -> None:
    policy = email.policy.default.clone(header_factory=_ReadOnce())
    plain = _parse_plain(raw, policy)
    if plain is not None:
        parsed = email.message_from_bytes(raw, policy=email.policy.default.clone(
            header_factory=_ReadOnce()))
        assert parsed_state(plain) == parsed_state(parsed)


@settings(max_examples=500, deadline=None)
@given(RAW_MAIL)
def test_a_plain_head_alone_parses_as_the_header_parser_parses_it(raw: bytes) -> None:
    head = _head_bytes(raw)
    plain = parse_plain_head(head)
    if plain is not None:
        parsed = email.parser.BytesHeaderParser(policy=email.policy.default).parsebytes(head)
        assert parsed_state(plain) == parsed_state(parsed)


def test_an_order_mail_takes_the_plain_head_path() -> None:
    policy = email.policy.default.clone(header_factory=_ReadOnce())
    for end in (b"\n", b"\r\n"):
        raw = end.join([b"From: Ann <ann@example.org>", b"Subject: orders",
                        b"Content-Type: text/plain;", b' charset="utf-8"', b"",
                        b"GAME g PLAYER Ann PASSWORD x", b"END", b""])
        assert _parse_plain(raw, policy) is not None
        assert parse_plain_head(_head_bytes(raw)) is not None
        for other in (b"Content-Type: multipart/mixed; boundary=b", b"From nobody",
                      b"Subject : x", b" folded first", b"Subject: a\rb"):
            assert _parse_plain(other + end + raw, policy) is None
            if not other.startswith(b"Content-Type"):  # a head alone may be multipart
                assert parse_plain_head(_head_bytes(other + end + raw)) is None


def reference_compose(mail: OutgoingMail) -> bytes:
    """Give the mail as the email package writes it: the Message tree compose used to build,
    flattened by the compat32 generator with compose's policy."""
    body = reference_text_part(mail.text, "plain")
    if mail.html is not None or mail.attachments:
        boundary = _boundary(mail)
        if mail.html is not None:
            body = reference_multipart("alternative", [
                body, reference_text_part(mail.html, "html")],
                boundary + ("1" if mail.attachments else "0"))
        if mail.attachments:
            body = reference_multipart("mixed", [
                body, *(reference_attachment(*a) for a in mail.attachments)], boundary + "0")
    msg = email.message.Message()
    msg["From"] = email.utils.formataddr((_one_line(mail.from_name), mail.from_addr), "utf-8")
    msg["To"] = email.utils.formataddr((_one_line(mail.to_name), mail.to), "utf-8")
    msg["Subject"] = _header_text(mail.subject, "Subject")
    msg["Date"] = email.utils.format_datetime(mail.date)
    msg["Message-ID"] = _angled(mail.message_id)
    if mail.in_reply_to:
        msg["In-Reply-To"] = _angled(mail.in_reply_to)
    thread = (*mail.references, *([mail.in_reply_to] if mail.in_reply_to else []))
    if thread:
        msg["References"] = " ".join(_angled(ref) for ref in dict.fromkeys(thread))
    msg["Auto-Submitted"] = "auto-replied" if mail.in_reply_to else "auto-generated"
    msg["X-Auto-Response-Suppress"] = "OOF, AutoReply"
    if mail.game:
        msg[OWN_HEADER] = _header_text(mail.game, OWN_HEADER)
    else:
        msg[OWN_MARK_HEADER] = "1"
    for name, value in mail.headers:
        msg[name] = _header_text(value, name)
    msg["MIME-Version"] = "1.0"
    for name, value in body.items():
        msg[name] = value
    msg.set_payload(body.get_payload())
    return msg.as_bytes(policy=_POLICY)


def reference_text_part(text: str, subtype: str) -> email.message.Message:
    text = "\n".join(text.splitlines()) + "\n"
    part = email.message.Message()
    part["Content-Type"] = f'text/{subtype}; charset="utf-8"'
    if text.isascii() and max(map(len, text.splitlines()), default=0) <= _MAX_LINE:
        part["Content-Transfer-Encoding"] = "7bit"
        part.set_payload(text)
    else:
        part["Content-Transfer-Encoding"] = "quoted-printable"
        part.set_payload(binascii.b2a_qp(text.encode("utf-8"), istext=True).decode("ascii"))
    return part


def reference_multipart(subtype: str, parts: list[email.message.Message],
                        boundary: str) -> email.message.Message:
    whole = email.message.Message()
    whole["Content-Type"] = f'multipart/{subtype}; boundary="{boundary}"'
    for part in parts:
        whole.attach(part)
    return whole


def reference_attachment(filename: str, mimetype: str, content: bytes) -> email.message.Message:
    part = email.message.Message()
    part["Content-Type"] = mimetype
    part["Content-Transfer-Encoding"] = "base64"
    name: str | tuple[str, str, str] = filename if filename.isascii() else ("utf-8", "",
                                                                          filename)
    part.add_header("Content-Disposition", "attachment", filename=name)
    part.set_payload(base64.encodebytes(content).decode("ascii"))
    return part


# Text with every kind of line end (str.splitlines' too), long lines, and what QP escapes.
TEXT = st.lists(st.one_of(
    st.sampled_from(["GAME g", "", "x" * 90, "y " * 45, "ümlaut", "9\xa0MB", "a\rb", "c\r\nd",
                     "=", ".", "From me", "tab\t", "end ", "\u2028", "\x85", "\x0b", "\x1c",
                     "\U0001f600"]),
    st.text(max_size=100)), max_size=8).map("\n".join)
PHRASE = st.one_of(st.sampled_from(["", "Illuminati PBEM", "Zoë Ünal", 'A "quoted" name',
                                    "Jean-Loup, l'Ancien", "x" * 80, "a\nb", "=?utf-8?q?x?="]),
                   st.text(max_size=90))
FILENAME = st.one_of(st.sampled_from(["view.json", 'a "b".txt', "back\\slash.svg",
                                      "carte é.svg", "x" * 90]),
                     st.text(min_size=1, max_size=40))
MIMETYPE = st.sampled_from(["application/octet-stream", "application/json", "text/plain",
                            "image/svg+xml; charset=utf-8", "message/rfc822",
                            "multipart/mixed", "Text/HTML", "application/" + "x" * 80])
REF = st.sampled_from(["a@b", "<x.y@example.org>", "CAF7xh3M=p+Q0gX5@mail.gmail.com", "x" * 80])
HEADER = st.tuples(st.sampled_from(["X-Pbem-Turn", "List-Id", "X-" + "y" * 70]), PHRASE)


@settings(max_examples=500, deadline=None)
@given(text=TEXT, html=st.one_of(st.none(), TEXT), subject=PHRASE, to_name=PHRASE,
       from_name=PHRASE, game=st.one_of(st.none(), PHRASE),
       attachments=st.lists(st.tuples(FILENAME, MIMETYPE, st.binary(max_size=120)), max_size=2),
       in_reply_to=st.one_of(st.none(), REF), references=st.lists(REF, max_size=3),
       headers=st.lists(HEADER, max_size=2), hours=st.integers(-12, 12))
def test_composed_mail_is_written_as_the_email_package_writes_it(
        text: str, html: str | None, subject: str, to_name: str, from_name: str,
        game: str | None, attachments: list[tuple[str, str, bytes]], in_reply_to: str | None,
        references: list[str], headers: list[tuple[str, str]], hours: int) -> None:
    mail = OutgoingMail(to="ann@example.org", to_name=to_name, from_addr="pbem@example.org",
                        from_name=from_name, subject=subject, text=text, html=html,
                        attachments=tuple(attachments), message_id="<m@example.org>",
                        in_reply_to=in_reply_to, references=tuple(references),
                        date=datetime(2025, 6, 2, tzinfo=timezone(timedelta(hours=hours))),
                        game=game, headers=tuple(headers))
    assert compose(mail) == reference_compose(mail)


LINES = st.lists(st.sampled_from(["GAME g", "", "x" * 90, "ümlaut", "a\rb", "c\r\nd", "=", "."]),
                 max_size=6).map("\n".join)


@FAST
@given(LINES, st.one_of(st.none(), LINES), st.lists(st.binary(max_size=200), max_size=2))
def test_composed_multiparts_have_boundaries_by_depth(text: str, html: str | None,
                                                     attached: list[bytes]) -> None:
    mail = OutgoingMail(to="ann@example.org", from_addr="pbem@example.org", subject="s",
                        text=text, html=html, message_id="<m@example.org>",
                        date=datetime(2025, 6, 2, tzinfo=UTC),
                        attachments=tuple((f"f{i}.bin", "application/octet-stream", data)
                                          for i, data in enumerate(attached)))
    again = email.message_from_bytes(compose(mail), policy=_POLICY)
    # The outer multipart's boundary ends in _0, one inside it in _1.
    if html is not None or attached:
        assert again.get_boundary("").endswith("_0")
    if html is not None and attached:
        inner = again.get_payload(0)
        assert isinstance(inner, email.message.Message)
        assert inner.get_boundary("").endswith("_1")
