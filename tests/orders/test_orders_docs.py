"""docs/orders.md cannot drift: every example in it is read by the parser.

Blocks fenced as ```orders hold order lines that must each read to one order; ```mail blocks
are whole mails that must read without an error or a warning; ```bad blocks hold lines that
must each be reported as an error.
"""

from __future__ import annotations

import re

import pytest
from support import REPO

from pbem.engine.carddata import load_cardset
from pbem.orders import ORDER_FORMS, parse_orders

CARDS = load_cardset()
PLAYERS = ("Alice", "Bob", "Carol")
DOC = REPO / "docs" / "orders.md"
_BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks(kind: str) -> list[str]:
    return [body for fence, body in _BLOCK.findall(DOC.read_text(encoding="utf-8"))
            if fence == kind]


def example_lines(kind: str) -> list[str]:
    return [line for body in blocks(kind) for line in body.splitlines() if line.strip()]


def mail(line: str) -> str:
    return f"GAME illu42 PLAYER Alice PASSWORD k3Xw9q\n{line}\nEND\n"


def test_the_doc_has_examples_of_every_kind() -> None:
    assert example_lines("orders") and blocks("mail") and example_lines("bad")


@pytest.mark.parametrize("line", example_lines("orders"))
def test_every_order_example_reads(line: str) -> None:
    """Each example line reads to exactly one order, without an error or a warning."""
    parsed = parse_orders(mail(line), CARDS, PLAYERS)
    assert [str(e) for e in parsed.errors] == []
    assert parsed.warnings == ()
    assert len(parsed.orders) == 1


@pytest.mark.parametrize("body", blocks("mail"))
def test_every_mail_example_reads(body: str) -> None:
    """Each example mail reads whole, without an error or a warning."""
    parsed = parse_orders(body, CARDS, PLAYERS)
    assert [str(e) for e in parsed.errors] == []
    assert parsed.warnings == ()
    assert parsed.orders


@pytest.mark.parametrize("line", example_lines("bad"))
def test_every_bad_example_is_an_error(line: str) -> None:
    """Each line shown as a mistake is reported as one error, with a suggestion."""
    parsed = parse_orders(mail(line), CARDS, PLAYERS)
    assert parsed.orders == ()
    assert len(parsed.errors) == 1 and parsed.errors[0].suggestion


def test_every_order_has_an_example() -> None:
    """Every order the parser knows is shown at least once."""
    written = [" ".join(line.casefold().split()) for line in example_lines("orders")]
    written += [" ".join(line.casefold().split()) for body in blocks("mail")
                for line in body.splitlines()]
    missing = [k for k in ORDER_FORMS if not any(w.startswith(k) for w in written)]
    assert missing == []
