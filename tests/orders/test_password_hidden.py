"""Issue 44, point 6: the password of a start line goes no further than that line.

A bad start line's error (its words, its text, its English for a log or the game master)
never holds the password, wherever else on the line it was typed; a start line pasted into
a press, or the password written in one, is relayed blanked.
"""

from __future__ import annotations

import pytest

from pbem.engine.carddata import load_cardset
from pbem.errors import OrderSyntaxError
from pbem.orders.model import Press
from pbem.orders.parse import parse_header, parse_orders
from pbem.reports.refusals import worded

CARDS = load_cardset()
SECRET = "s3cr3t-word"


@pytest.mark.parametrize("line", [
    f"GAME g PLAYER Alice PASSWORD {SECRET} STEP {SECRET}",
    f"GAME g PLAYER Alice PASSWORD {SECRET} {SECRET}",
    f"GAME g PLAYER Alice PASSWORD {SECRET} TURN x{SECRET}",
])
def test_a_bad_start_line_is_refused_without_its_password(line: str) -> None:
    with pytest.raises(OrderSyntaxError) as refused:
        parse_header(line, CARDS)
    error = refused.value
    assert error.key is not None
    assert SECRET not in f"{error.text} {error.words} {error} {error.suggestion}"
    for lang in ("en", "fr"):  # the words the writer reads, in each language
        assert SECRET not in " ".join(worded(error, lang))


def test_a_start_line_pasted_into_a_press_is_relayed_blanked() -> None:
    text = (f"GAME g PLAYER Alice PASSWORD {SECRET}\nPRESS TO Bob\n"
            f"GAME g PLAYER Alice PASSWORD other-secret\nmine is {SECRET}\nEND PRESS\nEND\n")
    parsed = parse_orders(text, CARDS, ("Alice", "Bob"))
    assert parsed.header.password == SECRET  # the start line itself is read as written
    press = [o.order for o in parsed.orders if isinstance(o.order, Press)]
    assert len(press) == 1
    assert press[0].text.splitlines() == ["GAME g PLAYER Alice PASSWORD ******",
                                          "mine is ******"]
