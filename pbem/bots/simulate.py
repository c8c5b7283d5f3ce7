"""Whole games between bots, with every invariant checked after every command.

Used by ``pbem simulate``, the benchmarks and the tests: money is conserved against the bank,
every card is in exactly one place, no two cards overlap, the state survives JSON, and the
command log replays to the final state.

Each seat has a level (``pbem.bots.Level``). The table plays the service's part (rolls,
response windows) on the full state, but every bot decides from its belief: the state rebuilt
from its own player's view (``pbem.engine.view`` then ``pbem.bots.belief``), as the bots
that play by mail do.
"""

from __future__ import annotations

import random
import time
from collections import Counter as Tally
from collections.abc import Sequence
from dataclasses import dataclass, field

from pbem import bots
from pbem.bots import play
from pbem.bots.belief import belief
from pbem.engine import behaviour
from pbem.engine.bidding import Stance, settle_bids
from pbem.engine.cards import CardSet
from pbem.engine.codec import from_json, to_json
from pbem.engine.commands import (
    Attack,
    BeginTurn,
    Command,
    Counter,
    DeclineGroup,
    EndTurn,
    ResolveSpecial,
    Roll,
    Settle,
    WithdrawOffer,
)
from pbem.engine.rules import apply, replay
from pbem.engine.setup import Setup, StartingSeat, new_game, with_options
from pbem.engine.state import GameState
from pbem.engine.structure import well_formed
from pbem.engine.victory import progress
from pbem.engine.view import view
from pbem.errors import IllegalCommandError

# A bot is asked only when it holds a card it could play then (its own hand: it knows it;
# pbem.engine.behaviour says when a card is played): rebuilding its belief costs more than
# the rest of the decision.
DEFAULT_TURN_CAP = 300  # a documented cap: a game still undecided after this many turns ends


@dataclass
class GameResult:
    index: int
    outcome: str
    winners: tuple[str, ...]
    goals: tuple[str, ...]  # for each winner, "basic" or the Illuminati whose goal was met
    turns: int
    commands: int
    violations: list[str] = field(default_factory=list)
    withdrawals: int = 0  # group offers taken back by their giver
    seats: tuple[tuple[str, str, str], ...] = ()  # (player, Illuminati, level) in turn order
    decisions: list[float] = field(default_factory=list)  # seconds per strong action chosen
    eliminated: tuple[str, ...] = ()  # the players eliminated (no group after their third turn)


@dataclass
class Summary:
    games: int
    finished: int
    outcomes: dict[str, int]
    winners_by_goal: dict[str, int]
    violations: list[str]
    commands: int
    seconds: float
    # per Illuminati, and per level: games (seats) played, wins, seats eliminated
    by_illuminati: dict[str, dict[str, int]] = field(default_factory=dict)
    by_level: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0


def invariant_violations(cards: CardSet, state: GameState,
                         checked: dict[int, object] | None = None) -> list[str]:
    """Every broken invariant of a state (empty when sound).

    ``checked`` remembers structures (by identity: states share unchanged ones) whose geometry
    was already found sound, so a long game checks each structure once.
    """
    problems: list[str] = []
    if state.money_in_play != state.money_issued:
        problems.append(f"money: {state.money_in_play} MB in play, bank issued "
                        f"{state.money_issued}")
    if any(s.treasury < 0 for p in state.players for s in p.structure):
        problems.append("a treasury is negative")
    places = [*state.uncontrolled, *state.dead, *state.deck, *state.discards]
    for p in state.players:
        places += [s.card for s in p.structure[1:]] + list(p.hand)
        if checked is None or id(p.structure) not in checked:
            geometry = well_formed(cards, p)
            problems += geometry
            if checked is not None and not geometry:
                checked[id(p.structure)] = p.structure  # kept alive: its id stays unique
    places.sort()
    expected = _every_card(cards)
    if places != expected:
        found, wanted = Tally(places), Tally(expected)
        problems.append(f"cards: missing {sorted((wanted - found).elements())}, "
                        f"extra {sorted((found - wanted).elements())}")
    return problems


_EVERY_CARD: dict[int, tuple[CardSet, list[str]]] = {}


def _every_card(cards: CardSet) -> list[str]:
    """Every group and special card (with its copies), sorted; kept by the card set's identity
    (hashing a whole card set on every call would cost more than the check)."""
    known = _EVERY_CARD.get(id(cards))
    if known is None or known[0] is not cards:
        names = [g.name for g in cards.groups]
        names += [s.name for s in cards.specials for _ in range(s.copies)]
        known = _EVERY_CARD[id(cards)] = (cards, sorted(names))
    return known[1]


