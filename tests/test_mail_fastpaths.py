"""The shortcuts parsing and composing take agree with the stdlib paths they stand in for.

Inbound headers in their plainest forms skip the header registry, and outgoing mail is
written by a generator that writes a body in one piece; these properties pin that the
results are the same, so a Python release that changes either side fails here first.
"""

from __future__ import annotations

import email.headerregistry
import email.message
import email.policy
import io
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.mail.body import _parse
from pbem.mail.compose import _POLICY, OutgoingMail, _Generator, compose
from pbem.mail.envelope import _PLAIN_MAILBOX, _date, _mailboxes, _subject

FAST = settings(max_examples=300, deadline=None)
ATEXT = "abcXYZ019!#$%&'*+/=?^_`{|}~-"
ATOM = st.text(ATEXT, min_size=1, max_size=6)
DOT_ATOM = st.lists(ATOM, min_size=1, max_size=3).map(".".join)
ADDRESS = st.tuples(DOT_ATOM, DOT_ATOM).map("@".join)
SPACE = st.sampled_from(["", " ", "  ", "\t"])
MAILBOX = st.one_of(
    st.tuples(SPACE, ADDRESS, SPACE).map("".join),
    st.tuples(SPACE, st.lists(ATOM, max_size=3).map(" ".join), st.sampled_from([" ", "\t"]),
              ADDRESS, SPACE).map(lambda p: f"{p[0]}{p[1]}{p[2]}<{p[3]}>{p[4]}"),
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
    msg = _parse(raw)
    part = msg.get_payload()[0]
    assert isinstance(part, email.message.Message)
    assert part.get("Content-Type") is part.get("Content-Type")
    assert part.get_content_charset() == "utf-8" and msg.get_content_type() == "multipart/mixed"


def written(msg: email.message.Message) -> bytes:
    out = io.BytesIO()
    _Generator(out, mangle_from_=False, policy=_POLICY).flatten(msg)
    return out.getvalue()


def test_every_line_end_becomes_crlf_as_the_generator_writes_it() -> None:
    msg = email.message.Message()
    msg["Content-Type"] = "text/plain"
    msg.set_payload("a\rb\r\nc\nd\r\r\ne\n\n")
    assert written(msg) == msg.as_bytes(policy=_POLICY)
    assert written(msg).endswith(b"\r\n\r\na\r\nb\r\nc\r\nd\r\n\r\ne\r\n\r\n")


LINES = st.lists(st.sampled_from(["GAME g", "", "x" * 90, "ümlaut", "a\rb", "c\r\nd", "=", "."]),
                 max_size=6).map("\n".join)


@FAST
@given(LINES, st.one_of(st.none(), LINES), st.lists(st.binary(max_size=200), max_size=2))
def test_composed_mail_is_written_as_as_bytes_writes_it(text: str, html: str | None,
                                                 attached: list[bytes]) -> None:
    mail = OutgoingMail(to="ann@example.org", from_addr="pbem@example.org", subject="s",
                        text=text, html=html, message_id="<m@example.org>",
                        date=datetime(2025, 6, 2, tzinfo=UTC),
                        attachments=tuple((f"f{i}.bin", "application/octet-stream", data)
                                          for i, data in enumerate(attached)))
    again = email.message_from_bytes(compose(mail), policy=_POLICY)
    assert written(again) == again.as_bytes(policy=_POLICY)
    # The outer multipart's boundary ends in _0, one inside it in _1.
    if html is not None or attached:
        assert again.get_boundary("").endswith("_0")
    if html is not None and attached:
        inner = again.get_payload(0)
        assert isinstance(inner, email.message.Message)
        assert inner.get_boundary("").endswith("_1")
