"""Issue 44, point 6: a kept mail holds no password, whatever its encoding.

A property over the ways a mail program writes an order mail: any charset (UTF-8, Latin-1,
Windows-1252, UTF-16 in either byte order, with or without a byte order mark), any
transfer encoding (none, base64, quoted-printable with soft breaks anywhere, one inside
the password included), plain text or HTML alone or both, nested in a multipart or not,
the password typed a second time after STEP. ``mask_passwords`` must give as many bytes,
and no part read as a mail program reads it may hold the password. Before, HTML-only mail,
UTF-16, quoted-printable throughout and soft breaks in the password kept it.
"""

from __future__ import annotations

import base64
import email
import email.message
import email.policy
import html

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.mail.masking import mask_passwords

CHARSETS = ("utf-8", "iso-8859-1", "windows-1252", "utf-16", "utf-16-le", "utf-16-be")
ENCODINGS = ("8bit", "base64", "quoted-printable")
PASSWORDS = st.text(alphabet="abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789-_.!é",
                    min_size=6, max_size=24)


def _body(password: str, kind: str, twice: bool) -> str:
    step = f" STEP {password}" if twice else " STEP 3"
    lines = ["Hello,", f"GAME g1 PLAYER Alice PASSWORD {password}{step}", "STATUS", "END"]
    if kind == "html":
        return "<html><body>" + "".join(f"<p>{html.escape(line)}</p>\r\n"
                                        for line in lines) + "</body></html>\r\n"
    return "\r\n".join(lines) + "\r\n"


def _encoded(text: str, charset: str, encoding: str, breaks: list[int]) -> bytes:
    data = text.encode(charset if charset != "utf-16" else "utf-16")
    if encoding == "base64":
        return base64.encodebytes(data).replace(b"\n", b"\r\n")
    if encoding == "quoted-printable":
        # Printable ASCII as it is, any other byte as =XX; CR LF a hard line break unless
        # it is half of a UTF-16 character.
        hard = not charset.startswith("utf-16")
        coded = b""
        for at, byte in enumerate(data):
            if hard and data[at:at + 2] == b"\r\n":
                coded += b"\r"
            elif hard and byte == 10 and data[at - 1:at] == b"\r":
                coded += b"\n"
            elif 33 <= byte <= 126 and byte != ord("="):
                coded += bytes([byte])
            else:
                coded += b"=%02X" % byte
        # Soft breaks anywhere but inside an =XX or a CR LF.
        for at in sorted({b % (len(coded) + 1) for b in breaks}, reverse=True):
            if b"=" not in coded[max(0, at - 2):at] and coded[at - 1:at] != b"\r":
                coded = coded[:at] + b"=\r\n" + coded[at:]
        return coded
    return data


def _part(text: str, subtype: str, charset: str, encoding: str, breaks: list[int]) -> bytes:
    return (f"Content-Type: text/{subtype}; charset={charset}\r\n"
            f"Content-Transfer-Encoding: {encoding}\r\n\r\n").encode() + _encoded(
                text, charset, encoding, breaks)


def _mail(password: str, charset: str, encoding: str, shape: str, twice: bool,
          breaks: list[int]) -> bytes:
    head = (b"From: Alice <alice@example.org>\r\nTo: pbem@localhost\r\nSubject: orders\r\n"
            b"Message-ID: <m@example.org>\r\nMIME-Version: 1.0\r\n")
    plain = _part(_body(password, "plain", twice), "plain", charset, encoding, breaks)
    rich = _part(_body(password, "html", twice), "html", charset, encoding, breaks)
    if shape == "plain":
        return head + plain
    if shape == "html":
        return head + rich
    inner = (b"Content-Type: multipart/alternative; boundary=\"alt\"\r\n\r\n"
             b"--alt\r\n" + plain + b"\r\n--alt\r\n" + rich + b"\r\n--alt--\r\n")
    if shape == "alternative":
        return head + inner
    return (head + b"Content-Type: multipart/mixed; boundary=\"mix\"\r\n\r\n"
            b"preamble\r\n--mix\r\n" + inner + b"\r\n--mix\r\nContent-Type: text/plain\r\n\r\n"
            b"a note\r\n--mix--\r\n")


def _texts(raw: bytes) -> list[str]:
    """Every text part as a mail program reads it."""
    message = email.message_from_bytes(raw, policy=email.policy.default)
    found = []
    for part in message.walk():
        if part.get_content_maintype() == "text":
            data = part.get_payload(decode=True)
            assert isinstance(data, bytes)
            found.append(data.decode(part.get_content_charset() or "ascii", "replace"))
    return found


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(password=PASSWORDS, charset=st.sampled_from(CHARSETS),
       encoding=st.sampled_from(ENCODINGS),
       shape=st.sampled_from(("plain", "html", "alternative", "mixed")),
       twice=st.booleans(), breaks=st.lists(st.integers(0, 10_000), max_size=8))
def test_a_masked_mail_holds_no_password_in_any_encoding(
        password: str, charset: str, encoding: str, shape: str, twice: bool,
        breaks: list[int]) -> None:
    raw = _mail(password, charset, encoding, shape, twice, breaks)
    before = _texts(raw)
    assert any(password in text or html.escape(password) in text for text in before)
    masked = mask_passwords(raw)
    assert len(masked) == len(raw)
    after = _texts(masked)
    assert len(after) == len(before)
    for text in after:
        assert password not in text and html.escape(password) not in text
        assert "GAME g1 PLAYER Alice PASSWORD" in text or "a note" in text
        assert "STATUS" in text or "a note" in text
    for codec in ("utf-8", "utf-16-le", "utf-16-be"):
        assert password.encode(codec) not in masked


def test_a_soft_break_inside_the_password_is_kept_where_it_was() -> None:
    raw = (b"Content-Type: text/plain; charset=utf-8\r\n"
           b"Content-Transfer-Encoding: quoted-printable\r\n\r\n"
           b"GAME g1 PLAYER Alice PASSWORD coup-em=\r\nber-agent-60 STEP coup-ember-ag=\r\n"
           b"ent-60\r\nSTATUS\r\n")
    masked = mask_passwords(raw)
    assert masked == raw.replace(b"coup-em=\r\nber-agent-60", b"*******=\r\n************"
                                 ).replace(b"coup-ember-ag=\r\nent-60",
                                           b"*************=\r\n******")
