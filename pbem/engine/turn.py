"""The turn without attacks: its beginning, passing, the end, and players leaving play.

The other commands of the turn live beside it: income and the draw in ``income``, money and
gifts in ``money``, groups in ``groups``, the Lasers, the Recyclers and the end-of-turn powers
in ``turn_powers``. Their commands stay importable from here, where rules.py, gm.py and
specials.py look for them.
"""

from __future__ import annotations

from pbem.engine import checks
from pbem.engine import events as ev
from pbem.engine.abilities import abilities
from pbem.engine.agreement import forget_votes_of
from pbem.engine.cards import CardSet, Special
from pbem.engine.commands import BeginTurn, EndTurn, LeaveGame, Pass
from pbem.engine.deals import end_deals_of, lapse_deals
from pbem.engine.events import Event
from pbem.engine.groups import (
    accept_group,
    decline_group,
    drop_group,
    end_offer_of,
    move_group,
    offer_group,
    withdraw_offer,
)
from pbem.engine.income import collect_income, draw_card
from pbem.engine.money import give_card, give_money, pending_copies, transfer_money
from pbem.engine.ops import earn, pay, release, update_player
from pbem.engine.state import GameState, Player, PlayerStatus, TurnState
from pbem.engine.turn_powers import end_powers, use_lasers, use_recyclers
from pbem.engine.values import evolve
from pbem.engine.victory import progress, victory_allowed, winners
from pbem.errors import IllegalCommandError

__all__ = [
    "PASS_INCOME",
    "accept_group",
    "begin_turn",
    "check_eliminations",
    "decline_group",
    "draw_card",
    "drop_group",
    "end_of_turn",
    "end_powers",
    "end_turn",
    "give_card",
    "give_money",
    "leave_game",
    "move_group",
    "next_player",
    "offer_group",
    "pass_turn",
    "pending_copies",
    "remove_player",
    "transfer_money",
    "use_lasers",
    "use_recyclers",
    "withdraw_offer",
]

PASS_INCOME = 5
Result = tuple[GameState, list[Event]]


# --- start of turn -------------------------------------------------------------------------


def begin_turn(cards: CardSet, state: GameState, cmd: BeginTurn) -> Result:
    """Income, then the card draw; or the whole turn lost to the Senate."""
    checks.phase(state, "turn_start")
    player = state.active_player
    state = update_player(state, player.name, turns=player.turns + 1,
                          stood_in=player.stood_in + (1 if cmd.stand_in else 0))
    state = evolve(state, turn_number=state.turn_number + 1,
                   turn=evolve(state.turn, stood_in=cmd.stand_in))
    events: list[Event] = [ev.TurnBegins(player=player.name, turn=state.turn_number)]
    if state.turn.lost:
        # The Senate Investigating Committee: no income, no draw, no actions; the lost turn
        # still counts as one of the player's turns (elimination, the first victory).
        events.append(ev.TurnLost(player=player.name))
        state, more = end_of_turn(cards, state)
        return state, events + more
    state, more = collect_income(cards, state, player.name)
    events += more
    draws = abilities(cards, player.illuminati).draws
    for _ in range(draws):
        state, more = draw_card(cards, state, player.name)
        events += more
    return evolve(state, phase="actions"), events


# --- passing and the end of the turn --------------------------------------------------------


def pass_turn(cards: CardSet, state: GameState, cmd: Pass) -> Result:
    """No actions of any sort: collect 5 MB, and the turn ends."""
    checks.phase(state, "actions")
    p = checks.active(state, cmd.player)
    if state.turn.did_anything:
        raise IllegalCommandError(key="pass_late")
    state = earn(state, p.name, p.illuminati, PASS_INCOME)
    if cmd.stand_in and not state.turn.stood_in:
        state = update_player(state, p.name, stood_in=p.stood_in + 1)
    events: list[Event] = [ev.Passed(player=p.name, amount=PASS_INCOME)]
    state, more = end_of_turn(cards, state)
    return state, events + more


def end_turn(cards: CardSet, state: GameState, cmd: EndTurn) -> Result:
    checks.phase(state, "actions")
    p = checks.active(state, cmd.player)
    if state.offer is not None:
        state = evolve(state, offer=None)
    return end_of_turn(cards, evolve(state, phase="actions"), [ev.EndedTurn(player=p.name)])


