"""What each order of a mail does, given who sent it and where the game stands."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from pbem.engine import behaviour
from pbem.engine import events as ev
from pbem.engine.attack import validate_attack
from pbem.engine.bidding import Stance
from pbem.engine.breakdown import breakdown, success_chance
from pbem.engine.commands import (
    AbolishPrivilege,
    AcceptDeal,
    AcceptGroup,
    CallOff,
    ChooseGoal,
    Counter,
    DeclineDeal,
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
    PlaySpecial,
    ProposeDeal,
    TransferMoney,
    UseLasers,
    UseRecyclers,
    VoteEnd,
    WithdrawDeal,
    WithdrawOffer,
    WithdrawVote,
)
from pbem.engine.events import (
    DealEnded,
    DealFailed,
    DealMade,
    DealProposed,
    EndVoted,
    EndVoteWithdrawn,
    Event,
)
from pbem.engine.privilege import check_abolish
from pbem.engine.state import PendingAttack, Player
from pbem.engine.victory import chooses_goal, goal_choice_open
from pbem.errors import IllegalCommandError
from pbem.orders.format import format_order
from pbem.orders.line import ORDER_FORMS
from pbem.orders.model import (
    ORDER_TYPES,
    AttackOrder,
    CancelAbsence,
    ConditionalPlay,
    DefendOrder,
    Help,
    History,
    InterfereOrder,
    Located,
    NoResponse,
    Odds,
    Order,
    Press,
    SetAbsence,
    SetHtml,
    SetJson,
    SetLanguage,
    SetMail,
    SetReport,
    SetTimezone,
    StandingAttackReaction,
    StandingClear,
    StandingCounter,
    StandingDefend,
    StandingList,
    StandingNeverInterfere,
    StandingTurnReaction,
    Status,
    check_table,
    nature_of,
)
from pbem.reports.languages import LANGUAGES
from pbem.reports.refusals import worded
from pbem.service import absences
from pbem.service.deadlines import end_overdue_turn
from pbem.service.model import Answer, Queued
from pbem.service.notices import (
    AttackCalledOff,
    GmAlert,
    GoalDealt,
    HelpReply,
    HistoryReply,
    OddsReply,
    PlayerOut,
    PressRelay,
    StandingOrders,
    StatusReport,
    TurnReport,
)
from pbem.service.observers import tell_observers
from pbem.service.offers import answer_offer, offered, tell_offer_ended
from pbem.service.order_refusals import refused
from pbem.service.table import Table
from pbem.service.waiting import check_waiting

ANY_TIME = ("any_time",)
WINDOW_TIMINGS = ("after_privilege", "privileged_attack")


Note = tuple[str, dict[str, object]]  # a note's template key and its values
NO_NOTE: Note = ("", {})


def is_move(order: Order) -> bool:
    """True for an order that acts on the game position (an action or an answer)."""
    return not nature_of(order).free


def is_answer(table: Table, order: Order) -> bool:
    """True for an order that answers the open attack window."""
    if nature_of(order).window:
        return True
    return isinstance(order, PlaySpecial) and table.service.window is not None and (
        _timing(table, order) in WINDOW_TIMINGS)


def carry_out(table: Table, player: str, located: Located) -> Note:
    """Do (or queue, or record) one order of ``player``; gives a note for the acknowledgement
    (key "" when the paraphrase says it all). Raises a PbemError when the order is refused."""
    order = located.order
    seat = table.state.player(player)
    if not seat.playing and not nature_of(order).out_of_game:
        raise refused("out_of_game", status=seat.status)
    if is_answer(table, order):
        table.answer(_answer(table, player, order))
        return _privileged_note(table, player, order)
    return CARRY_OUT[type(order)](table, player, located)


def _set_language(table: Table, player: str, located: Located) -> Note:
    """SET LANGUAGE: a language the package has words for (docs/orders.md)."""
    assert isinstance(located.order, SetLanguage)
    wanted = located.order.language.replace("-", "_").casefold()
    known = {lang.casefold(): lang for lang in LANGUAGES}  # its catalogue's spelling: pt_BR
    if wanted not in known:
        raise refused("language_unknown", language=located.order.language)
    located = replace(located, order=SetLanguage(known[wanted]))
    return _setting(table, player, located)


def _setting(table: Table, player: str, located: Located) -> Note:
    order = located.order
    seat = table.service.seat(player)
    setting, value = SETTINGS[type(order)]
    seat = replace(seat, **{setting: getattr(order, value)})
    seats = tuple(seat if s.name == player else s for s in table.service.seats)
    table.service = replace(table.service, seats=seats)
    return NO_NOTE


# Each setting order: the seat's field it sets, and the order's field that holds the value.
SETTINGS: dict[type[Order], tuple[str, str]] = {
    SetTimezone: ("tz", "zone"), SetLanguage: ("lang", "language"), SetHtml: ("html", "enabled"),
    SetJson: ("json", "enabled"), SetMail: ("mail", "mode"), SetReport: ("report", "mode"),
}


def _press_order(table: Table, player: str, located: Located) -> Note:
    assert isinstance(located.order, Press)
    _press(table, player, located.order)
    return NO_NOTE


def _status(table: Table, player: str, located: Located) -> Note:
    table.notify(StatusReport(player))
    return NO_NOTE


def _history(table: Table, player: str, located: Located) -> Note:
    assert isinstance(located.order, History)
    table.notify(HistoryReply(player, located.order.turns))
    return NO_NOTE


def _help(table: Table, player: str, located: Located) -> Note:
    assert isinstance(located.order, Help)
    topic = located.order.topic
    table.notify(HelpReply(player, topic, _forms_about(topic)))
    return NO_NOTE


def _odds_order(table: Table, player: str, located: Located) -> Note:
    """The odds answered now; behind the writer's own attack (or other orders waiting), in
    its own mail once what was written before it has run: lines run in the order written,
    so the odds are those of the position the attack leaves."""
    assert isinstance(located.order, Odds)
    if table.waits_for_earlier(player):
        table.queue(Queued(located.line, located.text, located.order))
        return ("queued_odds", {})
    return _odds(table, player, located.order)


def _standing(table: Table, player: str, located: Located) -> Note:
    assert isinstance(located.order, StandingDefend | StandingNeverInterfere
                      | StandingAttackReaction | StandingTurnReaction | StandingCounter)
    table.service = replace(table.service,
                            standing=(*table.service.standing, (player, located.order)))
    _standing_answers_now(table, player)
    return NO_NOTE


def _standing_list(table: Table, player: str, located: Located) -> Note:
    table.notify(StandingOrders(player))
    return NO_NOTE


def _standing_clear(table: Table, player: str, located: Located) -> Note:
    assert isinstance(located.order, StandingClear)
    _clear_standing(table, player, located.order.number)
    return NO_NOTE


def _offer_answer(table: Table, player: str, located: Located) -> Note:
    assert isinstance(located.order, AcceptGroup | DeclineGroup | WithdrawOffer)
    answer_offer(table, located.order)
    return NO_NOTE


def _leave(table: Table, player: str, located: Located) -> Note:
    assert isinstance(located.order, LeaveGame)
    tell_offer_ended(table, table.do(located.order))
    return NO_NOTE


def _gift(table: Table, player: str, located: Located) -> Note:
    """A gift is given at once, except by the active player behind their own attack (or
    other orders waiting): it waits its turn like a TRANSFER, lines running in the order
    written ("Each action must be completed before beginning another")."""
    assert isinstance(located.order, GiveMoney | GiveCard)
    if table.waits_for_earlier(player):
        check_waiting(table, player, located.order)
        table.queue(Queued(located.line, located.text, located.order))
        return queued_note(table)
    table.do(located.order)
    return NO_NOTE


def _deal_order(table: Table, player: str, located: Located) -> Note:
    """A deal (proposed, answered, withdrawn) or a vote to end the game: done at once,
    whoever is to act, but behind the writer's own orders waiting (their attack under way):
    lines run in the order written, and a deal waits while an attack may change the
    structures."""
    if table.waits_for_earlier(player):
        table.queue(Queued(located.line, located.text, located.order))
        return queued_note(table)
    _deal_now(table, player, located.order)
    return NO_NOTE


def _deal_now(table: Table, player: str, order: Order) -> None:
    """Do the deal order or the vote; the other side of a deal is told at once (a report
    with the news and the deals waiting), and so is everyone else of a vote: a report
    asks for their answer, as one asks the receiver of a group offered."""
    since = table.log_length
    events = table.do(order)  # type: ignore[arg-type]
    if table.state.phase == "over":
        return  # the game-over mails tell everyone
    told: set[str] = set()
    for e in events:
        if isinstance(e, DealProposed | DealMade | DealFailed | DealEnded):
            told |= {e.player, e.to}
        elif isinstance(e, EndVoted | EndVoteWithdrawn):
            told |= {p.name for p in table.state.players if p.playing}
    for name in sorted(told - {player}):
        table.notify(TurnReport(name, since))
    if any(isinstance(e, DealFailed) for e in events):
        table.notify(TurnReport(player, since))  # why nothing changed hands


def _choose_goal(table: Table, player: str, located: Located) -> Note:
    """The UFOs' secret goal, chosen whoever is to act: the choice waits for nothing."""
    assert isinstance(located.order, ChooseGoal)
    table.do(located.order)
    return NO_NOTE


