"""Random-but-sensible players: they attack with fair odds, defend, interfere and play cards,
and now and then offer a spare group away, and may withdraw the offer before its answer.

Three levels (``Level``): ``easy`` plays as the first bots did, blind to its special goal and
often taking a lesser attack; ``normal`` weighs every target by its Illuminati's special goal
as well as the basic one (destroys for the Servants of Cthulhu, even of uncontrolled groups;
money kept for the Gnomes; new alignments for the Bermuda Triangle; Weird or Violent groups
for the Discordians and Assassins; power for the Bavarians; transferable power for the
Network; the UFOs play the goal they chose), defends what matters, judges the leader by how
soon each goal may be met (``closeness``; a rival UFO's secret goal as the likeliest of the
goals it may have chosen, ``goals_of``) and weighs an attack by how far it sets its owner
back from any goal (``setback``), puts all its money against an attack that would win the
game (``wins_if_it_succeeds``), and uses its Illuminati's end-of-turn power (``END_OF_TURN``: the
Gnomes gather their money into the Illuminati treasury, the Bermuda Triangle moves a far group
next to its Illuminati). ``strong`` (``pbem.bots.search``) searches over the attacks ``normal``
proposes and more, plans its turn (each first action weighed with the best second one it
leaves, ``plan_the_turn``), weighs its defence the same way, brings its money up to its
Illuminati once its actions are over (``gathering``), keeps its money for its own attacks,
and stops an attack that would win. No level drops, gives away or destroys its last group
unless that wins.

A bot is given a state rebuilt from its own player's view (``pbem.bots.belief``), never the
full one, and draws its choices from a ``random.Random`` it is given, so a simulated game is
reproducible. The same decisions drive ``pbem simulate`` and the bots that play by mail.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Literal

from pbem.engine import behaviour
from pbem.engine.abilities import alignment_modifier, alignments, power, transferable
from pbem.engine.attack import participation_left, validate_attack
from pbem.engine.bidding import Stance
from pbem.engine.breakdown import PROXIMITY, roll_needed, success_chance
from pbem.engine.cards import (
    AttackMode,
    CardSet,
    EndOfTurnOrder,
    GoalKind,
    Group,
    Special,
    by_goal_kind,
)
from pbem.engine.commands import (
    Attack,
    Command,
    DropGroup,
    EndPowers,
    EndTurn,
    MoveGroup,
    OfferGroup,
    Pass,
    PlaySpecial,
    Settle,
    TransferMoney,
)
from pbem.engine.rules import apply
from pbem.engine.state import GameState, GroupOffer, PendingAttack, Player
from pbem.engine.structure import depth, open_arrows, puppets, subtree
from pbem.engine.victory import (
    Progress,
    chooses_goal,
    goal_progress,
    goals_to_choose,
    progress,
    special_goal,
    victory_allowed,
)
from pbem.errors import IllegalCommandError

Level = Literal["easy", "normal", "strong"]
LEVELS: tuple[Level, ...] = ("easy", "normal", "strong")

GOOD_NEED = 7  # a roll of 7 or less succeeds 58% of the time
SHORTLIST = 6  # attacks weighed in full each decision
CANDIDATES = 4  # strongest attackers considered for each target
TARGETS = 14  # easiest targets considered each decision
GIFT_CHANCE = 0.04  # a turn on which the bot offers a spare group away
WITHDRAW_CHANCE = 0.3  # an offer of its own, still unanswered, that the bot takes back
LEADER = 0.55  # a player this close to winning (and the closest) is interfered with
AT_THE_DOOR = 0.7  # a player this close to a goal: is its attack the winning one?
NEAR_WIN = 0.9  # a player this close to a goal is stopped with the cards kept for it
ASSIST_CHANCE = 0.05  # answers that help another player's attack on the leader
# The goals whose share shown ``closeness`` raises to SLOW_EXPONENT: their first steps come
# fast and their last ones slowly.
SLOW_FINISH: frozenset[GoalKind] = frozenset({"every_alignment", "total_transferable"})
SLOW_EXPONENT = 2
# Added to the value of an attack to control, by the groups the bot holds (none, one, two):
# a player with no group after their third turn is out ("Eliminating a Player"), and one
# with a single group is a failed defence away from it.
SURVIVAL = (8.0, 2.5, 0.6)
DESPERATE = 0.05  # the least chance of an attack to control weighed when holding no group
UNCOUNTED = 1.0  # the share of the Illuminati's own transferable power ``closeness`` leaves out
LAST_GROUP = 0.5  # the value of an attack on a player's last group, as a share
ROOTED = 3  # see ``_rooted``
GIFT_KEEPS = 1  # the groups a bot keeps, at least, after giving one away
# The share of its usual defence a bot whose goal is money puts in for a group that is not
# all it holds, in the longest game (the most groups to win the basic goal, 13 at 2 to 3
# players in the card data) and the shortest (8 at 7 to 8), in between by the groups to win
# (``hoarded``). Among normal bots at 0.4 for every
# length, the Gnomes of Zurich spent 122 MB a game defending and 40 interfering, 82
# attacking, of the 257 they earned, never held 150 MB, and won by the basic goal 1.71
# times their fair share at 3 players (seed 100, 200 games a size); at 0.25 for every
# length, 1.46 at 3 players and 1.52 at 7: money kept for attacks takes 8 groups fast.
HOARDED = (0.25, 0.4)
# The worth of a group destroyed toward a goal of destroying groups, times the goal's pace
# (``aim_of``): the fewer groups the basic goal asks, the shorter the game and the more
# each destroy counts. At one worth for every table size (2.2, normal bots, seed 100) the
# Servants of Cthulhu won 2.3 times their fair share at 4 players (12 groups win) and 0.4
# at 8 (8 groups); at 2.6 times the pace, 1.4-1.7 at 4 and 0.6-0.7 at 8; at 3.0 times its
# square (``_target_value``), 0.9-1.2 at 4 and 0.4-1.0 at 8 (seeds 100, 101, 200 games).
DESTROYING = 3.0
GUESSED = 0.9  # the most a goal only guessed (a rival UFO's secret one) counts
THREAT = 20.0  # the worth of setting back a player at a goal's door by all of it (``stopping``)


def destroying_goal(kind: GoalKind | None) -> bool:
    """Whether a special goal of ``kind`` is met by destroying groups (the Servants of
    Cthulhu's, or the UFOs' choice of it)."""
    return kind == "destroyed"


@dataclass(frozen=True)
class Aim:
    """The special goal a bot plays to (the UFOs: the one they chose), or none (``easy``)."""

    kind: GoalKind | None  # None when blind to it
    alignment: str | None  # the alignment counted (Discordians: Weird; Assassins: Violent)
    present: frozenset[str]  # the alignments already in the structure (Bermuda Triangle)
    pace: float = 1.0  # the special goal's count against the basic goal's (``aim_of``)

    @property
    def destroys(self) -> bool:
        return destroying_goal(self.kind)

    @property
    def hoards(self) -> bool:
        return self.kind == "treasury"


BLIND = Aim(None, None, frozenset())


def aim_of(cards: CardSet, state: GameState, me: Player, level: Level = "normal") -> Aim:
    """What ``me`` plays to at ``level``; its ``pace``, the special goal's count (8 groups
    destroyed) against the basic goal's (12 groups at 4 players, 8 at 8), weighs a step
    toward the special goal (``DESTROYING``)."""
    if level == "easy":
        return BLIND
    _, goal = special_goal(cards, me)
    present = frozenset(a for s in me.structure for a in alignments(cards, state, s.card))
    basic, special = progress(cards, state, me)
    pace = special.need / basic.need if special.need and basic.need else 1.0
    return Aim(goal.kind, goal.alignment, present, pace)


@dataclass(frozen=True)
class PlannedAttack:
    attack: Attack
    need: int  # before money
    spend: int  # the attacker's money it means to put in at once
    upto: int  # the most it will put in, answering the defender
    value: float


def leader_score(cards: CardSet, state: GameState, p: Player, level: Level = "normal") -> float:
    """How close a player is to winning, 0..1 (the best of their goals): the share of each
    goal shown at the ``easy`` level, else its ``closeness``. Judged by the share shown, the
    Bermuda Triangle (whose first groups bring alignments fast) looked the leader from the
    start and won 0.4 of its fair share among normal bots (``bench/bots.py``)."""
    return max(goal_closeness(cards, state, p, level), default=0.0)


def goal_closeness(cards: CardSet, state: GameState, p: Player,
                   level: Level = "normal") -> list[float]:
    """How close ``p`` is to each of its goals as the bot sees them (``goals_of``), 0..1;
    a goal only guessed (a rival UFO's) at most ``GUESSED``."""
    if level == "easy":
        return [shown(cards, p, g) for g in progress(cards, state, p) if g.need]
    cap = GUESSED if hidden_goal(cards, p) else 1.0
    basic, *specials = goals_of(cards, state, p)
    return [closeness(cards, p, basic), *(min(closeness(cards, p, g), cap)
                                          for g in specials if g.need)]


def hidden_goal(cards: CardSet, p: Player) -> bool:
    """Whether ``p``'s special goal is a secret choice the bot cannot see (a rival UFO)."""
    return chooses_goal(cards, p) and not p.secret_goal


def goals_of(cards: CardSet, state: GameState, p: Player) -> list[Progress]:
    """``p``'s progress toward the basic goal, then toward its special goal; for a secret
    goal the bot cannot see, toward each goal ``p`` may have chosen."""
    basic, special = progress(cards, state, p)
    if not hidden_goal(cards, p):
        return [basic, special]
    goals = [(name, cards.illuminati_card(name).goal) for name in goals_to_choose(cards)]
    return [basic, *(Progress(name, goal.kind, *goal_progress(cards, state, p, goal))
                     for name, goal in goals)]


def shown(cards: CardSet, p: Player, goal: Progress) -> float:
    """The share of a goal ``p`` shows, 0..1."""
    return min(goal.have / goal.need, 1.0)


def closeness(cards: CardSet, p: Player, goal: Progress) -> float:
    """How far along ``p`` is toward one goal, 0..1, as a measure of how soon it may be met.
    A sum of transferable power counts from what ``p``'s Illuminati card brings
    (``UNCOUNTED``): the Network start 7 of their 20 and are no nearer their goal than a
    player with no group. (Counted from half their 7, the Network won 0.27-0.31 of their
    fair share at 4 players among normal bots, seed 100, 200 games a size; from all 7,
    0.50-0.58 on seeds 100 and 101.) A sum of power counts in full: the Bavarians' own 10
    of 35 attack and defend like any group's (counted from their card, the Bavarians were
    left alone too long and won 1.75 times their fair share in ``bench/bots.py``). The goals
    of ``SLOW_FINISH`` count as the square of the share shown. Every alignment: a group
    brings one to three, so the first come fast and the last few slowly, and a player
    showing 6 of 10 is far from 60 % of the way. Transferable power: the groups that bring
    much of it are taken first; counted as the share shown, the Network looked the leader
    after two groups, were checked and won 0.58-0.68 of their fair share at 4 to 6 players
    (normal bots, seed 100, 200 games a size); counted as its square, 0.74-1.03."""
    have, need = goal.have, goal.need
    if goal.kind == "total_transferable":
        start = min(int(UNCOUNTED * transferable(cards, p.illuminati)), need - 1)
        have, need = have - start, need - start
    part = max(0.0, min(have / need, 1.0))
    return part ** SLOW_EXPONENT if goal.kind in SLOW_FINISH else part


def plan_attacks(cards: CardSet, state: GameState, me: Player, level: Level = "normal",
                 weigh: int = SHORTLIST, least: float = 0.3,
                 against: str | None = None) -> list[PlannedAttack]:
    """Attacks worth making now, best first: for each target and kind of attack, the one
    attacker that looks strongest, all free helpers aiding. The ``weigh`` likeliest are
    weighed in full; those with less than ``least`` chance are left out. ``against``: only
    the groups of that player, every one of them."""
    aim = aim_of(cards, state, me, level)
    groups = held(me)
    if groups == 0:
        least = min(least, DESPERATE)
    money = {s.card: s.treasury for s in me.structure}
    helpers = [s.card for s in me.structure if transferable(cards, s.card) > 0
               and participation_left(cards, state, s.card)]
    aid_total = sum(transferable(cards, h) for h in helpers)
    attackers = [s.card for s in me.structure
                 if power(cards, s.card) > 0 and participation_left(cards, state, s.card)]
    controllers = [a for a in attackers if open_arrows(cards, me, a)]
    targets: list[tuple[str, Player | None]] = []
    if against is None:
        targets += [(g, None) for g in state.uncontrolled]
    for other in state.players:
        if other.name != me.name and other.playing and against in (None, other.name):
            targets += [(s.card, other) for s in other.structure[1:]]
    # The uncontrolled area grows all game: weigh only the easiest targets in full.
    targets.sort(key=lambda t: _hardness(cards, *t))
    if against is None:
        del targets[TARGETS:]
    # The Servants of Cthulhu count every group destroyed, free ones too.
    if aim.destroys and against is None:
        weak = sorted((g for g in state.uncontrolled if cards.group(g).power > 0),
                      key=lambda g: cards.group(g).power)
        targets += [(g, None) for g in weak[:CANDIDATES] if (g, None) not in targets]
    lead = LeaderBoard(cards, state, level).all()
    own = {a: (power(cards, a) + money[a], alignments(cards, state, a)) for a in attackers}
    # Alignments move an attack by 4 a pair; a weak group rarely beats a much stronger one.
    attackers = sorted(attackers, key=lambda a: -own[a][0])[:CANDIDATES]
    controllers = [a for a in attackers if a in controllers] or controllers[:CANDIDATES]
    shortlist: list[tuple[float, str, str, Player | None, AttackMode]] = []
    for target, owner in targets:
        group = cards.card(target)
        assert isinstance(group, Group)
        target_alignments = alignments(cards, state, target)
        proximity = PROXIMITY.get(depth(owner, target), 0) if owner is not None else 0
        stop = stopping(cards, state, owner, target, level)
        modes: list[tuple[AttackMode, list[str]]] = [("control", controllers)]
        if owner is not None:
            modes += [("neutralize", attackers), ("destroy", attackers)]
        elif aim.destroys and group.power > 0:
            modes.append(("destroy", attackers))
        for mode, candidates in modes:
            if not candidates:
                continue
            strength, attacker = max((_quick_strength(own[a], target_alignments, mode)
                                      + _rooted(me, a, mode, groups), a) for a in candidates)
            defence = group.power if mode == "destroy" else group.resistance
            rough = strength + aid_total + (6 if mode == "neutralize" else 0) - defence - proximity
            value = _target_value(cards, state, target, mode, owner, lead, aim)
            value = survival_value(value, mode, groups, owner, target)
            value += stop
            shortlist.append((success_chance(rough + me.treasury // 2) * value, attacker,
                              target, owner, mode))
    shortlist.sort(key=lambda c: -c[0])
    plans: list[PlannedAttack] = []
    # The full breakdown (abilities, defences, immunities) only for the most promising few.
    for _, attacker, target, owner, mode in shortlist[:weigh]:
        aids = tuple(h for h in helpers if h not in (attacker, target))
        try:
            validate_attack(cards, state, me, attacker, target, mode, aids)
        except IllegalCommandError:
            continue
        pending = PendingAttack(player=me.name, attacker=attacker, target=target,
                                mode=mode, aids=aids)
        need = roll_needed(cards, state, pending)
        budget = money[attacker] + me.treasury
        spend, upto = money_plan(need, budget, aim.hoards)
        chance = success_chance(need + spend)
        if chance < least:
            continue
        value = survival_value(_target_value(cards, state, target, mode, owner, lead, aim),
                               mode, groups, owner, target)
        value += stopping(cards, state, owner, target, level)
        plans.append(PlannedAttack(
            Attack(me.name, attacker, target, mode, aids), need, spend,
            upto, chance * value))
    plans.sort(key=lambda p: -p.value)
    return plans


def setback(cards: CardSet, state: GameState, owner: Player, target: str) -> float:
    """How much further from winning ``owner`` is without ``target`` and its puppets (lost to
    it by any successful attack: taken, made uncontrolled or destroyed), 0..1: the most,
    over its goals (``goal_closeness``), of the share of the way lost times the square of
    how close it was, so that a step back from a goal at the door counts and one from a
    far goal little. Judged by its closest goal alone, a player near two goals lost nothing
    by a group taken toward the one that did not lead."""
    lost = {s.card for s in subtree(owner, target)}
    after = replace(owner, structure=tuple(s for s in owner.structure if s.card not in lost))
    before = goal_closeness(cards, state, owner)
    return max((b * b * max(0.0, b - a) for b, a in
                zip(before, goal_closeness(cards, state, after), strict=True)), default=0.0)


def stopping(cards: CardSet, state: GameState, owner: Player | None, target: str,
             level: Level) -> float:
    """The worth of an attack on ``owner``'s group as a check on their race to a goal: what
    it sets them back (``setback``), at ``THREAT`` for all of a goal at its door. Without it
    the bots let a player run to their special goal unopposed: the Discordian Society,
    whose five Weird groups come fast, won 2.1 to 3.6 times its fair share at 4 to 8
    normal bots (``bench/bots.py``, 200 games a size, seed 100)."""
    if owner is None or level == "easy":
        return 0.0
    return THREAT * setback(cards, state, owner, target)


def money_plan(need: int, budget: int, hoards: bool = False) -> tuple[int, int]:
    """What an attacking bot puts in at once (enough for a roll of 8, at most half its
    money) and the most it will put in answering the defender; a hoarder (the Gnomes,
    whose goal is money) a third of that. Never all it has, even holding no group: with
    all its money in one attack a player has none for its second action nor to defend
    what it takes (put all in, 50 of 120 normal seats were eliminated, against 2 without:
    ``bench/bots.py``, 30 games, seed 1)."""
    share = 6 if hoards else 2
    spend = max(0, min(GOOD_NEED + 1 - need, budget // share))
    return spend, min(budget, spend + budget // (3 * share // 2))


def held(p: Player) -> int:
    """The groups ``p`` controls, its Illuminati apart."""
    return len(p.structure) - 1


def survival_value(value: float, mode: AttackMode, groups: int,
                   owner: Player | None, target: str | None = None) -> float:
    """An attack's value, weighed by what it does for the bot's survival when it holds
    ``groups``: control first while few are held (``SURVIVAL``; of an uncontrolled group,
    or of another player's when the bot holds none), and no other attack while none is
    (destroying wins the Servants of Cthulhu nothing once they are out). A player's last
    group (or the master of all it holds) is worth less: its owner defends it with all
    they have."""
    if owner is not None and target is not None and len(subtree(owner, target)) >= held(owner):
        value *= LAST_GROUP
    if mode == "control":
        if groups < len(SURVIVAL) and (owner is None or groups == 0):
            return value + SURVIVAL[groups]
        return value
    return value * 0.1 if groups == 0 else value


def _rooted(me: Player, attacker: str, mode: AttackMode, groups: int) -> int:
    """A bonus, in strength, for the Illuminati as the attacker taking control while few
    groups are held: a group placed under the Illuminati is lost alone, one placed under
    another group goes with it when that one is taken."""
    return ROOTED if mode == "control" and groups <= 2 and attacker == me.illuminati else 0


def _hardness(cards: CardSet, target: str, owner: Player | None) -> int:
    """Resistance and closeness to its Illuminati: what an attack to control must beat."""
    group = cards.card(target)
    assert isinstance(group, Group)
    return group.resistance + (PROXIMITY.get(depth(owner, target), 0) if owner else 0)


def _quick_strength(own: tuple[int, tuple[str, ...]], target_alignments: tuple[str, ...],
                    mode: AttackMode) -> int:
    """Power and money, give or take the alignment pairs: enough to pick an attacker."""
    strength, attacking = own
    identical, opposite = alignment_modifier(attacking, target_alignments, mode)
    sign = -1 if mode == "destroy" else 1
    return strength + 4 * sign * (identical - opposite)


def _target_value(cards: CardSet, state: GameState, target: str, mode: str,
                  owner: Player | None, lead: dict[str, float], aim: Aim) -> float:
    group = cards.card(target)
    assert isinstance(group, Group)
    worth = 1.0 + group.income / 4 + group.power / 6 + group.transferable / 4
    if mode == "control":
        return (worth + goal_bonus(cards, state, target, aim)) * (1.4 if owner else 1.0)
    threat = lead.get(owner.name, 0.0) if owner else 0.0
    if mode == "destroy" and aim.destroys:
        return DESTROYING * aim.pace ** 2 + worth * (0.5 + threat) * 0.6
    return worth * (0.5 + threat) * (0.7 if mode == "neutralize" else 0.6)


Bonus = Callable[[CardSet, GameState, str, Aim], float]

POWER_STEP = 8.0  # the power that is worth a plain group toward a goal of power
ALIGNED = 2.2  # a group of the alignment a goal counts (1.5: the Assassins won 0.4-0.8x fair)
TRANSFERABLE_STEP = 0.7  # and the transferable power toward a goal of transferable power
# and each alignment new to the structure (at 1.2 the Bermuda Triangle won 0.26-0.28 of its
# fair share at 4 and 5 players among normal bots, seed 100; at 1.8, 0.9-1.1)
NEW_ALIGNMENT = 1.8

# What controlling a group adds toward each kind of special goal, in the units of
# ``_target_value`` (a plain group is worth about 2).
GOAL_BONUS: Mapping[GoalKind, Bonus] = by_goal_kind({
    "total_power": lambda cards, state, target, aim: cards.group(target).power / POWER_STEP,
    "total_transferable": lambda cards, state, target, aim: (cards.group(target).transferable
                                                             / TRANSFERABLE_STEP),
    "treasury": lambda cards, state, target, aim: cards.group(target).income / 2,
    "alignment_count": lambda cards, state, target, aim: (
        ALIGNED if aim.alignment in alignments(cards, state, target) else 0.0),
    "every_alignment": lambda cards, state, target, aim: (
        NEW_ALIGNMENT * len(set(alignments(cards, state, target)) - aim.present)),
    # a group kept is one not destroyed; control still wins the basic goal
    "destroyed": lambda cards, state, target, aim: -0.5,
    "secret_choice": lambda cards, state, target, aim: 0.0,  # the UFOs before they choose
})


def goal_bonus(cards: CardSet, state: GameState, target: str, aim: Aim) -> float:
    """What controlling ``target`` adds toward the special goal (``GOAL_BONUS``)."""
    return 0.0 if aim.kind is None else GOAL_BONUS[aim.kind](cards, state, target, aim)


def money_cards(cards: CardSet, hand: tuple[str, ...]) -> list[str]:
    """The cards of ``hand`` that pay MB when played, the richest first."""
    paying = [s for s in behaviour.held(cards, dict.fromkeys(hand)) if behaviour.money(s) > 0]
    return [s.name for s in sorted(paying, key=behaviour.money, reverse=True)]


def held_where(cards: CardSet, hand: tuple[str, ...],
               fits: Callable[[Special], bool]) -> str:
    """The first card of ``hand`` that ``fits`` (a question of pbem.engine.behaviour), or ""."""
    return next((s.name for s in behaviour.held(cards, hand) if fits(s)), "")


def choose_action(cards: CardSet, state: GameState, me: str, rng: random.Random,
                  level: Level = "normal") -> Command:
    """The active bot's next command in the actions phase (``strong`` searches instead:
    ``pbem.bots.search``, which falls back on this)."""
    p = state.player(me)
    if state.turn.end_powers:
        return end_of_turn(cards, state, p) or EndTurn(me)
    for card in money_cards(cards, p.hand):
        if p.treasury < 6:
            return PlaySpecial(me, card)
    if state.turn.actions < 2:
        plans = plan_attacks(cards, state, p, level)
        best = 0.9 if level == "easy" else 0.97
        if plans and held(p) == 0:
            return plans[0].attack  # no group held: the likeliest way back into the game
        if plans and (rng.random() < best):
            sure = 0.7 if level == "easy" else 0.9
            pick = plans[0] if rng.random() < sure or len(plans) == 1 else rng.choice(plans[:4])
            return pick.attack
        unstick = free_an_arrow(cards, state, p)
        if unstick is not None:
            return unstick
        move = _feed_money(cards, state, p)
        if move is not None and state.turn.free_transfers < 2:
            return move
        hoards = aim_of(cards, state, p, level).hoards
        if not state.turn.did_anything and (hoards or rng.random() < 0.6):
            return Pass(me)
    return end_of_turn(cards, state, p) or EndTurn(me)


def end_of_turn(cards: CardSet, state: GameState, p: Player) -> Command | None:
    """The next command of ``p``'s end-of-turn power (its Illuminati card's
    ``end_of_turn``: ``END_OF_TURN``), once its actions are over: END POWERS, then the free
    commands the power allows, one at a time; None when it has nothing (left) to do with
    it, or none."""
    power = END_OF_TURN.get(cards.illuminati_card(p.illuminati).end_of_turn)
    step = power(cards, state, p) if power is not None else None
    if step is None or state.turn.end_powers:
        return step
    return EndPowers(p.name)


def gather_money(cards: CardSet, state: GameState, p: Player) -> Command | None:
    """The Gnomes' free money moves at the end of their turn ("may move money freely
    between its groups"): every group's money up to the Illuminati treasury, where no
    attack can take or destroy it (a group taken goes "along with all treasuries
    involved"; a group destroyed takes its money to the bank) and from where it pays for
    any attack or defence. A TRANSFER a group."""
    rich = [s for s in p.structure[1:] if s.treasury > 0]
    if not rich:
        return None
    return TransferMoney(p.name, rich[0].card, p.illuminati, rich[0].treasury)


def shelter(cards: CardSet, state: GameState, p: Player) -> Command | None:
    """The Bermuda Triangle's free reorganization at the end of their turn: their most
    valuable group two or more steps from the Illuminati moves (with its puppets, none
    lost) onto an open arrow of the Illuminati, where an attack on it needs 10 more, not 5
    or 2 ("Proximity"); while the Illuminati keep an arrow open to control with."""
    if len(open_arrows(cards, p, p.illuminati)) < 2:
        return None
    far = [s.card for s in p.structure[1:] if depth(p, s.card) >= 2]
    far.sort(key=lambda g: (-(power(cards, g) + transferable(cards, g)
                              + cards.group(g).income), g))
    for group in far:
        for arrow in open_arrows(cards, p, p.illuminati):
            command = MoveGroup(p.name, group, p.illuminati, arrow)
            try:
                after, _ = apply(replace(state, turn=replace(state.turn, end_powers=True)),
                                 command, cards)
            except IllegalCommandError:
                continue
            if len(after.player(p.name).structure) == len(p.structure):
                return command
    return None


EndPower = Callable[[CardSet, GameState, Player], Command | None]

# What a bot does with its Illuminati's end-of-turn power, by the order it makes free.
END_OF_TURN: Mapping[EndOfTurnOrder, EndPower] = {
    "transfer": gather_money,
    "move": shelter,
}


def free_an_arrow(cards: CardSet, state: GameState, p: Player) -> DropGroup | None:
    """When no group of the bot has an open outgoing arrow it can never control another: it
    drops its least group without puppets whose master then has an arrow free (a free
    action). None while an arrow is open, or when no drop would open one."""
    if any(open_arrows(cards, p, s.card) for s in p.structure):
        return None
    leaves = [s.card for s in p.structure[1:] if not puppets(p, s.card)]
    leaves.sort(key=lambda g: (power(cards, g) + transferable(cards, g)
                               + cards.group(g).income, g))
    for group in leaves:
        command = DropGroup(p.name, group)
        try:
            after, _ = apply(state, command, cards)
        except IllegalCommandError:
            continue
        mine = after.player(p.name)
        if any(open_arrows(cards, mine, s.card) for s in mine.structure):
            return command
    return None


def choose_gift(cards: CardSet, state: GameState, me: str, rng: random.Random,
                level: Level = "normal") -> OfferGroup | None:
    """Now and then (``GIFT_CHANCE``, one draw a call), the active bot's offer of its least
    group with no puppets to the player furthest from winning: a gift that helps no one win
    ("No player may simply 'throw' the game to another"). None most of the time, and when
    no action is left or an offer already waits; never from a ``strong`` bot, which gives
    nothing away."""
    if (rng.random() >= GIFT_CHANCE or level == "strong" or state.phase != "actions"
            or state.offer is not None or state.active_player.name != me
            or state.turn.actions >= 2):
        return None
    p = state.player(me)
    masters = {s.master for s in p.structure}
    spare = [s.card for s in p.structure[1:] if s.card not in masters]
    if held(p) <= GIFT_KEEPS:
        return None  # a gift never leaves the giver exposed (``SURVIVAL``)
    others = [o for o in state.players if o.name != me and o.playing]
    if not spare or not others:
        return None
    group = min(spare, key=lambda g: (power(cards, g) + transferable(cards, g), g))
    receiver = min(others, key=lambda o: (leader_score(cards, state, o), o.name))
    return OfferGroup(me, group, receiver.name)


def withdraws(offer: GroupOffer | None, me: str, rng: random.Random) -> bool:
    """Whether the bot takes back its offer still unanswered (``WITHDRAW_CHANCE``): nothing
    binds it before the receiver agrees ("When Is a Deal Binding?")."""
    return offer is not None and offer.giver == me and takes_back(rng)


def takes_back(rng: random.Random) -> bool:
    """Whether the bot takes back an offer of its own (``WITHDRAW_CHANCE``, one draw)."""
    return rng.random() < WITHDRAW_CHANCE


def _feed_money(cards: CardSet, state: GameState, p: Player) -> Command | None:
    """Move Illuminati money down to a strong puppet so it can attack next turn."""
    if p.treasury < 4:
        return None
    strong = [s for s in p.structure[1:] if s.master == p.illuminati
              and power(cards, s.card) >= 4 and s.treasury < 6]
    if not strong:
        return None
    return TransferMoney(p.name, p.illuminati, strong[0].card, min(p.treasury // 2, 6))


def attacker_stance(cards: CardSet, state: GameState, rng: random.Random,
                    level: Level = "normal") -> Stance:
    """How much the attacking bot puts in at once, and the most it will add."""
    attack = state.attack
    assert attack is not None
    p = state.player(attack.player)
    need = roll_needed(cards, state, attack)
    group = p.slot(attack.attacker)
    budget = (group.treasury if group else 0) + p.treasury
    spend, upto = money_plan(need, budget, aim_of(cards, state, p, level).hoards)
    return Stance(p.name, "attack", spend, upto, (attack.attacker, p.illuminati))


def hoarded(cards: CardSet, groups_to_win: int) -> float:
    """The share of its usual defence a hoarder puts in (``HOARDED``) in a game won with
    ``groups_to_win`` groups, against the longest and shortest game of the card data's
    basic goal: the shorter the game, the more a group lost costs it."""
    counts = [groups for _, groups in cards.basic_goal]
    most, fewest = max(counts), min(counts)
    along = max(0.0, min(1.0, (most - groups_to_win) / max(1, most - fewest)))
    longest, shortest = HOARDED
    return longest + (shortest - longest) * along


class LeaderBoard:
    """Each playing player's ``leader_score`` on one state, worked out once, when first
    asked: every answer to one attack reads the same scores."""

    def __init__(self, cards: CardSet, state: GameState, level: Level = "normal") -> None:
        self.cards, self.state, self.level = cards, state, level
        self.scores: dict[str, float] | None = None

    def score(self, name: str) -> float:
        return self.all()[name]

    def leader(self) -> tuple[str, float]:
        """The player closest to winning, and how close (0..1)."""
        score, name = max(((score, name) for name, score in self.all().items()),
                          default=(0.0, ""))
        return name, score

    def all(self) -> dict[str, float]:
        if self.scores is None:
            self.scores = {p.name: leader_score(self.cards, self.state, p, self.level)
                           for p in self.state.players if p.playing}
        return self.scores


@dataclass(frozen=True)
class ResponsePlan:
    """A bot's answer to an attack before it draws: ``certain`` if set; else each of
    ``chances`` (chance, stance) in turn, given when a draw falls under its chance; else
    none. The draws are apart from the rest, so that one answer worked out on a state may be
    drawn again and again, as the search does for each money plan of one attack."""

    certain: Stance | None = None
    chances: tuple[tuple[float, Stance], ...] = ()

    def given(self, rng: random.Random) -> Stance | None:
        if self.certain is not None:
            return self.certain
        for chance, stance in self.chances:
            if rng.random() < chance:
                return stance
        return None


def response_stance(cards: CardSet, state: GameState, me: str,
                    rng: random.Random, level: Level = "normal") -> Stance | None:
    """A bot's answer to someone else's attack (``answer_to``), drawn."""
    return answer_to(cards, state, me, level).given(rng)


def answer_to(cards: CardSet, state: GameState, me: str, level: Level = "normal",
              board: LeaderBoard | None = None) -> ResponsePlan:
    """A bot's answer to someone else's attack, as a person would give it: defend its group
    (harder the more the group matters), interfere when the attacker leads, assist now and
    then an attack on the leader, else nothing. ``board``: the scores of ``state``, when the
    caller shares them among the answers to one attack."""
    attack = state.attack
    assert attack is not None
    p = state.player(me)
    owner = state.owner(attack.target)
    if owner is not None and owner.name == me:
        group = p.slot(attack.target)
        own = group.treasury if group else 0
        if len(subtree(p, attack.target)) >= held(p):
            # All it holds is at stake: all it has.
            return ResponsePlan(Stance(me, "defense", 0, own + p.treasury,
                                 (attack.target, p.illuminati)) if own + p.treasury else None)
        if level == "easy":
            budget = own + p.treasury // 2
        else:
            kept = 1 + len([s for s in p.structure if s.master == attack.target])
            share = min(1.0, 0.3 + 0.25 * kept + (0.3 if attack.mode == "control" else 0.0))
            if aim_of(cards, state, p, level).hoards:
                share *= hoarded(cards, progress(cards, state, p)[0].need)
            budget = own + int(p.treasury * share)
        if budget <= 0:
            return ResponsePlan()
        return ResponsePlan(Stance(me, "defense", 0, budget, (attack.target, p.illuminati)))
    if attack.privileged:
        return ResponsePlan()
    board = board if board is not None else LeaderBoard(cards, state, level)
    lead = board.score(attack.player)
    if level != "easy" and lead >= AT_THE_DOOR and p.treasury > 0 \
            and wins_if_it_succeeds(cards, state):
        # The game is at stake: all it has.
        return ResponsePlan(Stance(me, "interfere", 0, p.treasury))
    if p.treasury < 8 or (level != "easy" and aim_of(cards, state, p, level).hoards):
        # A hoarder's money is its goal: spent only when the game is at stake.
        return ResponsePlan()
    assist = Stance(me, "assist", 1, 1)
    if level == "easy":
        if lead > 0.7:
            return ResponsePlan(chances=((0.6, Stance(me, "interfere", 0, p.treasury // 3)),
                                   (0.08, assist)))
        return ResponsePlan(chances=((0.08, assist),))
    first, closest = board.leader()
    mine = board.score(me)
    if first == attack.player and closest >= LEADER and closest > mine:
        share = 2 if closest > 0.8 else 3
        return ResponsePlan(Stance(me, "interfere", 0, p.treasury // share))
    if owner is not None and owner.name == first and first != me and closest > mine:
        helping = Stance(me, "assist", 1, min(3, p.treasury // 4))
        return ResponsePlan(chances=((ASSIST_CHANCE, helping),))
    return ResponsePlan()


def wins_if_it_succeeds(cards: CardSet, state: GameState) -> bool:
    """Whether the attack under way, should it succeed, meets a goal of its attacker."""
    pending = state.attack
    assert pending is not None
    rolled = replace(state, attack=replace(pending, roll=(1, 1)), phase="after_roll")
    try:
        settled, _ = apply(rolled, Settle(), cards)
    except IllegalCommandError:
        return False
    return victory_allowed(settled) and any(
        g.need and g.met for g in progress(cards, settled, settled.player(pending.player)))


def after_roll_card(cards: CardSet, state: GameState, me: str,
                    rng: random.Random) -> PlaySpecial | None:
    """Murphy's Law against a success on my group (or one that would let the leader win),
    Assassination to save my own attack."""
    attack = state.attack
    assert attack is not None and attack.roll is not None
    p = state.player(me)
    total = attack.roll_becomes if attack.roll_becomes is not None else sum(attack.roll)
    need = roll_needed(cards, state, attack)
    success = total < 11 and total <= need
    murphy = held_where(cards, p.hand, stops_a_success)
    if success and murphy and murphy_wanted(cards, state, me):
        return PlaySpecial(me, murphy)
    assassination = held_where(cards, p.hand, saves_a_failure)
    if not success and attack.player == me and need >= 2 and assassination:
        return PlaySpecial(me, assassination)
    return None


def stops_a_success(card: Special) -> bool:
    """A card played after the roll that makes the attack fail (Murphy's Law)."""
    return behaviour.waits_for_roll(card) and behaviour.helps_defender(card)


def saves_a_failure(card: Special) -> bool:
    """A card played after the roll that makes the attack succeed (Assassination)."""
    return behaviour.waits_for_roll(card) and behaviour.helps_attacker(card)


def murphy_wanted(cards: CardSet, state: GameState, me: str) -> bool:
    """Whether ``me`` turns the open attack's success into a failure: against its own group,
    or when the attacker is one success from winning."""
    attack = state.attack
    assert attack is not None
    if attack.player == me:
        return False
    owner = state.owner(attack.target)
    if owner is not None and owner.name == me:
        return True
    return leader_score(cards, state, state.player(attack.player)) >= NEAR_WIN


def counter_card(cards: CardSet, state: GameState, me: str) -> bool:
    """Whether to cancel the special card just played (when it hurts me)."""
    special = state.special
    if special is None or special.player == me:
        return False
    p = state.player(me)
    if not behaviour.counter_in(cards, p.hand):
        return False
    card = cards.card(special.card)
    assert isinstance(card, Special)
    if behaviour.waits_for_roll(card) and state.attack is not None:
        owner = state.owner(state.attack.target)
        mine = state.attack.player == me or (owner is not None and owner.name == me)
        return mine
    return behaviour.takes_a_turn(card) and state.active_player.name == me


def turn_start_card(cards: CardSet, state: GameState, me: str,
                    rng: random.Random) -> PlaySpecial | None:
    """The Senate against a leader, or Market Manipulation on my own turn."""
    p = state.player(me)
    active = state.active_player
    if me == active.name:
        market = held_where(cards, p.hand, behaviour.on_own_turn)
        if market and len(p.structure) >= 4:
            return PlaySpecial(me, market)
        return None
    senate = held_where(cards, p.hand, behaviour.takes_a_turn)
    if senate and leader_score(cards, state, active) > 0.75:
        return PlaySpecial(me, senate)
    return None


def special_action(cards: CardSet, state: GameState, me: str) -> PlaySpecial | None:
    """Bribery on the best uncontrolled group, when the bot holds it."""
    p = state.player(me)
    bribery = held_where(cards, p.hand, behaviour.takes_uncontrolled)
    ready = bribery and state.turn.actions < 2 and state.uncontrolled
    if ready and any(open_arrows(cards, p, s.card) for s in p.structure):
        best = max(state.uncontrolled, key=lambda g: getattr(cards.card(g), "income", 0))
        return PlaySpecial(me, bribery, group=best)
    return None

