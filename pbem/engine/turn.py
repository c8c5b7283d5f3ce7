"""The turn without attacks: income, draw, money, moving, dropping, giving, passing, the end."""

from __future__ import annotations

from pbem.engine import checks
from pbem.engine.abilities import OPPOSITES, abilities, alignments, has_special
from pbem.engine.cards import CardSet, Group, Special
from pbem.engine.commands import (
    AcceptGroup,
    BeginTurn,
    DeclineGroup,
    DropGroup,
    EndPowers,
    EndTurn,
    GiveCard,
    GiveMoney,
    LeaveGame,
    MoveGroup,
    OfferGroup,
    Pass,
    TransferMoney,
    UseLasers,
    UseRecyclers,
)
from pbem.engine.ops import earn, move_money, pay, release, release_group, treasury, update_player
from pbem.engine.state import Event, GameState, GroupOffer, Player, PlayerStatus, TurnState
from pbem.engine.structure import (
    DIRECTION_NAMES,
    attach,
    open_arrows,
    remove,
    subtree,
)
from pbem.engine.values import evolve
from pbem.engine.victory import progress, victory_allowed, winners
from pbem.errors import IllegalCommandError

PASS_INCOME = 5
IRS_TAX = 2
RECYCLERS_COST = 5
Result = tuple[GameState, list[Event]]


# --- start of turn -------------------------------------------------------------------------


def begin_turn(cards: CardSet, state: GameState, cmd: BeginTurn) -> Result:
    """Income, then the card draw; or the whole turn lost to the Senate."""
    checks.phase(state, "turn_start")
    player = state.active_player
    state = update_player(state, player.name, turns=player.turns + 1)
    state = evolve(state, turn_number=state.turn_number + 1)
    events = [Event("turn_begins", {"player": player.name, "turn": state.turn_number})]
    if state.turn.lost:
        # The Senate Investigating Committee: no income, no draw, no actions; the lost turn
        # still counts as one of the player's turns (elimination, the first victory).
        events.append(Event("turn_lost", {"player": player.name}))
        state, more = end_of_turn(cards, state)
        return state, events + more
    state, more = _income(cards, state, player.name)
    events += more
    draws = abilities(cards, player.illuminati).draws
    for _ in range(draws):
        state, more = draw_card(cards, state, player.name)
        events += more
    return evolve(state, phase="actions"), events


def _income(cards: CardSet, state: GameState, name: str) -> Result:
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
            events.append(Event("income", {"player": name, "card": slot.card, "amount": income}))
    irs = has_special(cards, state.player(name), "irs")
    if irs is not None:
        for other in state.players:
            if other.name == name or not other.playing:
                continue
            state, amount = _tax(state, other.name, name, irs)
            events.append(Event("irs_tax", {"player": other.name, "to": name, "amount": amount}))
    # The Post Office's cost comes last, once its master has collected (the I.R.S.'s tax is
    # its income), so a master with income pays it before the Illuminati must.
    post_office = has_special(cards, state.player(name), "post_office")
    if post_office is not None:
        state, paid_by = _post_office_cost(state, name, post_office)
        events.append(Event("post_office", {"player": name, "paid_by": paid_by}))
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
        return state, [Event("deck_empty", {"player": name})]
    top, rest = state.deck[0], state.deck[1:]
    state = evolve(state, deck=rest)
    if isinstance(cards.card(top), Special):
        p = state.player(name)
        state = state.with_player(evolve(p, hand=(*p.hand, top)))
        return state, [
            Event("drew_special", {"player": name, "card": top}, visible_to=(name,)),
            Event("drew_special_count", {"player": name}),
        ]
    state = evolve(state, uncontrolled=(*state.uncontrolled, top))
    return state, [Event("drew_group", {"player": name, "card": top})]


# --- money -----------------------------------------------------------------------------------


