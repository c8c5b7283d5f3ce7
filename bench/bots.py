"""How well the bots play: seeded tournaments, as JSON (issue 23's targets).

- ``strong_vs_normal``: one strong bot against three normal ones, 4 players; the strong
  bot's seat goes round the table and its Illuminati round all eight, the others' dealt.
  A shared victory counts as a win for each winner (``win_share``) and as a fraction
  (``win_share_split``). Fair share: 0.25.
- ``all_strong``: every seat strong, 4 players, Illuminati dealt: wins and games played by
  Illuminati, their win share as a multiple of the fair share 0.25 (target 0.5 to 1.6), and
  the special goals reached (the UFOs' under the goal they chose).
- ``turn_cap``: games ended by the turn cap among every game played here (target 0).
- ``decision_seconds``: the time a strong mail bot takes to write one turn's order mail from
  its view (``pbem.bots.mailbots.orders_for``), median and 95th percentile (target p95 <= 1 s),
  measured at the start of every strong turn of the first ``timed`` all-strong games.

Usage: ``python bench/bots.py [GAMES_EACH] [SEED] [TIMED] [WORKERS]`` (default 100 games
each, seed 1, the mails of 5 games timed, 2 worker processes: the games are independent and
play on both cores; the mails are timed alone, after them).
"""

from __future__ import annotations

import functools
import json
import os
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from multiprocessing import Pool
from typing import Any

from pbem.bots import Level, mailbots
from pbem.bots.simulate import BotTable, GameResult, play_game, seed_for
from pbem.engine.carddata import load_cardset
from pbem.engine.cards import CardSet
from pbem.engine.setup import Seat, Setup, new_game, with_options
from pbem.engine.view import view

PLAYERS = 4
FAIR = 1 / PLAYERS


def _goal_name(result: GameResult, winner: str, goal: str) -> str:
    illuminati = {name: ill for name, ill, _ in result.seats}[winner]
    if goal == "basic":
        return "basic"
    return goal if goal == illuminati else f"{illuminati} (as {goal})"


def _duel(index: int, seed: int) -> GameResult:
    """Game ``index`` of the duels: the strong seat and its Illuminati go round."""
    cards = _cards()
    names = [i.name for i in cards.illuminati]
    rng = random.Random(seed * 7919 + index)
    seat = index % PLAYERS
    mine = names[index % len(names)]
    others = rng.sample([n for n in names if n != mine], PLAYERS - 1)
    illuminati = [*others[:seat], mine, *others[seat:]]
    levels: list[Level] = ["normal"] * PLAYERS
    levels[seat] = "strong"
    return play_game(cards, index, PLAYERS, seed, levels=levels, illuminati=illuminati,
                     check_every=50)


def _all_strong(index: int, seed: int) -> GameResult:
    return play_game(_cards(), index, PLAYERS, seed + 1, levels=["strong"] * PLAYERS,
                     check_every=50)


@functools.cache
def _cards() -> CardSet:
    """The card set, loaded once in each worker process."""
    return load_cardset()


def _played(pool: Pool, game: Callable[[int, int], GameResult], games: int,
            seed: int) -> list[GameResult]:
    return pool.starmap(game, [(index, seed) for index in range(games)], chunksize=1)


def strong_vs_normal(results: list[GameResult]) -> dict[str, Any]:
    games = len(results)
    wins = split = 0.0
    by_illuminati: Counter[str] = Counter()
    for result in results:
        strong = next(name for name, _, level in result.seats if level == "strong")
        if strong in result.winners:
            wins += 1
            split += 1 / len(result.winners)
            by_illuminati[{n: i for n, i, _ in result.seats}[strong]] += 1
    return {"games": games, "win_share": round(wins / games, 3),
            "win_share_split": round(split / games, 3), "fair_share": FAIR,
            "wins_by_illuminati": dict(sorted(by_illuminati.items()))}


def all_strong(results: list[GameResult]) -> dict[str, Any]:
    played: Counter[str] = Counter()
    won: Counter[str] = Counter()
    goals: Counter[str] = Counter()
    games = len(results)
    for result in results:
        by_name = {name: ill for name, ill, _ in result.seats}
        played.update(by_name.values())
        for winner, goal in zip(result.winners, result.goals, strict=True):
            won[by_name[winner]] += 1
            if goal != "basic":
                goals[_goal_name(result, winner, goal)] += 1
    by_illuminati = {
        name: {"games": played[name], "wins": won[name],
               "x_fair": round(won[name] / played[name] / FAIR, 2) if played[name] else None}
        for name in sorted(played)}
    return {"games": games, "by_illuminati": by_illuminati,
            "special_goals_reached": dict(sorted(goals.items())),
            "basic_goal_wins": sum(g == "basic" for r in results for g in r.goals)}


def _timed_mails(cards: CardSet, index: int, seed: int) -> list[float]:
    """Seconds a strong mail bot takes for each turn's order mail in one all-strong game."""
    seats = tuple(Seat(f"player{i + 1}") for i in range(PLAYERS))
    setup = with_options(cards, Setup(f"sim{index}", seats, seed_for(seed, index)),
                         max_turns=300)
    state, _ = new_game(cards, setup)
    table = BotTable(cards, state, random.Random(index), check_every=1000,
                     levels={s.name: "strong" for s in seats})
    seconds = []
    while table.state.phase != "over":
        s = table.state
        if s.phase == "actions" and not s.turn.did_anything and s.special is None:
            v = view(cards, s, s.active_player.name)
            start = time.perf_counter()
            mailbots.orders_for(cards, v, "strong")
            seconds.append(time.perf_counter() - start)
        table.step()
    return seconds


def run(games: int = 100, seed: int = 1, timed: int = 5, workers: int = 2) -> dict[str, Any]:
    cards = _cards()
    start = time.perf_counter()
    with Pool(workers) as pool:
        duel_results = _played(pool, _duel, games, seed)
        strong_results = _played(pool, _all_strong, games, seed)
    seconds = sorted(s for index in range(timed) for s in _timed_mails(cards, index, seed + 1))
    every = duel_results + strong_results
    return {
        "players": PLAYERS,
        "seed": seed,
        "strong_vs_normal": strong_vs_normal(duel_results),
        "all_strong": all_strong(strong_results),
        "turn_cap": {"games": len(every),
                     "capped": sum(r.outcome == "turn cap" for r in every),
                     "mean_turns": round(statistics.mean(r.turns for r in every), 1)},
        "invariant_violations": sum(len(r.violations) for r in every),
        "decision_seconds": {
            "mails": len(seconds),
            "median": round(statistics.median(seconds), 4) if seconds else None,
            "p95": round(seconds[int(0.95 * (len(seconds) - 1))], 4) if seconds else None,
            "max": round(seconds[-1], 4) if seconds else None,
        },
        "seconds": round(time.perf_counter() - start, 1),
        "workers": workers,
        "cores": os.cpu_count(),
    }


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    print(json.dumps(run(*args), indent=2))
