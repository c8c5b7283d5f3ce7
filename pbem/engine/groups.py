"""Groups on the turn: moved within a structure, dropped, offered to and accepted by another
player."""

from __future__ import annotations

from pbem.engine import checks
from pbem.engine.abilities import abilities
from pbem.engine.cards import CardSet
from pbem.engine.commands import (
    AcceptGroup,
    DeclineGroup,
    DropGroup,
    MoveGroup,
    OfferGroup,
    WithdrawOffer,
)
from pbem.engine.ops import release, release_group
from pbem.engine.state import Event, GameState, GroupOffer, Player
from pbem.engine.structure import (
    attach,
    open_arrows,
    remove,
    subtree,
)
from pbem.engine.values import evolve
from pbem.errors import IllegalCommandError

Result = tuple[GameState, list[Event]]


def move_group(cards: CardSet, state: GameState, cmd: MoveGroup) -> Result:
    """A regular action (free for Bermuda at the end of its turn): the group and its puppets
    move to an open outgoing arrow; puppets that cannot fit become uncontrolled."""
    bermuda = (
        state.turn.end_powers
        and "bermuda_reorganize" in abilities(cards, state.active_player.illuminati).special
    )
    if bermuda:
        checks.phase(state, "actions")
        p = checks.active(state, cmd.player)
    else:
        p = checks.action_left(state, cmd.player)
    checks.owns(p, cmd.group)
    checks.owns(p, cmd.master)
    if cmd.group == p.illuminati:
        raise IllegalCommandError(key="illuminati_moved")
    moving = subtree(p, cmd.group)
    if cmd.master in {s.card for s in moving}:
        raise IllegalCommandError(key="hang_from_itself", group=cmd.group)
    rest = remove(p, (s.card for s in moving))
    if cmd.arrow not in open_arrows(cards, rest, cmd.master):
        raise IllegalCommandError(key="arrow_closed", master=cmd.master, arrow=cmd.arrow,
                                  arrows=open_arrows(cards, rest, cmd.master))
    placed, lost = attach(cards, rest, cmd.master, cmd.arrow, moving)
    state = state.with_player(placed)
    if lost:
        state = state.with_player(evolve(placed, structure=(*placed.structure, *lost)))
        state = release(state, p.name, lost)
    turn = state.turn if bermuda else evolve(state.turn, actions=state.turn.actions + 1)
    state = evolve(state, turn=evolve(turn, did_anything=True))
    return state, [Event("move", {"player": p.name, "group": cmd.group, "master": cmd.master,
                                  "arrow": cmd.arrow, "lost": tuple(s.card for s in lost)})]


def drop_group(cards: CardSet, state: GameState, cmd: DropGroup) -> Result:
    """A free action: the group and its puppets go back to the uncontrolled area."""
    checks.phase(state, "actions")
    p = checks.active(state, cmd.player)
    checks.owns(p, cmd.group)
    if cmd.group == p.illuminati:
        raise IllegalCommandError(key="illuminati_dropped")
    offer = state.offer
    if offer is not None and offer.giver == p.name and offer.group in {
        s.card for s in subtree(p, cmd.group)
    }:
        raise IllegalCommandError(key="group_offered", group=offer.group,
                                  receiver=offer.receiver)
    state, released = release_group(state, p.name, cmd.group)
    state = evolve(state, turn=evolve(state.turn, did_anything=True))
    return state, [Event("drop", {"player": p.name, "groups": tuple(released)})]


def offer_parties(state: GameState, cmd: OfferGroup) -> tuple[Player, Player]:
    """The giver and the receiver of a gift, checked as no later position could change: two
    players in the game, not one and the same. Gives (giver, receiver)."""
    giver = checks.playing(state, cmd.player)
    receiver = checks.playing(state, cmd.to)
    if giver.name == receiver.name:
        raise IllegalCommandError(key="group_to_self", group=cmd.group)
    return giver, receiver


def offer_group(cards: CardSet, state: GameState, cmd: OfferGroup) -> Result:
    """Give a group away; it must be the turn of one of the two players, and it costs the
    active player an action when accepted."""
    checks.phase(state, "actions")
    giver, receiver = offer_parties(state, cmd)
    if state.active_player.name not in (giver.name, receiver.name):
        raise IllegalCommandError(key="gift_turn")
    checks.action_left(state, state.active_player.name)
    checks.owns(giver, cmd.group)
    if cmd.group == giver.illuminati:
        raise IllegalCommandError(key="group_not_given", group=cmd.group,
                                  receiver=receiver.name)
    state = evolve(state, offer=GroupOffer(giver=giver.name, receiver=receiver.name,
                                            group=cmd.group))
    return state, [Event("offer", {"player": giver.name, "to": receiver.name,
                                   "group": cmd.group})]


