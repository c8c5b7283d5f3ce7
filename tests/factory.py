"""Small factories that build Illuminati positions directly, for the rule-case tests.

A position is a plain ``GameState`` value, so the factories build it with ``replace`` and
the engine's own geometry (``structure.puppet_slot``): no engine backdoor. The dice are
rigged by choosing the chance stream's position: the draw index whose next 2d6 is the roll a
test wants is searched with ``pbem.engine.dice`` itself.

    state = game(alice=BAVARIA, bob=GNOMES)
    state = place(state, "alice", "The Mafia", treasury=4)
    state = free(state, "Loan Sharks")
    state, events = attack_to_result(state, Attack("alice", "The Mafia", "Loan Sharks",
                                                   "control"), roll=7)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from pbem.engine.breakdown import Breakdown, breakdown
from pbem.engine.carddata import load_cardset
from pbem.engine.cards import CardSet
from pbem.engine.commands import Attack, Command, ResolveSpecial, Roll, Settle
from pbem.engine.dice import Dice, roll_2d6
from pbem.engine.events import Event
from pbem.engine.ops import set_treasury
from pbem.engine.rules import apply
from pbem.engine.state import GameState, Options, Phase, Player, Slot
from pbem.engine.structure import open_arrows, puppet_slot

CARDS: CardSet = load_cardset()
SEED = "5eed" * 8

BAVARIA = "The Bavarian Illuminati"
BERMUDA = "The Bermuda Triangle"
DISCORDIA = "The Discordian Society"
GNOMES = "The Gnomes of Zurich"
NETWORK = "The Network"
CTHULHU = "The Servants of Cthulhu"
ASSASSINS = "The Society of Assassins"
UFOS = "The UFOs"
UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3

Result = tuple[GameState, list[Event]]


def game(
    options: Options | None = None,
    deck: Sequence[str] = (),
    phase: Phase = "actions",
    **illuminati: str,
) -> GameState:
    """A game in its first turn: players (keyword = name, value = Illuminati) in that order,
    every treasury empty, the first player active (in ``phase``), nothing in play, an empty
    deck."""
    begun = phase != "turn_start"  # in "turn_start" the first turn has not begun yet
    players = tuple(
        Player(name=name, illuminati=card, structure=(Slot(card, 0, 0, 0, None),),
               turns=1 if i == 0 and begun else 0)
        for i, (name, card) in enumerate(illuminati.items())
    )
    return GameState(game="test", options=options or Options(), players=players,
                     deck=tuple(deck), dice=Dice(SEED), phase=phase, turn_number=int(begun))


def in_round(state: GameState, n: int) -> GameState:
    """The same position during round ``n``: players up to the active one have begun ``n``
    turns, the later ones ``n - 1``."""
    players = tuple(replace(p, turns=n if i <= state.active else n - 1)
                    for i, p in enumerate(state.players))
    number = (n - 1) * len(players) + state.active + 1
    return replace(state, players=players, turn_number=number)


def active(state: GameState, player: str, phase: Phase = "actions") -> GameState:
    """The same position with ``player`` to act, in ``phase``."""
    index = [p.name for p in state.players].index(player)
    return replace(state, active=index, phase=phase)


def update(state: GameState, player: str, **changes: Any) -> GameState:
    """The player's record with fields changed (hand, secret_goal, destroyed, turns...)."""
    return state.with_player(replace(state.player(player), **changes))


def _take_out(state: GameState, card: str) -> GameState:
    """The card removed from the uncontrolled area, the deck, the dead pile and hands."""
    return replace(
        state,
        uncontrolled=tuple(c for c in state.uncontrolled if c != card),
        deck=tuple(c for c in state.deck if c != card),
        dead=tuple(c for c in state.dead if c != card),
    )


def place(
    state: GameState,
    player: str,
    group: str,
    master: str = "",
    arrow: int = -1,
    treasury: int = 0,
) -> GameState:
    """``group`` in ``player``'s structure, on ``master``'s (default: the Illuminati) open
    outgoing arrow in direction ``arrow`` (default: the first open one), with money on it."""
    state = _take_out(state, group)
    p = state.player(player)
    master = master or p.illuminati
    master_slot = p.slot(master)
    assert master_slot is not None, f"{master} is not in {player}'s structure"
    arrows = open_arrows(CARDS, p, master)
    if arrow == -1:
        assert arrows, f"{master} has no open outgoing arrow"
        arrow = arrows[0]
    assert arrow in arrows, f"{master} has no open arrow {arrow} (open: {arrows})"
    slot = puppet_slot(CARDS, master_slot, arrow, group, treasury)
    state = state.with_player(replace(p, structure=(*p.structure, slot)))
    return replace(state, money_issued=state.money_issued + treasury)


