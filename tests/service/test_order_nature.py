"""An order's nature is declared on its class and read everywhere (issue 36, point 3): the
service's tuples of order classes are gone, and a dispatch table with no entry for an order
fails as the program starts, never silently taking it for the active player's order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest

from pbem.engine.commands import AbolishPrivilege, ChooseGoal, Counter, EndTurn, PlaySpecial
from pbem.orders.model import (
    ORDER_TYPES,
    AttackOrder,
    ConditionalPlay,
    DefendOrder,
    Help,
    History,
    InterfereOrder,
    Nature,
    NoResponse,
    NoSuchOrder,
    Odds,
    SetHtml,
    SetJson,
    SetLanguage,
    SetMail,
    SetReport,
    SetTimezone,
    StandingCounter,
    StandingList,
    Status,
    check_table,
    nature_of,
)
from pbem.service import dispatch


@dataclass(frozen=True)
class Shout:
    """A new order word, given a nature but no entry in any table."""

    nature: ClassVar[Nature] = Nature()
    text: str = ""


@dataclass(frozen=True)
class Whisper:
    """A class with no nature at all."""


def kinds(test: str) -> set[type]:
    return {k for k in ORDER_TYPES if getattr(nature_of(k), test)}


def test_a_new_order_without_its_dispatch_entries_fails_the_check() -> None:
    with pytest.raises(NoSuchOrder, match="CARRY_OUT has no entry for Shout"):
        dispatch.check_tables((*ORDER_TYPES, Shout))


def test_every_table_is_checked_not_only_carry_out() -> None:
    """RUN_ACTIVE once had a default too (one engine command): a class routed by CARRY_OUT
    but missing from RUN_ACTIVE is named."""
    dispatch.CARRY_OUT[Shout] = dispatch.CARRY_OUT[EndTurn]  # type: ignore[index]
    try:
        with pytest.raises(NoSuchOrder, match="RUN_ACTIVE has no entry for Shout"):
            dispatch.check_tables((*ORDER_TYPES, Shout))
    finally:
        del dispatch.CARRY_OUT[Shout]  # type: ignore[arg-type]


def test_the_tables_hold_every_order_today() -> None:
    dispatch.check_tables()


def test_a_class_with_no_nature_is_no_order() -> None:
    with pytest.raises(NoSuchOrder, match="Whisper declares no nature"):
        nature_of(Whisper())
    with pytest.raises(NoSuchOrder):
        dispatch.check_tables((*ORDER_TYPES, Whisper))


def test_check_table_names_every_missing_class() -> None:
    with pytest.raises(NoSuchOrder, match="T has no entry for Shout, Whisper"):
        check_table({}, "T", (Shout, Whisper))


def test_the_natures_are_those_the_service_had_in_its_tuples() -> None:
    """The sets of the four tuples removed (FREE_ORDERS, OUT_OF_GAME_ORDERS, digest.ASKS,
    resent.QUERIES) and of the window's answers, as they were."""
    assert kinds("query") == {Status, History, Help, Odds, StandingList}
    assert kinds("answered") == {Status, History, Help, Odds, StandingList, SetMail}
    assert kinds("out_of_game") == {Status, History, SetTimezone, SetLanguage, SetHtml,
                                    SetJson, SetMail, SetReport}
    assert kinds("window") == {DefendOrder, InterfereOrder, ConditionalPlay,
                               AbolishPrivilege, Counter, NoResponse}
    assert len(kinds("free")) == 21 and {ChooseGoal, StandingCounter} <= kinds("free")
    assert not {AttackOrder, PlaySpecial, EndTurn} & kinds("free")