def accept_group(cards: CardSet, state: GameState, cmd: AcceptGroup) -> Result:
    offer = state.offer
    if offer is None or offer.receiver != cmd.player:
        raise IllegalCommandError(key="no_offer", player=cmd.player)
    giver = state.player(offer.giver)
    receiver = state.player(offer.receiver)
    master, arrow = cmd.master, cmd.arrow
    if not master:
        master, arrow = first_open_arrow(cards, receiver)
        if not master:
            raise IllegalCommandError(key="receiver_no_arrow", receiver=receiver.name)
    checks.owns(receiver, master)
    if giver.slot(offer.group) is None:
        raise IllegalCommandError(key="giver_lost_group", giver=giver.name, group=offer.group)
    if arrow not in open_arrows(cards, receiver, master):
        raise IllegalCommandError(key="arrow_closed", master=master, arrow=arrow,
                                  arrows=open_arrows(cards, receiver, master))
    moving = subtree(giver, offer.group)
    state = state.with_player(remove(giver, (s.card for s in moving)))
    # "the player must eliminate them by choosing one or more overlapping card, new or old":
    # the receiver's old cards stay and the new ones that cannot fit go (he may drop an old
    # card before accepting to make room) -- one answer instead of a round trip by mail.
    placed, lost = attach(cards, state.player(receiver.name), master, arrow, moving)
    state = state.with_player(placed)
    if lost:
        state = state.with_player(evolve(placed, structure=(*placed.structure, *lost)))
        state = release(state, receiver.name, lost)
    turn = evolve(state.turn, actions=state.turn.actions + 1, did_anything=True)
    state = evolve(state, offer=None, turn=turn)
    return state, [Event("gift_group", {"player": giver.name, "to": receiver.name,
                                        "group": offer.group, "master": master,
                                        "arrow": arrow,
                                        "lost": tuple(s.card for s in lost)})]


def decline_group(cards: CardSet, state: GameState, cmd: DeclineGroup) -> Result:
    """The receiver says no: the group stays with the giver ("You may only give a Group
    away with the permission of the player who receives it!"). Only the receiver answers;
    the giver may withdraw the offer instead (``withdraw_offer``)."""
    offer = state.offer
    if offer is not None and cmd.player == offer.giver:
        raise IllegalCommandError(key="decline_own_offer", receiver=offer.receiver,
                                  group=offer.group)
    if offer is None or cmd.player != offer.receiver:
        raise IllegalCommandError(key="no_offer", player=cmd.player)
    data: dict[str, object] = {"player": offer.receiver, "group": offer.group,
                               "giver": offer.giver}
    if cmd.unanswered:  # only then: a decline's event reads as it did before the field
        data["unanswered"] = True
    return evolve(state, offer=None), [Event("offer_declined", data)]


def withdraw_offer(cards: CardSet, state: GameState, cmd: WithdrawOffer) -> Result:
    """The giver takes the offer back before the receiver answers: a deal binds only once
    both agree and the exchange is made ("When Is a Deal Binding?"), so until the receiver
    accepts, the giver may change their mind, as an attacker may call off an attack until
    money is spent. Not an action: the group never moved."""
    offer = state.offer
    if offer is None or cmd.player != offer.giver:
        raise IllegalCommandError(key="no_offer_made", player=cmd.player)
    return evolve(state, offer=None), [Event("offer_withdrawn", {
        "player": offer.giver, "to": offer.receiver, "group": offer.group})]


def end_offer_of(state: GameState, player: str) -> Result:
    """The state without the group offer ``player`` gives or receives, as they leave play,
    and the event saying it ended; the state unchanged and no event when they have none.

    The rules say nothing of a pending gift when a player drops out; they say the groups go
    uncontrolled and the Illuminati card out of play ("Leaving the Game"), and a gift needs
    the receiver's permission: a receiver gone can give none, and a giver gone has nothing
    left to give. The group stays where it is (with a giver still in play)."""
    offer = state.offer
    if offer is None or player not in (offer.giver, offer.receiver):
        return state, []
    status = state.player(player).status
    return evolve(state, offer=None), [Event("offer_ended", {
        "giver": offer.giver, "receiver": offer.receiver, "group": offer.group,
        "player": player, "status": status})]


def first_open_arrow(cards: CardSet, player: Player) -> tuple[str, int]:
    """Give the first card of ``player``'s power structure with an open outgoing arrow, and
    that arrow; ("", -1) when there is none."""
    for slot in player.structure:
        arrows = open_arrows(cards, player, slot.card)
        if arrows:
            return slot.card, arrows[0]
    return "", -1