class BotTable:
    """Plays one game: every seat a bot, the service's part (rolls, windows) done here."""

    def __init__(self, cards: CardSet, state: GameState, rng: random.Random,
                 check_every: int = 1, levels: dict[str, bots.Level] | None = None) -> None:
        self.cards = cards
        self.state = state
        self.rng = rng
        self.levels = levels or {}
        self.planned: dict[Attack, tuple[int, int]] = {}  # money the attacker chose with it
        self.timings: list[float] = []  # seconds per action decision of a strong bot
        self.minds: dict[str, tuple[GameState, GameState]] = {}  # player: (state, belief)
        self.log: list[Command] = []
        self.violations: list[str] = []
        self.check_every = check_every
        self.sound: dict[int, object] = {}
        # Gifts drawn apart, so the other choices of a game without one stay as they were.
        self.gifts = random.Random(f"{state.game}:{state.dice.seed}:gifts")
        self.gift_turn = -1  # the turn whose gift was drawn: one draw a turn

    def level(self, player: str) -> bots.Level:
        return self.levels.get(player, "normal")

    def mind(self, player: str) -> GameState:
        """What ``player``'s bot knows: the state rebuilt from its own view (kept while the
        state stays the same)."""
        known = self.minds.get(player)
        if known is None or known[0] is not self.state:
            known = self.minds[player] = (
                self.state, belief(self.cards, view(self.cards, self.state, player)))
        return known[1]

    def do(self, command: Command) -> bool:
        """Apply a command; False (and nothing changes) if the rules refuse it."""
        try:
            self.state, _ = apply(self.state, command, self.cards)
        except IllegalCommandError:
            return False
        self.log.append(command)
        if len(self.log) % self.check_every == 0:
            self.check()
        return True

    def check(self, full: bool = False) -> None:
        """The invariants; the JSON round trip (slow) only every 100 commands and at the end."""
        problems = invariant_violations(self.cards, self.state, self.sound)
        if (full or len(self.log) % 100 == 0) and from_json(
            GameState, to_json(self.state)
        ) != self.state:
            problems.append("state does not survive JSON")
        self.violations += [f"after command {len(self.log)}: {p}" for p in problems]

    def answer_special(self) -> None:
        while self.state.special is not None:
            counters = [p.name for p in self.state.players
                        if p.playing and behaviour.counter_in(self.cards, p.hand)
                        and bots.counter_card(self.cards, self.mind(p.name), p.name)]
            if not (counters and self.do(Counter(
                    counters[0], behaviour.counter_in(self.cards,
                                                      self.state.player(counters[0]).hand)))):
                self.do(ResolveSpecial())

    def step(self) -> None:
        """Advance the game by one decision."""
        s = self.state
        if s.special is not None:
            self.answer_special()
        elif s.offer is not None:
            if not (bots.withdraws(s.offer, s.offer.giver, self.gifts)
                    and self.do(WithdrawOffer(s.offer.giver))):
                self.do(DeclineGroup(s.offer.receiver))
        elif s.phase == "turn_start":
            for p in s.players:
                if p.playing and bots.held_where(self.cards, p.hand, behaviour.at_turn_start):
                    card = bots.turn_start_card(self.cards, self.mind(p.name), p.name,
                                                self.rng)
                    if card is not None and self.do(card):
                        self.answer_special()
            self.do(BeginTurn())
        elif s.phase == "actions":
            self.act()
        elif s.phase == "attack":
            self.fight()
        elif s.phase == "after_roll":
            self.after_roll()

    def act(self) -> None:
        me = self.state.active_player.name
        mind = self.mind(me)
        special = bots.special_action(self.cards, mind, me)
        if special is not None and self.do(special):
            self.answer_special()
            return
        if self.gift_turn != self.state.turn_number:
            self.gift_turn = self.state.turn_number
            gift = bots.choose_gift(self.cards, mind, me, self.gifts, self.level(me))
            if gift is not None and self.do(gift):
                return
        start = time.perf_counter()
        choice = play.action(self.cards, mind, me, self.level(me), self.rng)
        if self.level(me) == "strong":
            self.timings.append(time.perf_counter() - start)
        command = choice.command
        if isinstance(command, Attack):
            self.planned = {command: (choice.spend, choice.upto)}
        if self.do(command):
            if not isinstance(command, Attack):
                self.answer_special()
            return
        if not self.do(EndTurn(me)):
            self.violations.append(f"{me} could not end the turn in phase {self.state.phase}")
            raise RuntimeError(self.violations[-1])

    def fight(self) -> None:
        attack = self.state.attack
        assert attack is not None
        planned = self.planned.get(Attack(attack.player, attack.attacker, attack.target,
                                          attack.mode, attack.aids))
        if planned is not None:
            spend, upto = planned
            attacker = self.state.player(attack.player)
            first: Stance = Stance(attack.player, "attack", spend, upto,
                                   (attack.attacker, attacker.illuminati))
        else:
            first = bots.attacker_stance(self.cards, self.mind(attack.player), self.rng,
                                         play.answer_level(self.level(attack.player)))
        stances = [first]
        for p in self.state.players:
            if p.playing and p.name != attack.player:
                stance = play.response(self.cards, self.mind(p.name), p.name,
                                       self.level(p.name), self.rng)
                if stance is not None:
                    stances.append(stance)
        self.state, commands = settle_bids(self.cards, self.state, stances)
        self.log += commands
        self.check()
        self.do(Roll())

    def after_roll(self) -> None:
        attack = self.state.attack
        assert attack is not None
        for p in self.state.players:
            if not (p.playing and bots.held_where(self.cards, p.hand,
                                                  behaviour.waits_for_roll)):
                continue
            card = bots.after_roll_card(self.cards, self.mind(p.name), p.name, self.rng)
            if card is not None and self.do(card):
                self.answer_special()
        self.do(Settle())


