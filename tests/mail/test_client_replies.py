"""Replies shaped the way each mail client writes them (tests/mails/replies/*.eml, written
by hand after each client's habits, not copies of our mail), read end to end: the raw mail
through pbem.mail.inbound, its text through the order parser (issue 19, points 1 to 4).

Each fixture pastes, below orders without END, a mail of the game holding a line that
reads as an order (``ATTACK ... CONTROL Hackers``): it must never be read.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from factory import CARDS

from pbem.mail.inbound import parse_mail
from pbem.orders import format_order
from pbem.orders.parse import parse_orders

REPLIES = Path(__file__).parent.parent / "mails" / "replies"
TRANSFER = "TRANSFER 2 FROM The Gnomes of Zurich TO Hollywood"
GIVE = "GIVE 2 MB TO Alice"

# file: (orders read, in canonical form; keys of the lines refused; keys of the warnings)
EXPECTED: dict[str, tuple[list[str], list[str], list[str]]] = {
    # Point 1: a pasted original without ">", each client's shape.
    # The sign-offs ("Cheers – Bob", "Bonne journée,", "Grüße", "Saludos, Lucía") end the
    # orders as "-- " does, with no refusal (issue 35, point 4).
    "outlook_desktop_en_header_block": ([TRANSFER, "PASS"], [], ["no_end_signature"]),
    "outlook_mac_en_date_block": (["MOVE Hollywood TO The Gnomes of Zurich RIGHT"],
                                  ["pasted"], []),
    "outlook_web_fr_html_only": (["PASS"], ["pasted"], []),
    "outlook_desktop_fr_rule_nbsp": ([GIVE], [], ["no_end_signature"]),
    "outlook_desktop_fr_no_rule": ([GIVE], ["pasted"], []),
    "outlook_desktop_de_header_block": ([TRANSFER], [], ["no_end_signature"]),
    "outlook_desktop_es_html_only": (["PASS"], [], ["no_end_signature"]),
    "webmail_stripped_quotes_wrapped_attribution": (["PASS"], ["pasted"], []),
    "gmail_fr_wrapped_attribution_stripped": ([GIVE], ["pasted"], []),
    "thunderbird_de_attribution_stripped": (["PASS"], ["pasted"], []),
    "yahoo_es_attribution_stripped": (["PASS"], ["pasted"], []),
    # Point 2: the game's own text, quotes stripped or rewrapped, no header at all.
    "stripped_quotes_report_no_header": ([TRANSFER], ["rule_line"], []),
    "flowed_rewrapped_report": (["PASS"], ["rule_line"], []),
    # Point 3: lines the client wrapped run whole, or are refused whole.
    "gmail_wrapped_long_lines": (
        ["ATTACK The Gnomes of Zurich CONTROL South American Nazis SPEND 2 UPTO 5",
         "ATTACK The Gnomes of Zurich CONTROL Boy Sprouts WITH Hollywood SPEND 2 UPTO 5",
         "PASS"],
        # "Thanks, Bob" is a sign-off: it ends the orders as "-- " does (issue 35, point 4).
        ["wrapped"], ["wrapped_joined", "wrapped_joined", "no_end_signature"]),
    "outlook_wrapped_name": (["ATTACK The Gnomes of Zurich CONTROL South American Nazis"], [],
                             ["wrapped_joined"]),
    # Point 4: phone habits.
    "iphone_mail_capitals_full_stops": ([TRANSFER, "ATTACK The Gnomes of Zurich CONTROL Hackers",
                                         "END TURN"], [], []),
    "gmail_android_zero_width": ([GIVE, "END TURN"], ["pasted"], []),
}


def test_every_fixture_has_its_expectation() -> None:
    assert sorted(p.stem for p in REPLIES.glob("*.eml")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_client_reply_reads_as_meant(name: str) -> None:
    mail = parse_mail((REPLIES / f"{name}.eml").read_bytes())
    parsed = parse_orders(mail.text, CARDS, ("Alice", "Bob"))
    orders, refused, warned = EXPECTED[name]
    assert [format_order(o.order) for o in parsed.orders] == orders
    assert [e.key for e in parsed.errors] == refused
    assert [w.key for w in parsed.warnings] == warned
    assert all("Hackers" not in o.text or "Attack" in o.text for o in parsed.orders)


def test_a_wrapped_order_refused_whole_says_so() -> None:
    """The attack cut before a mistyped SPEND line is not run without its money."""
    mail = parse_mail((REPLIES / "gmail_wrapped_long_lines.eml").read_bytes())
    parsed = parse_orders(mail.text, CARDS, ("Alice", "Bob"))
    wrapped = next(e for e in parsed.errors if e.key == "wrapped")
    assert wrapped.line == 6 and "wrapped" in wrapped.message
    assert wrapped.text == "ATTACK The Gnomes of Zurich CONTROL Hackers SPEND 2 UPT0 5"
    assert all("CONTROL Hackers" not in o.text for o in parsed.orders)
