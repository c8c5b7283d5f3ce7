"""Income and the card draw: what a turn begins with (the Recyclers draw a card too)."""

from __future__ import annotations

from pbem.engine import events as ev
from pbem.engine.abilities import abilities, has_special
from pbem.engine.cards import CardSet, Special
from pbem.engine.events import Event
from pbem.engine.ops import earn, pay, treasury
from pbem.engine.state import GameState
from pbem.engine.values import evolve

IRS_TAX = 2
Result = tuple[GameState, list[Event]]


def collect_income(cards: CardSet, state: GameState, name: str) -> Result:
    """The income of the player's groups, the I.R.S. tax, then the Post Office cost."""
    events: list[Event] = []
    doubled = state.turn.market_manipulation
    player = state.player(name)
    for slot in player.structure:
        card = cards.card(slot.card)
        income = getattr(card, "income", 0)
        special = abilities(cards, slot.card).special
        if "irs" in special or "post_office" in special:
            continue
        # Market Manipulation: "all the holder's groups collect double income". The Illuminati
        # card doubles too: the rulebook's income rule ("each Group you control collects the
        # amount listed on its card") counts it among the Groups (docs/rules-coverage.md).
        if doubled:
            income *= 2
        if income > 0:
            state = earn(state, name, slot.card, income)
            events.append(ev.Income(player=name, card=slot.card, amount=income))
    irs = has_special(cards, state.player(name), "irs")
    if irs is not None:
        for other in state.players:
            if other.name == name or not other.playing:
                continue
            state, amount = _tax(state, other.name, name, irs)
            events.append(ev.IrsTax(player=other.name, to=name, amount=amount))
    # The Post Office's cost comes last, once its master has collected (the I.R.S.'s tax is
    # its income), so a master with income pays it before the Illuminati must.
    post_office = has_special(cards, state.player(name), "post_office")
    if post_office is not None:
        state, paid_by = _post_office_cost(state, name, post_office)
        events.append(ev.PostOffice(player=name, paid_by=paid_by))
    return state, events


def _post_office_cost(state: GameState, name: str, post_office: str) -> tuple[GameState, str]:
    """The Post Office costs 1 MB a turn, paid by its master, or else its Illuminati."""
    player = state.player(name)
    slot = player.slot(post_office)
    assert slot is not None and slot.master is not None
    for payer in (slot.master, player.illuminati):
        if treasury(state, name, payer) >= 1:
            return pay(state, name, payer, 1), payer
    return state, ""


def _tax(state: GameState, payer: str, owner: str, irs: str) -> tuple[GameState, int]:
    """2 MB from the payer (Illuminati first, then groups in order) to the I.R.S."""
    due = IRS_TAX
    for slot in state.player(payer).structure:
        if due == 0:
            break
        take = min(due, slot.treasury)
        if take:
            state = pay(state, payer, slot.card, take)
            state = earn(state, owner, irs, take)
            due -= take
    return state, IRS_TAX - due


def draw_card(cards: CardSet, state: GameState, name: str) -> Result:
    """The top card: a special to the hand, a group to the uncontrolled area."""
    if not state.deck:
        # The rules never say: with the deck spent, nothing is drawn and the turn goes on.
        return state, [ev.DeckEmpty(player=name)]
    top, rest = state.deck[0], state.deck[1:]
    state = evolve(state, deck=rest)
    if isinstance(cards.card(top), Special):
        p = state.player(name)
        state = state.with_player(evolve(p, hand=(*p.hand, top)))
        return state, [
            ev.DrewSpecial(player=name, card=top, visible_to=(name,)),
            ev.DrewSpecialCount(player=name),
        ]
    state = evolve(state, uncontrolled=(*state.uncontrolled, top))
    return state, [ev.DrewGroup(player=name, card=top)]