def _call_off(table: Table, player: str, located: Located) -> Note:
    """Outside a window, an attack is called off as the active player's order."""
    if table.service.window is None:
        return _active(table, player, located)
    asked = table.service.window.asked
    target = table.state.attack.target if table.state.attack else ""
    table.call_off(player, located.order)  # type: ignore[arg-type]
    for name in asked:  # they were waiting to answer: nothing to answer any more
        table.notify(AttackCalledOff(name, player, target))
    return NO_NOTE


def _play(table: Table, player: str, located: Located) -> Note:
    """A special card played outside a window's answers: at once if it may be played at any
    time (and the player's own orders wait for nothing), refused if its moment is another's,
    else as the active player's order."""
    order = located.order
    assert isinstance(order, PlaySpecial)
    timing = _timing(table, order)
    if timing in ANY_TIME and not (table.state.active_player.name == player
                                   and (table.service.queue or table.service.window)):
        start = len(table.events)
        table.play_special(order)
        return _told_only(player, table.events[start:])
    if timing == "after_roll":
        raise refused("after_roll", card=order.card)
    if timing in ("turn_start", "own_income"):
        raise refused("turn_start_card", card=order.card)
    return _active(table, player, located)


def _forms_about(topic: str) -> tuple[str, ...]:
    """The written forms of the orders ``HELP <topic>`` asks about: those whose keywords
    start with the topic's words, or have its first word among them (``defend``: DEFEND
    and STANDING DEFEND)."""
    words = topic.split()
    return tuple(form for keywords, forms in ORDER_FORMS.items() if words and (
        keywords.split()[:len(words)] == words or words[0] in keywords.split())
        for form in forms)


