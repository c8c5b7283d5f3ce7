"""Inbound mail: golden raw mails from real clients' shapes, unit cases, and fuzzing.

Regenerate the goldens only on purpose:
``PBEM_UPDATE_GOLDENS=1 .venv/bin/pytest tests/mail/test_inbound.py`` rewrites every
``tests/mails/NAME.expected.json`` from the current output (keeping its ``call``
arguments); review the diff before committing it.
"""

from __future__ import annotations

import json
import random
import time
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import REGENERATE, REGENERATE_GOLDENS, TESTS

from pbem.errors import MailFormatError
from pbem.mail.inbound import (
    START_LINE,
    InboundMail,
    header_summary,
    html_to_text,
    parse_mail,
    redact_passwords,
)

MAILS = TESTS / "mails"
GOLDENS = sorted(MAILS.glob("*.eml"))


def as_json(mail: InboundMail) -> dict[str, Any]:
    """Give the mail's fields as JSON values; text as a list of lines, to read in a diff."""
    return {
        "sender": mail.sender,
        "sender_name": mail.sender_name,
        "message_id": mail.message_id,
        "message_id_synthetic": mail.message_id_synthetic,
        "date": mail.date.isoformat() if mail.date else None,
        "subject": mail.subject,
        "in_reply_to": mail.in_reply_to,
        "references": list(mail.references),
        "source": mail.source,
        "automatic": mail.automatic,
        "defects": list(mail.defects),
        "text": mail.text.split("\n"),
    }


def mail(head: str, body: str | bytes = "GAME illu1 PLAYER a PASSWORD b\nEND\n") -> bytes:
    """Give a raw mail from a header block and a body, with the usual headers filled in."""
    defaults = {
        "From": "Alice <alice@example.org>",
        "To": "illuminati@pbem.example.org",
        "Message-ID": "<m1@example.org>",
        "Date": "Tue, 3 Jun 2025 10:00:00 +0200",
        "Subject": "orders",
    }
    given_names = {line.split(":", 1)[0].lower() for line in head.splitlines() if ":" in line}
    lines = [f"{k}: {v}" for k, v in defaults.items() if k.lower() not in given_names]
    top = "\n".join([*lines, *([head] if head else [])]).encode("utf-8", "surrogateescape")
    data = body.encode("utf-8") if isinstance(body, str) else body
    return top + b"\n\n" + data


# --- goldens -----------------------------------------------------------------------------


@pytest.mark.parametrize("path", GOLDENS, ids=[p.stem for p in GOLDENS])
def test_golden_mail(path: Path) -> None:
    """Each hand-shaped client mail gives the recorded fields, or the recorded error."""
    expected_path = path.with_suffix(".expected.json")
    expected = json.loads(expected_path.read_text("utf-8")) if expected_path.exists() else {}
    call = expected.get("call", {})
    try:
        actual: dict[str, Any] = as_json(parse_mail(path.read_bytes(), **call))
    except MailFormatError as exc:
        actual = {"error": type(exc).__name__, "message": str(exc)}
    if REGENERATE:
        expected_path.write_text(
            json.dumps({**({"call": call} if call else {}), **actual}, indent=2,
                       ensure_ascii=False) + "\n", "utf-8")
        pytest.skip("golden rewritten; review the diff")
    assert expected, f"{expected_path.name} is missing: run with {REGENERATE_GOLDENS}=1"
    if "error" in expected:
        assert actual.get("error") == expected["error"], actual
        assert expected["message"] in actual["message"]
        return
    for key, value in expected.items():
        if key != "call":
            assert actual[key] == value, key


def test_goldens_cover_every_client_shape() -> None:
    """The corpus keeps the cases the mail layer promises to handle."""
    names = {p.stem for p in GOLDENS}
    for needed in ("gmail_top_posting", "apple_mail_inline_reply", "thunderbird_html_only",
                   "outlook_top_posting", "apple_mail_quoted_printable", "latin1_8bit",
                   "gmail_signature_after_end", "gmail_forward_inline",
                   "thunderbird_forward_attachment", "outlook_android_base64",
                   "apple_mail_txt_attachment", "thunderbird_flowed", "ios_mail_flowed_delsp",
                   "mutt_unknown_charset", "broken_boundary", "oversize", "no_orders",
                   "exchange_out_of_office", "postfix_bounce", "damaged_base64"):
        assert needed in names


