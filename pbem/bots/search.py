"""The ``strong`` level: an expectimax over sampled hidden information that plans its turn.

The first action of a turn is weighed with the second it leaves (issue 37 pt 4,
``plan_the_turn``): the few best first actions by themselves are played forward in the same
sampled worlds, and from each of their outcomes (success, failure) the best of the ``normal``
bot's likeliest second actions is played forward too (``follow_up``); the first action is
judged by the better of stopping there and going on. So an attack that would spend the money
(or use the group) the second needs loses to one that leaves it. The second action is then
chosen by the search below on the turn as it stands.

Why this search and not a deeper one. An action in Illuminati is almost always an attack, and
an attack's chance node is one roll of two dice against one number: it has two outcomes,
success and failure, whose probabilities are known exactly once the money is in
(``success_chance`` of the final number needed). What the bot does not know is hidden
information, chiefly the other players' money, which decides how hard they defend or
interfere. So for each candidate attack, and a few money plans for it, the bot *samples*
that hidden money (``pbem.bots.belief.sample``: determinization), plays the attack forward
with the pure engine (the others answer as ``normal`` bots would, from the sampled state),
settles it both ways, and weighs the two outcomes' evaluations by their exact chances. The
candidate with the best expected evaluation is played; doing nothing new (the ``normal``
bot's money moves, passing or ending the turn) is a candidate too.

A Monte Carlo tree search to the end of the game would need playouts of hundreds of
actions, each modelled by some other policy, for every candidate: thousands of ``apply()``
per decision where the budget is a second per order mail on a shared two-core machine, and
a tree over other players' turns would model their choices with our own guesses anyway.
The long view is put in the evaluation instead (``evaluate``): progress toward the basic
*and* the special goal of every player (so each Illuminati plays to its own goal and
against whoever leads; its own, which it knows for sure, weighed above a rival's), income,
power and money; for its own money goal (the Gnomes' 150 MB) a few turns of its income
ahead, which it collects without an action, up to half the money it still misses (only
money held meets the goal), but never a rival's, whom that would make everyone's target; a
structure too small to survive (a player with no group after its third turn is out;
feared more by a bot whose own goal destroys groups, ``exposure``); a
rival one success from a goal feared as about to win, and a rival UFO's secret goal guessed
as the likeliest of the seven. A goal is measured by how soon it may be met
(``pbem.bots.closeness``), in the evaluation and in choosing whose groups to attack. The
candidates are the ``normal`` bot's goal-weighted attacks, its plain-value ones and every
attack on the best-placed rival's groups, each also weighed privileged (the Bavarians'
5 MB, or a special card the bots never play). What these choices were worth was measured
in tournaments (``bench/bots.py``), not guessed.

In a response window the strong bot weighs its defence as it weighs its attacks
(``defence``), keeps its money for its own attacks rather than interfere with the leader's
every attack, and puts all it has against an attack whose success would meet its attacker's
goal (``response``): interfering as ``normal`` does, it won 48.8 % of the duels on seed 1
and 53.2 % on seed 2; keeping its money, 51.0 % and 53.4 % (``bench/bots.py``, 500 games
each). Once its actions are over it brings its puppets' money up to its Illuminati
(``gathering``), where it pays for any attack, defence or interference, and it uses its
Illuminati's end-of-turn power as ``normal`` does.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from pbem import bots
from pbem.bots.belief import sample
from pbem.engine import behaviour
from pbem.engine.abilities import abilities
from pbem.engine.bidding import ATTACKER_GOAL, Stance, settle_bids
from pbem.engine.breakdown import roll_needed, success_chance
from pbem.engine.cards import CardSet, Special
from pbem.engine.checks import FREE_TRANSFERS
from pbem.engine.commands import (
    Attack,
    Command,
    DropGroup,
    EndPowers,
    EndTurn,
    Pass,
    PlaySpecial,
    Settle,
    TransferMoney,
)
from pbem.engine.ops import earn
from pbem.engine.rules import apply
from pbem.engine.state import GameState, Player
from pbem.engine.turn import PASS_INCOME
from pbem.engine.victory import (
    Progress,
    special_goal,
    victory_allowed,
)
from pbem.errors import IllegalCommandError

# Determinizations of the hidden money per candidate. Measured (``bench/bots.py``, strong vs
# normal): at 6 the strong bot won 61.0 % of 200 duels on the tuning seed 100 (4: 56.0 %,
# 8: 53.5 %), and 57.8 % / 56.0 % of 400 on seeds 2 / 3 (4: 54.0 % / 58.0 %). At 6 a strong
# order mail took a p95 of 1.32 s before the answers and threats were shared (``Announced``,
# ``Rivals``); with them, 0.42-0.51 s, less than 4 took before them (0.57-0.64 s, measured
# one after the other on the same machine).
SAMPLES = 6
LEAST = 0.08  # the least chance of an attack weighed
CANDIDATES = 14  # attacks weighed (the ``normal`` bot's best, goal-weighted)
WON = 10.0  # the evaluation of a met goal: above anything else
RIVALRY = 0.8  # how much the leading opponent's standing counts against the bot's
BASIC = 0.3  # weight of the progress toward the basic goal, beyond the closest goal's
SPECIAL = 0.8  # and toward a rival's special goal: its steps are rarer
OWN_SPECIAL = 1.2  # and toward the bot's own, which it plays to and knows for sure
EXPOSED = (-1.0, -0.3, 0.0)  # standing with no group, one group, more, under the Illuminati
# The bot's own, when its goal is to destroy groups (``exposure``): a thin structure feared
# more, so it keeps three groups before it spends its attacks on destroying.
DESTROYER_EXPOSED = (-1.5, -0.6, -0.2, 0.0)
BAVARIAN_PRIVILEGE = 5  # MB from the Illuminati treasury
ONE_STEP = 1.5  # a rival one success from a goal: feared beyond its standing
NEARLY = 0.85  # of a sum goal, one success from it
HORIZON = 3  # turns of income the bot counts toward its own money goal (not a rival's)
REACH = 0.5  # the most of the money still missing that the income ahead may count for
COUNTED = frozenset({"groups", "alignment_count", "destroyed", "every_alignment"})
INCOME, POWER, MONEY = 0.012, 0.003, 0.012  # worth of a MB of income, of power, of a MB held
# (a MB held: about an eighth of what a plain group adds, as a group costs some 8 MB to take;
# at 0.004, 25 MB weighed 0.1, less than a plain group's income and power. The duels did not
# tell the two apart: 57.5 % each on seed 100 with ``defence``.)
PLANNED = 3  # first actions weighed with the second action they leave (``plan_the_turn``)
FOLLOW = 3  # second actions weighed from each outcome of a first (``follow_up``)
SUCCESS_ROLL = (1, 1)
FAILURE_ROLL = (6, 6)


@dataclass(frozen=True)
class Choice:
    """What the strong bot does next, and for an attack its money: at once, and at most."""

    command: Command
    spend: int = 0
    upto: int = 0


def standing(cards: CardSet, state: GameState, p: Player,
             goals: Sequence[Progress] | None = None, horizon: int = 0,
             special: float = SPECIAL, exposed: Sequence[float] = EXPOSED) -> float:
    """How well placed ``p`` is, from the board as the bot believes it (``goals``: its
    ``bots.goals_of``, when the caller has them already; ``exposed``: the standing a
    structure of 0, 1, ... groups under the Illuminati adds, the last for any more)."""
    if not p.playing:
        return -WON
    basic, *specials = bots.goals_of(cards, state, p) if goals is None else goals
    guessed = bots.hidden_goal(cards, p)  # feared at the likeliest of the goals it may have chosen
    if (basic.met or (not guessed and any(g.need and g.met for g in specials))) \
            and victory_allowed(state):
        return WON
    income = power = money = 0
    for slot in p.structure:
        card = cards.card(slot.card)
        income += int(getattr(card, "income", 0))
        power += sum(cards.facts(slot.card)[:2])
        money += slot.treasury
    b = basic.have / basic.need
    ahead = [replace(g, have=g.have + coming(g, horizon * income)) if g.kind == "treasury"
             else g for g in specials if g.need]
    s = max((min(bots.closeness(cards, p, g), bots.GUESSED if guessed else 1.0) for g in ahead),
            default=0.0)
    closest = max(b, s)
    # A player holding nothing but its Illuminati after its third turn is out of the game.
    thin = exposed[min(len(p.structure) - 1, len(exposed) - 1)]
    if len(p.structure) == 1 and p.turns >= 3:
        thin = -WON / 2  # out at the end of this turn unless an attack takes a group
    return (thin + closest * closest + BASIC * b + special * s + INCOME * income
            + POWER * power + MONEY * min(money, 60))


def exposure(cards: CardSet, p: Player) -> Sequence[float]:
    """How much the bot ``p`` fears a thin structure of its own (``standing``'s ``exposed``).
    A goal of destroying groups (the Servants of Cthulhu's, or the UFOs' choice of it) takes
    the attacks the structure would grow by, and a player with one or two groups left
    destroying was eliminated by the attacks on them: with the usual ``EXPOSED`` 8 of 24
    Servants' seats at 3 players (all strong, tuning seed 12, 80 games), with
    ``DESTROYER_EXPOSED`` none, and their win share 0.62 -> 0.75 of the fair one. Judged on
    seeds 2 and 3 (40 games a size, all seats strong): see the README's strong row. Only
    the bot's own standing: its rivals are judged as before, and with them the duels of the
    other seven Illuminati."""
    return DESTROYER_EXPOSED if bots.destroying_goal(special_goal(cards, p)[1].kind) \
        else EXPOSED


def coming(goal: Progress, income: int) -> int:
    """The part of ``income`` (the turns ahead) counted toward a money goal: at most half of
    what is still missing, so that every MB held keeps its worth up to the goal itself.
    Counted in full, a rich player's income would fill the goal on paper: with 105 of 150 MB
    and 15 a turn, its standing stopped growing with its money, and the strong Gnomes spent
    it all again: none reached 150 MB in 500 games of ``bench/bots.py`` (all seats strong),
    against 31 with the income counted up to half."""
    return max(0, min(income, int(REACH * (goal.need - goal.have))))


def one_step(goals: Sequence[Progress]) -> bool:
    """Whether these goals (``bots.goals_of``) hold one a success away: a group short of a count,
    or nearly there on a sum (power, transferable power, money)."""
    return any(goal.need and not goal.met and (
        goal.need - goal.have <= 1 if goal.kind in COUNTED
        else goal.have >= NEARLY * goal.need) for goal in goals)


def threat(cards: CardSet, state: GameState, p: Player) -> float:
    """A rival's standing as feared: one success from a goal, it may well win on its turn."""
    goals = bots.goals_of(cards, state, p)
    value = standing(cards, state, p, goals)
    if value < WON and victory_allowed(state) and one_step(goals):
        value += ONE_STEP
    return value


def evaluate(cards: CardSet, state: GameState, me: str,
             rivals: Rivals | None = None) -> float:
    """The bot's standing less its rivals': the leader's most, the others' a little.
    ``rivals``: the threats already worked out in this decision."""
    own = state.player(me)
    mine = standing(cards, state, own, horizon=HORIZON, special=OWN_SPECIAL,
                    exposed=exposure(cards, own))
    rivals = rivals if rivals is not None else Rivals(cards)
    others = [rivals.threat(state, p) for p in state.players if p.playing and p.name != me]
    if not others:
        return mine
    return mine - RIVALRY * max(others) - (1 - RIVALRY) * sum(others) / len(others)


class Rivals:
    """Each rival's ``threat`` on the states of one decision, worked out once: an attack
    leaves most rivals as they were (the very same ``Player``), and what else a threat reads
    of the state (the rule options, this turn's alignment changes, whether a goal may win
    yet) is the same throughout one decision; kept with each, it is checked all the same.
    Shared so, a strong order mail took some 15 % less time (the timed games of seed 3)."""

    def __init__(self, cards: CardSet) -> None:
        self.cards = cards
        self.known: dict[int, tuple[Player, GameState, float]] = {}

    def threat(self, state: GameState, p: Player) -> float:
        known = self.known.get(id(p))
        if known is not None and known[0] is p and self.alike(known[1], state):
            return known[2]
        value = threat(self.cards, state, p)
        self.known[id(p)] = (p, state, value)
        return value

    @staticmethod
    def alike(seen: GameState, state: GameState) -> bool:
        return (seen.options is state.options
                and seen.turn.alignment_changes is state.turn.alignment_changes
                and victory_allowed(seen) == victory_allowed(state))


@dataclass(frozen=True)
class Decision:
    """What one decision of the strong bot carries through its search: the cards, whose
    decision it is, its random numbers and its rivals' threats (``Rivals``)."""

    cards: CardSet
    me: str
    rng: random.Random
    rivals: Rivals

    @classmethod
    def of(cls, cards: CardSet, me: str, rng: random.Random) -> Decision:
        return cls(cards, me, rng, Rivals(cards))

    def evaluate(self, state: GameState) -> float:
        return evaluate(self.cards, state, self.me, self.rivals)


def money_plans(need: int, budget: int, plan: bots.PlannedAttack) -> list[tuple[int, int]]:
    """Money plans weighed for one attack: the ``normal`` bot's, none at all, and all in."""
    all_in = max(0, min(ATTACKER_GOAL - need, budget))
    plans = {(plan.spend, plan.upto), (0, budget // 4), (all_in, budget)}
    return sorted(plans)


@dataclass(frozen=True)
class Announced:
    """One attack announced in one sampled world, with the others' answers before their
    draws: worked out once for all the money plans of the attack."""

    state: GameState
    answers: tuple[bots.ResponsePlan, ...]


def announce(cards: CardSet, state: GameState, me: str, attack: Attack) -> Announced | None:
    """``attack`` announced in the sampled world ``state``, or None if the rules refuse it."""
    try:
        state, _ = apply(state, attack, cards)
    except IllegalCommandError:
        return None
    return Announced(state, answers(cards, state, me))


def outcome(d: Decision, state: GameState, plan: bots.PlannedAttack, spend: int, upto: int,
            ahead: bool = False) -> float | None:
    """The expected evaluation of one attack with one money plan in one sampled world, or
    None if the rules refuse it (``played``)."""
    announced = announce(d.cards, state, d.me, plan.attack)
    return None if announced is None else played(d, announced, spend, upto, ahead)


def played(d: Decision, announced: Announced, spend: int, upto: int,
           ahead: bool = False) -> float:
    """The expected evaluation of an announced attack with one money plan. ``ahead``: each
    outcome is worth the better of stopping there and the best second action from it
    (``follow_up``), so that the first action is judged with the turn it leaves."""
    state = announced.state
    pending = state.attack
    assert pending is not None
    stances = [Stance(d.me, "attack", spend, upto,
                      (pending.attacker, state.player(d.me).illuminati)),
               *drawn(announced.answers, d.rng)]
    state, _ = settle_bids(d.cards, state, stances)
    return settled(d, state, ahead)


def answers(cards: CardSet, state: GameState,
            *besides: str) -> tuple[bots.ResponsePlan, ...]:
    """The answers to the attack under way of every player in the game but ``besides``,
    as ``normal`` bots would give them, before their draws (``drawn``)."""
    board = bots.LeaderBoard(cards, state)
    return tuple(bots.answer_to(cards, state, other.name, board=board)
                 for other in state.players if other.playing and other.name not in besides)


def drawn(answers: Sequence[bots.ResponsePlan], rng: random.Random) -> list[Stance]:
    """The stances of ``answers``, each drawn in turn."""
    return [stance for answer in answers if (stance := answer.given(rng)) is not None]


def settled(d: Decision, state: GameState, ahead: bool = False) -> float:
    """The expected evaluation of the attack under way, its money all in: each outcome
    (success, failure) weighed by its exact chance."""
    pending = state.attack
    assert pending is not None
    chance = success_chance(roll_needed(d.cards, state, pending))
    value = 0.0
    for roll, weight in ((SUCCESS_ROLL, chance), (FAILURE_ROLL, 1.0 - chance)):
        if weight <= 0:
            continue
        rolled = replace(state, attack=replace(pending, roll=roll), phase="after_roll")
        settled, _ = apply(rolled, Settle(), d.cards)
        now = d.evaluate(settled)
        if ahead:
            now = max(now, follow_up(d, settled))
        value += weight * now
    return value


def follow_up(d: Decision, state: GameState) -> float:
    """The best expected evaluation of a second action from ``state`` (one sampled world,
    the first action settled): the ``FOLLOW`` likeliest attacks of the ``normal`` bot, each
    with its money plan (weighing the others too cost a p95 of 1.5 s a strong order mail on
    the loaded bench machine). Minus infinity when no action is left."""
    if state.phase != "actions" or state.active_player.name != d.me or state.turn.actions >= 2:
        return float("-inf")
    best = float("-inf")
    for plan in bots.plan_attacks(d.cards, state, state.player(d.me), "normal", weigh=FOLLOW,
                                  least=LEAST):
        value = outcome(d, state, plan, plan.spend, plan.upto)
        if value is not None and value > best:
            best = value
    return best


def candidates(cards: CardSet, state: GameState, p: Player) -> list[bots.PlannedAttack]:
    """The attacks weighed: the likeliest by the ``normal`` bot's goal-weighted values; by
    plain values (blind to the special goal: the groups a structure grows on), so that a
    goal's attacks never crowd out the control a player needs to stay in the game; and on
    the groups of the rival best placed, whatever their resistance, to stop them."""
    plans = bots.plan_attacks(cards, state, p, "normal", weigh=CANDIDATES, least=LEAST)
    plans += bots.plan_attacks(cards, state, p, "easy", weigh=CANDIDATES // 2, least=LEAST)
    rivals = [o for o in state.players if o.playing and o.name != p.name]
    if rivals:
        first = max(rivals, key=lambda o: (standing(cards, state, o), o.name))
        plans += bots.plan_attacks(cards, state, p, "normal", weigh=CANDIDATES // 2,
                                   least=LEAST, against=first.name)
    unique: dict[Attack, bots.PlannedAttack] = {}
    for plan in plans:
        unique.setdefault(plan.attack, plan)
    return list(unique.values())


def spare_card(card: Special) -> bool:
    """A special card the bots never play (pbem.engine.behaviour tells which): discarded
    for privilege when it pays."""
    return not (behaviour.money(card) > 0 or behaviour.waits_for_roll(card)
                or behaviour.counters(card) or behaviour.at_turn_start(card)
                or behaviour.takes_uncontrolled(card) or behaviour.moves_holders_money(card))


def privileged(cards: CardSet, state: GameState, p: Player, attack: Attack) -> list[Attack]:
    """The attack made privileged, so that nobody may interfere ("No one can interfere either
    for or against a Privileged Attack"): by the Bavarians' ability (5 MB), or by discarding a
    special card the bots have no other use for. Weighed like any other candidate: worth it
    only where interference was to be feared."""
    if ("bavarian_privilege" in abilities(cards, p.illuminati).special
            and not state.turn.privileged_bavarian and p.treasury >= BAVARIAN_PRIVILEGE):
        return [replace(attack, privilege="bavarian")]
    spare = sorted(s.name for s in behaviour.held(cards, set(p.hand)) if spare_card(s))
    return [replace(attack, privilege="card", privilege_card=spare[0])] if spare else []


def response(cards: CardSet, state: GameState, me: str, rng: random.Random) -> Stance | None:
    """The strong bot's answer to another player's attack: it weighs its defence
    (``defence``) and assists as rarely as the ``normal`` bot, but keeps its money for its
    own attacks instead of interfering with every attack of the leader, and puts all it has
    against an attack whose success would win the game."""
    attack = state.attack
    assert attack is not None
    usual = bots.response_stance(cards, state, me, rng, "strong")
    after = if_it_succeeds(cards, state)
    if after is None or after < WON:
        if usual is not None and usual.side == "defense":
            return defence(cards, state, me, rng, usual)
        return None if usual is not None and usual.side == "interfere" else usual
    p = state.player(me)
    owner = state.owner(attack.target)
    if owner is not None and owner.name == me:
        group = p.slot(attack.target)
        budget = (group.treasury if group else 0) + p.treasury
        return Stance(me, "defense", 0, budget, (attack.target, p.illuminati)) if budget else None
    if attack.privileged or p.treasury <= 0:
        return None
    return Stance(me, "interfere", 0, p.treasury)


def defence(cards: CardSet, state: GameState, me: str, rng: random.Random,
            usual: Stance) -> Stance | None:
    """The money the strong bot puts up for its group under attack, weighed in sampled
    worlds as its own attacks are: none, the ``normal`` bot's, or all it may, the attacker
    and the others answering as ``normal`` bots would; the budget with the best expected
    evaluation after the roll, the cheapest of equals. So it spends nothing where its money
    cannot change the roll, and all it has where the group is worth it. Defending as the
    normal bot does, it won 53.5 % of the duels on the tuning seed 100; weighing its
    defence, 57.5 % (``bench/bots.py``, 200 games)."""
    attack = state.attack
    assert attack is not None
    p = state.player(me)
    group = p.slot(attack.target)
    most = (group.treasury if group else 0) + p.treasury
    budgets = sorted({0, usual.upto, most})
    worlds = [sample(cards, state, me, rng) for _ in range(SAMPLES)]
    others = [answers(cards, world, me, attack.player) for world in worlds]
    d = Decision.of(cards, me, rng)
    best: tuple[float, int] | None = None
    for budget in budgets:
        total = 0.0
        for world, answered in zip(worlds, others, strict=True):
            stances = [bots.attacker_stance(cards, world, rng)]
            if budget:
                stances.append(Stance(me, "defense", 0, budget, usual.sources))
            stances += drawn(answered, rng)
            after, _ = settle_bids(cards, world, stances)
            total += settled(d, after)
        if best is None or total > best[0] + 1e-9:
            best = (total, budget)
    assert best is not None
    return Stance(me, "defense", 0, best[1], usual.sources) if best[1] else None


def if_it_succeeds(cards: CardSet, state: GameState) -> float | None:
    """The attacker's standing if the attack under way succeeds (``WON``: a goal met)."""
    pending = state.attack
    assert pending is not None
    rolled = replace(state, attack=replace(pending, roll=SUCCESS_ROLL), phase="after_roll")
    try:
        settled, _ = apply(rolled, Settle(), cards)
    except IllegalCommandError:
        return None
    return standing(cards, settled, settled.player(pending.player))


def _passing(d: Decision, worlds: list[GameState]) -> float:
    """The mean evaluation after passing: "collect 5 MB" (the turn then ends)."""
    total = 0.0
    for world in worlds:
        total += d.evaluate(earn(world, d.me, world.player(d.me).illuminati, PASS_INCOME))
    return total / len(worlds)


First = tuple[float, int, list[Announced], Choice]  # value alone, order, worlds, choice


def plan_the_turn(d: Decision, firsts: Sequence[First]) -> tuple[float, Choice] | None:
    """The first action of the turn, weighed with the second (``follow_up``): the ``PLANNED``
    best first actions by themselves, each played forward in the same sampled worlds, and
    from each outcome the best second action (or none). An attack that spends the money the
    second one needed, or uses the group it needed, loses to one that leaves the turn its
    second action. Returns the best first action by its value as the first of two actions
    (its one-action value where that is higher: a turn may end after one), or None.
    ``firsts``: each with its attack announced in every sampled world."""
    best: tuple[float, float, Choice] | None = None
    for alone, _, worlds, choice in firsts:
        total = sum(played(d, announced, choice.spend, choice.upto, ahead=True)
                    for announced in worlds)
        mean = max(total / len(worlds), alone)
        if best is None or mean > best[0]:
            best = (mean, alone, choice)
    return (best[1], best[2]) if best else None


def best_action(cards: CardSet, state: GameState, me: str, rng: random.Random) -> Choice:
    """The strong bot's next command in the actions phase, from its belief ``state``."""
    choice = _best_action(cards, state, me, rng)
    if isinstance(choice.command, EndTurn | EndPowers):
        gather = gathering(cards, state, state.player(me))
        if gather is not None:
            return Choice(gather)
    return choice


def gathering(cards: CardSet, state: GameState, p: Player) -> TransferMoney | None:
    """A free transfer, once the strong bot's actions are over, of the richest puppet of its
    Illuminati's money up to the Illuminati treasury ("A player may make two money
    transfers as part of his turn"): only the attacking group's money and the Illuminati's
    pay for an attack, and only the Illuminati's for interference or for the defence of
    another group. None for an Illuminati whose end-of-turn power moves money (the Gnomes):
    that power gathers it all. Gathering so, it won 53.5 % of the duels on the tuning seed
    100, against 49.0 % without (``bench/bots.py``, 200 games)."""
    if state.turn.end_powers or state.turn.free_transfers >= FREE_TRANSFERS:
        return None
    if bots.END_OF_TURN.get(cards.illuminati_card(p.illuminati).end_of_turn) \
            is bots.gather_money:
        return None  # the end-of-turn power moves it all, free
    rich = [s for s in p.structure[1:] if s.master == p.illuminati and s.treasury > 0]
    if not rich:
        return None
    top = max(rich, key=lambda s: (s.treasury, s.card))
    return TransferMoney(p.name, top.card, p.illuminati, top.treasury)


def _best_action(cards: CardSet, state: GameState, me: str, rng: random.Random) -> Choice:
    p = state.player(me)
    # White Collar Crime, played as soon as held: 5 MB, free ("add 5 MB anywhere").
    white_collar = bots.held_where(cards, p.hand, behaviour.moves_holders_money)
    if white_collar and state.special is None:
        return Choice(PlaySpecial(me, white_collar, bonus_to=p.illuminati))
    fallback = bots.choose_action(cards, state, me, rng)
    if (isinstance(fallback, PlaySpecial | DropGroup) or state.turn.actions >= 2
            or state.turn.end_powers):
        return Choice(fallback)
    plans = candidates(cards, state, p)
    if not plans:
        return Choice(fallback)
    worlds = [sample(cards, state, me, rng) for _ in range(SAMPLES)]
    d = Decision.of(cards, me, rng)
    baseline = sum(d.evaluate(w) for w in worlds) / len(worlds)
    weighed: list[First] = []
    for plan in plans:
        slot = p.slot(plan.attack.attacker)
        budget = (slot.treasury if slot else 0) + p.treasury
        for attack in (plan.attack, *privileged(cards, state, p, plan.attack)):
            ready = [a for w in worlds if (a := announce(cards, w, me, attack)) is not None]
            if len(ready) < len(worlds):
                continue  # refused in some world
            for spend, upto in money_plans(plan.need, budget, plan):
                values = [played(d, a, spend, upto) for a in ready]
                mean = sum(values) / len(values)
                weighed.append((mean, len(weighed), ready, Choice(attack, spend, upto)))
    weighed.sort(key=lambda w: (-w[0], w[1]))
    best = (weighed[0][0], weighed[0][3]) if weighed else None
    if state.turn.actions == 0 and len(weighed) > 1:
        best = plan_the_turn(d, weighed[:PLANNED]) or best
    if not state.turn.did_anything and _passing(d, worlds) - baseline > 2 * (
            (best[0] if best else baseline) - baseline):
        return Choice(Pass(me))  # 5 MB outweigh the two actions the turn would hold
    if best is None or best[0] <= baseline:
        # Nothing worth an action: no attack, nor the normal bot's money fed down to a
        # puppet (``gathering`` keeps it up).
        if isinstance(fallback, Attack | TransferMoney):
            if not state.turn.did_anything:
                return Choice(Pass(me))
            return Choice(bots.end_of_turn(cards, state, p) or EndTurn(me))
        return Choice(fallback)
    return best[1]
