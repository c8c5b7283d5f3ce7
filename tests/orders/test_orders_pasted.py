"""Where the orders of a reply stop when END is missing and an earlier mail is pasted below
them without ">" (docs/orders.md: everything after the orders is ignored)."""

from __future__ import annotations

import pytest
from factory import CARDS

from pbem.engine.commands import Pass
from pbem.orders.parse import parse_orders

START = "GAME g PLAYER Alice PASSWORD s3cret TURN 4"


@pytest.mark.parametrize("marker", [
    "-----Original Message-----",
    "----- Original Message -----",
    "-----Message d'origine-----",
    "________________________________",
    "---------- Forwarded message ---------",
    "On Mon, 30 Nov 2026 at 21:11, Illuminati PBEM <pbem@example.org> wrote:",
    "Le lun. 30 nov. 2026 à 21:11, Illuminati PBEM <pbem@example.org> a écrit :",
    "GAME g PLAYER Alice PASSWORD ______ TURN 3",
])
def test_reading_stops_where_a_pasted_mail_begins(marker: str) -> None:
    """The report below the marker (its suggested ATTACK lines, its order form) is not read;
    the marker line itself is reported, so the writer learns that END was missing."""
    text = "\n".join([START, "PASS", "", marker, "From: pbem@example.org",
                      "    ATTACK The Bavarian Illuminati CONTROL Hackers", "END"])
    parsed = parse_orders(text, CARDS, ("Alice", "Bob"))
    assert [o.order for o in parsed.orders] == [Pass("Alice")]
    assert [e.line for e in parsed.errors] == [4]
    assert "______" in marker or "END" in (parsed.errors[0].suggestion or "")
    assert parsed.warnings == ()  # the refused line says there was no END


def test_a_quoted_reply_with_end_reads_as_before() -> None:
    """With END, nothing after it is read, markers or not; quoted lines are skipped."""
    text = "\n".join([START, "> GAME g PLAYER Alice PASSWORD x", "PASS", "END",
                      "-----Original Message-----", "ATTACK x"])
    parsed = parse_orders(text, CARDS, ("Alice", "Bob"))
    assert [o.order for o in parsed.orders] == [Pass("Alice")]
    assert parsed.errors == () and parsed.warnings == ()