@pytest.mark.parametrize("path", GOLDENS, ids=[p.stem for p in GOLDENS])
def test_header_summary_agrees_with_parse(path: Path) -> None:
    """The best-effort summary names the same sender and Message-ID as the full parse."""
    raw = path.read_bytes()
    sender, message_id, synthetic = header_summary(raw)
    try:
        parsed = parse_mail(raw)
    except MailFormatError:
        assert sender and message_id
        return
    assert (sender, message_id, synthetic) == (parsed.sender, parsed.message_id,
                                               parsed.message_id_synthetic)
    assert parsed.reply_to == (None if synthetic else message_id)


# --- headers -----------------------------------------------------------------------------


def test_start_line_is_the_first_word_game_outside_quotes() -> None:
    assert START_LINE.search("x\n  game illu1 PLAYER a\n")
    assert START_LINE.search("Game illu1")
    assert not START_LINE.search("> GAME illu1")
    assert not START_LINE.search("GAMES illu1\nGAME\nthe GAME illu1")


def test_sender_is_from_not_reply_to() -> None:
    """From names the author, who must be the registered player; Reply-To does not."""
    parsed = parse_mail(mail('From: "Bob B." <Bob.B@Example.ORG>\nReply-To: list@lists.example'))
    assert (parsed.sender, parsed.sender_name) == ("bob.b@example.org", "Bob B.")
    assert parsed.defects == ()


def test_sender_falls_back_to_reply_to_with_a_defect() -> None:
    parsed = parse_mail(mail("From: undisclosed\nReply-To: Carol <carol@example.org>"))
    assert parsed.sender == "carol@example.org"
    assert any(d.startswith("sender-fallback") for d in parsed.defects)


def test_missing_sender_is_empty_with_a_defect() -> None:
    parsed = parse_mail(mail("From: <>"))
    assert parsed.sender == ""
    assert any(d.startswith("sender-missing") for d in parsed.defects)


def test_missing_message_id_gets_a_stable_synthetic_one() -> None:
    raw = mail("Message-ID: ")
    first, again = parse_mail(raw), parse_mail(raw)
    assert first.message_id_synthetic
    assert first.message_id == again.message_id
    assert first.message_id.startswith("sha256-")
    assert parse_mail(raw + b"x").message_id != first.message_id
    assert header_summary(raw) == (first.sender, first.message_id, True)
    assert first.reply_to is None  # an answer refers to no made-up id


def test_message_ids_are_stripped_of_brackets_and_comments() -> None:
    parsed = parse_mail(mail("Message-ID: <abc@x> (from gw)\nIn-Reply-To: Your mail <r1@y>\n"
                             "References: <r0@y>\n <r1@y> <r0@y>"))
    assert parsed.message_id == "abc@x"
    assert parsed.in_reply_to == "r1@y"
    assert parsed.references == ("r0@y", "r1@y")


def test_eight_bit_headers_are_decoded_not_fatal() -> None:
    raw = mail("From: J\udcc3\udcbcrgen <j@example.de>\nSubject: caf\udce9 \udce0 la carte")
    parsed = parse_mail(raw)
    assert parsed.sender_name == "Jürgen"  # raw UTF-8
    assert parsed.subject == "café à la carte"  # raw Latin-1
    parsed.subject.encode("utf-8")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Tue, 3 Jun 2025 10:00:00 +0200", datetime(2025, 6, 3, 8, 0, tzinfo=UTC)),
        ("Tue, 3 Jun 2025 10:00:00 -0000", datetime(2025, 6, 3, 10, 0, tzinfo=UTC)),
        ("Tue, 3 Jun 2025 10:00:00 GMT", datetime(2025, 6, 3, 10, 0, tzinfo=UTC)),
    ],
)
def test_dates_are_timezone_aware(value: str, expected: datetime) -> None:
    when = parse_mail(mail(f"Date: {value}")).date
    assert when == expected
    assert when is not None and when.tzinfo is not None