def transfer_money(cards: CardSet, state: GameState, cmd: TransferMoney) -> Result:
    """Money between two groups: adjacent (or anywhere with the Federal Reserve or the Gnomes'
    end-of-turn power); two free transfers a turn, more as regular actions."""
    checks.phase(state, "actions")
    p = checks.active(state, cmd.player)
    checks.owns(p, cmd.source)
    checks.owns(p, cmd.dest)
    if cmd.source == cmd.dest:
        raise IllegalCommandError("money must go to another card")
    gnomes = state.turn.end_powers and "gnomes_money" in abilities(cards, p.illuminati).special
    anywhere = gnomes or "federal_reserve" in abilities(cards, cmd.source).special
    if not anywhere and not _adjacent(p, cmd.source, cmd.dest):
        raise IllegalCommandError(
            f"{cmd.source} and {cmd.dest} are not adjacent (master and puppet)",
            suggestion="move money one step at a time",
        )
    turn = state.turn
    if gnomes:
        pass
    elif turn.end_powers:
        raise IllegalCommandError("no transfers are left after the end-of-turn powers")
    elif turn.free_transfers < checks.FREE_TRANSFERS:
        turn = evolve(turn, free_transfers=turn.free_transfers + 1)
    else:
        checks.action_left(state, cmd.player)
        turn = evolve(turn, actions=turn.actions + 1)
    state = move_money(state, p.name, cmd.source, cmd.dest, cmd.amount)
    state = evolve(state, turn=evolve(turn, did_anything=True))
    return state, [Event("transfer", {"player": p.name, "from": cmd.source, "to": cmd.dest,
                                      "amount": cmd.amount})]


def _adjacent(player: Player, a: str, b: str) -> bool:
    sa, sb = player.slot(a), player.slot(b)
    return sa is not None and sb is not None and (sa.master == b or sb.master == a)


def give_money(cards: CardSet, state: GameState, cmd: GiveMoney) -> Result:
    """Money from one Illuminati treasury to another's, at any time but a privileged attack."""
    giver = checks.playing(state, cmd.player)
    receiver = checks.playing(state, cmd.to)
    _no_privileged_attack(state)
    if giver.name == receiver.name:
        raise IllegalCommandError("you cannot give money to yourself")
    if cmd.amount <= 0:
        raise IllegalCommandError("an amount of money must be at least 1 MB")
    state = pay(state, giver.name, giver.illuminati, cmd.amount)
    state = earn(state, receiver.name, receiver.illuminati, cmd.amount)
    state = _mark_free_action(state, cmd.player)
    return state, [Event("gift_money", {"player": giver.name, "to": receiver.name,
                                        "amount": cmd.amount})]


def give_card(cards: CardSet, state: GameState, cmd: GiveCard) -> Result:
    giver = checks.playing(state, cmd.player)
    receiver = checks.playing(state, cmd.to)
    _no_privileged_attack(state)
    if cmd.card not in giver.hand:
        raise IllegalCommandError(f"{giver.name} does not hold {cmd.card}")
    if giver.hand.count(cmd.card) <= pending_copies(state, giver.name, cmd.card):
        raise IllegalCommandError(f"{cmd.card} was just played and waits for an answer",
                                  suggestion="give it away after it is resolved, if ever")
    hand = list(giver.hand)
    hand.remove(cmd.card)
    state = update_player(state, giver.name, hand=tuple(hand))
    state = update_player(state, receiver.name, hand=(*receiver.hand, cmd.card))
    state = _mark_free_action(state, cmd.player)
    return state, [
        Event("gift_card", {"player": giver.name, "to": receiver.name, "card": cmd.card},
              visible_to=(giver.name, receiver.name)),
        Event("gift_card_count", {"player": giver.name, "to": receiver.name}),
    ]


def pending_copies(state: GameState, player: str, card: str) -> int:
    """How many copies of ``card`` in ``player``'s hand were just played and still wait for
    an answer (they stay in the hand until then)."""
    pending = state.special
    if pending is None or pending.player != player:
        return 0
    return (pending.card, pending.partner).count(card)


def _no_privileged_attack(state: GameState) -> None:
    if state.attack is not None and state.attack.privileged:
        raise IllegalCommandError("no money or special cards may change hands during a "
                                  "privileged attack")


def _mark_free_action(state: GameState, player: str) -> GameState:
    if state.phase in ("actions", "attack", "after_roll") and state.active_player.name == player:
        return evolve(state, turn=evolve(state.turn, did_anything=True))
    return state


