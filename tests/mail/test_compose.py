"""Outgoing mail: MIME shape, our markers, a readable and SMTP-clean wire form, round trips.

The composed report is also kept as a golden file, ``tests/mails/out/report.eml``;
``PBEM_UPDATE_GOLDENS=1`` rewrites it (review the diff).
"""

from __future__ import annotations

import dataclasses
import email
import email.message
import email.policy
import json
import quopri
import smtplib
import socket
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from support import TESTS, check_golden

from pbem.mail.automatic import automatic_reason
from pbem.mail.compose import OutgoingMail, compose, message_id_for
from pbem.mail.envelope import first_headers
from pbem.mail.inbound import parse_mail

GOLDEN = TESTS / "mails" / "out" / "report.eml"
WHEN = datetime(2025, 6, 2, 21, 0, tzinfo=UTC)
LONG_LINE = ("Breakdown: Bavarian Illuminati power 10 + Gun Lobby transferable 1 - Trekkies "
             "resistance 4 + 4 MB spent (+4) - 2 MB spent by the defender (-4) = 7; "
             "roll 7 or less. Rolled 6: success, Trekkies are now yours.")
REPORT_TEXT = f"""Illuminati game illu1 - turn 3: Alice to play

Your power structure:
  The Bavarian Illuminati (treasury 12 MB)

{LONG_LINE}

Société Secrète, Zürich, naïve: accents stay readable.
To give orders, reply with your start line:
GAME illu1 PLAYER alice PASSWORD <your password>
END
"""


def report(**changes: Any) -> OutgoingMail:
    """Give a typical turn report; keyword arguments replace fields."""
    fields: dict[str, Any] = {
        "to": "alice.smith@gmail.com",
        "to_name": "Alice Smith",
        "from_addr": "illuminati@pbem.example.org",
        "from_name": "Illuminati PBEM",
        "subject": "[illu1] Turn 3: Alice to play",
        "text": REPORT_TEXT,
        "html": "<p>Illuminati game illu1 &ndash; turn 3</p>\n",
        "attachments": (("view.json", "application/json", b'{"turn": 3, "player": "alice"}'),),
        "message_id": message_id_for("illu1", "3", "alice", domain="pbem.example.org"),
        "in_reply_to": "CAF7xh3M=p+Q0gX5d1Qyq8zT9mYV6k2L4c8uN0wE3rJ7sTbHk_A@mail.gmail.com",
        "date": WHEN,
        "game": "illu1",
    }
    fields.update(changes)
    return OutgoingMail(**fields)


def parsed(raw: bytes) -> email.message.EmailMessage:
    return email.message_from_bytes(raw, policy=email.policy.default)


def shape(msg: email.message.Message) -> Any:
    """Give the MIME tree as nested content types."""
    if msg.is_multipart():
        return [msg.get_content_type(), [shape(part) for part in msg.get_payload()
                                         if isinstance(part, email.message.Message)]]
    return msg.get_content_type()


# --- shape -------------------------------------------------------------------------------


def test_text_only_is_one_utf8_part() -> None:
    msg = parsed(compose(report(html=None, attachments=())))
    assert shape(msg) == "text/plain"
    assert msg.get_content_charset() == "utf-8"


def test_html_makes_alternative_with_text_first() -> None:
    msg = parsed(compose(report(attachments=())))
    assert shape(msg) == ["multipart/alternative", ["text/plain", "text/html"]]


def test_attachments_make_mixed_with_the_alternative_first() -> None:
    extra = ("notes.txt", "text/plain", "naïve".encode())
    msg = parsed(compose(report(attachments=(*report().attachments, extra))))
    assert shape(msg) == ["multipart/mixed", [["multipart/alternative", ["text/plain",
                                                                         "text/html"]],
                                              "application/json", "text/plain"]]
    files = {part.get_filename(): part.get_payload(decode=True)
             for part in msg.iter_attachments()}
    assert files == {"view.json": b'{"turn": 3, "player": "alice"}', "notes.txt": "naïve".encode()}
    assert parsed(compose(report(html=None))).get_content_type() == "multipart/mixed"


def test_only_the_top_declares_mime_version() -> None:
    raw = compose(report())
    assert raw.count(b"MIME-Version:") == 1


# --- headers -----------------------------------------------------------------------------


def test_headers_mark_our_machine_mail() -> None:
    msg = parsed(compose(report()))
    assert msg["Message-ID"] == report().message_id
    assert msg["Date"].datetime == WHEN
    # Folded onto a second line (an id this long does not fit): the fold's space stays.
    assert msg["In-Reply-To"].strip() == f"<{report().in_reply_to}>"
    assert msg["References"].strip() == f"<{report().in_reply_to}>"
    assert msg["Auto-Submitted"] == "auto-replied"
    assert msg["X-Pbem-Game"] == "illu1"
    assert msg["X-Auto-Response-Suppress"] == "OOF, AutoReply"
    assert msg["Precedence"] is None
    assert str(msg["From"]) == "Illuminati PBEM <illuminati@pbem.example.org>"
    assert str(msg["To"]) == "Alice Smith <alice.smith@gmail.com>"