def test_bad_or_missing_date_is_none() -> None:
    parsed = parse_mail(mail("Date: yesterday, around noon"))
    assert parsed.date is None
    assert any(d.startswith("date-invalid") for d in parsed.defects)
    assert parse_mail(mail("Date: ")).date is None


# --- body --------------------------------------------------------------------------------


def test_line_ends_are_normalized() -> None:
    head = mail("", b"").replace(b"\n", b"\r\n")
    raw = head + b"GAME illu1 PLAYER a\r\nattack\rEND  \r\n\r\n\r\n"
    assert parse_mail(raw).text == "GAME illu1 PLAYER a\nattack\nEND"


def test_invisible_characters_do_not_hide_the_start_line() -> None:
    body = "\ufeff\u00a0GAME\u00a0illu1 PLAYER a\u200b\nEND\n".encode()
    parsed = parse_mail(mail("Content-Type: text/plain; charset=utf-8", body))
    assert parsed.text == " GAME illu1 PLAYER a\nEND"


def test_flowed_soft_breaks_are_joined_and_signature_kept() -> None:
    body = ("GAME illu1 PLAYER a PASSWORD b\nattack Gun Lobby \nto control\n"
            "> quoted soft \n>> deeper\n-- \nsig\n")
    parsed = parse_mail(mail("Content-Type: text/plain; charset=us-ascii; format=flowed", body))
    assert parsed.text.split("\n") == [
        "GAME illu1 PLAYER a PASSWORD b", "attack Gun Lobby to control",
        "> quoted soft",  # depth changed: the paragraph ends there (RFC 3676, 4.5)
        ">> deeper", "--", "sig"]


def test_flowed_delsp_removes_the_soft_break_space() -> None:
    body = "GAME illu1 PLAYER a\nattack Gun Lob \nby now\nEND\n"
    ctype = "Content-Type: text/plain; format=Flowed; DelSp=Yes"
    assert "attack Gun Lobby now" in parse_mail(mail(ctype, body)).text
    assert "attack Gun Lob by now" in parse_mail(mail("Content-Type: text/plain; format=flowed",
                                                      body)).text


def test_fixed_format_keeps_trailing_space_lines_apart() -> None:
    body = "GAME illu1 PLAYER a\nattack Gun Lobby \nto control\nEND\n"
    assert "attack Gun Lobby\nto control" in parse_mail(mail("", body)).text


def test_html_is_converted_with_quotes_and_without_scripts() -> None:
    html = ("<html><head><title>t</title><style>p {}</style></head><body>"
            "<div>GAME illu1 &amp; more<br>line&nbsp;2</div><div><br></div>"
            "<script>var GAME = 1;</script><table><tr><td>a</td><td>b</td></tr></table>"
            "<blockquote>one<blockquote>two</blockquote>back</blockquote>"
            "<pre>  kept   spacing\nsecond</pre><ul><li>x</li><li>y</li></ul></body></html>")
    assert html_to_text(html).split("\n") == [
        "GAME illu1 & more", "line\xa02", "", "a b", "> one", "> > two", "> back",
        "  kept   spacing", "second", "x", "y"]


@pytest.mark.parametrize("piece", ["<a", "</", "<?", "<![CDATA["])
def test_html_that_never_closes_a_tag_is_text_and_fast(piece: str) -> None:
    """Python 3.11.7's HTMLParser is quadratic here (about 20 s for 120 KB of '<a')."""
    started = time.perf_counter()
    assert html_to_text("<p>GAME x</p>" + piece * 60000) == "GAME x\n" + piece * 60000
    assert time.perf_counter() - started < 3


def test_plain_text_is_preferred_to_html() -> None:
    body = ("--b\nContent-Type: text/plain\n\nGAME illu1 plain\nEND\n"
            "--b\nContent-Type: text/html\n\n<p>GAME illu1 html</p>\n--b--\n")
    parsed = parse_mail(mail('Content-Type: multipart/alternative; boundary="b"', body))
    assert (parsed.source, parsed.text) == ("plain", "GAME illu1 plain\nEND")