# --- groups ----------------------------------------------------------------------------------


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
        raise IllegalCommandError("the Illuminati card cannot be moved")
    moving = subtree(p, cmd.group)
    if cmd.master in {s.card for s in moving}:
        raise IllegalCommandError(f"{cmd.group} cannot hang from itself or its own puppets")
    rest = remove(p, (s.card for s in moving))
    if cmd.arrow not in open_arrows(cards, rest, cmd.master):
        raise IllegalCommandError(
            f"{cmd.master} has no open outgoing arrow on its {_arrow_name(cmd.arrow)}",
            suggestion=_open_arrow_hint(cards, rest, cmd.master),
        )
    placed, lost = attach(cards, rest, cmd.master, cmd.arrow, moving)
    state = state.with_player(placed)
    if lost:
        state = state.with_player(evolve(placed, structure=(*placed.structure, *lost)))
        state = release(state, p.name, lost)
    turn = state.turn if bermuda else evolve(state.turn, actions=state.turn.actions + 1)
    state = evolve(state, turn=evolve(turn, did_anything=True))
    return state, [Event("move", {"player": p.name, "group": cmd.group, "master": cmd.master,
                                  "arrow": cmd.arrow, "lost": tuple(s.card for s in lost)})]


def _arrow_name(arrow: int) -> str:
    return DIRECTION_NAMES[arrow] if 0 <= arrow < 4 else f"arrow {arrow}"


def _open_arrow_hint(cards: CardSet, player: Player, card: str) -> str:
    arrows = open_arrows(cards, player, card)
    if not arrows:
        return f"{card} has no open outgoing arrow"
    return "open arrows: " + ", ".join(DIRECTION_NAMES[a] for a in arrows)


def drop_group(cards: CardSet, state: GameState, cmd: DropGroup) -> Result:
    """A free action: the group and its puppets go back to the uncontrolled area."""
    checks.phase(state, "actions")
    p = checks.active(state, cmd.player)
    checks.owns(p, cmd.group)
    if cmd.group == p.illuminati:
        raise IllegalCommandError("the Illuminati card cannot be dropped")
    offer = state.offer
    if offer is not None and offer.giver == p.name and offer.group in {
        s.card for s in subtree(p, cmd.group)
    }:
        raise IllegalCommandError(f"{offer.group} is offered to {offer.receiver}",
                                  suggestion="wait for the answer to the offer")
    state, released = release_group(state, p.name, cmd.group)
    state = evolve(state, turn=evolve(state.turn, did_anything=True))
    return state, [Event("drop", {"player": p.name, "groups": tuple(released)})]


def offer_group(cards: CardSet, state: GameState, cmd: OfferGroup) -> Result:
    """Give a group away; it must be the turn of one of the two players, and it costs the
    active player an action when accepted."""
    checks.phase(state, "actions")
    giver = checks.playing(state, cmd.player)
    receiver = checks.playing(state, cmd.to)
    if state.active_player.name not in (giver.name, receiver.name):
        raise IllegalCommandError("groups change hands only on the turn of one of the players")
    checks.action_left(state, state.active_player.name)
    checks.owns(giver, cmd.group)
    if cmd.group == giver.illuminati or giver.name == receiver.name:
        raise IllegalCommandError(f"{cmd.group} cannot be given to {receiver.name}")
    state = evolve(state, offer=GroupOffer(giver=giver.name, receiver=receiver.name,
                                            group=cmd.group))
    return state, [Event("offer", {"player": giver.name, "to": receiver.name,
                                   "group": cmd.group})]


def accept_group(cards: CardSet, state: GameState, cmd: AcceptGroup) -> Result:
    offer = state.offer
    if offer is None or offer.receiver != cmd.player:
        raise IllegalCommandError(f"no group is being offered to {cmd.player}")
    giver = state.player(offer.giver)
    receiver = state.player(offer.receiver)
    master, arrow = cmd.master, cmd.arrow
    if not master:
        master, arrow = _first_open_arrow(cards, receiver)
        if not master:
            raise IllegalCommandError(f"{receiver.name} has no open outgoing arrow",
                                      suggestion="decline the group")
    checks.owns(receiver, master)
    if giver.slot(offer.group) is None:
        raise IllegalCommandError(f"{giver.name} no longer controls {offer.group}",
                                  suggestion="decline the offer")
    if arrow not in open_arrows(cards, receiver, master):
        raise IllegalCommandError(f"{master} has no open outgoing arrow on its "
                                  f"{_arrow_name(arrow)}",
                                  suggestion=_open_arrow_hint(cards, receiver, master))
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
                                        "group": offer.group,
                                        "lost": tuple(s.card for s in lost)})]


