"""A new game: Illuminati dealt or chosen, starting treasuries, the deck, turn order by dice."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from pbem.engine import events as ev
from pbem.engine.cards import CardSet
from pbem.engine.dice import Dice, below, roll_2d6, shuffled
from pbem.engine.events import Event
from pbem.engine.state import GameState, Options, Player, Slot
from pbem.engine.values import evolve
from pbem.errors import IllegalCommandError

MIN_PLAYERS = 2
MAX_PLAYERS = 8


@dataclass(frozen=True)
class StartingSeat:
    """One player at the start: their name, and optionally a chosen Illuminati and UFO goal."""

    LOG_NAME: ClassVar[str] = "Seat"  # its name in the logs (the service's seat is another)

    name: str
    illuminati: str = ""
    secret_goal: str = ""


@dataclass(frozen=True)
class Setup:
    game: str
    seats: tuple[StartingSeat, ...]
    seed: str  # hex; secret until the game ends
    options: Options = field(default_factory=Options)


def victory_groups(cards: CardSet, players: int) -> int:
    """Groups (the Illuminati included) needed for the basic goal with this many players."""
    return dict(cards.basic_goal)[players]


def new_game(cards: CardSet, setup: Setup) -> tuple[GameState, list[Event]]:
    """The state before the first player's first turn, and what happened while setting up."""
    seats = setup.seats
    if not MIN_PLAYERS <= len(seats) <= MAX_PLAYERS:
        raise IllegalCommandError(
            f"a game needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(seats)}"
        )
    names = [s.name for s in seats]
    if len(set(names)) != len(names):
        raise IllegalCommandError("two players have the same name")
    dice = Dice(setup.seed)
    events: list[Event] = []

    chosen = [s.illuminati for s in seats if s.illuminati]
    if len(set(chosen)) != len(chosen):
        raise IllegalCommandError("two players chose the same Illuminati")
    for name in chosen:
        cards.illuminati_card(name)  # KeyError names an unknown card
    free = [i.name for i in cards.illuminati if i.name not in chosen]
    free_shuffled, dice = shuffled(free, dice)
    dealt = iter(free_shuffled)

    players: list[Player] = []
    issued = 0
    for seat in seats:
        card = cards.illuminati_card(seat.illuminati or next(dealt))
        goal: str | None = None
        if card.goal.kind == "secret_choice":
            others = [i.name for i in cards.illuminati if i.goal.kind != "secret_choice"]
            if seat.secret_goal:
                if seat.secret_goal not in others:
                    raise IllegalCommandError(f"{seat.secret_goal} is not a goal the UFOs can take")
                goal = seat.secret_goal
            else:
                pick, dice = below(dice, len(others))
                goal = others[pick]
        slot = Slot(card=card.name, x=0, y=0, rotation=0, master=None, treasury=card.income)
        issued += card.income
        players.append(Player(name=seat.name, illuminati=card.name, structure=(slot,),
                              secret_goal=goal))
        events.append(ev.IlluminatiDealt(player=seat.name, illuminati=card.name,
                                         treasury=card.income))
        if goal is not None:
            events.append(ev.SecretGoal(player=seat.name, goal=goal, visible_to=(seat.name,)))

    deck_cards = [g.name for g in cards.groups]
    for special in cards.specials:
        deck_cards.extend([special.name] * special.copies)
    deck, dice = shuffled(deck_cards, dice)
    specials = {s.name for s in cards.specials}

    # Four uncontrolled groups; a special drawn now goes back under the pile.
    uncontrolled: list[str] = []
    pile = list(deck)
    while len(uncontrolled) < 4 and any(c not in specials for c in pile):
        top = pile.pop(0)
        if top in specials:
            pile.append(top)
        else:
            uncontrolled.append(top)
    events.append(ev.Uncontrolled(groups=tuple(uncontrolled)))

    order, dice, rolls = _turn_order(names, dice)
    events.append(ev.TurnOrder(order=tuple(order), rolls=rolls))
    by_name = {p.name: p for p in players}
    options = setup.options
    state = GameState(
        game=setup.game,
        options=options,
        players=tuple(by_name[n] for n in order),
        deck=tuple(pile),
        dice=dice,
        uncontrolled=tuple(uncontrolled),
        money_issued=issued,
    )
    return state, events


def _turn_order(
    names: list[str], dice: Dice
) -> tuple[list[str], Dice, tuple[tuple[str, int], ...]]:
    """Everyone rolls; the highest starts (ties roll again); play then goes round the seats."""
    contenders = list(names)
    rolls: list[tuple[str, int]] = []
    while len(contenders) > 1:
        scores = {}
        for name in contenders:
            (a, b), dice = roll_2d6(dice)
            scores[name] = a + b
            rolls.append((name, a + b))
        best = max(scores.values())
        contenders = [n for n in contenders if scores[n] == best]
    first = names.index(contenders[0])
    return names[first:] + names[:first], dice, tuple(rolls)


def with_options(cards: CardSet, setup: Setup, **changes: int | bool) -> Setup:
    """The setup with options changed and the victory count resolved for its player count."""
    options = evolve(setup.options, **changes)
    if "victory_groups" not in changes:
        options = evolve(options, victory_groups=victory_groups(cards, len(setup.seats)))
    return evolve(setup, options=options)