def test_html_is_used_when_the_plain_part_has_no_orders() -> None:
    body = ("--b\nContent-Type: text/plain\n\n(empty)\n"
            "--b\nContent-Type: text/html\n\n<p>GAME illu1 html</p><p>END</p>\n--b--\n")
    parsed = parse_mail(mail('Content-Type: multipart/alternative; boundary="b"', body))
    assert (parsed.source, parsed.text) == ("html", "GAME illu1 html\nEND")


def test_body_orders_win_over_attached_orders() -> None:
    body = ("--b\nContent-Type: text/plain\n\nGAME illu1 body\nEND\n"
            "--b\nContent-Type: application/octet-stream\nContent-Disposition: attachment; "
            "filename=\"ORDERS.TXT\"\n\nGAME illu1 file\nEND\n--b--\n")
    parsed = parse_mail(mail('Content-Type: multipart/mixed; boundary="b"', body))
    assert (parsed.source, parsed.text) == ("plain", "GAME illu1 body\nEND")
    attached = parse_mail(mail('Content-Type: multipart/mixed; boundary="b"',
                               body.replace("GAME illu1 body", "see file")))
    assert (attached.source, attached.text) == ("attachment", "GAME illu1 file\nEND")


@pytest.mark.parametrize(
    ("ctype", "body", "defect"),
    [
        ("text/plain; charset=utf-8", "GAME \xe9t\xe9\nEND\n".encode("latin-1"),
         "charset-mismatch"),
        ("text/plain; charset=x-klingon", "GAME \u201cok\u201d\n".encode("cp1252"),
         "charset-unknown"),
        ("text/plain", "GAME caf\xe9\n".encode(), "charset-missing"),
        ("text/plain; charset=rot13", b"GAME illu1\n", "charset-unknown"),
        # once crashed the stdlib's get_payload(): 8-bit text and an impossible charset
        ('text/plain; charset="a\x00b"', b"GAME \xc3\xa9\n", "charset-unknown"),
    ],
)
def test_charset_problems_fall_back_with_a_defect(ctype: str, body: bytes, defect: str) -> None:
    parsed = parse_mail(mail(f"Content-Type: {ctype}", body))
    assert parsed.text.startswith("GAME ")
    assert "\ufffd" not in parsed.text
    assert any(d.startswith(defect) for d in parsed.defects), parsed.defects


def test_latin1_label_is_read_as_windows_1252() -> None:
    body = "GAME l\u2019attaque\n".encode("cp1252")
    parsed = parse_mail(mail("Content-Type: text/plain; charset=iso-8859-1", body))
    assert parsed.text == "GAME l\u2019attaque"
    assert parsed.defects == ()


def test_missing_boundary_still_finds_unencoded_orders() -> None:
    body = "preamble\nGAME illu1 PLAYER a\nEND\n"
    parsed = parse_mail(mail("Content-Type: multipart/mixed", body))
    assert "GAME illu1 PLAYER a" in parsed.text
    assert any(d.startswith("mime-multipart-unreadable") for d in parsed.defects)


def nested(depth: int) -> bytes:
    body = "".join(f'--b{i}\nContent-Type: multipart/mixed; boundary="b{i + 1}"\n\n'
                   for i in range(depth))
    body += f"--b{depth}\nContent-Type: text/plain\n\nGAME deep\n"
    return mail('Content-Type: multipart/mixed; boundary="b0"', body)


def test_deep_nesting_is_cut_off_not_fatal() -> None:
    assert parse_mail(nested(8)).text == "GAME deep"
    with pytest.raises(MailFormatError, match="it has no text"):
        parse_mail(nested(40))


def test_too_many_parts_are_refused_before_parsing() -> None:
    """The stdlib parser is quadratic in parts and recursive in depth: a cheap DoS guard."""
    with pytest.raises(MailFormatError, match="has 152 MIME parts"):
        parse_mail(nested(150))
    flat = "".join("--b\nContent-Type: text/plain\n\nGAME x\n" for _ in range(120))
    with pytest.raises(MailFormatError, match="more than the 100 we read"):
        parse_mail(mail('Content-Type: multipart/mixed; boundary="b"', flat))
    bounce = mail("Return-Path: <>", "Content-Type: text/plain\n" * 200)
    assert parse_mail(bounce).automatic == "bounce: empty Return-Path <>"