def _standing_answers_now(table: Table, player: str) -> None:
    """A standing order given while the player is asked about an attack answers it, as it
    would had it been given before: "The window closes as soon as everyone asked has
    answered or holds a standing answer" (docs/service.md)."""
    window = table.service.window
    if window is None or player not in window.asked or window.answered(player):
        return
    answer = table.standing_answer(player)
    if answer is not None:
        table.answer(answer)


def _told_only(player: str, events: Sequence[Event]) -> Note:
    """What only ``player`` learnt from the order (what Computer Espionage revealed), for
    the acknowledgement: the key "seen" and those events, or no note."""
    mine = tuple(e for e in events if e.visible_to is not None and player in e.visible_to)
    return ("seen", {"events": mine}) if mine else NO_NOTE


def _press(table: Table, player: str, order: Press) -> None:
    """Relay press by name (white), or unsigned (grey, by the house rule ``press``): the
    mail never shows an address. Refused when the game has no press, or none while an
    attack waits for answers and the house rule ``press_in_attack`` forbids it."""
    house = table.service.house
    if house.press == "none":
        raise refused("no_press")
    if table.service.window is not None and not house.press_in_attack:
        raise refused("press_in_attack")
    names = {p.name.casefold(): p.name for p in table.state.players if not p.departed}
    if order.recipients:
        recipients = []
        for name in order.recipients:
            if name.casefold() not in names:
                raise refused("no_player", name=name)
            recipients.append(names[name.casefold()])
    else:
        recipients = [n for n in names.values() if n != player]
    recipients = list(dict.fromkeys(recipients))
    for name in recipients:
        table.notify(PressRelay(name, "" if house.press == "grey" else player, order.text,
                                not order.recipients,
                                tuple(n for n in recipients if n != name)))
    if not order.recipients:
        tell_observers(table, player, order.text)


