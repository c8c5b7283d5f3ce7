"""The view attached to a report, written in one pass, is what ``json.dumps`` wrote: the same
bytes for every value ``to_json`` takes, every view of the scripted game included."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scripted_game import CARDS, steps

from pbem.engine.codec import to_json
from pbem.engine.view import view
from pbem.reports.json_text import indented_json


def reference(value: Any) -> str:
    return json.dumps(to_json(value), ensure_ascii=False, indent=1, sort_keys=True)


class Level(IntEnum):
    LOW = 1


@dataclass(frozen=True)
class Card:
    name: str
    power: int = 0
    type: str = "group"  # a field named like the tag wins over it, as in to_json
    alignments: tuple[str, ...] = ()
    hidden: bool = field(default=False, init=False)  # not written: __init__ does not take it


SCALARS = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True)
           | st.text() | st.sampled_from([Level.LOW, math.inf, -0.0, "\x00\u2028é\"\\"]))
VALUES = st.recursive(SCALARS, lambda inner: (
    st.lists(inner, max_size=4) | st.lists(inner, max_size=4).map(tuple)
    | st.dictionaries(st.text(max_size=3) | st.integers(), inner, max_size=4)
    | st.builds(Card, st.text(max_size=5), st.integers(), st.text(max_size=3),
                st.lists(st.text(max_size=3), max_size=3).map(tuple))), max_leaves=20)


@given(VALUES)
@settings(max_examples=500, deadline=None)
def test_any_value_is_written_as_json_dumps_writes_it(value: Any) -> None:
    assert indented_json(value) == reference(value)


def test_every_view_of_the_scripted_game_is_written_as_json_dumps_writes_it() -> None:
    states = [s.state for s in steps()]
    for state in states[::7] + states[-1:]:
        for player in state.players:
            v = view(CARDS, state, player.name)
            assert indented_json(v) == reference(v)


def test_what_json_cannot_hold_is_refused() -> None:
    with pytest.raises(TypeError, match="cannot encode set"):
        indented_json({"a": [{1, 2}]})
