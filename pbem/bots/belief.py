"""What a bot believes: a game state rebuilt from its player's view, and samples of it.

A bot never sees the full state. ``belief`` turns the view its player is sent (the JSON
attached to every report) into a ``GameState`` where what the player cannot see (other hands
and treasuries, the deck, the dice) is filled with neutral values and only its own secrets
are real. ``sample`` fills the hidden treasuries with plausible guesses instead, one
determinization of the hidden information for the strong level's search.
"""

from __future__ import annotations

import random
from dataclasses import replace

from pbem.engine.cards import CardSet
from pbem.engine.commands import PlaySpecial
from pbem.engine.dice import Dice
from pbem.engine.state import (
    GameState,
    GroupOffer,
    Options,
    PendingAttack,
    PendingSpecial,
    Player,
    Slot,
    TurnState,
)
from pbem.engine.view import View

NEUTRAL_SEED = "00" * 32  # the belief's dice: the real seed is secret, and bots never roll


def belief(cards: CardSet, v: View) -> GameState:
    """A game state consistent with what the viewer sees; hidden values are neutral."""
    players = []
    # Turns begun, from the public turn number: round r is under way, the seats up to the
    # active one have begun r turns, the later ones r - 1 (what "no one may win before the
    # end of the first player's second turn" counts). Before a turn begins, its number is
    # the last turn's and its player has not begun it.
    seats = len(v.players)
    waiting = v.phase == "turn_start"
    active = [p.name for p in v.players].index(v.active) - waiting
    number = v.turn_number + waiting
    round_ = (number - 1) // seats + 1 if number else 0
    for i, p in enumerate(v.players):
        structure = tuple(Slot(c.card, c.x, c.y, c.rotation, c.master or None,
                               c.treasury or 0) for c in p.structure)
        destroyed = next((g.have for g in p.goals if g.kind == "destroyed"), 0) or 0
        players.append(Player(p.name, p.illuminati, structure, p.hand or (),
                              secret_goal=p.secret_goal, destroyed=destroyed,
                              turns=round_ if i <= active else max(round_ - 1, 0),
                              status=p.status))  # type: ignore[arg-type]
    attack = None
    if v.attack is not None:
        a = v.attack
        attack = PendingAttack(a.player, a.attacker, a.target, a.mode,  # type: ignore[arg-type]
                               a.aids, privilege="card" if a.privileged else "none", roll=a.roll)
    names = [p.name for p in v.players]
    return GameState(
        game=v.game,
        options=Options(victory_groups=v.victory_groups),
        players=tuple(players),
        deck=(),
        dice=Dice(NEUTRAL_SEED),
        seq=v.seq,
        active=names.index(v.active),
        phase=v.phase,  # type: ignore[arg-type]
        turn=TurnState(actions=v.actions_used, free_transfers=v.free_transfers_used,
                       did_anything=v.did_anything, attacked=v.attacked,
                       end_powers=v.end_powers),
        turn_number=v.turn_number,
        uncontrolled=v.uncontrolled,
        dead=v.dead,
        discards=v.discards,
        money_issued=sum(s.treasury for p in players for s in p.structure),
        attack=attack,
        special=PendingSpecial(PlaySpecial(*v.special)) if v.special else None,
        offer=GroupOffer(*v.offer) if v.offer else None,
    )


def sample(cards: CardSet, state: GameState, me: str, rng: random.Random) -> GameState:
    """One determinization of a belief: every other player's hidden treasuries guessed (each
    group holds up to two turns of its income, the Illuminati a little more), new dice.

    Hands stay unknown (empty): the search plays no other player's cards, it answers them
    with the reactions the bot keeps ready (Murphy's Law, Assassination, Secrets).
    """
    players = []
    for p in state.players:
        if p.name == me or not p.playing:
            players.append(p)
            continue
        slots = []
        for i, s in enumerate(p.structure):
            income = max(int(getattr(cards.card(s.card), "income", 0)), 1)
            guess = rng.randint(0, 2 * income) + (rng.randint(2, 8) if i == 0 else 0)
            slots.append(replace(s, treasury=guess))
        players.append(replace(p, structure=tuple(slots)))
    issued = sum(s.treasury for p in players for s in p.structure)
    return replace(state, players=tuple(players), money_issued=issued,
                   dice=Dice(f"{rng.getrandbits(256):064x}"))
