"""The ready-to-copy order lines the mails show, written by the order language itself.

Every line comes from ``pbem.orders.format_order`` on an order value, so what a mail
suggests is exactly what the parser reads back, quoting of names included.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from pbem.engine.bidding import ATTACKER_GOAL, DEFENDER_GOAL, defence_to_stop
from pbem.engine.cards import AttackMode
from pbem.engine.checks import ACTIONS_PER_TURN, FREE_TRANSFERS
from pbem.engine.commands import (
    AbolishPrivilege,
    AcceptGroup,
    Attack,
    CallOff,
    DeclineGroup,
    EndPowers,
    EndTurn,
    GiveMoney,
    Interfere,
    MoveGroup,
    Pass,
    PlaySpecial,
    TransferMoney,
)
from pbem.engine.odds import AttackOdds
from pbem.engine.structure import DIRECTION_NAMES
from pbem.engine.view import AttackView, CardView, PlayerView, View
from pbem.orders import (
    BLANKED_PASSWORD,
    AttackOrder,
    ConditionalPlay,
    DefendOrder,
    Header,
    InterfereOrder,
    NoResponse,
    format_order,
    format_orders,
)
from pbem.reports.context import Answers

PASSWORD_BLANK = "______"  # stands out as something to fill in, unlike the quoted "******"


@dataclass(frozen=True)
class OrderForm:
    """The start line (password to fill in), example lines, and the end line.

    ``end_of_turn`` is the order the reader's end-of-turn power makes free ("move",
    "transfer"; the card data's ``end_of_turn``) when the form is for their turn and the power
    may still be used: the examples then show END POWERS (unless ``powers_used``) and that
    order, and the templates say how the power works.
    """

    start: str
    examples: tuple[str, ...]
    end: str = "END"
    end_of_turn: str = ""
    powers_used: bool = False


@dataclass(frozen=True)
class ResponseLines:
    """Order lines answering one attack, for one player (empty where not allowed)."""

    spend: tuple[tuple[str, int, str], ...]  # (card, MB on it, line)
    # DEFEND 1 UPTO <more>: "" when 1 MB is all the defence can or need spend; when the
    # attack cannot succeed as it stands, DEFEND 0 UPTO <more> (see ``response_lines``)
    upto: str
    upto_more: int  # the UPTO of that line
    upto_need: int  # the roll needed once its money is spent, as the attack stands
    cannot_succeed: bool  # the roll needed is already below any roll of the dice
    assist: str
    interfere: str
    abolish: str
    call_off: str
    reactions: tuple[tuple[str, str], ...]  # (card, line)
    no_response: str


@dataclass(frozen=True)
class OfferLines:
    """Order lines answering a group offered to the reader."""

    accept: str  # "" when no arrow of the reader's is open to hang it from
    accept_at: str  # an ACCEPT naming an open arrow other than the first; "" if none
    decline: str


def start_line(game: str, player: str, seq: int) -> str:
    """The first line of an order mail, the password left blank to fill in."""
    first = format_orders(Header(game, player, "", seq), ()).splitlines()[0]
    return first.replace(f"PASSWORD {BLANKED_PASSWORD}", f"PASSWORD {PASSWORD_BLANK}")


def attack_line(player: str, odds: AttackOdds) -> str:
    return _attack_line(player, odds.attacker, odds.target, odds.mode, odds.aids)


@lru_cache(maxsize=1024)
def _attack_line(player: str, attacker: str, target: str, mode: AttackMode,
                 aids: tuple[str, ...]) -> str:
    # Kept: a report writes the line of each row of the odds table, its order form the first
    # again, and the next report of the position the same ones (formatting an order reads
    # each name back to see whether it needs quotes).
    attack = Attack(player, attacker, target, mode, aids=aids)
    return format_order(AttackOrder(attack))


def attack_lines(player: str, odds: Sequence[AttackOdds]) -> tuple[str, ...]:
    """The order line of each row of the odds table."""
    return tuple(attack_line(player, o) for o in odds)


def offer_lines(v: View, me: PlayerView) -> OfferLines | None:
    """The answers to the group offered to the reader, as lines to copy; None when no group
    waits for the reader's answer."""
    if v.offer is None or v.offer[1] != me.name:
        return None
    arrows = [(c.card, side) for c in me.structure for side in c.open_arrows]
    last = arrows[-1] if len(arrows) > 1 else None
    return OfferLines(
        accept=format_order(AcceptGroup(me.name)) if arrows else "",
        accept_at=format_order(AcceptGroup(me.name, last[0], DIRECTION_NAMES.index(last[1])))
        if last else "",
        decline=format_order(DeclineGroup(me.name)),
    )


def actions_left(v: View) -> int:
    """The regular actions the active player has left this turn: none once they wrote END
    POWERS ("no more actions", docs/orders.md), whatever they had used before."""
    return 0 if v.end_powers else max(0, ACTIONS_PER_TURN - v.actions_used)