def seed_for(base: int, index: int) -> str:
    """The hex seed of game ``index`` of a run seeded with ``base``."""
    return f"{base:032x}{index:032x}"


def busiest_position(cards: CardSet, players: int = 6, seed: int = 7,
                     turns: int = 40) -> tuple[GameState, GameState]:
    """The position of a bot game whose structures hold the most cards, and the last one a
    round before it (the turn before, the same player's move): what the heaviest report of a
    game is made from (``bench/report_size.py``, the report-weight tests)."""
    seats = tuple(StartingSeat(f"player{i + 1}") for i in range(players))
    setup = with_options(cards, Setup("size", seats, seed_for(seed, 0)), max_turns=turns)
    state, _ = new_game(cards, setup)
    table = BotTable(cards, state, random.Random(seed), 1_000_000)
    best, most = state, 0
    history = [state]
    for _ in range(turns * 200):
        if table.state.phase == "over":
            break
        table.step()
        history.append(table.state)
        held = sum(len(p.structure) for p in table.state.players)
        if held > most:
            best, most = table.state, held
    before = [s for s in history[:history.index(best)]
              if s.turn_number == best.turn_number - 1
              and s.active_player.name == best.active_player.name]
    return best, (before[-1] if before else history[0])


def play_game(cards: CardSet, index: int, players: int, base_seed: int,
              turn_cap: int = DEFAULT_TURN_CAP, check_every: int = 1,
              levels: Sequence[bots.Level] = (), illuminati: Sequence[str] = ()) -> GameResult:
    """One whole bot game, checked, replayed and compared at the end. Seat ``i`` (player
    i+1) plays at ``levels[i]`` (normal when not given) with ``illuminati[i]`` (dealt when
    not given)."""
    names = [f"player{i + 1}" for i in range(players)]
    seats = tuple(StartingSeat(n, illuminati[i] if i < len(illuminati) else "")
                  for i, n in enumerate(names))
    setup = with_options(cards, Setup(f"sim{index}", seats, seed_for(base_seed, index)),
                         max_turns=turn_cap)
    state, _ = new_game(cards, setup)
    table = BotTable(cards, state, random.Random(base_seed * 1_000_003 + index), check_every,
                     dict(zip(names, levels, strict=False)))
    steps = 0
    while table.state.phase != "over":
        steps += 1
        if steps > turn_cap * 200:
            table.violations.append("the game made no progress")
            break
        table.step()
    final = table.state
    table.check(full=True)
    if replay(setup, table.log, cards) != final:
        table.violations.append("replaying the log does not give the final state")
    goals = []
    for name in final.winners:
        met = [g.goal for g in progress(cards, final, final.player(name)) if g.met]
        goals.append(met[0] if met else "?")
    return GameResult(index, final.outcome, final.winners, tuple(goals), final.turn_number,
                      len(table.log), table.violations,
                      sum(isinstance(c, WithdrawOffer) for c in table.log),
                      tuple((p.name, p.illuminati, table.level(p.name)) for p in final.players),
                      table.timings,
                      tuple(p.name for p in final.players if p.status == "eliminated"))


def simulate(cards: CardSet, games: int, players: int, seed: int,
             turn_cap: int = DEFAULT_TURN_CAP, check_every: int = 1,
             levels: Sequence[bots.Level] = ()) -> Summary:
    """Play ``games`` games and sum them up (seat ``i`` at ``levels[i]``, else normal)."""
    start = time.perf_counter()
    outcomes: Tally[str] = Tally()
    by_goal: Tally[str] = Tally()
    violations: list[str] = []
    commands = 0
    by_illuminati: dict[str, Tally[str]] = {}
    by_level: dict[str, Tally[str]] = {}
    for index in range(games):
        result = play_game(cards, index, players, seed, turn_cap, check_every, levels)
        outcomes[result.outcome] += 1
        by_goal.update(result.goals)
        violations += [f"game {index}: {v}" for v in result.violations]
        commands += result.commands
        for name, illuminati, level in result.seats:
            for key, table in ((illuminati, by_illuminati), (level, by_level)):
                tally = table.setdefault(key, Tally({"games": 0, "wins": 0, "eliminated": 0}))
                tally["games"] += 1
                tally["wins"] += name in result.winners
                tally["eliminated"] += name in result.eliminated
    return Summary(games, sum(outcomes.values()), dict(outcomes), dict(by_goal), violations,
                   commands, time.perf_counter() - start,
                   {k: dict(v) for k, v in sorted(by_illuminati.items())},
                   {k: dict(v) for k, v in sorted(by_level.items())})