@pytest.mark.parametrize(
    "header",
    [
        "From: " + "a@b, " * 40000,  # 40 s before headers were cut to 2,000 characters
        "Subject: " + "=?utf-8?q?a?= " * 15000,  # 10 s
        "From: " + "(" * 50000 + "a@b",  # RecursionError in email.utils.parseaddr
        "Content-Type: text/plain; " + "a=b; " * 40000,  # over a minute, even headers-only
        "Return-Path: <>\nContent-Type: multipart/report; " + "a=b; " * 40000,
    ],
    ids=["many-addresses", "encoded-words", "nested-comments", "content-params", "bounce"],
)
def test_hostile_headers_are_cut_not_slow(header: str) -> None:
    raw = mail(header)
    started = time.perf_counter()
    check_never_crashes(raw)
    assert time.perf_counter() - started < 3


def test_overlong_content_header_is_refused_as_damaged() -> None:
    with pytest.raises(MailFormatError, match="a Content- header is 2011 characters long"):
        parse_mail(mail("Content-Type: text/plain; " + "a=b; " * 397))
    assert parse_mail(mail("Content-Type: text/plain; " + "a=b; " * 390)).text.startswith("GAME")


def test_mail_without_any_text_is_damaged() -> None:
    body = "--b\nContent-Type: image/png\nContent-Transfer-Encoding: base64\n\niVBORw0=\n--b--\n"
    with pytest.raises(MailFormatError, match="it has no text"):
        parse_mail(mail('Content-Type: multipart/mixed; boundary="b"', body))


def test_no_orders_explains_the_start_line() -> None:
    with pytest.raises(MailFormatError) as caught:
        parse_mail(mail("", "Thanks, orders tomorrow.\n"))
    assert "No orders found" in str(caught.value)
    assert "first word is GAME" in (caught.value.suggestion or "")
    assert "quoted" not in str(caught.value)


# --- size and automatic mail -------------------------------------------------------------


def test_size_is_checked_before_parsing() -> None:
    raw = mail("", "GAME illu1 PLAYER a\nEND\n" + "x" * 5000)
    assert parse_mail(raw, max_bytes=len(raw)).text.startswith("GAME")
    with pytest.raises(MailFormatError, match="more than the 5 KB"):
        parse_mail(raw, max_bytes=5 * 1024)


def test_oversize_bounce_is_returned_as_automatic_not_raised() -> None:
    """A MailFormatError always means 'may be answered': never for a bounce."""
    raw = mail("Return-Path: <>\nFrom: MAILER-DAEMON@mx.example.org", "x" * 5000)
    parsed = parse_mail(raw, max_bytes=1024)
    assert parsed.automatic == "bounce: empty Return-Path <>"
    assert parsed.text == ""
    assert parsed.defects[0].startswith("over-size")


def test_automatic_mail_without_orders_is_returned() -> None:
    parsed = parse_mail(mail("Auto-Submitted: auto-replied", "I am away.\n"))
    assert (parsed.automatic, parsed.text) == ("Auto-Submitted: auto-replied", "I am away.")


# --- passwords ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("GAME illu1 PLAYER alice PASSWORD tiger-42", "GAME illu1 PLAYER alice PASSWORD ******"),
        ("> > game illu1 player bob password s3cret", "> > game illu1 player bob password ******"),
        ("GAME x PASSWORD: abc more", "GAME x PASSWORD: ****** more"),
        ("GAME x PASSWORD=abc", "GAME x PASSWORD=******"),
        ("GAME x PLAYER password PASSWORD leak", "GAME x PLAYER password PASSWORD ******"),
        ("GAME x PASSWORD password", "GAME x PASSWORD ******"),
        ('GAME x PASSWORD "two words" TURN 3', "GAME x PASSWORD ****** TURN 3"),
        ("GAME x PASSWORD \u201ctwo words\u201d", "GAME x PASSWORD ******"),
        ('GAME x PASSWORD "unclosed quote', "GAME x PASSWORD ******"),
        ("GAME x password a PASSWORD b", "GAME x password ****** PASSWORD ******"),
        ("PASSWORD tiger-42", "PASSWORD ******"),
        ("my password is fine", "my password is fine"),
        ("GAME x PLAYER alice", "GAME x PLAYER alice"),
    ],
)
def test_redact_passwords(line: str, expected: str) -> None:
    assert redact_passwords(f"hello\r\n{line}\nEND") == f"hello\r\n{expected}\nEND"


