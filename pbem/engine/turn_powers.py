"""Abilities used on the turn: the Orbital Mind Control Lasers, the Recyclers, and the
Illuminati's end-of-turn powers."""

from __future__ import annotations

from pbem.engine import checks
from pbem.engine import events as ev
from pbem.engine.abilities import OPPOSITES, abilities, alignments, has_special
from pbem.engine.cards import CardSet, Group
from pbem.engine.commands import EndPowers, UseLasers, UseRecyclers
from pbem.engine.events import Event
from pbem.engine.income import draw_card
from pbem.engine.ops import pay
from pbem.engine.state import GameState, Player
from pbem.engine.values import evolve
from pbem.errors import IllegalCommandError

RECYCLERS_COST = 5
Result = tuple[GameState, list[Event]]


def lasers_unusable(p: Player) -> IllegalCommandError:
    """The refusal of ``p``'s use of the Orbital Mind Control Lasers."""
    return IllegalCommandError(key="lasers_unusable", player=p.name)


def recyclers_unusable(p: Player) -> IllegalCommandError:
    """The refusal of ``p``'s use of the Recyclers."""
    return IllegalCommandError(key="recyclers_unusable", player=p.name)


def check_end_powers(cards: CardSet, p: Player) -> None:
    """Raise IllegalCommandError unless ``p``'s Illuminati have an end-of-turn power."""
    if not cards.illuminati_card(p.illuminati).end_of_turn:
        raise IllegalCommandError(key="no_end_powers", illuminati=p.illuminati)


def use_lasers(cards: CardSet, state: GameState, cmd: UseLasers) -> Result:
    """Orbital Mind Control Lasers: once a turn, one alignment of one other group changes
    until the end of the turn."""
    checks.phase(state, "actions")
    p = checks.active(state, cmd.player)
    lasers = [c for c in (s.card for s in p.structure)
              if "orbital_mind_control_lasers" in abilities(cards, c).special]
    if not lasers or state.turn.lasers_used or state.turn.end_powers:
        raise lasers_unusable(p)
    target = cards.card(cmd.group) if cmd.group in cards.names() else None
    if not isinstance(target, Group) or cmd.group == lasers[0]:
        raise IllegalCommandError(key="lasers_target", group=cmd.group)
    if cmd.group not in state.uncontrolled and state.owner(cmd.group) is None:
        raise IllegalCommandError(key="not_in_play", group=cmd.group)
    if cmd.alignment == "Media" and not state.options.media_alignment:
        # Media is an alignment only under the French option (rules-fr, "9 alignements");
        # refused before the Lasers' one use of the turn is spent.
        raise IllegalCommandError(key="alignment_not_in_game", alignment=cmd.alignment)
    current = list(alignments(cards, state, cmd.group))
    if cmd.change == "add":
        if cmd.alignment in current:
            raise IllegalCommandError(key="alignment_present", group=cmd.group,
                                      alignment=cmd.alignment)
        current.append(cmd.alignment)
    elif cmd.change == "remove":
        if cmd.alignment not in current:
            raise IllegalCommandError(key="alignment_absent", group=cmd.group,
                                      alignment=cmd.alignment)
        current.remove(cmd.alignment)
    else:
        if cmd.alignment not in current:
            raise IllegalCommandError(key="alignment_not_reversible", group=cmd.group,
                                      alignment=cmd.alignment)
        if cmd.alignment in OPPOSITES and OPPOSITES[cmd.alignment] == cmd.alignment:
            # summary-en: "Fanatic is the opposite of Fanatic": reversing gives Fanatic
            # again, a change of nothing that would spend the Lasers' one use of the turn.
            raise IllegalCommandError(key="alignment_own_opposite", alignment=cmd.alignment)
        if cmd.alignment not in OPPOSITES:
            # Criminal (and Media) have no opposite: reversing them would change nothing.
            raise IllegalCommandError(key="alignment_no_opposite", alignment=cmd.alignment)
        current[current.index(cmd.alignment)] = OPPOSITES[cmd.alignment]  # type: ignore[call-overload]
    changes = tuple(c for c in state.turn.alignment_changes if c[0] != cmd.group)
    turn = evolve(state.turn, lasers_used=True, did_anything=True,
                   alignment_changes=(*changes, (cmd.group, tuple(current))))
    return evolve(state, turn=turn), [
        ev.Lasers(player=p.name, group=cmd.group, change=cmd.change, alignment=cmd.alignment,
                  now=tuple(current))
    ]


def use_recyclers(cards: CardSet, state: GameState, cmd: UseRecyclers) -> Result:
    """The Recyclers pay 5 MB from their own treasury to draw a card (once a turn)."""
    checks.phase(state, "actions")
    p = checks.active(state, cmd.player)
    recyclers = has_special(cards, p, "recyclers")
    if recyclers is None or state.turn.recyclers_used or state.turn.end_powers:
        raise recyclers_unusable(p)
    state = pay(state, p.name, recyclers, RECYCLERS_COST)
    state = evolve(state, turn=evolve(state.turn, recyclers_used=True, did_anything=True))
    state, events = draw_card(cards, state, p.name)
    return state, [ev.Recyclers(player=p.name), *events]


def end_powers(cards: CardSet, state: GameState, cmd: EndPowers) -> Result:
    checks.phase(state, "actions")
    p = checks.active(state, cmd.player)
    check_end_powers(cards, p)
    if state.offer is not None:
        raise IllegalCommandError(key="offer_first")
    state = evolve(state, turn=evolve(state.turn, end_powers=True, did_anything=True))
    return state, [ev.PowersEnded(player=p.name)]