def test_mail_not_answering_anything_is_auto_generated() -> None:
    """RFC 3834: auto-replied answers a mail; reports and reminders are auto-generated."""
    msg = parsed(compose(report(in_reply_to=None)))
    assert msg["Auto-Submitted"] == "auto-generated"
    assert msg["In-Reply-To"] is None and msg["References"] is None


def test_mail_without_game_carries_the_plain_mark() -> None:
    msg = parsed(compose(report(game=None)))
    assert msg["X-Pbem"] == "1" and msg["X-Pbem-Game"] is None
    assert automatic_reason(first_headers(msg)) == "our own mail came back (X-Pbem: 1)"


def test_references_keep_the_thread() -> None:
    msg = parsed(compose(report(references=("<a@x>", "b@y"), in_reply_to="<c@z>")))
    assert msg["References"] == "<a@x> <b@y> <c@z>"


def test_extra_headers_are_added_but_cannot_replace_ours() -> None:
    msg = parsed(compose(report(headers=(("List-Unsubscribe", "<mailto:gm@example.org>"),))))
    assert msg["List-Unsubscribe"] == "<mailto:gm@example.org>"
    for name in ("Message-ID", "auto-submitted", "X-Pbem-Game", "Content-Type", "Bad Name"):
        with pytest.raises(ValueError, match="extra header"):
            report(headers=((name, "x"),))


def test_player_text_cannot_inject_headers() -> None:
    raw = compose(report(subject="Re: hi\r\nBcc: evil@example.org", to_name="A\nB"))
    msg = parsed(raw)
    assert msg["Bcc"] is None
    assert msg["Subject"] == "Re: hi Bcc: evil@example.org"
    assert msg["To"].addresses[0].display_name == "A B"


@pytest.mark.parametrize("subject", [
    "[illu1] Tour 3 : à Élodie",
    "[illu] Ordres reçus : 2 acceptés, 0 refusés (Chloé), et une ligne qu'il faut replier",
])
def test_non_ascii_headers_are_encoded_words(subject: str) -> None:
    """Headers stay ASCII; a subject folded over two lines reads back exactly as written."""
    raw = compose(report(subject=subject, to_name="Élodie Durand"))
    head = raw.split(b"\r\n\r\n", 1)[0]
    assert head.isascii()
    assert max(len(line) for line in head.split(b"\r\n")) <= 78
    back = parse_mail(raw)
    assert back.subject == subject
    assert str(parsed(raw)["To"]) == "Élodie Durand <alice.smith@gmail.com>"


NB = "\xa0"  # the no-break space French puts before : ; ? ! and inside « »


@pytest.mark.parametrize("subject", [
    f"[illu1] Ordres reçus{NB}: 2 acceptés, 0 refusé (Chloé)",
    f"[illu1] Tour 3{NB}: Bob attaque les Trekkies, votre réponse{NB}? (Chloé){NB}!",
    f"[illu1] «{NB}Société Secrète{NB}»{NB}; un sujet assez long pour être replié sur deux "
    f"lignes{NB}: de Gnomes de Zurich{NB}?",
    f"{NB}[illu1] Rappel{NB}:\tvos ordres{NB}",
])
def test_no_break_spaces_read_back_as_no_break_spaces(subject: str) -> None:
    """A mail client decodes the subject as it was rendered, no-break spaces included, from
    RFC 2047 words on folded lines of 78 characters at most."""
    raw = compose(report(subject=subject, to_name=f"Chloé{NB}Martin"))
    head = raw.split(b"\r\n\r\n", 1)[0]
    assert head.isascii()
    assert max(len(line) for line in head.split(b"\r\n")) <= 78
    msg = parsed(raw)
    assert msg["Subject"] == subject.replace("\t", " ")
    assert msg["To"].addresses[0].display_name == f"Chloé{NB}Martin"


# --- wire form ---------------------------------------------------------------------------


def test_wire_form_is_crlf_ascii_and_short_lines() -> None:
    raw = compose(report())
    assert raw.isascii()  # no relay needs 8BITMIME or SMTPUTF8
    assert b"\n" not in raw.replace(b"\r\n", b"")
    assert b"\r" not in raw.replace(b"\r\n", b"")
    assert max(len(line) for line in raw.split(b"\r\n")) <= 78


def test_long_lines_go_quoted_printable_and_read_back_exactly() -> None:
    msg = parsed(compose(report()))
    plain = next(part for part in msg.walk() if part.get_content_type() == "text/plain")
    assert plain["Content-Transfer-Encoding"] == "quoted-printable"
    body = plain.get_payload(decode=False)
    assert isinstance(body, str)
    assert "GAME illu1 PLAYER alice PASSWORD <your password>" in body  # readable as is
    assert quopri.decodestring(body.encode()).decode("utf-8").replace("\r\n", "\n") == REPORT_TEXT


