"""A special goal's kind is card data (``games/illuminati/cards.toml``, each Illuminati's
``goal.kind``, refused unless one of ``GoalKind`` as the file is read): what a goal counts
and what the other players see of it are tables from that kind, checked whole as they are
built, never a ladder of names or kind strings."""

from __future__ import annotations

import pytest

from pbem.engine.cards import GOAL_KINDS, by_goal_kind
from pbem.engine.victory import COUNTS
from pbem.engine.view import SHOWN_TO_OTHERS


def test_every_goal_kind_is_counted_and_has_what_others_see() -> None:
    """rulebook-en: "The Special Goal is another way a player can win. This is different
    for each player": each kind of goal the card data may give an Illuminati is counted
    (``victory.COUNTS``) and shown to the other players (``view.SHOWN_TO_OTHERS``)."""
    assert set(COUNTS) == set(SHOWN_TO_OTHERS) == set(GOAL_KINDS)
    assert len(GOAL_KINDS) == 7


def test_a_table_missing_a_goal_kind_fails_as_it_is_built() -> None:
    """A goal kind added to the card data's closed set without its entry in a table fails
    as the table's module is imported, not as a game reaches it (a dispatch table fails
    loudly on a missing entry)."""
    whole = dict.fromkeys(GOAL_KINDS, 0)
    assert dict(by_goal_kind(whole)) == whole
    with pytest.raises(TypeError, match="secret_choice"):
        by_goal_kind({k: 0 for k in GOAL_KINDS if k != "secret_choice"})
