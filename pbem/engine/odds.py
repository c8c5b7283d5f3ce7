"""The odds table: for each target within reach, the best attack a player can make now.

Pure and cheap: every candidate is scored with the same ``breakdown`` that decides real
attacks, so the table can never promise a number the rules would not give. Money the
defender or other players may spend later is unknown here and left out. An attack that no
roll could win, even with all the money its player can spend on it, is left out too.
"""

from __future__ import annotations

from dataclasses import dataclass

from pbem.engine.abilities import transferable
from pbem.engine.attack import participation_left, validate_attack
from pbem.engine.breakdown import AUTOMATIC_FAILURE, roll_needed, success_chance
from pbem.engine.cards import ATTACK_MODES, AttackMode, CardSet
from pbem.engine.state import GameState, PendingAttack, Player
from pbem.engine.values import evolve
from pbem.errors import IllegalCommandError

# 2d6 cannot do better than 10: 11 and 12 always fail, so more help is wasted past it.
BEST_NEED = AUTOMATIC_FAILURE - 1
LOWEST_ROLL = 2  # 2d6: a roll needed below 2 never succeeds
GOOD_NEED = 7  # the first number that wins more often than not (21/36)
DEFAULT_LIMIT = 12


@dataclass(frozen=True)
class AttackOdds:
    """One attack: who attacks what, how, the roll needed and what money would add.

    ``money_to_7`` and ``money_to_10`` are the MB the attacker would spend (from the
    attacking group and the Illuminati) to need 7 or 10; 0 when already there, None when
    the player does not have that much where it can be spent. ``need`` is the attack's
    number, which may pass 10; ``roll`` is the roll that wins, and ``spare`` what ``need``
    has beyond it, which the defender's money must take away before the chance drops.
    """

    target: str
    owner: str  # "" for an uncontrolled group
    mode: AttackMode
    attacker: str
    aids: tuple[str, ...]
    need: int
    chance: float
    available: int  # MB the attacker can spend on it
    money_to_7: int | None
    money_to_10: int | None

    @property
    def chance_percent(self) -> int:
        return round(self.chance * 100)

    @property
    def roll(self) -> int:
        """The roll (or less) on two dice that wins: 11 and 12 always fail."""
        return min(self.need, BEST_NEED)

    @property
    def spare(self) -> int:
        return max(0, self.need - BEST_NEED)

    @property
    def with_all_money(self) -> int:
        """The roll that wins once all the MB available are spent (10 at most)."""
        return min(self.need + self.available, BEST_NEED)

    @property
    def with_all_money_percent(self) -> int:
        return round(success_chance(self.with_all_money) * 100)


def best_attacks(
    cards: CardSet,
    state: GameState,
    player: str,
    limit: int = DEFAULT_LIMIT,
    modes: tuple[AttackMode, ...] = ATTACK_MODES,
) -> tuple[AttackOdds, ...]:
    """The best attack on each reachable target for each mode, best chances first; never
    one that cannot succeed, even with all the money its player could add.

    Targets are the uncontrolled groups and other players' groups. For each target and
    mode the attacking group with the highest need is kept, helped by the fewest aids that
    bring it to its best; ties go to the attacker first in the power structure. The
    attack must be allowed now (arrows, participation, immunities); whether an action is
    left this turn is not checked, so the table can be shown before the turn begins.
    """
    p = state.player(player)
    if not p.playing:
        return ()
    targets = [(t, "") for t in state.uncontrolled] + [
        (s.card, other.name)
        for other in state.players
        if other.playing and other.name != p.name
        for s in other.structure[1:]
    ]
    helpers = [s.card for s in p.structure
               if transferable(cards, s.card) > 0 and participation_left(cards, state, s.card)]
    found: list[AttackOdds] = []
    for target, owner in targets:
        for mode in modes:
            best = _best_for(cards, state, p, target, owner, mode, helpers)
            if best is not None and best.with_all_money >= LOWEST_ROLL:
                found.append(best)
    order = {m: i for i, m in enumerate(ATTACK_MODES)}
    # Past 10 the chance is the same: fewer aids first, then the most to spare.
    found.sort(key=lambda o: (-o.roll, len(o.aids), -o.need, o.target, order[o.mode]))
    return tuple(found[:limit]) if limit > 0 else tuple(found)


def _best_for(
    cards: CardSet, state: GameState, p: Player, target: str, owner: str, mode: AttackMode,
    helpers: list[str],
) -> AttackOdds | None:
    best: AttackOdds | None = None
    for slot in p.structure:
        attacker = slot.card
        try:
            validate_attack(cards, state, p, attacker, target, mode, ())
        except IllegalCommandError:
            continue
        attack = PendingAttack(player=p.name, attacker=attacker, target=target, mode=mode)
        need = roll_needed(cards, state, attack)
        aids: list[str] = []
        # The biggest helpers first: the fewest cards tied up for the best need.
        for aid in sorted((h for h in helpers if h not in (attacker, target)),
                          key=lambda h: -transferable(cards, h)):
            if need >= BEST_NEED:
                break
            aids.append(aid)
            need = roll_needed(cards, state, evolve(attack, aids=tuple(aids)))
        if best is not None and (need, -len(aids)) <= (best.need, -len(best.aids)):
            continue
        available = slot.treasury + (p.treasury if attacker != p.illuminati else 0)
        best = AttackOdds(
            target=target, owner=owner, mode=mode, attacker=attacker, aids=tuple(aids),
            need=need, chance=success_chance(need), available=available,
            money_to_7=_money_to(GOOD_NEED, need, available),
            money_to_10=_money_to(BEST_NEED, need, available),
        )
    return best


def _money_to(goal: int, need: int, available: int) -> int | None:
    """MB needed to reach ``goal`` (each attacker's MB adds 1), or None if not affordable."""
    missing = max(0, goal - need)
    return missing if missing <= available else None
