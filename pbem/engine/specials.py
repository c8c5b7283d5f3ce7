"""Special cards: when each may be played, the Secrets counter, and what each does.

A played card waits in ``state.special`` until it is countered by Secrets Man Was Not Meant
To Know or resolved; the service resolves at once when no one else could counter, so no hand
is revealed by the wait.
"""

from __future__ import annotations

from collections.abc import Callable

from pbem.engine import checks
from pbem.engine import events as ev
from pbem.engine.attack import discard, open_attack, take_privilege, validate_attack
from pbem.engine.behaviour import counters, money
from pbem.engine.cards import CardSet, Special
from pbem.engine.commands import Counter, PlaySpecial, ResolveSpecial
from pbem.engine.events import Event
from pbem.engine.groups import first_open_arrow
from pbem.engine.ops import earn, move_money
from pbem.engine.privilege import abolish_countered, abolish_privilege, abolish_resolved
from pbem.engine.state import GameState, PendingAttack, PendingSpecial, Player, Slot
from pbem.engine.structure import attach, open_arrows
from pbem.engine.values import evolve
from pbem.errors import IllegalCommandError

ASSASSINATION_ROLL = 2
MURPHY_ROLL = 12
WHITE_COLLAR_BONUS = 5
Result = tuple[GameState, list[Event]]
Effect = Callable[[CardSet, GameState, PlaySpecial], Result]


def play(cards: CardSet, state: GameState, cmd: PlaySpecial) -> Result:
    """The card is shown and waits for a possible counter."""
    if state.phase == "over":
        raise IllegalCommandError(key="game_over")
    if state.special is not None:
        raise IllegalCommandError(key="special_unanswered", card=state.special.card)
    p = checks.playing(state, cmd.player)
    if cmd.card not in p.hand:
        raise IllegalCommandError(key="not_held_by", player=p.name, card=cmd.card)
    card = cards.special(cmd.card)
    if counters(card):
        # Whatever its timing says in the data, it has no effect of its own: it answers.
        raise IllegalCommandError(key="counter_only", card=card.name)
    _check_timing(cards, state, card, cmd)
    state = evolve(state, special=PendingSpecial(play=cmd))
    # Playing a special is a free action, and a player who acted may no longer pass: at the
    # start of their own turn (Market Manipulation in the income phase) as in its course.
    if state.active_player.name == p.name and state.phase != "over":
        state = evolve(state, turn=evolve(state.turn, did_anything=True))
    return state, [ev.SpecialPlayed(player=p.name, card=cmd.card, group=cmd.group, other=cmd.other)]


def counter(cards: CardSet, state: GameState, cmd: Counter) -> Result:
    """Secrets Man Was Not Meant To Know: the card just played does nothing; both are gone."""
    pending = state.special
    if pending is None:
        raise IllegalCommandError(key="no_special_waiting")
    p = checks.playing(state, cmd.player)
    if cmd.card not in p.hand:
        raise IllegalCommandError(key="not_held_by", player=p.name, card=cmd.card)
    if not counters(cards.special(cmd.card)):
        raise IllegalCommandError(key="cannot_counter", card=cmd.card)
    if p.name == pending.player:
        raise IllegalCommandError(key="counter_own")
    state = discard(state, p.name, cmd.card)
    state = discard(state, pending.player, pending.card)
    state = evolve(state, special=None)
    if pending.abolish:
        state = abolish_countered(state, pending)
    return state, [ev.SpecialCancelled(player=p.name, card=pending.card, owner=pending.player,
                                       lost=pending.partner)]


def resolve(cards: CardSet, state: GameState, cmd: ResolveSpecial) -> Result:
    """No one countered: the card takes effect and is discarded."""
    pending = state.special
    if pending is None:
        raise IllegalCommandError(key="no_special_waiting")
    if pending.abolish:
        return abolish_resolved(evolve(state, special=None), pending)
    play_cmd = pending.play
    state = discard(evolve(state, special=None), play_cmd.player, play_cmd.card)
    effect = cards.special(play_cmd.card).effect
    return EFFECTS[effect](cards, state, play_cmd)


