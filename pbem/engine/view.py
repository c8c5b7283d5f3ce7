"""``view(state, player)``: the only way state reaches a player.

Hidden here: other players' special cards (their number stays public), the UFOs' secret goal,
the progress of a goal that would tell either (the Gnomes' counts hidden money), other
players' treasuries (Computer Espionage exists to peek at them), the dice seed, the
deck's order, and events meant for someone else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from pbem.engine.abilities import alignments, power, transferable
from pbem.engine.breakdown import breakdown
from pbem.engine.cards import CardSet, GoalKind, Illuminati, by_goal_kind
from pbem.engine.events import Event
from pbem.engine.state import GameState, Player
from pbem.engine.structure import DIRECTION_NAMES, depth, open_arrows
from pbem.engine.victory import Progress, ProgressKind, progress


@dataclass(frozen=True)
class CardView:
    card: str
    master: str  # "" for the Illuminati
    depth: int
    x: int
    y: int
    rotation: int
    treasury: int | None  # None: hidden from this viewer
    power: int
    transferable: int
    alignments: tuple[str, ...]
    open_arrows: tuple[str, ...]


@dataclass(frozen=True)
class GoalView:
    """A goal and how far the player is: ``have`` (and for the UFOs' secret goal ``need``)
    is None where the viewer may not know it."""

    goal: str
    kind: ProgressKind
    have: int | None
    need: int | None


@dataclass(frozen=True)
class PlayerView:
    name: str
    illuminati: str
    status: str
    structure: tuple[CardView, ...]
    hand: tuple[str, ...] | None  # None: hidden from this viewer
    hand_size: int
    treasury_total: int | None
    groups: int
    goals: tuple[GoalView, ...]  # the basic goal and the Illuminati's special goal
    secret_goal: str | None


@dataclass(frozen=True)
class AttackView:
    player: str
    attacker: str
    target: str
    mode: str
    aids: tuple[str, ...]
    privileged: bool
    need: int
    terms: tuple[tuple[str, str, int], ...]
    roll: tuple[int, int] | None


@dataclass(frozen=True)
class View:
    game: str
    viewer: str  # a player's name, or "" for the game master / the public
    seq: int
    phase: str
    turn_number: int
    active: str
    actions_used: int
    free_transfers_used: int
    did_anything: bool  # this turn, free actions included: passing is no longer allowed
    players: tuple[PlayerView, ...]
    uncontrolled: tuple[str, ...]
    dead: tuple[str, ...]
    discards: tuple[str, ...]
    deck_size: int
    attack: AttackView | None
    special: tuple[str, str] | None  # (player, card) waiting for a counter
    offer: tuple[str, str, str] | None  # (giver, receiver, group)
    winners: tuple[str, ...]
    outcome: str
    victory_groups: int
    dice_commitment: str
    seed: str | None  # revealed only when the game is over
    # Cards that took part in an attack this turn (everyone saw the attacks): they may not
    # attack or aid again.
    attacked: tuple[str, ...] = ()
    # The active player wrote END POWERS this turn (everyone was told): no more actions.
    end_powers: bool = False


def view(cards: CardSet, state: GameState, viewer: str | None) -> View:
    """What ``viewer`` may see; ``None`` is the game master, who sees everything."""
    over = state.phase == "over"
    attack = None
    if state.attack is not None:
        b = breakdown(cards, state, state.attack)
        attack = AttackView(
            player=state.attack.player, attacker=state.attack.attacker,
            target=state.attack.target, mode=state.attack.mode, aids=state.attack.aids,
            privileged=state.attack.privileged, need=b.need,
            terms=tuple((t.kind, t.source, t.amount) for t in b.terms), roll=state.attack.roll,
        )
    return View(
        game=state.game,
        viewer=viewer or "",
        seq=state.seq,
        phase=state.phase,
        turn_number=state.turn_number,
        active=state.active_player.name,
        actions_used=state.turn.actions,
        free_transfers_used=state.turn.free_transfers,
        did_anything=state.turn.did_anything,
        players=tuple(_player_view(cards, state, p, viewer) for p in state.players),
        uncontrolled=state.uncontrolled,
        dead=state.dead,
        discards=state.discards,
        deck_size=len(state.deck),
        attack=attack,
        special=(state.special.player, state.special.card) if state.special else None,
        offer=(state.offer.giver, state.offer.receiver, state.offer.group)
        if state.offer else None,
        winners=state.winners,
        outcome=state.outcome,
        victory_groups=state.options.victory_groups,
        dice_commitment=state.dice.commitment,
        seed=state.dice.seed if over or viewer is None else None,
        attacked=state.turn.attacked,
        end_powers=state.turn.end_powers,
    )


def _player_view(cards: CardSet, state: GameState, p: Player, viewer: str | None) -> PlayerView:
    sees_all = viewer is None or viewer == p.name or state.phase == "over"
    basic, special = progress(cards, state, p)
    own = cards.illuminati_card(p.illuminati)
    # Every Illuminati card lies face up with its goal printed on it ("All the Goals are
    # listed on the back page"); only the UFOs' choice is "a secret from the other players",
    # and a treasury goal's progress would add up others' hidden money.
    shown = _all_shown if sees_all else SHOWN_TO_OTHERS[own.goal.kind]
    goals = [_all_shown(own, basic), shown(own, special)]
    return PlayerView(
        name=p.name,
        illuminati=p.illuminati,
        status=p.status,
        structure=tuple(
            CardView(
                card=s.card, master=s.master or "", depth=depth(p, s.card), x=s.x, y=s.y,
                rotation=s.rotation, treasury=s.treasury if sees_all else None,
                power=power(cards, s.card), transferable=transferable(cards, s.card),
                alignments=alignments(cards, state, s.card),
                open_arrows=tuple(DIRECTION_NAMES[d] for d in open_arrows(cards, p, s.card)),
            )
            for s in p.structure
        ),
        hand=p.hand if sees_all else None,
        hand_size=len(p.hand),
        treasury_total=sum(s.treasury for s in p.structure) if sees_all else None,
        groups=len(p.structure),
        goals=tuple(goals),
        secret_goal=p.secret_goal if sees_all else None,
    )


def _all_shown(own: Illuminati, goal: Progress) -> GoalView:
    return GoalView(goal.goal, goal.kind, goal.have, goal.need)


def _choice_hidden(own: Illuminati, goal: Progress) -> GoalView:
    """The UFOs' card, its chosen goal "a secret from the other players"."""
    return GoalView(own.name, own.goal.kind, None, None)


def _money_hidden(own: Illuminati, goal: Progress) -> GoalView:
    """The need, not the have: it adds up money only its player sees."""
    return GoalView(goal.goal, goal.kind, None, goal.need)


# What the other players see of a special goal, by the kind of goal on the Illuminati card.
SHOWN_TO_OTHERS: Mapping[GoalKind, Callable[[Illuminati, Progress], GoalView]] = by_goal_kind({
    "total_power": _all_shown,
    "every_alignment": _all_shown,
    "alignment_count": _all_shown,
    "treasury": _money_hidden,
    "total_transferable": _all_shown,
    "destroyed": _all_shown,
    "secret_choice": _choice_hidden,
})


def visible_events(events: Iterable[Event], viewer: str | None) -> list[Event]:
    """The events ``viewer`` may see (the game master, ``None``, sees all)."""
    return [e for e in events if viewer is None or e.visible_to is None or viewer in e.visible_to]