def decline_group(cards: CardSet, state: GameState, cmd: DeclineGroup) -> Result:
    offer = state.offer
    if offer is None or cmd.player not in (offer.receiver, offer.giver):
        raise IllegalCommandError(f"no group is being offered to {cmd.player}")
    return evolve(state, offer=None), [
        Event("offer_declined", {"player": offer.receiver, "group": offer.group})
    ]


def _first_open_arrow(cards: CardSet, player: Player) -> tuple[str, int]:
    for slot in player.structure:
        arrows = open_arrows(cards, player, slot.card)
        if arrows:
            return slot.card, arrows[0]
    return "", -1


# --- abilities used on the turn -------------------------------------------------------------


def use_lasers(cards: CardSet, state: GameState, cmd: UseLasers) -> Result:
    """Orbital Mind Control Lasers: once a turn, one alignment of one other group changes
    until the end of the turn."""
    checks.phase(state, "actions")
    p = checks.active(state, cmd.player)
    lasers = [c for c in (s.card for s in p.structure)
              if "orbital_mind_control_lasers" in abilities(cards, c).special]
    if not lasers or state.turn.lasers_used or state.turn.end_powers:
        raise IllegalCommandError(f"{p.name} cannot use the Orbital Mind Control Lasers now")
    target = cards.card(cmd.group) if cmd.group in cards.names() else None
    if not isinstance(target, Group) or cmd.group == lasers[0]:
        raise IllegalCommandError(f"the Lasers can change only another group, not {cmd.group}")
    if cmd.group not in state.uncontrolled and state.owner(cmd.group) is None:
        raise IllegalCommandError(f"{cmd.group} is not in play")
    current = list(alignments(cards, state, cmd.group))
    if cmd.change == "add":
        if cmd.alignment in current:
            raise IllegalCommandError(f"{cmd.group} is already {cmd.alignment}")
        current.append(cmd.alignment)
    elif cmd.change == "remove":
        if cmd.alignment not in current:
            raise IllegalCommandError(f"{cmd.group} is not {cmd.alignment}")
        current.remove(cmd.alignment)
    else:
        if cmd.alignment not in current or cmd.alignment not in OPPOSITES:
            raise IllegalCommandError(f"{cmd.group} has no {cmd.alignment} alignment to reverse")
        current[current.index(cmd.alignment)] = OPPOSITES[cmd.alignment]  # type: ignore[call-overload]
    changes = tuple(c for c in state.turn.alignment_changes if c[0] != cmd.group)
    turn = evolve(state.turn, lasers_used=True, did_anything=True,
                   alignment_changes=(*changes, (cmd.group, tuple(current))))
    return evolve(state, turn=turn), [
        Event("lasers", {"player": p.name, "group": cmd.group, "change": cmd.change,
                         "alignment": cmd.alignment, "now": tuple(current)})
    ]


def use_recyclers(cards: CardSet, state: GameState, cmd: UseRecyclers) -> Result:
    """The Recyclers pay 5 MB from their own treasury to draw a card (once a turn)."""
    checks.phase(state, "actions")
    p = checks.active(state, cmd.player)
    recyclers = has_special(cards, p, "recyclers")
    if recyclers is None or state.turn.recyclers_used or state.turn.end_powers:
        raise IllegalCommandError(f"{p.name} cannot use the Recyclers now")
    state = pay(state, p.name, recyclers, RECYCLERS_COST)
    state = evolve(state, turn=evolve(state.turn, recyclers_used=True, did_anything=True))
    state, events = draw_card(cards, state, p.name)
    return state, [Event("recyclers", {"player": p.name}), *events]


def end_powers(cards: CardSet, state: GameState, cmd: EndPowers) -> Result:
    checks.phase(state, "actions")
    p = checks.active(state, cmd.player)
    special = abilities(cards, p.illuminati).special
    if not ({"gnomes_money", "bermuda_reorganize"} & set(special)):
        raise IllegalCommandError(f"{p.illuminati} have no end-of-turn power")
    if state.offer is not None:
        raise IllegalCommandError("the offered group must be answered first")
    state = evolve(state, turn=evolve(state.turn, end_powers=True, did_anything=True))
    return state, [Event("end_powers", {"player": p.name})]