def _timing(table: Table, order: PlaySpecial) -> str:
    return table.cards.special(order.card).timing


def _active(table: Table, player: str, located: Located) -> Note:
    """An order only the active player gives: done now, or queued behind an attack."""
    if table.state.phase == "over":
        raise refused("game_over")
    active = table.state.active_player.name
    if active != player:
        raise refused("not_your_turn", active=active)
    if not table.may_act_now(player):
        # Refused now what no attack can change, not acknowledged and refused later.
        check_waiting(table, player, located.order)
        table.queue(Queued(located.line, located.text, located.order))
        return queued_note(table)
    run_active(table, player, located.order)
    return NO_NOTE


def queued_note(table: Table) -> Note:
    """The acknowledgement's note of an order that waits: what it waits behind (the attack
    under way or waiting, or the answer to a group offer), and that the rules check it when
    it comes up (what they refuse then is told by mail)."""
    behind = "offer" if table.state.offer is not None and table.service.window is None else (
        "attack")
    return ("queued", {"behind": behind})


# What each kind of order does outside an attack window's answers: every order has its
# entry (checked below, at import). ``_active``: the active player's order.
CARRY_OUT: dict[type[Order], Callable[[Table, str, Located], Note]] = {
    SetTimezone: _setting, SetLanguage: _set_language, SetHtml: _setting, SetJson: _setting,
    SetMail: _setting, SetReport: _setting,
    SetAbsence: absences.add_absence, CancelAbsence: absences.cancel_absence,
    Press: _press_order, Status: _status, History: _history, Help: _help, Odds: _odds_order,
    StandingDefend: _standing, StandingNeverInterfere: _standing,
    StandingAttackReaction: _standing, StandingTurnReaction: _standing,
    StandingCounter: _standing,
    StandingList: _standing_list, StandingClear: _standing_clear,
    AcceptGroup: _offer_answer, DeclineGroup: _offer_answer, WithdrawOffer: _offer_answer,
    LeaveGame: _leave, ChooseGoal: _choose_goal, GiveMoney: _gift, GiveCard: _gift,
    CallOff: _call_off, PlaySpecial: _play,
    ProposeDeal: _deal_order, AcceptDeal: _deal_order, DeclineDeal: _deal_order,
    WithdrawDeal: _deal_order, VoteEnd: _deal_order, WithdrawVote: _deal_order,
    AttackOrder: _active, TransferMoney: _active, MoveGroup: _active, DropGroup: _active,
    OfferGroup: _active, UseLasers: _active, UseRecyclers: _active, EndPowers: _active,
    Pass: _active, EndTurn: _active,
    # answers given with no window open (no attack to answer): the active player's order,
    # which the rules then refuse
    DefendOrder: _active, InterfereOrder: _active, ConditionalPlay: _active,
    NoResponse: _active, Counter: _active, AbolishPrivilege: _active,
}


