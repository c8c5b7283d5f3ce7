"""Abolishing an attack's privilege: two special cards shown together, which wait like any
special card for a possible Secrets Man Was Not Meant To Know."""

from __future__ import annotations

from pbem.engine import checks
from pbem.engine.attack import Result, current_attack, discard
from pbem.engine.cards import CardSet
from pbem.engine.commands import AbolishPrivilege, PlaySpecial
from pbem.engine.state import Event, GameState, PendingSpecial, Player
from pbem.engine.values import evolve
from pbem.errors import IllegalCommandError


def abolish(cards: CardSet, state: GameState, cmd: AbolishPrivilege) -> Result:
    """Two special cards shown together to end another player's privilege; like any special
    card they wait for a possible Secrets Man Was Not Meant To Know before taking effect."""
    p = check_abolish(state, cmd)
    first, partner = cmd.cards[0], (cmd.cards[1] if len(cmd.cards) > 1 else "")
    pending = PendingSpecial(play=PlaySpecial(p.name, first), partner=partner, abolish=True)
    return evolve(state, special=pending), [
        Event("abolish_played", {"player": p.name, "cards": cmd.cards})
    ]


def check_abolish(state: GameState, cmd: AbolishPrivilege) -> Player:
    """The player abolishing the privilege of the attack under way, as the rules allow it
    now: a privileged attack of another player, and the cards in hand. Raises
    IllegalCommandError otherwise."""
    checks.phase(state, "attack")
    attack = current_attack(state)
    p = checks.playing(state, cmd.player)
    if not attack.privileged:
        raise IllegalCommandError(key="not_privileged")
    if p.name == attack.player:
        raise IllegalCommandError(key="abolish_own")
    replacing = p.name in attack.abolish_credit
    if len(cmd.cards) != (1 if replacing else 2):
        if replacing:
            raise IllegalCommandError(key="abolish_one_card")
        raise IllegalCommandError(key="abolish_two_cards")
    hand = list(p.hand)
    for card in cmd.cards:
        if card not in hand:
            raise IllegalCommandError(key="not_held_by", player=p.name, card=card)
        hand.remove(card)
    return p


def abolish_resolved(state: GameState, pending: PendingSpecial) -> Result:
    """The abolishing cards were not countered: they are discarded and the privilege ends."""
    player = pending.player
    state = discard(state, player, pending.card)
    if pending.partner:
        state = discard(state, player, pending.partner)
    attack = current_attack(state)
    credit = tuple(x for x in attack.abolish_credit if x != player)
    state = evolve(state, attack=evolve(attack, abolish_credit=credit))
    return abolish_privilege(state, player, tuple(c for c in (pending.card, pending.partner) if c))


def abolish_countered(state: GameState, pending: PendingSpecial) -> GameState:
    """Secrets cancelled one abolishing card: "the other one is lost unless the player can
    replace it" -- it is discarded now and one more card (AbolishPrivilege with one card)
    completes the pair."""
    player = pending.player
    if pending.partner:
        state = discard(state, player, pending.partner)
    attack = current_attack(state)
    if player not in attack.abolish_credit:
        attack = evolve(attack, abolish_credit=(*attack.abolish_credit, player))
    return evolve(state, attack=attack)


def abolish_privilege(state: GameState, player: str, cards_used: tuple[str, ...]) -> Result:
    attack = current_attack(state)
    state = evolve(state, attack=evolve(attack, privilege_abolished=True))
    return state, [Event("privilege_abolished", {"player": player, "cards": cards_used})]
