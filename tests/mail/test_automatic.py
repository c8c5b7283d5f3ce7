"""Automatic mail: what must never be answered, one marker per case."""

from __future__ import annotations

import email
import email.message
import email.policy

import pytest
from support import TESTS

from pbem.mail.automatic import automatic_reason, null_sender
from pbem.mail.envelope import first_headers

MAILS = TESTS / "mails"

PLAIN = """From: Alice Smith <alice@example.org>
To: illuminati@pbem.example.org
Subject: Re: [illu1] Turn 3
Message-ID: <m1@example.org>
Date: Tue, 3 Jun 2025 10:00:00 +0200
Content-Type: text/plain; charset=utf-8

GAME illu1 PLAYER alice PASSWORD tiger-42
END
"""


def parsed(extra_headers: str = "", *, body: str = PLAIN) -> dict[str, str]:
    """Give the headers of the ordinary player mail with extra headers placed on top, as
    servers add them (as automatic_reason reads them)."""
    raw = (extra_headers + "\n" if extra_headers else "") + body
    return first_headers(email.message_from_bytes(raw.encode("utf-8"),
                                                  policy=email.policy.default))


def test_an_ordinary_player_mail_may_be_answered() -> None:
    assert automatic_reason(parsed("Return-Path: <alice@example.org>")) is None


@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        ("X-Pbem-Game: illu1", "our own mail came back (X-Pbem-Game: illu1)"),
        ("X-Pbem: 1", "our own mail came back (X-Pbem: 1)"),
        ("Return-Path: <>", "bounce: empty Return-Path <>"),
        ("Return-Path: < >", "bounce: empty Return-Path <>"),
        ("Auto-Submitted: auto-replied", "Auto-Submitted: auto-replied"),
        ("Auto-Submitted: Auto-Generated; owner-email=x@y", "Auto-Submitted: auto-generated"),
        ("Auto-Submitted: auto-notified", "Auto-Submitted: auto-notified"),
        ("Precedence: bulk", "Precedence: bulk"),
        ("Precedence: JUNK", "Precedence: junk"),
        ("Precedence: list", "Precedence: list"),
        ("X-Precedence: auto_reply", "X-Precedence: auto_reply"),
        ("X-Autoreply: yes", "X-Autoreply header present"),
        ("X-Autorespond: Out of office", "X-Autorespond header present"),
        ("X-Failed-Recipients: bob@example.org", "X-Failed-Recipients header present"),
        ("List-Id: Illuminati fans <fans.lists.example.org>", "List-Id header present"),
    ],
)
def test_markers_of_automatic_mail(headers: str, reason: str) -> None:
    assert automatic_reason(parsed(headers)) == reason


def test_own_header_name_can_be_configured() -> None:
    assert automatic_reason(parsed("X-Site-Game: g1"), own_header="X-Site-Game") == (
        "our own mail came back (X-Site-Game: g1)")
    assert automatic_reason(parsed("X-Site-Game: g1")) is None


@pytest.mark.parametrize(
    "sender",
    ["MAILER-DAEMON@mx.example.org (Mail Delivery System)",
     "Mail Delivery Subsystem <mailer-daemon@googlemail.com>",
     "postmaster@example.org", "MAILER-DAEMON"],
)
def test_mail_systems_as_sender(sender: str) -> None:
    reason = automatic_reason(parsed(body=PLAIN.replace("Alice Smith <alice@example.org>",
                                                        sender)))
    assert reason is not None and reason.startswith("sent by a mail system (From:")


def test_a_player_named_postmaster_fan_is_not_a_mail_system() -> None:
    body = PLAIN.replace("alice@example.org", "postmaster-fan@example.org")
    assert automatic_reason(parsed(body=body)) is None


def test_auto_submitted_no_is_a_person() -> None:
    """RFC 3834: 'no' marks a mail written by a person."""
    assert automatic_reason(parsed("Auto-Submitted: no")) is None
    assert automatic_reason(parsed("Auto-Submitted: No ; comment")) is None


def test_only_the_topmost_return_path_counts() -> None:
    """The receiving server adds the topmost one; a lower '<>' was written by the sender."""
    assert automatic_reason(parsed("Return-Path: <alice@example.org>\nReturn-Path: <>")) is None
    assert automatic_reason(parsed("Return-Path: <>\nReturn-Path: <alice@example.org>")) == (
        "bounce: empty Return-Path <>")


def test_other_precedence_values_are_a_person() -> None:
    assert automatic_reason(parsed("Precedence: first-class")) is None


def test_auto_response_suppress_alone_is_a_person() -> None:
    """Outlook sets it on ordinary mail: it asks others not to auto-reply to *this* mail."""
    assert automatic_reason(parsed("X-Auto-Response-Suppress: All")) is None
    assert automatic_reason(parsed("X-Auto-Response-Suppress: DR, OOF, AutoReply")) is None


@pytest.mark.parametrize("report_type", ["delivery-status", "disposition-notification"])
def test_multipart_report_is_automatic(report_type: str) -> None:
    body = PLAIN.replace(
        "Content-Type: text/plain; charset=utf-8",
        f'Content-Type: multipart/report; report-type="{report_type}"; boundary="r"')
    assert automatic_reason(parsed(body=body)) == (
        f"report (bounce or receipt): multipart/report, report-type={report_type}")


def test_real_shaped_auto_replies_and_bounces() -> None:
    def reason(name: str) -> str | None:
        raw = (MAILS / f"{name}.eml").read_bytes()
        return automatic_reason(first_headers(email.message_from_bytes(
            raw, policy=email.policy.default)))

    assert reason("exchange_out_of_office") == "Auto-Submitted: auto-generated"
    assert reason("postfix_bounce") == "bounce: empty Return-Path <>"
    assert reason("gmail_top_posting") is None
    assert reason("outlook_top_posting") is None


def test_unreadable_headers_do_not_raise() -> None:
    raw = b"From: \xff\xfe\"<\nAuto-Submitted: \xe9\nContent-Type: multipart/report\n\n"
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert automatic_reason(first_headers(msg)) == "Auto-Submitted: \ufffd"


@pytest.mark.parametrize(
    ("envelope_from", "expected"),
    [("<>", True), ("", True), (" < > ", True), ("<alice@example.org>", False),
     ("alice@example.org", False), ("<MAILER-DAEMON@x>", False)],
)
def test_null_sender(envelope_from: str, expected: bool) -> None:
    """aiosmtpd hands a bounce's MAIL FROM:<> over as '<>'."""
    assert null_sender(envelope_from) is expected