def run_active(table: Table, player: str, order: Order) -> None:
    """Carry out one order of the active player now."""
    RUN_ACTIVE[type(order)](table, player, order)


def _attack(table: Table, player: str, order: Order) -> None:
    assert isinstance(order, AttackOrder)
    p = table.state.player(player)
    sources = attack_sources(p, order)
    _check_attack_money(table, p, sources[:1] if order.spend_from else sources, order)
    stance = Stance(player, "attack", order.spend, order.spend + order.upto, sources)
    table.announce(order.attack, stance)


def _play_now(table: Table, player: str, order: Order) -> None:
    assert isinstance(order, PlaySpecial)
    table.play_special(order)
    if table.state.attack is not None and table.service.window is None:
        table.open_window()  # Whispering Campaign: an attack others may answer


def _offer(table: Table, player: str, order: Order) -> None:
    assert isinstance(order, OfferGroup)
    since = table.log_length
    table.do(order)
    offered(table, since)


def _do(table: Table, player: str, order: Order) -> None:
    table.do(order)  # type: ignore[arg-type]


def _odds_later(table: Table, player: str, order: Order) -> None:
    """ODDS that waited behind an attack, answered by mail against the position now. When
    that attack cannot be made now, the mail says why; the lines after it still run."""
    assert isinstance(order, Odds)
    try:
        need, chance, terms = _odds_figures(table, player, order)
    except IllegalCommandError as exc:
        reason, _ = worded(exc, table.service.seat(player).lang)
        table.notify(OddsReply(player, format_order(order), reason=reason))
        return
    table.notify(OddsReply(player, format_order(order), need=need, chance=chance, terms=terms))


# How each order that may wait behind an attack runs when its turn comes: every order not
# free (``Nature.free``), and ODDS, which waits behind the writer's own attack. ``_do``: one
# engine command. Checked at import.
RUN_ACTIVE: dict[type[Order], Callable[[Table, str, Order], None]] = {
    AttackOrder: _attack, PlaySpecial: _play_now, OfferGroup: _offer, Odds: _odds_later,
    TransferMoney: _do, MoveGroup: _do, DropGroup: _do, GiveMoney: _do, GiveCard: _do,
    UseLasers: _do, UseRecyclers: _do, EndPowers: _do, Pass: _do, EndTurn: _do,
    CallOff: _do, LeaveGame: _do, AcceptGroup: _do, DeclineGroup: _do, WithdrawOffer: _do,
    DefendOrder: _do, InterfereOrder: _do, ConditionalPlay: _do, NoResponse: _do,
    Counter: _do, AbolishPrivilege: _do,
    ProposeDeal: _deal_now, AcceptDeal: _deal_now, DeclineDeal: _deal_now,
    WithdrawDeal: _deal_now, VoteEnd: _deal_now, WithdrawVote: _deal_now,
}


def advance(table: Table) -> None:
    """Carry the game forward as far as it goes without anyone's answer: windows everyone
    answered are settled, turns begin, orders waiting behind an attack go on."""
    while True:
        service = table.service
        if table.state.phase == "over" or service.paused or not service.started:
            break
        if service.window is not None:
            if service.window.complete and service.timing.close_early:
                table.close_window()
                continue
            break
        if table.state.phase == "turn_start":
            table.start_turn()
            absences.turn_begun(table)
            continue
        if end_overdue_turn(table):
            continue
        if table.state.phase == "actions" and service.queue and table.state.offer is None:
            item, rest = service.queue[0], service.queue[1:]
            table.service = replace(service, queue=rest)
            active = table.state.active_player.name
            if not table.attempt(active, run_active, table, active, item.order,
                                 line=item.line, text=item.text, skipped=rest):
                # The lines after a refused one were written counting on it: none of them
                # runs (an END TURN among them would cost the turn), and the player is told
                # which, with the turn open until its deadline.
                table.service = replace(table.service, queue=())
            continue
        break
    if table.state.phase == "over" and table.service.reported < table.log_length:
        table.report()
    _tell_the_eliminated(table)
    _tell_the_game_master_one_is_left(table)
    _tell_the_goal_dealt(table)


