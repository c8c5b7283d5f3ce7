"""Random-but-sensible players: they attack with fair odds, defend, interfere and play cards,
and now and then offer a spare group away, and may withdraw the offer before its answer.

A bot reads only what its player may know (its own structure and money, the public board) and
draws its choices from a ``random.Random`` it is given, so a simulated game is reproducible.
The same decisions drive ``pbem simulate`` and the bots that play by mail.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from pbem.engine.abilities import alignment_modifier, alignments, power, transferable
from pbem.engine.attack import participation_left, validate_attack
from pbem.engine.bidding import Stance
from pbem.engine.breakdown import PROXIMITY, breakdown, success_chance
from pbem.engine.cards import AttackMode, CardSet, Group, Special
from pbem.engine.commands import (
    Attack,
    Command,
    EndTurn,
    OfferGroup,
    Pass,
    PlaySpecial,
    TransferMoney,
)
from pbem.engine.state import GameState, GroupOffer, PendingAttack, Player
from pbem.engine.structure import depth, open_arrows
from pbem.engine.victory import progress
from pbem.errors import IllegalCommandError

GOOD_NEED = 7  # a roll of 7 or less succeeds 58% of the time
MONEY_CARDS = ("Swiss Bank Account", "Slush Fund")
SHORTLIST = 6  # attacks weighed in full each decision
CANDIDATES = 4  # strongest attackers considered for each target
TARGETS = 14  # easiest targets considered each decision
GIFT_CHANCE = 0.04  # a turn on which the bot offers a spare group away
WITHDRAW_CHANCE = 0.3  # an offer of its own, still unanswered, that the bot takes back


@dataclass(frozen=True)
class PlannedAttack:
    attack: Attack
    need: int  # before money
    spend: int  # the attacker's money it means to put in at once
    upto: int  # the most it will put in, answering the defender
    value: float


def leader_score(cards: CardSet, state: GameState, p: Player) -> float:
    """How close a player is to winning, 0..1 (the best of their goals)."""
    return max(min(g.have / g.need, 1.0) for g in progress(cards, state, p) if g.need)


def plan_attacks(cards: CardSet, state: GameState, me: Player) -> list[PlannedAttack]:
    """Attacks worth making now, best first: for each target and kind of attack, the one
    attacker that looks strongest, all free helpers aiding."""
    money = {s.card: s.treasury for s in me.structure}
    helpers = [s.card for s in me.structure if transferable(cards, s.card) > 0
               and participation_left(cards, state, s.card)]
    aid_total = sum(transferable(cards, h) for h in helpers)
    attackers = [s.card for s in me.structure
                 if power(cards, s.card) > 0 and participation_left(cards, state, s.card)]
    controllers = [a for a in attackers if open_arrows(cards, me, a)]
    targets: list[tuple[str, Player | None]] = [(g, None) for g in state.uncontrolled]
    for other in state.players:
        if other.name != me.name and other.playing:
            targets += [(s.card, other) for s in other.structure[1:]]
    # The uncontrolled area grows all game: weigh only the easiest targets in full.
    targets.sort(key=lambda t: _hardness(cards, *t))
    del targets[TARGETS:]
    lead = {p.name: leader_score(cards, state, p) for p in state.players if p.playing}
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
        modes: list[tuple[AttackMode, list[str]]] = [("control", controllers)]
        if owner is not None:
            modes += [("neutralize", attackers), ("destroy", attackers)]
        for mode, candidates in modes:
            if not candidates:
                continue
            strength, attacker = max((_quick_strength(own[a], target_alignments, mode), a)
                                     for a in candidates)
            defence = group.power if mode == "destroy" else group.resistance
            rough = strength + aid_total + (6 if mode == "neutralize" else 0) - defence - proximity
            value = _target_value(cards, target, mode, owner, lead)
            shortlist.append((success_chance(rough + me.treasury // 2) * value, attacker,
                              target, owner, mode))
    shortlist.sort(key=lambda c: -c[0])
    plans: list[PlannedAttack] = []
    # The full breakdown (abilities, defences, immunities) only for the most promising few.
    for _, attacker, target, owner, mode in shortlist[:SHORTLIST]:
        aids = tuple(h for h in helpers if h not in (attacker, target))
        try:
            validate_attack(cards, state, me, attacker, target, mode, aids)
        except IllegalCommandError:
            continue
        pending = PendingAttack(player=me.name, attacker=attacker, target=target,
                                mode=mode, aids=aids)
        need = breakdown(cards, state, pending).need
        budget = money[attacker] + me.treasury
        spend, upto = money_plan(need, budget)
        chance = success_chance(need + spend)
        if chance < 0.3:
            continue
        value = _target_value(cards, target, mode, owner, lead)
        plans.append(PlannedAttack(
            Attack(me.name, attacker, target, mode, aids), need, spend,
            upto, chance * value))
    plans.sort(key=lambda p: -p.value)
    return plans


def money_plan(need: int, budget: int) -> tuple[int, int]:
    """What an attacking bot puts in at once (enough for a roll of 8, at most half its
    money) and the most it will put in answering the defender."""
    spend = max(0, min(GOOD_NEED + 1 - need, budget // 2))
    return spend, min(budget, spend + budget // 3)


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


def _target_value(cards: CardSet, target: str, mode: str, owner: Player | None,
                  lead: dict[str, float]) -> float:
    group = cards.card(target)
    assert isinstance(group, Group)
    worth = 1.0 + group.income / 4 + group.power / 6 + group.transferable / 4
    if mode == "control":
        return worth * (1.4 if owner is not None else 1.0)
    threat = lead.get(owner.name, 0.0) if owner else 0.0
    return worth * (0.5 + threat) * (0.7 if mode == "neutralize" else 0.6)


def choose_action(cards: CardSet, state: GameState, me: str, rng: random.Random) -> Command:
    """The active bot's next command in the actions phase."""
    p = state.player(me)
    for card in MONEY_CARDS:
        if card in p.hand and p.treasury < 6:
            return PlaySpecial(me, card)
    if state.turn.actions < 2:
        plans = plan_attacks(cards, state, p)
        if plans and (rng.random() < 0.9):
            pick = plans[0] if rng.random() < 0.7 or len(plans) == 1 else rng.choice(plans[:4])
            return pick.attack
        move = _feed_money(cards, state, p)
        if move is not None and state.turn.free_transfers < 2:
            return move
        if not state.turn.did_anything and rng.random() < 0.6:
            return Pass(me)
    return EndTurn(me)


