"""A stand-in for a mail too big to keep (pbem.mail.inbound.stand_in): read as the over-size
mail it stands for, so the IMAP intake's refusal is answered as the SMTP path's 552."""

from __future__ import annotations

import pytest

from pbem.errors import MailFormatError
from pbem.mail.inbound import header_summary, parse_mail, stand_in

HEAD = (b"From: Alice <alice@example.org>\r\nTo: game@pbem.test\r\n"
        b"Message-ID: <big-1@example.org>\r\nSubject: orders\r\n")


def test_a_stand_in_reads_as_the_over_size_mail_it_stands_for() -> None:
    big = HEAD + b"\r\n" + b"GAME g PLAYER Alice PASSWORD x\r\n" + b"x" * 2_000_000
    kept = stand_in(big)
    assert len(kept) < 300 and kept.startswith(b"X-Pbem-Too-Big: %d\r\n" % len(big))
    assert header_summary(kept) == ("alice@example.org", "big-1@example.org", False)
    with pytest.raises(MailFormatError) as refused:
        parse_mail(kept)
    assert refused.value.key == "too_big"
    assert refused.value.message == "This mail is 1954 KB, more than the 256 KB we accept."
    assert refused.value.words == {"size": 1954, "limit": 256}


def test_a_stand_in_of_a_bounce_is_never_answered() -> None:
    bounce = b"Return-Path: <>\n" + HEAD.replace(b"\r\n", b"\n") + b"\n" + b"x" * 300_000
    mail = parse_mail(stand_in(bounce))
    assert mail.automatic is not None and mail.text == ""


def test_a_head_without_end_is_cut_at_64_kb() -> None:
    kept = stand_in(HEAD + b"X-Long: " + b"y" * 200_000)
    assert len(kept) < 66 * 1024
    with pytest.raises(MailFormatError):
        parse_mail(kept)