# --- robustness --------------------------------------------------------------------------

FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def check_never_crashes(raw: bytes) -> None:
    """parse_mail gives an InboundMail or a MailFormatError; header_summary never raises."""
    try:
        parsed = parse_mail(raw)
    except MailFormatError as exc:
        assert str(exc)
    else:
        assert isinstance(parsed, InboundMail)
        for value in (parsed.text, parsed.subject, parsed.sender, parsed.sender_name,
                      parsed.message_id, parsed.automatic or "", *parsed.defects):
            value.encode("utf-8")  # no lone surrogates escape
        assert parsed.date is None or parsed.date.tzinfo is not None
    sender, message_id, _ = header_summary(raw)
    assert isinstance(sender, str) and message_id
    redact_passwords(raw.decode("utf-8", "replace"))


@FUZZ
@given(st.binary(max_size=2000))
def test_fuzz_random_bytes(raw: bytes) -> None:
    check_never_crashes(raw)


@FUZZ
@given(st.sampled_from(GOLDENS), st.randoms(use_true_random=False),
       st.integers(min_value=1, max_value=12))
def test_fuzz_mutated_real_mails(path: Path, rnd: random.Random, mutations: int) -> None:
    data = bytearray(path.read_bytes()[:20000])
    for _ in range(mutations):
        at = rnd.randrange(len(data) + 1)
        kind = rnd.randrange(5)
        if kind == 0 and data:  # flip a byte
            data[at % len(data)] = rnd.randrange(256)
        elif kind == 1:  # cut a span
            del data[at:at + rnd.randrange(200)]
        elif kind == 2:  # insert noise that MIME parsers care about
            data[at:at] = rnd.choice([b"\n", b"\r", b"--", b"=", b"=?utf-8?q?", b"?=", b"<", b">",
                                      b";", b'"', b"\xff\xfe", b"\x00", b"boundary=",
                                      b"charset=", b"Content-Type: multipart/mixed\n"])
        elif kind == 3 and data:  # duplicate a span
            end = min(len(data), at + rnd.randrange(300))
            data[at:at] = data[at:end]
        else:  # truncate
            del data[at:]
    check_never_crashes(bytes(data))


HEADER_NAMES = ["From", "Reply-To", "Sender", "Subject", "Date", "Message-ID", "In-Reply-To",
                "References", "Content-Type", "Content-Transfer-Encoding",
                "Content-Disposition", "Return-Path", "Auto-Submitted", "Precedence"]
HEADER_VALUES = st.one_of(
    st.text(max_size=60),
    st.sampled_from(["<>", "=?utf-8?b?w6k=?=", "=?x-bogus?q?a?=", "multipart/mixed",
                     "multipart/alternative; boundary=", "text/plain; charset=zlib",
                     "text/plain; charset*=utf-8''%FF", "text/html; charset=utf-16",
                     "text/plain; format=flowed; delsp=yes", "message/rfc822", "base64",
                     "quoted-printable", "x-uuencode", "attachment; filename*=''",
                     "\"unterminated <a@b", "a@b, <c@d", "Tue, 99 Xyz 2025 99:99:99 +9999"]),
)


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(HEADER_NAMES), HEADER_VALUES), max_size=8),
       st.binary(max_size=400))
def test_fuzz_structured_headers(headers: list[tuple[str, str]], body: bytes) -> None:
    head = "\n".join(f"{name}: {value}" for name, value in headers)
    raw = head.encode("utf-8", "surrogateescape").replace(b"\r", b"") + b"\n\n" + body
    check_never_crashes(raw)


def test_offsets_keep_their_zone() -> None:
    when = parse_mail(mail("Date: Tue, 3 Jun 2025 10:00:00 +0530")).date
    assert when is not None and when.utcoffset() == timedelta(hours=5, minutes=30)
    assert when.tzinfo == timezone(timedelta(hours=5, minutes=30))