def test_short_ascii_text_stays_7bit() -> None:
    msg = parsed(compose(report(text="GAME illu1\nEND\n", html=None, attachments=())))
    assert msg["Content-Transfer-Encoding"] == "7bit"


def test_same_mail_gives_the_same_bytes() -> None:
    """A resend after a crash is byte-identical; boundaries come from the content."""
    assert compose(report()) == compose(report())
    assert b"=_pbem_" in compose(report())
    changed = compose(report(text=REPORT_TEXT + "P.S.\n"))
    boundary = parsed(compose(report())).get_boundary()
    assert boundary and boundary.encode() not in changed


def test_dates_keep_their_offset() -> None:
    paris = timezone(timedelta(hours=2))
    msg = parsed(compose(report(date=datetime(2025, 6, 2, 23, 0, tzinfo=paris))))
    assert msg["Date"] == "Mon, 02 Jun 2025 23:00:00 +0200"


def test_golden_report() -> None:
    raw = compose(report())
    check_golden(GOLDEN, raw)


# --- round trips -------------------------------------------------------------------------


def test_round_trip_through_parse_mail() -> None:
    back = parse_mail(compose(report()))
    assert back.text == REPORT_TEXT.rstrip("\n")
    assert back.source == "plain"
    assert back.message_id == report().message_id.strip("<>")
    assert back.in_reply_to == report().in_reply_to
    assert back.date == WHEN
    assert (back.sender, back.sender_name) == ("illuminati@pbem.example.org", "Illuminati PBEM")
    assert back.automatic == "our own mail came back (X-Pbem-Game: illu1)"


def test_attachment_round_trip_keeps_bytes() -> None:
    view = json.dumps({"hand": ["Assassination", "Bribery"], "secret": None}).encode()
    msg = parsed(compose(report(attachments=(("view.json", "application/json", view),))))
    (attached,) = msg.iter_attachments()
    assert attached.get_payload(decode=True) == view


def test_sent_over_smtp_arrives_byte_for_byte() -> None:
    """A real SMTP hop (aiosmtpd on 127.0.0.1) neither refuses nor changes the bytes."""
    received: list[bytes] = []

    class Keep:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            received.append(envelope.original_content)
            return "250 OK"

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(Keep(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        raw = compose(report(text=".\n..leading dots\n" + REPORT_TEXT))
        with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
            client.sendmail("illuminati@pbem.example.org", ["alice.smith@gmail.com"], raw)
    finally:
        controller.stop()
    assert received == [raw]
    assert parse_mail(received[0]).text.startswith(".\n..leading dots\nIlluminati game illu1")


# --- ids and validation ------------------------------------------------------------------


def test_message_id_for_is_deterministic_and_distinct() -> None:
    first = message_id_for("illu1", "step-12", "alice@example.org", domain="pbem.example.org")
    assert first == message_id_for("illu1", "step-12", "alice@example.org",
                                    domain="pbem.example.org")
    assert first.startswith("<") and first.endswith("@pbem.example.org>")
    assert len(first.split("@")[0]) == 33  # '<' and 128 bits in hex
    assert first != message_id_for("illu1", "step-13", "alice@example.org",
                                   domain="pbem.example.org")
    assert message_id_for("a b", "c", domain="x.org") != message_id_for("a", "b c",
                                                                        domain="x.org")


@pytest.mark.parametrize("domain", ["", "bad domain", "x.org>", "-x.org"])
def test_message_id_for_refuses_bad_domains(domain: str) -> None:
    with pytest.raises(ValueError, match="not a domain"):
        message_id_for("a", domain=domain)
    with pytest.raises(ValueError, match="at least one part"):
        message_id_for(domain="x.org")


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"date": datetime(2025, 6, 2, 21, 0)}, "timezone-aware"),
        ({"message_id": "no-at-sign"}, "not a Message-ID"),
        ({"message_id": "<a b@c>"}, "not a Message-ID"),
        ({"in_reply_to": "a\r\nb@c"}, "not a Message-ID"),
        ({"attachments": (("x.bin", "binary", b""),)}, "mimetype"),
    ],
)
def test_outgoing_mail_refuses_bad_values(changes: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        report(**changes)


@pytest.mark.parametrize("field", ["to", "from_addr"])
@pytest.mark.parametrize("address", ["alice@@example.org", "alice", "a@b <c@d>", ""])
def test_bad_addresses_are_named(field: str, address: str) -> None:
    with pytest.raises(ValueError, match=f"{field} is not a mail address"):
        report(**{field: address})


def test_outgoing_mail_is_a_frozen_value() -> None:
    mail = report()
    with pytest.raises(dataclasses.FrozenInstanceError):
        mail.subject = "x"  # type: ignore[misc]
    assert mail == report()