def order_form(v: View, me: PlayerView, odds: Sequence[AttackOdds],
               end_of_turn: str = "") -> OrderForm:
    """The form closing a report: examples that fit the reader's position now.

    ``end_of_turn`` is the order the reader's Illuminati's end-of-turn power makes free
    (``Illuminati.end_of_turn``), "" if they have none."""
    examples: list[str] = []
    offer = offer_lines(v, me)
    power = ""
    if offer is not None:  # nothing else is possible until the reader answers
        examples += [line for line in (offer.accept, offer.accept_at, offer.decline) if line]
    elif v.viewer == v.active and v.phase in ("turn_start", "actions"):
        # With both regular actions used (an attack settled, say) or the end-of-turn powers
        # begun, no attack can follow, and a transfer only while a free one is left (or the
        # Gnomes' power makes it free).
        action_left = actions_left(v) > 0
        if odds and action_left:
            examples.append(attack_line(me.name, odds[0]))
        free_transfer = v.free_transfers_used < FREE_TRANSFERS and not v.end_powers
        if (len(me.structure) > 1 and end_of_turn != "transfer"
                and (action_left or free_transfer)):
            examples.append(format_order(TransferMoney(me.name, me.illuminati,
                                                       me.structure[1].card, 1)))
        if end_of_turn:
            power = end_of_turn
            if not v.end_powers:
                examples.append(format_order(EndPowers(me.name)))
            examples += end_of_turn_lines(me, end_of_turn)
        # Passing is only for a turn with nothing done yet; after that the turn is ended.
        examples.append(format_order(EndTurn(me.name) if v.did_anything else Pass(me.name)))
    else:
        other = next((p.name for p in v.players if p.name != me.name and p.status == "playing"),
                     "")
        if other:
            examples.append(format_order(GiveMoney(me.name, other, 1)))
    return OrderForm(start_line(v.game, me.name, v.seq), tuple(examples),
                     end_of_turn=power, powers_used=bool(power) and v.end_powers)


def end_of_turn_lines(me: PlayerView, order: str) -> tuple[str, ...]:
    """An example of the order the end-of-turn power makes free, on the reader's own
    structure: a TRANSFER between two groups (any two, not only neighbours), or a MOVE of a
    group to an open arrow of another card; none when the structure offers no such line."""
    groups = me.structure[1:]
    if order == "transfer" and groups:
        # From the richest card to the last other one, which need not be its neighbour.
        source = max(me.structure, key=lambda c: c.treasury or 0)
        dest = next(c for c in reversed(me.structure) if c.card != source.card)
        return (format_order(TransferMoney(me.name, source.card, dest.card, 1)),)
    if order == "move":
        for group in reversed(groups):
            below = _puppets(me.structure, group.card)
            for master in me.structure:
                if (master.card != group.master and master.card not in below
                        and master.open_arrows):
                    arrow = DIRECTION_NAMES.index(master.open_arrows[0])
                    return (format_order(MoveGroup(me.name, group.card, master.card, arrow)),)
    return ()


def _puppets(structure: Sequence[CardView], card: str) -> set[str]:
    """``card`` and every card below it in the structure."""
    found = {card}
    while grown := {c.card for c in structure if c.master in found} - found:
        found |= grown
    return found


def welcome_example(v: View, me: PlayerView) -> tuple[str, ...]:
    """A short example of orders for the welcome mail, on a real uncontrolled group."""
    target = v.uncontrolled[0] if v.uncontrolled else me.illuminati
    attack = Attack(me.name, me.illuminati, target, "control")
    return (format_order(AttackOrder(attack, spend=2, upto=3)), format_order(EndTurn(me.name)))


def response_lines(attack: AttackView, answers: Answers, me: PlayerView) -> ResponseLines:
    """Every answer this player may give to ``attack``, as lines to copy."""
    spend: tuple[tuple[str, int, str], ...] = ()
    upto, more, need = "", 0, attack.need
    cannot_succeed = attack.need <= DEFENDER_GOAL
    purses = [(have, points) for _, have, points in answers.sources]
    if answers.role == "defender" and cannot_succeed:
        # Money spent now would be wasted. Only money the attacking side adds when the
        # window closes (the attacker's UPTO, kept secret, or an ASSIST) can raise the roll
        # needed, at most to 10: DEFEND 0 UPTO spends nothing unless that happens, then
        # what brings it back down.
        more, need = defence_to_stop(ATTACKER_GOAL, purses)
        if more:
            upto = format_order(DefendOrder(0, "", more))
    elif answers.role == "defender":
        spend = tuple((card, have, format_order(DefendOrder(1, card)))
                      for card, have, _ in answers.sources if have > 0)
        # The UPTO that stops the attack as it stands, or all the defender has if less.
        total, need = defence_to_stop(attack.need, purses)
        if total > 1:
            more = total - 1
            upto = format_order(DefendOrder(1, "", more))
    reactions = []
    for s in answers.reactions:
        play = PlaySpecial(me.name, s.name)
        # A card played on the roll's outcome is written with its condition (card data).
        when = s.conditional
        line = format_order(ConditionalPlay(when, play) if when != "" else play)
        reactions.append((s.name, line))
    pair = answers.pair
    return ResponseLines(
        spend=spend,
        upto=upto,
        upto_more=more,
        upto_need=need,
        cannot_succeed=cannot_succeed,
        assist=format_order(InterfereOrder(Interfere(me.name, 1, "assist")))
        if answers.may_interfere else "",
        interfere=format_order(InterfereOrder(Interfere(me.name, 1, "interfere")))
        if answers.may_interfere else "",
        abolish=format_order(AbolishPrivilege(me.name, pair)) if answers.may_abolish else "",
        call_off=format_order(CallOff(me.name)) if answers.may_call_off else "",
        reactions=tuple(reactions),
        no_response=format_order(NoResponse()),
    )


def response_form(form: OrderForm, lines: ResponseLines) -> OrderForm:
    """``form`` with the lines answering an attack as its examples, in the order the
    response request shows them: what a reminder repeats, as the answers stand now."""
    examples = [line for _, _, line in lines.spend]
    examples += [line for line in (lines.upto, lines.call_off, lines.assist, lines.interfere,
                                   lines.abolish) if line]
    examples += [line for _, line in lines.reactions]
    return OrderForm(form.start, (*examples, lines.no_response), form.end)
