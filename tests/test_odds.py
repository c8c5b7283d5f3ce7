"""The odds table: the best attack on each target, agreeing with the rules that decide it."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest
from test_reports_game import CARDS, first, steps

from pbem.engine.breakdown import success_chance
from pbem.engine.commands import Attack
from pbem.engine.odds import BEST_NEED, AttackOdds, best_attacks
from pbem.engine.ops import set_treasury
from pbem.engine.rules import apply
from pbem.engine.state import GameState


def _position() -> GameState:
    """The scripted game at the start of turn 7's actions: groups in play on both sides."""
    return steps()[first("report")].state


def _all(state: GameState, player: str) -> tuple[AttackOdds, ...]:
    return best_attacks(CARDS, state, player, limit=0)


def test_each_row_is_the_attack_the_rules_would_announce() -> None:
    """Announcing a row's attack gives the same roll needed as the table says."""
    state = _position()
    player = state.active_player.name
    rows = _all(state, player)
    assert rows
    for row in rows:
        announced, events = apply(state, Attack(player, row.attacker, row.target, row.mode,
                                                aids=row.aids), CARDS)
        (attack,) = [e for e in events if e.kind == "attack"]
        assert attack.data["need"] == row.need, row
        assert row.chance == success_chance(row.need)
        assert announced.attack is not None


def test_targets_are_uncontrolled_groups_and_other_players_groups() -> None:
    """Never the player's own groups, never an Illuminati; owners named for controlled ones."""
    state = _position()
    player = state.active_player
    rows = _all(state, player.name)
    mine = {s.card for s in player.structure}
    others = {s.card: p.name for p in state.players if p.name != player.name
              for s in p.structure[1:]}
    for row in rows:
        assert row.target not in mine
        assert row.target in state.uncontrolled or others[row.target] == row.owner
        assert (row.owner == "") == (row.target in state.uncontrolled)


def test_no_better_attack_exists_among_the_legal_ones() -> None:
    """For each target and mode the row's need is the best any legal attack reaches."""
    from pbem.engine.legal import legal

    state = _position()
    player = state.active_player.name
    best: dict[tuple[str, str], int] = {}
    for cmd in legal(state, player, CARDS):
        if isinstance(cmd, Attack):
            _, events = apply(state, cmd, CARDS)
            need = next(e.data["need"] for e in events if e.kind == "attack")
            key = (cmd.target, cmd.mode)
            best[key] = max(best.get(key, need), need)
    rows = {(r.target, r.mode): r for r in _all(state, player)}
    assert set(rows) == set(best)
    for key, row in rows.items():
        # Legal attacks take every aid; the table stops adding aids once 10 is reached.
        assert min(best[key], BEST_NEED) <= row.need <= best[key], key


def test_fewest_aids_for_the_best_chance() -> None:
    """Aids are added only while they raise the chance: none once 10 is reached."""
    state = _position()
    for row in _all(state, state.active_player.name):
        if row.aids:
            without_last = replace(row, aids=row.aids[:-1])
            _, events = apply(state, Attack(state.active_player.name, row.attacker,
                                            row.target, row.mode, aids=without_last.aids),
                              CARDS)
            need = next(e.data["need"] for e in events if e.kind == "attack")
            assert need < BEST_NEED


def test_money_to_seven_and_ten_count_what_the_attacker_can_spend() -> None:
    """Missing MB to need 7 and 10, or None when the attacking group and the Illuminati do
    not hold that much."""
    state = _position()
    player = state.active_player
    rows = _all(state, player.name)
    for row in rows:
        assert row.money_to_7 in (max(0, 7 - row.need), None)
        assert row.money_to_10 in (max(0, 10 - row.need), None)
        if row.money_to_10 is None:
            assert 10 - row.need > row.available
    poor = state
    for slot in player.structure:
        poor = set_treasury(poor, player.name, slot.card, 0)
    for row in _all(poor, player.name):
        assert row.available == 0
        assert row.money_to_7 == (0 if row.need >= 7 else None)


def test_limit_keeps_the_best_first() -> None:
    state = _position()
    every = _all(state, state.active_player.name)
    top = best_attacks(CARDS, state, state.active_player.name, limit=3)
    assert top == every[:3]
    assert [r.need for r in every] == sorted((r.need for r in every), reverse=True)


def test_a_player_out_of_the_game_has_no_odds() -> None:
    state = _position()
    gone = replace(state, players=tuple(replace(p, status="left") if i == 0 else p
                                        for i, p in enumerate(state.players)))
    assert best_attacks(CARDS, gone, gone.players[0].name) == ()


@pytest.mark.parametrize("index", [-2, -10])
def test_fast_enough_for_every_report(index: int) -> None:
    """A whole table in well under a tenth of a second, late in the game."""
    state = steps()[index].state
    start = time.perf_counter()
    for p in state.players:
        best_attacks(CARDS, state, p.name)
    assert time.perf_counter() - start < 0.3
