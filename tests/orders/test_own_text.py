"""The game recognizes its own text (issue 19, point 2): every text mail the game writes,
pasted below a player's orders without ">" and without END, as clients that strip quotes
or rewrap them send it, adds no order. The mails are the golden renders of every kind
(tests/golden/reports), so a new mail kind is checked as soon as it has a golden.

How: each heading of the game's text mails is underlined with a rule line, the order form
begins with a start line, commented examples start with "#", and the signature with "--";
reading without END stops at each of these (pbem/orders/pasted.py). The lines to copy
(the odds table's, the answers to an attack) always sit below a heading.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from factory import CARDS

from pbem.engine.commands import Pass
from pbem.errors import PbemError
from pbem.orders.line import parse_order
from pbem.orders.parse import parse_orders

GOLDENS = sorted((Path(__file__).parent.parent / "golden" / "reports").glob("*.txt"))
PLAYERS = ("Alice", "Bob", "Chloé")
START = "GAME illu1 PLAYER Bob PASSWORD pw"


def _body(path: Path) -> list[str]:
    """The mail's text as a reader sees it, without the Subject line the golden starts with."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return lines[2:] if lines[0].startswith("Subject:") else lines


def _as_sent(lines: list[str]) -> list[str]:
    return lines


def _rewrapped(lines: list[str]) -> list[str]:
    """As a client that rewraps the pasted text at 72 columns, keeping indentation."""
    out: list[str] = []
    for line in lines:
        lead = line[: len(line) - len(line.lstrip())]
        out += textwrap.wrap(line, 72, initial_indent="", subsequent_indent=lead) or [""]
    return out


def _flattened(lines: list[str]) -> list[str]:
    """As a client that pastes the original as bare paragraphs: no indentation, no blank
    lines (Outlook's HTML-to-text turns each <p> into one line)."""
    return [line.strip() for line in lines if line.strip()]


SHAPES: dict[str, Callable[[list[str]], list[str]]] = {
    "as-sent": _as_sent, "rewrapped-72": _rewrapped, "flattened": _flattened}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: p.stem)
def test_a_pasted_mail_of_the_game_adds_no_order(golden: Path, shape: str) -> None:
    reply = [START, "PASS", "", *SHAPES[shape](_body(golden))]
    parsed = parse_orders("\n".join(reply), CARDS, PLAYERS)
    assert [o.order for o in parsed.orders] == [Pass("Bob")], [o.text for o in parsed.orders]


def test_the_goldens_hold_lines_to_copy() -> None:
    """The check above is not empty: the goldens hold bare ATTACK lines and answers."""
    texts = "\n".join(p.read_text(encoding="utf-8") for p in GOLDENS)
    assert "\n    ATTACK " in texts and "\n    NO RESPONSE" in texts


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: p.stem)
def test_every_line_to_copy_fits_72_columns(golden: Path) -> None:
    """Issue 19, point 3: a client that wraps at 72 columns never cuts a line of ours that
    reads as an order (the lead and a '#' of the order form count)."""
    for line in _body(golden):
        bare = line.strip().removeprefix("#").strip()
        if bare and bare.split()[0].isupper():
            try:
                parse_order(bare, CARDS, "Bob", PLAYERS)
            except PbemError:
                continue
            assert len(line) <= 72, line
