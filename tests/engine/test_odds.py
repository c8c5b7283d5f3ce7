"""The odds table: the best attack on each target, agreeing with the rules that decide it."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest
from factory import BAVARIA, DISCORDIA, GNOMES, free, game, money, place
from scripted_game import CARDS, DEADLINE, NOW, first, steps

from pbem.engine.breakdown import success_chance
from pbem.engine.commands import Attack
from pbem.engine.odds import BEST_NEED, AttackOdds, best_attacks
from pbem.engine.ops import set_treasury
from pbem.engine.rules import apply
from pbem.engine.state import GameState
from pbem.reports import mails as reports
from pbem.service.order_mail import words


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
    assert set(rows) <= set(best)
    purse = sum(s.treasury for s in state.player(player).structure)
    for key in set(best) - set(rows):  # left out: not even all the money would do
        assert best[key] + purse < 2, key
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
    assert [r.roll for r in every] == sorted((r.roll for r in every), reverse=True)


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


def test_an_attack_no_roll_could_win_is_left_out() -> None:
    """rulebook-en: "Each MB spent (returned to the bank) adds one point of Power to that
    attack." QA saw "need -6 (0%)": a row is shown only if the attack could succeed (a
    roll needed of 2 or more) once the attacker adds all the money it can spend."""
    state = place(game(ann=BAVARIA, bob=GNOMES), "bob", "Phone Phreaks")
    state = free(state, "Hackers")
    poor = {(r.target, r.mode): r for r in _all(state, "ann")}
    assert ("Hackers", "control") in poor
    assert ("Phone Phreaks", "control") not in poor  # resistance 1 + 10 next to the Gnomes
    assert all(r.with_all_money >= 2 for r in poor.values())
    rich = {(r.target, r.mode): r
            for r in _all(money(state, "ann", BAVARIA, 20), "ann")}
    row = rich[("Phone Phreaks", "control")]
    assert row.chance == 0 and row.with_all_money >= 2


def test_a_need_past_ten_reads_as_ten_or_less_with_some_to_spare() -> None:
    """rulebook-en: "Once the roll needed to succeed has reached 10, additional spending will
    not improve the attacker's odds; an 11 or 12 always fails." QA saw "need 12 (92%)": the
    report says the roll that wins, 10 or less, and what the attack has to spare against
    the defender's money."""
    state = free(game(ann=DISCORDIA, bob=GNOMES), "S.M.O.F.")
    (row,) = [r for r in _all(state, "ann") if r.mode == "control"]
    assert (row.need, row.roll, row.spare, row.chance_percent) == (11, 10, 1, 92)
    en = reports.turn_report(CARDS, state, "ann", (), now=NOW, deadline=DEADLINE)
    fr = reports.turn_report(CARDS, state, "ann", (), now=NOW, deadline=DEADLINE, lang="fr")
    assert ("S.M.O.F., to control: need 10 or less (92%), 1 to spare against the "
            "defender's money.") in " ".join(en.text.split())
    assert ("S.M.O.F., pour contrôler : il faut 10 ou moins (92 %), 1 point de marge "
            "contre l'argent du défenseur.") in " ".join(fr.text.split())
    assert "need 11" not in en.text and "(+1)" in en.html


@pytest.mark.parametrize(("lang", "need", "said"), [
    ("en", 12, "It would need a roll of 10 or less (92% chance), with 2 to spare against "
               "the defender's money."),
    ("en", -6, "No roll of the dice would win it: it would need -6 or less."),
    ("fr", 11, "Il faudrait faire 10 ou moins aux dés (92\\xa0% de chances), avec 1 point de "
               "marge contre l'argent du défenseur."),
])
def test_the_odds_order_says_the_roll_that_wins(lang: str, need: int, said: str) -> None:
    """The answer to ODDS says the same as the table: 10 or less past 10, and that no roll
    wins below 2."""
    chance = round(success_chance(need) * 100)
    assert words(lang, None, "odds", need=need, chance=chance) == said.replace("\\xa0", "\xa0")