# --- passing and the end of the turn --------------------------------------------------------


def pass_turn(cards: CardSet, state: GameState, cmd: Pass) -> Result:
    """No actions of any sort: collect 5 MB, and the turn ends."""
    checks.phase(state, "actions")
    p = checks.active(state, cmd.player)
    if state.turn.did_anything:
        raise IllegalCommandError("you can pass only before doing anything else this turn",
                                  suggestion="end your turn instead")
    state = earn(state, p.name, p.illuminati, PASS_INCOME)
    events = [Event("pass", {"player": p.name, "amount": PASS_INCOME})]
    state, more = end_of_turn(cards, state)
    return state, events + more


def end_turn(cards: CardSet, state: GameState, cmd: EndTurn) -> Result:
    checks.phase(state, "actions")
    p = checks.active(state, cmd.player)
    if state.offer is not None:
        state = evolve(state, offer=None)
    return end_of_turn(cards, evolve(state, phase="actions"), [Event("end_turn",
                                                                      {"player": p.name})])


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
        events.append(Event("refill", {"card": top}))
    if victory_allowed(state):
        won = winners(cards, state)
        if won:
            state = evolve(state, phase="over", winners=won, outcome="victory",
                            turn=TurnState())
            return state, [*events, Event("victory", {"winners": won})]
    if state.options.max_turns and state.turn_number >= state.options.max_turns:
        state = evolve(state, phase="over", outcome="turn cap", turn=TurnState())
        return state, [*events, Event("turn_cap", {"turns": state.turn_number})]
    return next_player(state, events)


def next_player(state: GameState, events: list[Event]) -> Result:
    n = len(state.players)
    for step in range(1, n + 1):
        i = (state.active + step) % n
        if state.players[i].playing:
            state = evolve(state, active=i, phase="turn_start", turn=TurnState(), offer=None)
            return state, [*events, Event("next_player", {"player": state.players[i].name})]
    state = evolve(state, phase="over", outcome="no players", turn=TurnState())
    return state, [*events, Event("no_players", {})]


def leave_game(cards: CardSet, state: GameState, cmd: LeaveGame) -> Result:
    """A player drops out: groups uncontrolled, money to the bank, Illuminati out of play."""
    p = checks.playing(state, cmd.player)
    if state.attack is not None or state.special is not None:
        raise IllegalCommandError("a player can leave only between attacks")
    return remove_player(cards, state, p, "left")


def remove_player(cards: CardSet, state: GameState, p: Player, status: PlayerStatus) -> Result:
    """The player leaves play (eliminated or left): their groups and money go."""
    was_active = state.active_player.name == p.name
    # Groups and money go; special cards still held stay in the hand, out of play with the
    # player (the rules say nothing of them).
    state = release(state, p.name, p.structure[1:])
    illuminati_money = state.player(p.name).treasury
    state = pay(state, p.name, p.illuminati, illuminati_money)
    state = update_player(state, p.name, status=status)
    events = [Event("eliminated" if status == "eliminated" else "left",
                    {"player": p.name, "groups": p.groups})]
    if was_active and state.phase != "over":
        return end_of_turn(cards, evolve(state, attack=None, offer=None), events)
    if sum(1 for x in state.players if x.playing) == 0:
        return evolve(state, phase="over", outcome="no players"), events
    return state, events


def check_eliminations(cards: CardSet, state: GameState) -> Result:
    """Eliminate every player who, after their third turn, controls no group."""
    events: list[Event] = []
    for p in state.players:
        completed = p.turns - (1 if state.active_player.name == p.name
                               and state.phase != "turn_start" else 0)
        if not p.playing or completed < 3 or p.groups:
            continue
        # The Servants of Cthulhu who reach their goal by destroying their own last group win.
        if any(g.met for g in progress(cards, state, p)) and victory_allowed(state):
            continue
        state, more = remove_player(cards, state, state.player(p.name), "eliminated")
        events += more
    return state, events
