"""Game master's edits: logged like any command, so a replay reproduces them."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pbem.engine import checks
from pbem.engine import events as ev
from pbem.engine.cards import CardSet, Group, Special
from pbem.engine.commands import (
    GmEndGame,
    GmMoveCard,
    GmRemovePlayer,
    GmRenamePlayer,
    GmSetMoney,
    PlaySpecial,
)
from pbem.engine.events import Event
from pbem.engine.ops import player_of, release_group, set_treasury, update_player
from pbem.engine.state import GameState, GroupOffer, TurnState
from pbem.engine.turn import pending_copies
from pbem.engine.turn import remove_player as leave_play
from pbem.engine.values import evolve
from pbem.errors import IllegalCommandError

Result = tuple[GameState, list[Event]]
PLACES = ("uncontrolled", "dead", "deck", "discards")


def set_money(cards: CardSet, state: GameState, cmd: GmSetMoney) -> Result:
    """The money on ``card`` set; only its owner learns the amount, as a treasury is hidden
    from the other players (``pbem.engine.view``), who learn that it changed."""
    owner = state.owner(cmd.card)
    if owner is None:
        raise IllegalCommandError(f"{cmd.card} is in no power structure")
    state = set_treasury(state, owner.name, cmd.card, cmd.amount)
    # Which kind of card it is, so a mail can say "Alice's Illuminati" or "Alice's group":
    # the templates see no card set. An older log's events lack it (see _events.txt.j2).
    card_type = "illuminati" if cmd.card == owner.illuminati else "group"
    return state, [ev.GmMoney(card=cmd.card, card_type=card_type, player=owner.name,
                              reason=cmd.reason, amount=cmd.amount, visible_to=(owner.name,)),
                   ev.GmMoneyCount(card=cmd.card, card_type=card_type, player=owner.name,
                                   reason=cmd.reason)]


def move_card(cards: CardSet, state: GameState, cmd: GmMoveCard) -> Result:
    """Take a group or special card from wherever it is and put it in ``place``."""
    if cmd.card not in cards.names():
        raise IllegalCommandError(f"there is no card named {cmd.card}", text=cmd.card)
    card = cards.card(cmd.card)
    if not isinstance(card, Group | Special):
        raise IllegalCommandError("an Illuminati card cannot be moved")
    owner = next((p for p in state.players if cmd.card in p.hand), None)
    if owner is not None and owner.hand.count(cmd.card) <= pending_copies(
        state, owner.name, cmd.card
    ):
        raise IllegalCommandError(f"{cmd.card} was just played and waits for an answer",
                                  suggestion="resolve or counter it first")
    state, source = _take(state, cmd.card)
    if cmd.place.startswith("hand:"):
        if not isinstance(card, Special):
            raise IllegalCommandError("only special cards go to a hand")
        name = cmd.place.removeprefix("hand:")
        p = state.player(name)
        state = update_player(state, name, hand=(*p.hand, cmd.card))
    elif cmd.place in PLACES:
        if isinstance(card, Special) and cmd.place in ("uncontrolled", "dead"):
            raise IllegalCommandError("special cards go to a hand, the deck or the discards")
        state = _with_place(state, cmd.place, (*getattr(state, cmd.place), cmd.card))
    else:
        raise IllegalCommandError(f"unknown place {cmd.place}",
                                  suggestion="uncontrolled, dead, deck, discards or hand:NAME")
    return state, _move_events(cmd, source)


def _move_events(cmd: GmMoveCard, source: str) -> list[Event]:
    """The move told to all, unless it goes to or from a hand, or into the draw pile (whose
    order is secret): then the card is named only to the hands' owners (the game master
    alone, with no hand) and the others learn that a card moved."""
    ends = (source, cmd.place)
    told = ev.GmMove(source=source, place=cmd.place, reason=cmd.reason, card=cmd.card)
    if not any(end.startswith("hand:") for end in ends) and cmd.place != "deck":
        return [told]
    owners = tuple(dict.fromkeys(end.removeprefix("hand:") for end in ends
                                 if end.startswith("hand:")))
    return [replace(told, visible_to=owners),
            ev.GmMoveCount(source=source, place=cmd.place, reason=cmd.reason)]


def rename_player(cards: CardSet, state: GameState, cmd: GmRenamePlayer) -> Result:
    """The player ``seat`` is called ``name`` everywhere the state names them."""
    player_of(state, cmd.seat)
    name = cmd.name.strip()
    if not name or name != cmd.name:
        raise IllegalCommandError("a player's name cannot be empty or begin or end with a space",
                                  text=cmd.name)
    if name == cmd.seat:
        raise IllegalCommandError(f"{name} is already called {name}", text=name)
    if any(p.name.casefold() == name.casefold() for p in state.players if p.name != cmd.seat):
        raise IllegalCommandError(f"the name {name} is already used in this game", text=name)

    def new(who: str) -> str:
        return name if who == cmd.seat else who

    attack = state.attack
    if attack is not None:
        attack = evolve(
            attack, player=new(attack.player),
            payments=tuple(evolve(p, player=new(p.player)) for p in attack.payments),
            interference_cards=tuple(map(new, attack.interference_cards)),
            abolish_credit=tuple(map(new, attack.abolish_credit)))
    special = state.special
    if special is not None:
        special = evolve(special, play=PlaySpecial(new(special.play.player), special.play.card))
    offer = state.offer
    if offer is not None:
        offer = GroupOffer(new(offer.giver), new(offer.receiver), offer.group)
    players = tuple(evolve(p, name=new(p.name)) for p in state.players)
    state = evolve(state, players=players, attack=attack, special=special, offer=offer,
                   winners=tuple(map(new, state.winners)))
    return state, [ev.GmRename(old=cmd.seat, new=name, reason=cmd.reason)]


def remove_player(cards: CardSet, state: GameState, cmd: GmRemovePlayer) -> Result:
    """The player ``seat`` is out of the game by the game master's decision, as if they had
    dropped out ("his Groups go uncontrolled and their treasuries go to the bank. His
    Illuminati card is taken out of play"), but marked "removed", with the reason. Between
    attacks only, as a player leaving on their own."""
    p = checks.playing(state, cmd.seat)
    if state.attack is not None or state.special is not None:
        raise IllegalCommandError("a player can be removed only between attacks",
                                  suggestion="wait until the attack or card under way is "
                                             "settled")
    return leave_play(cards, state, p, "removed", cmd.reason)


def end_game(cards: CardSet, state: GameState, cmd: GmEndGame) -> Result:
    """The game ends by the game master's decision, won by players still in it, or by no
    one. The rules end a game only when someone meets a goal ("The game ends when, at the
    end of a turn ... a player meets one of his Goals"): a player left alone, or players
    who agree to stop, need the game master. Between attacks only, as no money is then
    held by an attack under way."""
    if state.attack is not None or state.special is not None:
        raise IllegalCommandError("a game can be ended only between attacks",
                                  suggestion="wait until the attack or card under way is "
                                             "settled")
    playing = [p.name for p in state.players if p.playing]
    for name in cmd.winners:
        if name not in playing:
            raise IllegalCommandError(
                f"{name} is not a player still in the game", text=name,
                suggestion=f"the players still in it: {', '.join(playing) or 'none'}")
    winners = tuple(dict.fromkeys(cmd.winners))
    state = evolve(state, phase="over", outcome="game master", winners=winners,
                   turn=TurnState(), offer=None)
    return state, [ev.GmEnd(winners=winners, reason=cmd.reason)]


def _with_place(state: GameState, place: str, cards: tuple[str, ...]) -> GameState:
    changes: dict[str, Any] = {place: cards}
    return evolve(state, **changes)


def _take(state: GameState, card: str) -> tuple[GameState, str]:
    """The state without ``card``, and where it was: a place, "hand:NAME" or
    "structure:NAME"."""
    owner = state.owner(card)
    source = ""
    if owner is not None:
        if owner.illuminati == card:
            raise IllegalCommandError("an Illuminati card cannot be moved")
        state, _ = release_group(state, owner.name, card)  # it is uncontrolled now
        source = f"structure:{owner.name}"
    for place in PLACES:
        items = list(getattr(state, place))
        if card in items:
            items.remove(card)
            return _with_place(state, place, tuple(items)), source or place
    for p in state.players:
        if card in p.hand:
            hand = list(p.hand)
            hand.remove(card)
            return update_player(state, p.name, hand=tuple(hand)), f"hand:{p.name}"
    raise IllegalCommandError(f"{card} is nowhere in play")