def _tell_the_goal_dealt(table: Table) -> None:
    """The UFOs who let the time to choose their goal pass are told, once, that the goal
    dealt to them at random stands (not once the game is over: nothing stands any more)."""
    if table.state.phase == "over":
        return
    for p in table.state.players:
        if (p.playing and p.secret_goal and not p.goal_chosen
                and p.name not in table.service.goal_told
                and chooses_goal(table.cards, p) and not goal_choice_open(table.state, p)):
            table.notify(GoalDealt(p.name, p.secret_goal))
            table.service = replace(table.service,
                                    goal_told=(*table.service.goal_told, p.name))


def _tell_the_eliminated(table: Table) -> None:
    """A mail of their own for each player eliminated in this step: their reports go on, but
    they have no more orders to give."""
    told = {n.to for n in table.notices if isinstance(n, PlayerOut)}
    for e in table.step_events():
        name = e.player if isinstance(e, ev.Eliminated) else ""
        if name and name not in told:
            table.notify(PlayerOut(name))
            told.add(name)


def _tell_the_game_master_one_is_left(table: Table) -> None:
    """The rules end a game only when someone meets a goal, so a player left alone plays on
    until then: the game master is told once, when the last other player goes, and may end
    the game (``pbem end``)."""
    if table.state.phase == "over" or not any(
            isinstance(e, ev.Eliminated | ev.Left | ev.Removed) for e in table.step_events()):
        return
    playing = [p.name for p in table.state.players if p.playing]
    if len(playing) == 1 and not any(isinstance(n, GmAlert) and n.alone
                                     for n in table.notices):
        table.notify(GmAlert("", alone=playing[0]))


def _answer(table: Table, player: str, order: Order) -> Answer:
    attack = table.state.attack
    if attack is None or table.service.window is None:
        raise refused("no_window")
    return ANSWER[type(order)](table, table.state.player(player), attack, order)


def _defend(table: Table, p: Player, attack: PendingAttack, order: Order) -> Answer:
    assert isinstance(order, DefendOrder)
    owner = table.state.owner(attack.target)
    if owner is None or owner.name != p.name:
        raise refused("not_yours", target=attack.target)
    sources = defence_sources(p, attack.target, order)
    _check_defence(table, p, attack.target, sources[:1] if order.source else sources,
                   order.amount)
    return Answer(p.name, stance=Stance(p.name, "defense", order.amount,
                                        order.amount + order.upto, sources))


def _interfere(table: Table, p: Player, attack: PendingAttack, order: Order) -> Answer:
    assert isinstance(order, InterfereOrder)
    side = order.interfere.side
    amount = order.interfere.amount
    owner = table.state.owner(attack.target)
    if owner is not None and owner.name == p.name:
        # The defender defends; its ASSIST or INTERFERE would be refused at the roll.
        raise IllegalCommandError(key="sides_spend")
    if amount > p.treasury:
        raise refused("treasury_short", have=p.treasury, amount=amount,
                       side=side.upper())
    return Answer(p.name, stance=Stance(p.name, side, amount, amount + order.upto))


def _react(table: Table, p: Player, attack: PendingAttack, order: Order) -> Answer:
    assert isinstance(order, ConditionalPlay)
    if order.play.card not in p.hand:
        raise refused("not_held", card=order.play.card)
    return Answer(p.name, reactions=(order,))


