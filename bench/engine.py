"""Engine speed: attack resolutions and ``apply()`` calls per second.

Games per second of random legal play say little yet (the bots and ``legal()`` dominate), so
this measures the rules themselves: many varied positions are built first (attackers with
their aids, uncontrolled or defended targets at every depth, the three kinds of attack),
then each attack is played out as the service would -- Attack, Spend (both sides when there
is a defender), Roll, Settle -- and timed. ``run()`` gives the numbers as a dict;
``python bench/engine.py`` prints them as JSON.
"""

from __future__ import annotations

import json
import platform
import random
import time
from dataclasses import replace
from typing import NamedTuple

from pbem.engine.abilities import power, transferable
from pbem.engine.carddata import load_cardset
from pbem.engine.cards import ATTACK_MODES, CardSet
from pbem.engine.commands import Attack, Command, Roll, Settle, Spend
from pbem.engine.dice import Dice
from pbem.engine.rules import apply
from pbem.engine.state import GameState, Options, Player, Slot
from pbem.engine.structure import open_arrows, puppet_slot
from pbem.errors import IllegalCommandError


class Case(NamedTuple):
    """A position and the commands that play one attack out in it.

    (A NamedTuple, not a dataclass: ``bench/run.py`` loads this file without registering it
    in ``sys.modules``, which dataclasses need.)
    """

    state: GameState
    commands: tuple[Command, ...]


def _place(cards: CardSet, state: GameState, player: str, group: str, rng: random.Random,
           money: int) -> GameState:
    """``group`` on a random open arrow of ``player``'s structure, with ``money`` on it."""
    p = state.player(player)
    masters = [s.card for s in p.structure if open_arrows(cards, p, s.card)]
    if not masters:
        return state
    master = rng.choice(masters)
    slot = p.slot(master)
    assert slot is not None
    new = puppet_slot(cards, slot, rng.choice(open_arrows(cards, p, master)), group, money)
    state = state.with_player(replace(p, structure=(*p.structure, new)))
    return replace(state, money_issued=state.money_issued + money)


def _position(cards: CardSet, rng: random.Random) -> GameState:
    """Two players with a few groups each and money everywhere, a few groups uncontrolled."""
    ann_card, bob_card = rng.sample([i.name for i in cards.illuminati], 2)
    players = tuple(
        Player(name=name, illuminati=card, structure=(Slot(card, 0, 0, 0, None, 20),),
               turns=1 if name == "ann" else 0)
        for name, card in (("ann", ann_card), ("bob", bob_card))
    )
    groups = rng.sample([g.name for g in cards.groups], 12)
    state = GameState(game="bench", options=Options(), players=players, deck=(),
                      dice=Dice(f"{rng.getrandbits(128):032x}"), phase="actions",
                      turn_number=1, uncontrolled=tuple(groups[8:]), money_issued=40)
    for group in groups[:4]:
        state = _place(cards, state, "ann", group, rng, rng.randint(0, 6))
    for group in groups[4:8]:
        state = _place(cards, state, "bob", group, rng, rng.randint(0, 6))
    return state


def _case(cards: CardSet, rng: random.Random) -> Case | None:
    """One attack that the rules accept in a fresh position, or None."""
    state = _position(cards, rng)
    ann, bob = state.player("ann"), state.player("bob")
    attackers = [s.card for s in ann.structure if power(cards, s.card) > 0]
    targets = [*state.uncontrolled, *bob.groups]
    if not attackers or not targets:
        return None
    attacker, target, mode = rng.choice(attackers), rng.choice(targets), rng.choice(ATTACK_MODES)
    aids = tuple(s.card for s in ann.structure
                 if s.card != attacker and transferable(cards, s.card) > 0 and rng.random() < .5)
    commands: list[Command] = [Attack("ann", attacker, target, mode, aids=aids)]
    commands.append(Spend("ann", ann.illuminati, rng.randint(1, 10)))
    if target in bob.groups:
        commands.append(Spend("bob", bob.illuminati, rng.randint(1, 10)))
    commands += [Roll(), Settle()]
    try:
        check = state
        for command in commands:
            check, _ = apply(check, command, cards)
    except IllegalCommandError:
        return None
    return Case(state, tuple(commands))


def cases(cards: CardSet, count: int, seed: int) -> list[Case]:
    """``count`` varied attacks, all legal."""
    rng = random.Random(seed)
    out: list[Case] = []
    while len(out) < count:
        case = _case(cards, rng)
        if case is not None:
            out.append(case)
    return out


def run(resolutions: int = 3000, positions: int = 300, seed: int = 1) -> dict[str, object]:
    """Attack resolutions per second and apply() calls per second over varied positions."""
    cards = load_cardset()
    prepared = cases(cards, positions, seed)
    calls = successes = 0
    start = time.perf_counter()
    for i in range(resolutions):
        case = prepared[i % len(prepared)]
        state = case.state
        for command in case.commands:
            state, events = apply(state, command, cards)
            calls += 1
        successes += any(e.kind == "attack_result" and e.data["success"] for e in events)
    seconds = time.perf_counter() - start
    return {
        "attack_resolutions": resolutions,
        "positions": len(prepared),
        "seconds": round(seconds, 3),
        "attack_resolutions_per_s": round(resolutions / seconds, 1),
        "apply_calls": calls,
        "apply_calls_per_s": round(calls / seconds, 1),
        "success_rate": round(successes / resolutions, 3),
        "python": platform.python_version(),
    }


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
