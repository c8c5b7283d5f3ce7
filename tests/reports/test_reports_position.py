"""A position's facts are worked out once per state and reader, and never reused for
another state, another reader or another card set."""

from __future__ import annotations

import copy
from dataclasses import replace

from scripted_game import CARDS, DEADLINE, NOW, steps

from pbem.engine.view import view
from pbem.reports import mails as reports
from pbem.reports import position as reports_position
from pbem.reports.position import KEPT, position


def test_the_same_state_gives_the_kept_position_and_nothing_else_does() -> None:
    state = steps()[5].state
    alice, bob = state.players[0].name, state.players[1].name
    seen = position(CARDS, state, alice)
    assert position(CARDS, state, alice) is seen
    assert seen.v == view(CARDS, state, alice)
    assert position(CARDS, state, bob).v == view(CARDS, state, bob) != seen.v
    # An equal state, but another object (read again from the store, say): worked out again.
    again = replace(state)
    assert position(CARDS, again, alice) is not seen
    assert position(CARDS, again, alice).v == seen.v
    later = steps()[6].state
    assert position(CARDS, later, alice).v == view(CARDS, later, alice)
    assert position(copy.copy(CARDS), state, alice) is not seen


def test_only_the_last_positions_are_kept() -> None:
    states = [s.state for s in steps()[:KEPT + 2]]
    for state in states:
        position(CARDS, state, state.players[0].name)
    assert len(reports_position._kept) <= KEPT


def test_a_report_of_the_kept_position_is_the_report_worked_out_afresh() -> None:
    state = steps()[8].state
    player = state.active_player.name

    def report() -> reports.Rendered:
        return reports.turn_report(CARDS, state, player, steps()[8].events, now=NOW,
                                   deadline=DEADLINE)

    first = report()
    assert position(CARDS, state, player) is position(CARDS, state, player)
    assert report() == first
    reports_position._kept.clear()
    assert report() == first