def _abolish(table: Table, p: Player, attack: PendingAttack, order: Order) -> Answer:
    assert isinstance(order, AbolishPrivilege)
    check_abolish(table.state, order)
    return Answer(p.name, abolish=order.cards)


def _play_on(table: Table, p: Player, attack: PendingAttack, order: Order) -> Answer:
    assert isinstance(order, PlaySpecial)
    if order.card not in p.hand:
        raise refused("not_held", card=order.card)
    return Answer(p.name, plays=(order.card,))


def _counter(table: Table, p: Player, attack: PendingAttack, order: Order) -> Answer:
    if not behaviour.counter_in(table.cards, p.hand):
        raise refused("not_held", card=behaviour.counter_name(table.cards))
    return Answer(p.name, counter=True)


def _no_response(table: Table, p: Player, attack: PendingAttack, order: Order) -> Answer:
    return Answer(p.name)


# Each kind of answer to the attack window: checked, and made the player's answer.
ANSWER: dict[type[Order], Callable[[Table, Player, PendingAttack, Order], Answer]] = {
    DefendOrder: _defend, InterfereOrder: _interfere, ConditionalPlay: _react,
    AbolishPrivilege: _abolish, PlaySpecial: _play_on, Counter: _counter,
    NoResponse: _no_response,
}


def check_tables(kinds: Sequence[type] = ORDER_TYPES) -> None:
    """Raise ``NoSuchOrder`` when one of the dispatch tables has no entry for one of
    ``kinds`` (every order, by default) that it must route: run at import, so an order
    added without its entries stops the service from starting."""
    check_table(CARRY_OUT, "CARRY_OUT", kinds)
    check_table(RUN_ACTIVE, "RUN_ACTIVE",
                [k for k in kinds if not nature_of(k).free or k is Odds])
    check_table(ANSWER, "ANSWER", [k for k in kinds if nature_of(k).window])
    check_table(SETTINGS, "SETTINGS",
                [k for k in kinds if CARRY_OUT.get(k) in (_setting, _set_language)])


check_tables()


