"""The bots use their Illuminati's end-of-turn power, read from the card data
(``end_of_turn``), once their actions are over.

summary-en, the Gnomes of Zurich: "may move money freely between its groups at the end of
its turn"; rulebook-en, Transferring Groups: a group goes "along with all treasuries
involved", so money left on a group is money an attack may take. The Bermuda Triangle "may
reorganize its power structure freely at the end of its turn"; rulebook-en, Proximity: an
attack on a group next to its Illuminati needs 10 more, two steps away 5.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from factory import BAVARIA, BERMUDA, CARDS, GNOMES, chain, game, in_round, money, place

from pbem import bots
from pbem.bots import mailbots, play
from pbem.bots.belief import belief
from pbem.engine.commands import Command, EndPowers, EndTurn, MoveGroup, TransferMoney
from pbem.engine.rules import apply
from pbem.engine.state import GameState
from pbem.engine.structure import depth
from pbem.engine.view import view


def _done(illuminati: str) -> GameState:
    """``me`` after both actions of its turn, with money on two of its groups."""
    state = game(me=illuminati, other=BAVARIA)
    state = place(state, "me", "The Mafia", treasury=5)
    state = place(state, "me", "Boy Sprouts", treasury=3)
    state = place(state, "me", "Trekkies")
    state = money(in_round(state, 3), "me", illuminati, 10)
    return replace(state, turn=replace(state.turn, actions=2, did_anything=True))


def _to_the_end(state: GameState, level: bots.Level) -> tuple[GameState, list[Command]]:
    """The bot's commands to the end of its turn, each applied, END TURN the last."""
    commands: list[Command] = []
    for _ in range(6):
        mind = belief(CARDS, view(CARDS, state, "me"))
        command = play.action(CARDS, mind, "me", level, random.Random(1)).command
        commands.append(command)
        if isinstance(command, EndTurn):
            break
        state, _ = apply(state, command, CARDS)
    return state, commands


@pytest.mark.parametrize("level", bots.LEVELS[1:])
def test_the_gnomes_gather_their_groups_money_at_the_end_of_the_turn(
        level: bots.Level) -> None:
    """The Gnomes' end-of-turn power: END POWERS, then every group's money moved up to the
    Illuminati treasury, free, then END TURN; the money in the structure stays 18 MB (their
    goal counts it all), none of it left on a group. Before the change the bot ended its
    turn at once."""
    state, commands = _to_the_end(_done(GNOMES), level)
    assert commands == [EndPowers("me"), TransferMoney("me", "The Mafia", GNOMES, 5),
                        TransferMoney("me", "Boy Sprouts", GNOMES, 3), EndTurn("me")]
    me = state.player("me")
    assert me.treasury == 18 and all(s.treasury == 0 for s in me.structure[1:])


def test_an_illuminati_without_the_power_ends_its_turn() -> None:
    """The Bavarian Illuminati have no end-of-turn power (their card data names none): the
    bot ends its turn, its groups' money where it is."""
    mind = belief(CARDS, view(CARDS, _done(BAVARIA), "me"))
    assert bots.choose_action(CARDS, mind, "me", random.Random(1)) == EndTurn("me")


def test_a_strong_bot_brings_its_puppets_money_up_to_its_illuminati() -> None:
    """rulebook-en, Transferring Money: "A player may make two money transfers as part of
    his turn"; Spending Money To Attack: "Attacking money may be spent from both the
    attacking Group's treasury and the Illuminati treasury. Other Groups in the Power
    Structure cannot spend money to aid the attack." Its actions over, a strong bot with no
    end-of-turn power (the Bavarians) moves the money of its Illuminati's two richest
    puppets up with its two free transfers, the richest first, then ends its turn; the
    normal bot leaves it where it is."""
    state, commands = _to_the_end(_done(BAVARIA), "strong")
    assert commands == [TransferMoney("me", "The Mafia", BAVARIA, 5),
                        TransferMoney("me", "Boy Sprouts", BAVARIA, 3), EndTurn("me")]
    me = state.player("me")
    assert me.treasury == 18 and all(s.treasury == 0 for s in me.structure[1:])
    assert state.turn.free_transfers == 2 and state.turn.actions == 2


def test_a_strong_bermuda_triangle_gathers_its_money_before_its_end_powers() -> None:
    """Money transfers end with the end-of-turn power (the engine refuses a transfer after
    END POWERS, key ``transfers_after_end_powers``): the strong Bermuda Triangle brings
    the money up first, then reorganizes."""
    state = chain(game(me=BERMUDA, other=BAVARIA), "me", "The Mafia", "Loan Sharks")
    state = place(state, "me", "Boy Sprouts", treasury=4)
    state = money(in_round(state, 3), "me", BERMUDA, 10)
    state = replace(state, turn=replace(state.turn, actions=2, did_anything=True))
    state, commands = _to_the_end(state, "strong")
    assert commands[0] == TransferMoney("me", "Boy Sprouts", BERMUDA, 4)
    assert EndPowers("me") in commands and commands[-1] == EndTurn("me")
    assert state.player("me").treasury == 14


def test_a_mail_bot_gathers_the_money_in_its_order_mail() -> None:
    """A mail bot writes the same: END POWERS and the TRANSFERs before END TURN."""
    state = _done(GNOMES)
    orders = mailbots.orders_for(CARDS, view(CARDS, state, "me"), "normal")
    assert orders[-4:] == [EndPowers("me"), TransferMoney("me", "The Mafia", GNOMES, 5),
                           TransferMoney("me", "Boy Sprouts", GNOMES, 3), EndTurn("me")]


@pytest.mark.parametrize("level", bots.LEVELS[1:])
def test_the_bermuda_triangle_moves_a_far_group_next_to_its_illuminati(
        level: bots.Level) -> None:
    """The Bermuda Triangle's free reorganization: its most valuable group two steps from
    the Illuminati (the Loan Sharks, under the Mafia) moves, free, onto an open arrow of the
    Illuminati, then the turn ends; nothing is lost and the Illuminati keep arrows open.
    Before the change the bot ended its turn at once."""
    state = chain(game(me=BERMUDA, other=BAVARIA), "me", "The Mafia", "Loan Sharks")
    state = money(in_round(state, 3), "me", BERMUDA, 10)
    state = replace(state, turn=replace(state.turn, actions=2, did_anything=True))
    assert depth(state.player("me"), "Loan Sharks") == 2
    state, commands = _to_the_end(state, level)
    assert commands[0] == EndPowers("me") and commands[-1] == EndTurn("me")
    assert [(c.group, c.master) for c in commands[1:-1] if isinstance(c, MoveGroup)] == [
        ("Loan Sharks", BERMUDA)] and len(commands) == 3
    me = state.player("me")
    assert depth(me, "Loan Sharks") == 1 and len(me.structure) == 3
