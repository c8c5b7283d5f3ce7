"""Each level's decisions behind one interface, for ``pbem simulate`` and the mail bots.

``easy`` and ``normal`` are ``pbem.bots``' heuristics; ``strong`` searches its actions
(``pbem.bots.search``) and defends as ``normal`` does, but interferes only against an attack
that would win, with all it has. Every function takes the bot's belief (a state rebuilt from
its own view), never the full state.
"""

from __future__ import annotations

import random

from pbem import bots
from pbem.bots import search
from pbem.bots.search import Choice
from pbem.engine.bidding import Stance
from pbem.engine.cards import CardSet
from pbem.engine.commands import Attack
from pbem.engine.state import GameState

__all__ = ["Choice", "action", "answer_level", "response"]


def action(cards: CardSet, state: GameState, me: str, level: bots.Level,
           rng: random.Random) -> Choice:
    """The bot's next command in the actions phase, with the money for an attack."""
    if level == "strong":
        return search.best_action(cards, state, me, rng)
    command = bots.choose_action(cards, state, me, rng, level)
    if isinstance(command, Attack):
        for plan in bots.plan_attacks(cards, state, state.player(me), level):
            if plan.attack == command:
                return Choice(command, plan.spend, plan.upto)
    return Choice(command)


def response(cards: CardSet, state: GameState, me: str, level: bots.Level,
             rng: random.Random) -> Stance | None:
    """The bot's answer to another player's attack (money for or against it), or None."""
    if level == "strong":
        return search.response(cards, state, me, rng)
    return bots.response_stance(cards, state, me, rng, level)


def answer_level(level: bots.Level) -> bots.Level:
    """The level whose rules of thumb a bot follows where it has no search of its own (its
    money once its attack is announced, the cards it plays in answer): strong as normal."""
    return "normal" if level == "strong" else level