def _paying(first: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """The treasuries that pay, in order: the one the order names FROM (its SPEND comes
    from there), then the others the rules let pay, which its UPTO draws on when the first
    runs dry."""
    return tuple(dict.fromkeys((first, *allowed) if first else allowed))


def attack_sources(p: Player, order: AttackOrder) -> tuple[str, ...]:
    """Rulebook, "Spending Money To Attack": "Attacking money may be spent from both the
    attacking Group's treasury and the Illuminati treasury." """
    return _paying(order.spend_from, (order.attack.attacker, p.illuminati))


def defence_sources(p: Player, target: str, order: DefendOrder) -> tuple[str, ...]:
    """Rulebook, "Spending Money To Defend": "from the defending Group's treasury [...] or
    from his Illuminati treasury. Other Groups cannot participate." """
    return _paying(order.source, (target, p.illuminati))


def upto_reach(table: Table, player: str, order: Order) -> dict[str, Any] | None:
    """What the UPTO of an attack or a defence can draw on as the game stands: each
    treasury that may pay with what it holds now, in the order they pay, and how much is
    left for the UPTO once the money put in at once is paid; None for other orders."""
    p = table.state.player(player)
    if isinstance(order, AttackOrder) and order.upto:
        sources, now = attack_sources(p, order), order.spend
    elif (isinstance(order, DefendOrder) and order.upto and table.state.attack is not None):
        sources, now = defence_sources(p, table.state.attack.target, order), order.amount
    else:
        return None
    held = [(s, slot.treasury if (slot := p.slot(s)) else 0) for s in sources]
    left = max(0, sum(h for _, h in held) - now)
    return {"held": held, "upto": order.upto, "left": left}


def _check_defence(table: Table, p: Player, target: str, sources: tuple[str, ...],
                   amount: int) -> None:
    """Refuse a defence its sources cannot pay now: "the defender may counter an attack by
    spending some of his own money [...] from the defending Group's treasury [...] or from his
    Illuminati treasury. Other Groups cannot participate." """
    allowed = (target, p.illuminati)
    words: dict[str, Any] = {"target": target, "illuminati": p.illuminati, "amount": amount}
    for source in sources:
        if source not in allowed:
            raise refused("defence_source", text=source, **words)
    have = {s: (slot.treasury if (slot := p.slot(s)) else 0) for s in allowed}
    total = sum(have[s] for s in sources)
    if amount <= total:
        return
    if len(sources) == 1:
        other = p.illuminati if sources[0] == target else target
        raise refused("defence_short", text=sources[0], source=sources[0],
                       have=total, other=other, other_have=have[other], **words)
    raise refused("defence_short_both", have=total, **words)


def _check_attack_money(table: Table, p: Player, sources: tuple[str, ...],
                        order: AttackOrder) -> None:
    """Refuse an attack whose money put in at once its sources cannot pay now: "Attacking
    money may be spent from both the attacking Group's treasury and the Illuminati
    treasury." The suggestion is the same attack with what they hold."""
    have = sum(slot.treasury for s in sources if (slot := p.slot(s)) is not None)
    if order.spend <= have:
        return
    instead = replace(order, spend=have, spend_from=order.spend_from if have else "")
    raise refused("attack_short", sources=sources, have=have,
                   amount=order.spend, instead=format_order(instead))


def _privileged_note(table: Table, player: str, order: Order) -> Note:
    """Rulebook, "Interference": "No one can interfere either for or against a Privileged
    Attack": money offered to interfere or assist counts at the roll only if its player
    plays Interference or the privilege is abolished by then. The acknowledgement says so
    unless the player's own answer already sees to it."""
    attack, window = table.state.attack, table.service.window
    if not (isinstance(order, InterfereOrder) and attack is not None and attack.privileged
            and window is not None and player not in attack.interference_cards):
        return NO_NOTE
    mine = window.answer_of(player) or Answer(player)
    if mine.abolish or any(behaviour.against_privilege(card)
                           for card in behaviour.held(table.cards, mine.plays)):
        return NO_NOTE
    return ("privileged", {"card": behaviour.interference_name(table.cards)})


def _clear_standing(table: Table, player: str, number: int | None) -> None:
    mine = [i for i, (p, _) in enumerate(table.service.standing) if p == player]
    if number is not None and not 1 <= number <= len(mine):
        raise refused("no_standing", number=number)
    drop = set(mine) if number is None else {mine[number - 1]}
    kept = tuple(o for i, o in enumerate(table.service.standing) if i not in drop)
    table.service = replace(table.service, standing=kept)


Terms = tuple[tuple[str, str, int], ...]  # an attack's breakdown: (kind, source, amount)


def _odds(table: Table, player: str, order: Odds) -> Note:
    """The number the stated attack would need now, and how it is made up, for the
    acknowledgement."""
    need, chance, terms = _odds_figures(table, player, order)
    return ("odds", {"need": need, "chance": chance, "terms": terms})


def _odds_figures(table: Table, player: str, order: Odds) -> tuple[int, int, Terms]:
    """The roll the stated attack would need now, its chance in percent and its terms."""
    a = order.attack
    p = table.state.player(player)
    validate_attack(table.cards, table.state, p, a.attacker, a.target, a.mode, a.aids)
    pending = PendingAttack(player=player, attacker=a.attacker, target=a.target, mode=a.mode,
                            aids=a.aids)
    terms = [(t.kind, t.source, t.amount)
             for t in breakdown(table.cards, table.state, pending).terms]
    if order.spend:
        terms.append(("attacker_money", a.attacker, order.spend))
    need = sum(amount for _, _, amount in terms)
    return need, round(success_chance(need) * 100), tuple(terms)