def _check_timing(cards: CardSet, state: GameState, card: Special, cmd: PlaySpecial) -> None:
    """Raise unless the card may be played now by this player."""
    attack = state.attack
    me = cmd.player
    active = state.active_player.name
    timing = card.timing
    if timing == "any_time":
        _validate_any_time(cards, state, card, cmd)
    elif timing == "after_roll":
        checks.phase(state, "after_roll")
    elif timing == "own_action":
        p = checks.action_left(state, me)
        if card.effect == "bribery":
            if cmd.group not in state.uncontrolled:
                raise IllegalCommandError(key="not_uncontrolled", group=cmd.group)
            _bribery_arrow(cards, p, cmd)
        else:
            # The Whispering Campaign's attack is an attack like any other (rulebook-en,
            # Special Cards: "the attack is a regular action"): aided, and privileged.
            validate_attack(cards, state, p, cmd.attacker, cmd.group, "destroy", cmd.aids,
                            whispering=True)
            if cmd.privilege == "card" and cmd.privilege_card == cmd.card and \
                    p.hand.count(cmd.card) < 2:
                raise IllegalCommandError(key="privilege_card_not_held", player=p.name,
                                          card=cmd.card, another=True)
            take_privilege(cards, state, p, cmd.privilege, cmd.privilege_card)  # a check
    elif timing in ("after_privilege", "privileged_attack"):
        checks.phase(state, "attack")
        if attack is None or not attack.privileged:
            raise IllegalCommandError(key="privileged_only", card=card.name)
        if me == attack.player:
            raise IllegalCommandError(key="against_privilege", card=card.name)
    elif timing == "own_income":
        checks.phase(state, "turn_start")
        if me != active:
            raise IllegalCommandError(key="own_turn_start", card=card.name)
    elif timing == "turn_start":
        checks.phase(state, "turn_start")
        if me == active:
            raise IllegalCommandError(key="other_turn_start", card=card.name)
    else:
        raise IllegalCommandError(key="counter_only", card=card.name)


def _validate_any_time(cards: CardSet, state: GameState, card: Special, cmd: PlaySpecial) -> None:
    p = state.player(cmd.player)
    if card.effect == "media_campaign" and cmd.group not in state.dead:
        raise IllegalCommandError(key="not_dead", group=cmd.group)
    if card.effect == "computer_espionage":
        names = {x.name for x in state.players}
        if cmd.other not in names and state.owner(cmd.other) is None:
            raise IllegalCommandError(key="espionage_target", other=cmd.other, text=cmd.other)
    if card.effect == "white_collar_crime":
        for source, dest, amount in cmd.moves:
            checks.owns(p, source)
            checks.owns(p, dest)
            if amount <= 0:
                raise IllegalCommandError(key="amount_positive")
        if cmd.bonus_to:
            checks.owns(p, cmd.bonus_to)


# --- effects ---------------------------------------------------------------------------------


def _roll_becomes(value: int) -> Effect:
    def effect(cards: CardSet, state: GameState, cmd: PlaySpecial) -> Result:
        if state.phase != "after_roll" or state.attack is None:
            return state, [ev.SpecialNoEffect(player=cmd.player, card=cmd.card)]
        state = evolve(state, attack=evolve(state.attack, roll_becomes=value))
        return state, [ev.RollBecomes(player=cmd.player, card=cmd.card, roll=value)]
    return effect


def _bribery_arrow(cards: CardSet, p: Player, cmd: PlaySpecial) -> tuple[str, int]:
    """Where the bribed group hangs: the named card and arrow, or the first open arrow."""
    if not cmd.master:
        master, arrow = first_open_arrow(cards, p)
        if not master:
            raise IllegalCommandError(key="no_open_arrow")
        return master, arrow
    checks.owns(p, cmd.master)
    arrows = open_arrows(cards, p, cmd.master)
    arrow = arrows[0] if cmd.arrow == -1 and arrows else cmd.arrow
    if arrow not in arrows:
        raise IllegalCommandError(key="bribery_arrow_closed", master=cmd.master,
                                  arrows=tuple(arrows))
    return cmd.master, arrow


def _bribery(cards: CardSet, state: GameState, cmd: PlaySpecial) -> Result:
    p = state.player(cmd.player)
    try:
        master, arrow = _bribery_arrow(cards, p, cmd)
    except IllegalCommandError:
        master, arrow = "", -1
    if cmd.group not in state.uncontrolled or not master:
        return state, [ev.SpecialNoEffect(player=cmd.player, card=cmd.card)]
    state = evolve(state, uncontrolled=tuple(c for c in state.uncontrolled if c != cmd.group))
    placed, _ = attach(cards, p, master, arrow, [Slot(cmd.group, 0, 0, 0, None)])
    turn = evolve(state.turn, actions=state.turn.actions + 1)
    state = evolve(state.with_player(placed), turn=turn)
    return state, [ev.Bribery(player=cmd.player, group=cmd.group)]


