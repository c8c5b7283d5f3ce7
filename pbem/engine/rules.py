"""``apply(state, command) -> (state, events)``: the one entry to the rules."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pbem.engine import agreement, attack, deals, gm, privilege, specials, turn, victory
from pbem.engine.carddata import load_cardset
from pbem.engine.cards import CardSet
from pbem.engine.commands import (
    AbolishPrivilege,
    AcceptDeal,
    AcceptGroup,
    Attack,
    BeginTurn,
    CallOff,
    ChooseGoal,
    Command,
    Counter,
    DeclineDeal,
    DeclineGroup,
    DropGroup,
    EndPowers,
    EndTurn,
    GiveCard,
    GiveMoney,
    GmEndGame,
    GmMoveCard,
    GmRemovePlayer,
    GmRenamePlayer,
    GmSetMoney,
    Interfere,
    LeaveGame,
    MoveGroup,
    OfferGroup,
    Pass,
    PlaySpecial,
    ProposeDeal,
    ResolveSpecial,
    Roll,
    Settle,
    Spend,
    TransferMoney,
    UseLasers,
    UseRecyclers,
    VoteEnd,
    WithdrawDeal,
    WithdrawOffer,
    WithdrawVote,
)
from pbem.engine.events import Event
from pbem.engine.setup import Setup, new_game
from pbem.engine.state import GameState
from pbem.engine.values import evolve
from pbem.errors import IllegalCommandError

Handler = Callable[[CardSet, GameState, Any], tuple[GameState, list[Event]]]

HANDLERS: dict[type, Handler] = {
    BeginTurn: turn.begin_turn,
    TransferMoney: turn.transfer_money,
    MoveGroup: turn.move_group,
    DropGroup: turn.drop_group,
    OfferGroup: turn.offer_group,
    AcceptGroup: turn.accept_group,
    DeclineGroup: turn.decline_group,
    WithdrawOffer: turn.withdraw_offer,
    GiveMoney: turn.give_money,
    GiveCard: turn.give_card,
    Pass: turn.pass_turn,
    UseLasers: turn.use_lasers,
    UseRecyclers: turn.use_recyclers,
    EndPowers: turn.end_powers,
    EndTurn: turn.end_turn,
    LeaveGame: turn.leave_game,
    Attack: attack.announce,
    Spend: attack.spend,
    Interfere: attack.interfere,
    AbolishPrivilege: privilege.abolish,
    CallOff: attack.call_off,
    Roll: attack.roll,
    Settle: attack.settle,
    PlaySpecial: specials.play,
    Counter: specials.counter,
    ResolveSpecial: specials.resolve,
    GmSetMoney: gm.set_money,
    GmMoveCard: gm.move_card,
    GmRenamePlayer: gm.rename_player,
    GmRemovePlayer: gm.remove_player,
    GmEndGame: gm.end_game,
    ChooseGoal: victory.choose_goal,
    ProposeDeal: deals.propose_deal,
    AcceptDeal: deals.accept_deal,
    DeclineDeal: deals.decline_deal,
    WithdrawDeal: deals.withdraw_deal,
    VoteEnd: agreement.vote_end,
    WithdrawVote: agreement.withdraw_vote,
}


def apply(
    state: GameState, command: Command, cards: CardSet | None = None
) -> tuple[GameState, list[Event]]:
    """The state after ``command`` and what happened; IllegalCommandError if not allowed."""
    cards = cards or load_cardset()
    if state.phase == "over" and not isinstance(command, GmSetMoney | GmMoveCard):
        raise IllegalCommandError(key="game_over")
    handler = HANDLERS.get(type(command))
    if handler is None:
        raise IllegalCommandError(f"unknown command {type(command).__name__}")
    new_state, events = handler(cards, state, command)
    if new_state.phase != "over":
        new_state, more = turn.check_eliminations(cards, new_state)
        events = events + more
    return evolve(new_state, seq=state.seq + 1), events


def replay(
    setup: Setup, commands: Iterable[Command], cards: CardSet | None = None
) -> GameState:
    """The state a game's setup and command log lead to (the log is the truth)."""
    cards = cards or load_cardset()
    state, _ = new_game(cards, setup)
    for command in commands:
        state, _ = apply(state, command, cards)
    return state
