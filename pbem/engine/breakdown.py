"""The number an attack needs, as a list of terms with their sources.

The same object decides the result and is shown to players, so a report can never disagree
with the rules that were applied.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pbem.engine.abilities import (
    alignment_modifier,
    alignments,
    attack_bonuses,
    attacking_alignments,
    power,
    resistance_bonus,
    transferable,
)
from pbem.engine.cards import CardSet, Group
from pbem.engine.state import GameState, PendingAttack
from pbem.engine.structure import depth

PROXIMITY = {1: 10, 2: 5, 3: 2}
NEUTRALIZE_BONUS = 6
ALIGNMENT_STEP = 4
MONEY_WEIGHT = {"attack": 1, "assist": 1, "interfere": -1}
AUTOMATIC_FAILURE = 11  # "A roll of 11 or 12 results in automatic failure"


@dataclass(frozen=True)
class Term:
    """One modifier: what it is, the card or player it comes from, and its signed value."""

    kind: str
    source: str
    amount: int


@dataclass(frozen=True)
class Breakdown:
    terms: tuple[Term, ...]

    @property
    def need(self) -> int:
        """The roll needed: the attack succeeds on this or less (11 and 12 always fail)."""
        return sum(t.amount for t in self.terms)

    @property
    def chance(self) -> float:
        """The probability that 2d6 succeeds against this need."""
        return success_chance(self.need)


_WAYS = tuple(sum(1 for a in range(1, 7) for b in range(1, 7) if a + b <= n) for n in range(11))


def success_chance(need: int) -> float:
    """The chance that 2d6 rolls ``need`` or less and not 11 or 12."""
    return _WAYS[max(0, min(need, AUTOMATIC_FAILURE - 1))] / 36


def succeeds(need: int, roll: int) -> bool:
    return roll < AUTOMATIC_FAILURE and roll <= need


def breakdown(cards: CardSet, state: GameState, attack: PendingAttack) -> Breakdown:
    """Every term of the attack as it stands now (money spent so far included)."""
    return Breakdown(tuple(Term(*term) for term in terms_of(cards, state, attack)))


def roll_needed(cards: CardSet, state: GameState, attack: PendingAttack) -> int:
    """The roll the attack needs now: ``breakdown(...).need`` without building its terms,
    wherever only the number is needed (the engine's events, the bidding, the bots' search,
    which asks it hundreds of times a decision)."""
    return sum(amount for _, _, amount in terms_of(cards, state, attack))


def terms_of(cards: CardSet, state: GameState,
             attack: PendingAttack) -> Iterator[tuple[str, str, int]]:
    """The terms of ``breakdown``, each as (kind, source, amount)."""
    player = state.player(attack.player)
    owner = state.owner(attack.target)
    target_card = cards.card(attack.target)
    assert isinstance(target_card, Group)
    yield "power", attack.attacker, power(cards, attack.attacker)
    for aid in attack.aids:
        yield "aid", aid, transferable(cards, aid)

    if attack.mode == "destroy" and not attack.whispering:
        yield "defender_power", attack.target, -target_card.power
    else:
        replaced, extra = resistance_bonus(cards, state, owner, attack.attacker, attack.target)
        base = target_card.resistance if replaced is None else replaced
        yield "resistance", attack.target, -base
        for src, amount in extra:
            yield "defense_ability", src, -amount

    attacking = attacking_alignments(cards, state, attack.attacker, attack.target, attack.mode)
    defending = alignments(cards, state, attack.target)
    identical, opposite = alignment_modifier(attacking, defending, attack.mode)
    sign = -1 if attack.mode == "destroy" else 1
    if attack.mode == "destroy" and "Media" in attacking and "Media" in defending:
        # rules-fr (the Media alignment exists only there): Media "rapportent 4 points lors
        # d'une attaque pour contrôler ou pour détruire un autre média" -- +4 on destroy too.
        identical -= 1
        yield "media_alignment", attack.target, ALIGNMENT_STEP
    if identical:
        yield "identical_alignment", attack.target, sign * ALIGNMENT_STEP * identical
    if opposite:
        yield "opposite_alignment", attack.target, -sign * ALIGNMENT_STEP * opposite

    if attack.mode == "neutralize":
        yield "neutralize", attack.attacker, NEUTRALIZE_BONUS

    own_group = owner is not None and owner.name == attack.player
    if owner is not None and not (own_group and attack.mode == "destroy"):
        bonus = PROXIMITY.get(depth(owner, attack.target), 0)
        if bonus:
            yield "proximity", owner.illuminati, -bonus

    for src, amount in attack_bonuses(cards, state, player, attack.attacker, attack.target,
                                      attack.mode):
        yield "ability", src, amount

    for pay in attack.payments:
        if pay.side == "defense":
            weight = -2 if pay.source == attack.target else -1
        else:
            weight = MONEY_WEIGHT[pay.side]
        kind = {"attack": "attacker_money", "defense": "defender_money"}.get(pay.side, pay.side)
        yield (kind, pay.source if pay.side != "assist" and pay.side != "interfere"
               else pay.player, weight * pay.amount)