def _whispering(cards: CardSet, state: GameState, cmd: PlaySpecial) -> Result:
    state, events = take_privilege(cards, state, state.player(cmd.player), cmd.privilege,
                                   cmd.privilege_card)
    attack = PendingAttack(player=cmd.player, attacker=cmd.attacker, target=cmd.group,
                           mode="destroy", aids=cmd.aids, privilege=cmd.privilege,
                           whispering=True)
    return open_attack(cards, state, attack, events)


def _espionage(cards: CardSet, state: GameState, cmd: PlaySpecial) -> Result:
    names = {x.name for x in state.players}
    if cmd.other in names:
        seen = state.player(cmd.other)
        told = ev.Espionage(player=cmd.player, looked_at=cmd.other, hand=seen.hand,
                            visible_to=(cmd.player,))
    else:
        owner = state.owner(cmd.other)
        slot = owner.slot(cmd.other) if owner else None
        told = ev.Espionage(player=cmd.player, looked_at=cmd.other,
                            treasury=slot.treasury if slot else 0, visible_to=(cmd.player,))
    return state, [told]


def _deep_agent(cards: CardSet, state: GameState, cmd: PlaySpecial) -> Result:
    if state.attack is None or not state.attack.privileged:
        return state, [ev.SpecialNoEffect(player=cmd.player, card=cmd.card)]
    return abolish_privilege(state, cmd.player, (cmd.card,))


def _interference(cards: CardSet, state: GameState, cmd: PlaySpecial) -> Result:
    if state.attack is None:
        return state, [ev.SpecialNoEffect(player=cmd.player, card=cmd.card)]
    attack = evolve(state.attack,
                     interference_cards=(*state.attack.interference_cards, cmd.player))
    return evolve(state, attack=attack), [ev.InterferenceCard(player=cmd.player)]


def _market(cards: CardSet, state: GameState, cmd: PlaySpecial) -> Result:
    state = evolve(state, turn=evolve(state.turn, market_manipulation=True))
    return state, [ev.MarketManipulation(player=cmd.player)]


def _media(cards: CardSet, state: GameState, cmd: PlaySpecial) -> Result:
    if cmd.group not in state.dead:
        return state, [ev.SpecialNoEffect(player=cmd.player, card=cmd.card)]
    dead = list(state.dead)
    dead.remove(cmd.group)
    state = evolve(state, dead=tuple(dead), uncontrolled=(*state.uncontrolled, cmd.group))
    return state, [ev.Revived(player=cmd.player, group=cmd.group)]


def _senate(cards: CardSet, state: GameState, cmd: PlaySpecial) -> Result:
    state = evolve(state, turn=evolve(state.turn, lost=True))
    return state, [ev.Senate(player=cmd.player, victim=state.active_player.name)]


def _money(cards: CardSet, state: GameState, cmd: PlaySpecial) -> Result:
    amount = money(cards.special(cmd.card))
    p = state.player(cmd.player)
    state = earn(state, p.name, p.illuminati, amount)
    return state, [ev.MoneyCard(player=p.name, card=cmd.card, amount=amount)]


def _white_collar(cards: CardSet, state: GameState, cmd: PlaySpecial) -> Result:
    p = state.player(cmd.player)
    events: list[Event] = []
    for source, dest, amount in cmd.moves:
        if p.slot(source) is None or p.slot(dest) is None:
            continue
        amount = min(amount, state.player(p.name).slot(source).treasury)  # type: ignore[union-attr]
        if amount > 0 and source != dest:
            state = move_money(state, p.name, source, dest, amount)
            events.append(ev.Transfer(player=p.name, source=source, to=dest, amount=amount))
    bonus_to = cmd.bonus_to if p.slot(cmd.bonus_to) is not None else p.illuminati
    state = earn(state, p.name, bonus_to, WHITE_COLLAR_BONUS)
    events.append(ev.MoneyCard(player=p.name, card=cmd.card, to=bonus_to,
                               amount=WHITE_COLLAR_BONUS))
    return state, events


EFFECTS: dict[str, Effect] = {
    "assassination": _roll_becomes(ASSASSINATION_ROLL),
    "murphys_law": _roll_becomes(MURPHY_ROLL),
    "bribery": _bribery,
    "whispering_campaign": _whispering,
    "computer_espionage": _espionage,
    "deep_agent": _deep_agent,
    "interference": _interference,
    "market_manipulation": _market,
    "media_campaign": _media,
    "senate_investigating_committee": _senate,
    "slush_fund": _money,
    "swiss_bank_account": _money,
    "white_collar_crime": _white_collar,
}