def end_of_turn(cards: CardSet, state: GameState, events: list[Event] | None = None) -> Result:
    """Refill (option), victory check, turn cap, then the next player's turn begins."""
    events = list(events or [])
    refill = state.options.uncontrolled_refill
    while refill and len(state.uncontrolled) < refill and state.deck:
        top, rest = state.deck[0], state.deck[1:]
        if isinstance(cards.card(top), Special):
            state = evolve(state, deck=rest, discards=(*state.discards, top))
        else:
            state = evolve(state, deck=rest, uncontrolled=(*state.uncontrolled, top))
        events.append(ev.Refill(card=top))
    if victory_allowed(state):
        won = winners(cards, state)
        if won:
            state = evolve(state, phase="over", winners=won, outcome="victory",
                            turn=TurnState())
            return state, [*events, ev.Victory(winners=won)]
    if state.options.max_turns and state.turn_number >= state.options.max_turns:
        state = evolve(state, phase="over", outcome="turn cap", turn=TurnState())
        return state, [*events, ev.TurnCap(turns=state.turn_number)]
    return next_player(state, events)


def next_player(state: GameState, events: list[Event]) -> Result:
    n = len(state.players)
    for step in range(1, n + 1):
        i = (state.active + step) % n
        if state.players[i].playing:
            state = evolve(state, active=i, phase="turn_start", turn=TurnState(), offer=None)
            state, lapsed = lapse_deals(state)
            return state, [*events, *lapsed, ev.NextPlayer(player=state.players[i].name)]
    state = evolve(state, phase="over", outcome="no players", turn=TurnState())
    return state, [*events, ev.NoPlayers()]


def leave_game(cards: CardSet, state: GameState, cmd: LeaveGame) -> Result:
    """A player drops out: groups uncontrolled, money to the bank, Illuminati out of play."""
    p = checks.playing(state, cmd.player)
    if state.attack is not None or state.special is not None:
        raise IllegalCommandError(key="leave_mid_attack")
    return remove_player(cards, state, p, "left")


def remove_player(cards: CardSet, state: GameState, p: Player, status: PlayerStatus,
                  reason: str = "") -> Result:
    """The player leaves play (eliminated, left, or removed by the game master, with
    ``reason``): their groups and money go. The event's kind is the new status."""
    was_active = state.active_player.name == p.name
    # Groups and money go; special cards still held stay in the hand, out of play with the
    # player: the rules name only groups, money and the Illuminati card ("Leaving the Game"),
    # and a player who leaves is treated as eliminated (endgame-en). The discards never go
    # back to the draw pile, so discarding the hand would take nothing more out of play; the
    # final structures say the cards are out of play.
    state = release(state, p.name, p.structure[1:])
    illuminati_money = state.player(p.name).treasury
    state = pay(state, p.name, p.illuminati, illuminati_money)
    state = update_player(state, p.name, status=status)
    told: Event
    if status == "removed":
        told = ev.Removed(player=p.name, groups=p.groups, reason=reason)
    else:
        gone = ev.Eliminated if status == "eliminated" else ev.Left
        told = gone(player=p.name, groups=p.groups)
    state, ended = end_offer_of(state, p.name)
    state, deals_ended = end_deals_of(state, p.name)
    state = forget_votes_of(state, p.name)
    events = [told, *ended, *deals_ended]
    if was_active and state.phase != "over":
        return end_of_turn(cards, evolve(state, attack=None, offer=None), events)
    if sum(1 for x in state.players if x.playing) == 0:
        return evolve(state, phase="over", outcome="no players"), events
    return state, events


def check_eliminations(cards: CardSet, state: GameState) -> Result:
    """Eliminate every player who, after their third turn, controls no group.

    "His third turn" is read as the third the player played: a turn a stand-in played while
    they were away (``Player.stood_in``, docs/service.md "Absences") does not count, so an
    absence early in the game never eliminates them."""
    events: list[Event] = []
    for p in state.players:
        under_way = (state.active_player.name == p.name and state.phase != "turn_start"
                     and not state.turn.stood_in)
        completed = p.turns - p.stood_in - (1 if under_way else 0)
        if not p.playing or completed < 3 or p.groups:
            continue
        # The one exception (rulebook-en, Eliminating a Player): the Servants of Cthulhu
        # who reach their goal of destroyed groups by destroying their own last group win.
        # Any other goal met with no group left (the Gnomes' treasury, say) does not spare,
        # nor does the goal reached on another group before the last one is dropped or lost.
        _, special = progress(cards, state, p)
        if (special.kind == "destroyed" and special.met and victory_allowed(state)
                and state.turn.destroyed_own_last and state.active_player.name == p.name):
            continue
        state, more = remove_player(cards, state, state.player(p.name), "eliminated")
        events += more
    return state, events
