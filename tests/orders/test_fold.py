"""The lines the game writes for players to copy stay within 72 columns, and read back whole
when copied (issue 19, point 3): a long one is cut once, before a keyword that goes on the
order, and the parser joins the two lines again."""

from __future__ import annotations

import itertools

import pytest
from factory import CARDS

from pbem.engine.commands import Attack
from pbem.orders import AttackOrder, format_order
from pbem.orders.format import fold_order
from pbem.orders.parse import parse_orders
from pbem.reports.templating import template

START = "GAME g PLAYER Alice PASSWORD s"
ILLUMINATI = [c.name for c in CARDS.illuminati]
GROUPS = sorted((c.name for c in CARDS.groups), key=len, reverse=True)[:6]


def _longest_attacks() -> list[AttackOrder]:
    """Attacks with the longest names the cards have, aided, with money: up to 100+ columns."""
    return [AttackOrder(Attack("Alice", attacker, target, "control", aids=(a, b)),
                        spend=12, upto=25)
            for attacker, (target, a, b) in itertools.product(
                ILLUMINATI[:3], itertools.permutations(GROUPS, 3))][:60]


@pytest.mark.parametrize("lead", ["    ", "# "])
def test_a_long_line_to_copy_is_cut_within_72_columns_and_reads_back_whole(lead: str) -> None:
    copy = template("_blocks.txt.j2").module.copy
    attacks = _longest_attacks()
    assert max(len(format_order(a)) for a in attacks) > 90  # the check is not empty
    for attack in attacks:
        written = str(copy(format_order(attack), lead)).split("\n")
        assert all(len(line) <= 72 for line in written), written
        copied = [line.removeprefix("#") for line in written]  # the reader uncomments
        parsed = parse_orders("\n".join([START, *copied, "END"]), CARDS, ("Alice",))
        assert [o.order for o in parsed.orders] == [attack], (written, parsed.errors)


def test_fold_cuts_only_outside_quotes_and_before_a_keyword() -> None:
    line = 'ATTACK "A WITH B" CONTROL "C SPEND D" WITH Hollywood SPEND 2 UPTO 5'
    assert fold_order(line, 40) == ['ATTACK "A WITH B" CONTROL "C SPEND D"',
                                    "WITH Hollywood SPEND 2 UPTO 5"]
    assert fold_order("PASS", 3) == ["PASS"]
    assert fold_order("GIVE 2 MB TO Alice", 10) == ["GIVE 2 MB", "TO Alice"]
