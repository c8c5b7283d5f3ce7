"""Goals: the basic goal, each Illuminati's special goal, and progress toward them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from pbem.engine import checks
from pbem.engine.abilities import alignments, power, transferable
from pbem.engine.cards import ALIGNMENTS, CardSet, Goal, GoalKind, by_goal_kind
from pbem.engine.commands import ChooseGoal
from pbem.engine.events import Event, SecretGoal
from pbem.engine.state import GameState, Player
from pbem.engine.values import evolve
from pbem.errors import IllegalCommandError

# A goal's kind as progress counts it: the basic goal's ("groups") or a special goal's.
ProgressKind = Literal["groups", GoalKind]


@dataclass(frozen=True)
class Progress:
    """How far a player is toward one goal."""

    goal: str  # "basic" or the Illuminati whose special goal it is
    kind: ProgressKind
    have: int
    need: int

    @property
    def met(self) -> bool:
        return self.have >= self.need


def special_goal(cards: CardSet, player: Player) -> tuple[str, Goal]:
    """The Illuminati whose goal the player pursues (the UFOs' secret choice) and the goal."""
    own = cards.illuminati_card(player.illuminati)
    if own.goal.kind == "secret_choice" and player.secret_goal:
        return player.secret_goal, cards.illuminati_card(player.secret_goal).goal
    return own.name, own.goal


def goals_to_choose(cards: CardSet) -> tuple[str, ...]:
    """The Illuminati whose special goal the UFOs may choose: "one of the other seven"."""
    return tuple(i.name for i in cards.illuminati if i.goal.kind != "secret_choice")


def chooses_goal(cards: CardSet, player: Player) -> bool:
    """True for the UFOs: their special goal is one they choose in secret."""
    return cards.illuminati_card(player.illuminati).goal.kind == "secret_choice"


def goal_choice_open(state: GameState, player: Player) -> bool:
    """The UFOs may still choose (or change their choice): no one has acted in the game yet.

    The card says "at game start" (illuminati.csv): the reading (docs/rules-coverage.md,
    doubtful readings decided) is the moment before the game's first act, the first player's
    first order carried out, whoever plays first. UFOs who play later may not watch the first
    turns and then pick the goal the table makes easiest."""
    del player  # the moment is the game's, not the UFOs' own
    begun = state.turn_number + (1 if state.phase == "turn_start" else 0)  # counting the next
    return begun <= 1 and state.phase in ("turn_start", "actions") and not state.turn.did_anything


def choose_goal(cards: CardSet, state: GameState, cmd: ChooseGoal) -> tuple[GameState,
                                                                             list[Event]]:
    """The UFOs' card: "secretly chooses one of the other seven special goals at game
    start"."""
    p = checks.playing(state, cmd.player)
    if not chooses_goal(cards, p):
        raise IllegalCommandError(key="no_goal_choice", illuminati=p.illuminati)
    if not goal_choice_open(state, p):
        raise IllegalCommandError(key="goal_choice_closed", goal=p.secret_goal or "")
    if cmd.goal not in goals_to_choose(cards):
        raise IllegalCommandError(key="not_a_goal", illuminati=cmd.goal,
                                  goals=goals_to_choose(cards))
    chosen = evolve(p, secret_goal=cmd.goal, goal_chosen=True)
    return state.with_player(chosen), [SecretGoal(player=p.name, goal=cmd.goal,
                                                  visible_to=(p.name,))]


Count = Callable[[CardSet, GameState, Player, Goal], tuple[int, int]]


def _total_power(cards: CardSet, state: GameState, player: Player, goal: Goal) -> tuple[int, int]:
    return sum(power(cards, s.card) for s in player.structure), goal.amount


def _total_transferable(cards: CardSet, state: GameState, player: Player,
                        goal: Goal) -> tuple[int, int]:
    return sum(transferable(cards, s.card) for s in player.structure), state.options.network_goal


def _treasury(cards: CardSet, state: GameState, player: Player, goal: Goal) -> tuple[int, int]:
    return sum(s.treasury for s in player.structure), goal.amount


def _destroyed(cards: CardSet, state: GameState, player: Player, goal: Goal) -> tuple[int, int]:
    return player.destroyed, goal.amount


def _alignment_count(cards: CardSet, state: GameState, player: Player,
                     goal: Goal) -> tuple[int, int]:
    count = sum(1 for s in player.structure if goal.alignment in alignments(cards, state, s.card))
    return count, goal.amount


def _every_alignment(cards: CardSet, state: GameState, player: Player,
                     goal: Goal) -> tuple[int, int]:
    wanted = [a for a in ALIGNMENTS if a != "Media" or state.options.media_alignment]
    present = {a for s in player.structure for a in alignments(cards, state, s.card)}
    return sum(1 for a in wanted if a in present), len(wanted)


def _unchosen(cards: CardSet, state: GameState, player: Player, goal: Goal) -> tuple[int, int]:
    return 0, 1  # secret_choice without a choice: never met


# How each kind of special goal counts (have, need): the card data names the kind.
COUNTS: Mapping[GoalKind, Count] = by_goal_kind({
    "total_power": _total_power,
    "every_alignment": _every_alignment,
    "alignment_count": _alignment_count,
    "treasury": _treasury,
    "total_transferable": _total_transferable,
    "destroyed": _destroyed,
    "secret_choice": _unchosen,
})


def goal_progress(cards: CardSet, state: GameState, player: Player, goal: Goal) -> tuple[int, int]:
    """(have, need) for one special goal."""
    return COUNTS[goal.kind](cards, state, player, goal)


def progress(cards: CardSet, state: GameState, player: Player) -> tuple[Progress, Progress]:
    """Progress toward the basic goal and the special goal."""
    basic = Progress("basic", "groups", len(player.structure), state.options.victory_groups)
    name, goal = special_goal(cards, player)
    have, need = goal_progress(cards, state, player, goal)
    return basic, Progress(name, goal.kind, have, need)


def winners(cards: CardSet, state: GameState) -> tuple[str, ...]:
    """Every player in the game who meets a goal now (a shared victory when several)."""
    return tuple(
        p.name
        for p in state.players
        if p.playing and any(g.met for g in progress(cards, state, p))
    )


def victory_allowed(state: GameState) -> bool:
    """No one may win before the end of the first player's second turn.

    Counted on the first player's own turns, so players leaving in the first round do not
    move the moment; if the first player has left before a second turn, it is the moment
    that turn would have ended (every seat has had a turn and another has begun).
    """
    first = state.players[0]
    if first.playing:
        return first.turns >= 2
    return state.turn_number > len(state.players)