def choose_gift(cards: CardSet, state: GameState, me: str,
                rng: random.Random) -> OfferGroup | None:
    """Now and then (``GIFT_CHANCE``, one draw a call), the active bot's offer of its least
    group with no puppets to the player furthest from winning: a gift that helps no one win
    ("No player may simply 'throw' the game to another"). None most of the time, and when
    no action is left or an offer already waits."""
    if (rng.random() >= GIFT_CHANCE or state.phase != "actions" or state.offer is not None
            or state.active_player.name != me or state.turn.actions >= 2):
        return None
    p = state.player(me)
    masters = {s.master for s in p.structure}
    spare = [s.card for s in p.structure[1:] if s.card not in masters]
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


def attacker_stance(cards: CardSet, state: GameState, rng: random.Random) -> Stance:
    """How much the attacking bot puts in at once, and the most it will add."""
    attack = state.attack
    assert attack is not None
    p = state.player(attack.player)
    need = breakdown(cards, state, attack).need
    group = p.slot(attack.attacker)
    budget = (group.treasury if group else 0) + p.treasury
    spend, upto = money_plan(need, budget)
    return Stance(p.name, "attack", spend, upto, (attack.attacker, p.illuminati))


def response_stance(cards: CardSet, state: GameState, me: str,
                    rng: random.Random) -> Stance | None:
    """A bot's answer to someone else's attack: defend its group, or meddle, or nothing."""
    attack = state.attack
    assert attack is not None
    p = state.player(me)
    owner = state.owner(attack.target)
    if owner is not None and owner.name == me:
        group = p.slot(attack.target)
        budget = (group.treasury if group else 0) + p.treasury // 2
        if budget <= 0:
            return None
        return Stance(me, "defense", 0, budget, (attack.target, p.illuminati))
    if attack.privileged or p.treasury < 8:
        return None
    lead = leader_score(cards, state, state.player(attack.player))
    if lead > 0.7 and rng.random() < 0.6:
        return Stance(me, "interfere", 0, p.treasury // 3)
    if rng.random() < 0.08:
        return Stance(me, "assist", 1, 1)
    return None


def after_roll_card(cards: CardSet, state: GameState, me: str,
                    rng: random.Random) -> PlaySpecial | None:
    """Murphy's Law against a success on my group, Assassination to save my own attack."""
    attack = state.attack
    assert attack is not None and attack.roll is not None
    p = state.player(me)
    total = attack.roll_becomes if attack.roll_becomes is not None else sum(attack.roll)
    need = breakdown(cards, state, attack).need
    success = total < 11 and total <= need
    owner = state.owner(attack.target)
    if success and owner is not None and owner.name == me and "Murphy's Law" in p.hand:
        return PlaySpecial(me, "Murphy's Law")
    if not success and attack.player == me and need >= 2 and "Assassination" in p.hand:
        return PlaySpecial(me, "Assassination")
    return None


def counter_card(cards: CardSet, state: GameState, me: str) -> bool:
    """Whether to cancel the special card just played (when it hurts me)."""
    special = state.special
    if special is None or special.player == me:
        return False
    p = state.player(me)
    if "Secrets Man Was Not Meant To Know" not in p.hand:
        return False
    card = cards.card(special.card)
    assert isinstance(card, Special)
    if card.effect in ("murphys_law", "assassination") and state.attack is not None:
        owner = state.owner(state.attack.target)
        mine = state.attack.player == me or (owner is not None and owner.name == me)
        return mine
    return card.effect == "senate_investigating_committee" and state.active_player.name == me


def turn_start_card(cards: CardSet, state: GameState, me: str,
                    rng: random.Random) -> PlaySpecial | None:
    """The Senate against a leader, or Market Manipulation on my own turn."""
    p = state.player(me)
    active = state.active_player
    if me == active.name:
        if "Market Manipulation" in p.hand and len(p.structure) >= 4:
            return PlaySpecial(me, "Market Manipulation")
        return None
    if "Senate Investigating Committee" in p.hand and leader_score(cards, state, active) > 0.75:
        return PlaySpecial(me, "Senate Investigating Committee")
    return None


def special_action(cards: CardSet, state: GameState, me: str) -> PlaySpecial | None:
    """Bribery on the best uncontrolled group, when the bot holds it."""
    p = state.player(me)
    ready = "Bribery" in p.hand and state.turn.actions < 2 and state.uncontrolled
    if ready and any(open_arrows(cards, p, s.card) for s in p.structure):
        best = max(state.uncontrolled, key=lambda g: getattr(cards.card(g), "income", 0))
        return PlaySpecial(me, "Bribery", group=best)
    return None