def chain(state: GameState, player: str, *groups: str, treasury: int = 0) -> GameState:
    """The groups hung one below the other from the Illuminati (depth 1, 2, 3...)."""
    master = ""
    for group in groups:
        state = place(state, player, group, master=master, treasury=treasury)
        master = group
    return state


def free(state: GameState, *groups: str) -> GameState:
    """The groups put in the uncontrolled area."""
    for group in groups:
        state = _take_out(state, group)
        state = replace(state, uncontrolled=(*state.uncontrolled, group))
    return state


def dead(state: GameState, *groups: str) -> GameState:
    """The groups put in the dead pile."""
    for group in groups:
        state = _take_out(state, group)
        state = replace(state, dead=(*state.dead, group))
    return state


def deal(state: GameState, player: str, *cards: str) -> GameState:
    """Special cards added to the player's hand."""
    return update(state, player, hand=(*state.player(player).hand, *cards))


def money(state: GameState, player: str, card: str, amount: int) -> GameState:
    """The card's treasury set to ``amount`` (the bank makes up the difference)."""
    return set_treasury(state, player, card, amount)


def treasury(state: GameState, card: str) -> int:
    """The money on ``card`` wherever it is controlled (0 when it is not)."""
    owner = state.owner(card)
    slot = owner.slot(card) if owner else None
    return slot.treasury if slot else 0


def draw_index(dice: Dice, total: int | None = None,
               pair: tuple[int, int] | None = None) -> Dice:
    """The first position of the chance stream, from ``dice`` on, whose next 2d6 rolls
    ``pair`` (or any pair adding up to ``total``)."""
    for index in range(dice.draws, dice.draws + 10_000):
        candidate = replace(dice, draws=index)
        (a, b), _ = roll_2d6(candidate)
        if (pair is not None and (a, b) == pair) or (pair is None and a + b == total):
            return candidate
    raise AssertionError(f"no draw rolls {pair or total} within 10,000 draws")


def rig(state: GameState, total: int | None = None,
        pair: tuple[int, int] | None = None) -> GameState:
    """The same position with the next 2d6 rolling ``pair`` or a total of ``total``."""
    return replace(state, dice=draw_index(state.dice, total, pair))


def run(state: GameState, *commands: Command) -> Result:
    """Every command applied in turn; the final state and all the events."""
    events: list[Event] = []
    for command in commands:
        state, more = apply(state, command, CARDS)
        events += more
    return state, events


def special(state: GameState, command: Command) -> Result:
    """A special card played and resolved with no one countering it."""
    return run(state, command, ResolveSpecial())


def attack_to_result(
    state: GameState,
    attack: Attack | None = None,
    *answers: Command,
    roll: int = 2,
) -> Result:
    """The attack announced (unless one is under way), the answers (spending, interference,
    privilege) applied, the dice rigged to ``roll``, rolled and settled."""
    events: list[Event] = []
    if attack is not None:
        state, events = run(state, attack)
    state, more = run(state, *answers)
    state = rig(state, roll)
    state, rest = run(state, Roll(), Settle())
    return state, events + more + rest


def current(state: GameState) -> Breakdown:
    """The breakdown of the attack under way."""
    assert state.attack is not None, "no attack is under way"
    return breakdown(CARDS, state, state.attack)


def need(state: GameState) -> int:
    """The roll the attack under way needs."""
    return current(state).need


def term(state: GameState, kind: str) -> int:
    """The sum of the attack's terms of one kind (0 when there is none)."""
    return sum(t.amount for t in current(state).terms if t.kind == kind)


def terms(state: GameState) -> list[tuple[str, str, int]]:
    """The attack's terms as (kind, source, amount)."""
    return [(t.kind, t.source, t.amount) for t in current(state).terms]


def of_kind(events: Iterable[Event], kind: str) -> list[Event]:
    """The events of one kind, in order."""
    return [e for e in events if e.kind == kind]


def result(events: Iterable[Event]) -> Event:
    """The one attack_result event."""
    found = of_kind(events, "attack_result")
    assert len(found) == 1, f"expected one attack result, got {len(found)}"
    return found[0]


def master_of(state: GameState, group: str) -> str | None:
    """The card ``group`` hangs from (None: an Illuminati, or not controlled)."""
    owner = state.owner(group)
    slot = owner.slot(group) if owner else None
    return slot.master if slot else None


def money_balances(state: GameState) -> bool:
    """The bank's account of money issued equals the money on all the cards."""
    return state.money_in_play == state.money_issued
