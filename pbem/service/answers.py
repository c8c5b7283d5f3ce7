"""Answers in a response window: several mails of one player added up, and who cancels
which special card with Secrets Man Was Not Meant To Know.

Secrets is never spent without the holder's word (docs/service.md): in a window, only a
player who answered COUNTER cancels, and only a card played by someone else that works
against their side of the attack.
"""

from __future__ import annotations

from collections.abc import Callable

from pbem.engine.behaviour import cancels_for
from pbem.engine.cards import CardSet
from pbem.engine.state import GameState, PendingSpecial
from pbem.service.model import Answer, Window


def merge(old: Answer, new: Answer) -> Answer:
    """Two answers of one player to one window: a new stance replaces the old, cards add up."""
    return Answer(
        old.player,
        stance=new.stance or old.stance,
        plays=old.plays + new.plays,
        abolish=new.abolish or old.abolish,
        reactions=old.reactions + new.reactions,
        counter=new.counter or old.counter,
    )


def sides(state: GameState, window: Window) -> dict[str, str]:
    """The side of each player who answered COUNTER: "attack", "defense", or "" (none)."""
    attack = state.attack
    assert attack is not None
    owner = state.owner(attack.target)
    found: dict[str, str] = {}
    for a in window.answers:
        if not a.counter:
            continue
        if owner is not None and owner.name == a.player:
            found[a.player] = "defense"
        elif a.stance is not None:
            found[a.player] = "attack" if a.stance.side == "assist" else "defense"
        else:
            found[a.player] = ""
    if window.attacker is not None and window.attacker.counter:
        found[window.attacker.player] = "attack"
    return found


def counter_rule(cards: CardSet, state: GameState,
                 window: Window) -> Callable[[str, PendingSpecial], bool]:
    """``wants(player, card just played)``: whether the player cancels it with Secrets."""
    side_of = sides(state, window)

    def wants(player: str, pending: PendingSpecial) -> bool:
        if player not in side_of:
            return False
        # An abolished privilege works for the defence, as the card data says of a card.
        card = None if pending.abolish else cards.special(pending.card)
        return cancels_for(card, side_of[player])

    return wants
