"""Order values back to text: the canonical line ``parse_orders`` reads back to the same value.

Names are written in full, in quotes when they hold a keyword ("Orbital Mind Control Lasers"
holds CONTROL) so they always read back; numbers bare; optional parts only when they say
something. ``format_orders`` writes a whole mail, password blanked, for "your pending orders
as you would send them again".
"""

from __future__ import annotations

from collections.abc import Iterable

from pbem.engine.commands import (
    AbolishPrivilege,
    AcceptDeal,
    AcceptGroup,
    Attack,
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
from pbem.orders.active import SIDES
from pbem.orders.lexer import RESERVED
from pbem.orders.lexer import quote_name as q
from pbem.orders.line import ORDER_FORMS
from pbem.orders.model import (
    AttackOrder,
    CancelAbsence,
    ConditionalPlay,
    DefendOrder,
    Header,
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
    WritesItself,
)

__all__ = ["BLANKED_PASSWORD", "fold_order", "format_order", "format_orders"]

BLANKED_PASSWORD = "******"

_BARE: dict[type, str] = {
    UseRecyclers: "RECYCLE",
    EndPowers: "END POWERS",
    Pass: "PASS",
    EndTurn: "END TURN",
    CallOff: "CALL OFF",
    LeaveGame: "LEAVE GAME",
    DeclineGroup: "DECLINE",
    WithdrawOffer: "WITHDRAW OFFER",
    WithdrawVote: "WITHDRAW VOTE",
    Counter: "COUNTER",
    NoResponse: "NO RESPONSE",
    StandingNeverInterfere: "STANDING NEVER INTERFERE",
    StandingList: "STANDING LIST",
    Status: "STATUS",
}


def format_order(order: Order) -> str:
    """Gives the canonical text of an order (several lines for press): by the order's own
    ``written()`` when its class declares one (``WritesItself``), else by the tables below."""
    if isinstance(order, WritesItself):
        return order.written()
    bare = _BARE.get(type(order))
    if bare is not None:
        return bare
    match order:
        case AttackOrder():
            return _attack(order)
        case TransferMoney():
            return f"TRANSFER {order.amount} FROM {q(order.source)} TO {q(order.dest)}"
        case MoveGroup():
            return f"MOVE {q(order.group)} TO {q(order.master)} {_side(order.arrow)}"
        case DropGroup():
            return f"DROP {q(order.group)}"
        case ChooseGoal():
            return f"GOAL {q(order.goal)}"
        case OfferGroup():
            return f"GIVE {q(order.group)} TO {q(order.to)}"
        case GiveMoney():
            return f"GIVE {order.amount} MB TO {q(order.to)}"
        case GiveCard():
            return f"GIVE CARD {q(order.card)} TO {q(order.to)}"
        case PlaySpecial():
            return _play(order)
        case UseLasers():
            return f"LASERS {order.change.upper()} {order.alignment} ON {q(order.group)}"
        case AcceptGroup():
            if not order.master:
                return "ACCEPT"
            return f"ACCEPT AT {q(order.master)} {_side(order.arrow)}"
        case DefendOrder():
            source = f" FROM {q(order.source)}" if order.source else ""
            return f"DEFEND {order.amount}{source}{_upto(order.upto)}"
        case InterfereOrder():
            side = order.interfere.side.upper()
            return f"{side} {order.interfere.amount}{_upto(order.upto)}"
        case AbolishPrivilege():
            return f"ABOLISH PRIVILEGE WITH {_names(order.cards)}"
        case ProposeDeal():
            return _deal(order)
        case AcceptDeal():
            return f"ACCEPT DEAL {order.number}"
        case DeclineDeal():
            return f"DECLINE DEAL {order.number}"
        case WithdrawDeal():
            return f"WITHDRAW DEAL {order.number}"
        case VoteEnd():
            return (f"VOTE END WINNERS {_names(order.winners)}" if order.winners
                    else "VOTE END NO WINNER")
        case ConditionalPlay():
            return f"IF {order.when.upper()} PLAY {q(order.play.card)}"
        case _:
            return _standing_and_the_rest(order)


def _deal(order: ProposeDeal) -> str:
    parts = [f"DEAL {q(order.to)}"]
    for word, side in (("GIVE", order.gives), ("TAKE", order.takes)):
        things = [*(q(g) for g in side.groups), *([f"{side.money} MB"] if side.money else []),
                  *(f"CARD {q(c)}" for c in side.cards)]
        if things:
            parts.append(f"{word} {', '.join(things)}")
    return " ".join(parts)


def _standing_and_the_rest(order: Order) -> str:
    match order:
        case StandingDefend():
            return f"STANDING DEFEND {_or(order.group, 'ANY')} UPTO {order.upto}"
        case StandingAttackReaction():
            when = "" if order.when == "always" else f" AND {order.when.upper()}"
            return (f"STANDING IF {_or(order.attacker, 'ANYONE')} ATTACKS "
                    f"{_or(order.target, 'ANY')}{when} PLAY {q(order.card)}")
        case StandingTurnReaction():
            return f"STANDING IF {_or(order.player, 'ANYONE')} STARTS TURN PLAY {q(order.card)}"
        case StandingCounter():
            return f"STANDING IF {_or(order.player, 'ANYONE')} PLAYS {q(order.card)} COUNTER"
        case StandingClear():
            return f"STANDING CLEAR {'ALL' if order.number is None else order.number}"
        case Press():
            to = _names(order.recipients) if order.recipients else "ALL"
            return f"PRESS TO {to}\n{order.text}\nEND PRESS"
        case Odds():
            spend = f" SPEND {order.spend}" if order.spend else ""
            return f"ODDS {_head(order.attack)}{spend}"
        case History():
            return "HISTORY" if order.turns is None else f"HISTORY {order.turns}"
        case Help():
            return f"HELP {order.topic}" if order.topic else "HELP"
        case SetTimezone():
            return f"SET TIMEZONE {order.zone}"
        case SetLanguage():
            return f"SET LANGUAGE {order.language.upper()}"
        case SetHtml():
            return f"SET HTML {'ON' if order.enabled else 'OFF'}"
        case SetJson():
            return f"SET JSON {'ON' if order.enabled else 'OFF'}"
        case SetMail():
            return f"SET MAIL {order.mode.upper()}"
        case SetReport():
            return f"SET REPORT {order.mode.upper()}"
        case SetAbsence():
            end = f" TO {order.end.replace('T', ' ')}" if order.end else ""
            return f"SET ABSENCE {order.start.replace('T', ' ')}{end}"
        case CancelAbsence():
            return f"CANCEL ABSENCE {'ALL' if order.number is None else order.number}"
    raise TypeError(f"not an order: {order!r}")


def format_orders(header: Header, orders: Iterable[Order | Located]) -> str:
    """Gives a whole order mail for ``orders``, the password blanked, ending in END."""
    turn = f" STEP {header.turn}" if header.turn is not None else ""
    game = q(header.game) if len(header.game.split()) != 1 else header.game
    lines = [f"GAME {game} PLAYER {q(header.player)} PASSWORD {BLANKED_PASSWORD}{turn}"]
    for order in orders:
        lines.append(format_order(order.order if isinstance(order, Located) else order))
    lines.append("END")
    return "\n".join(lines) + "\n"


def _attack(order: AttackOrder) -> str:
    attack = order.attack
    text = f"ATTACK {_head(attack)}"
    if attack.privilege == "bavarian":
        text += " PRIVILEGE BAVARIAN"
    elif attack.privilege == "card":
        text += f" PRIVILEGE {q(attack.privilege_card)}"
    if order.spend or order.spend_from:
        text += f" SPEND {order.spend}"
        if order.spend_from:
            text += f" FROM {q(order.spend_from)}"
    text += _upto(order.upto)
    if order.then_move:
        text += f" THEN MOVE {order.then_move}"
    if attack.arrow >= 0:
        text += f" AT {_side(attack.arrow)}"
    return text


def _head(attack: Attack) -> str:
    aids = f" WITH {_names(attack.aids)}" if attack.aids else ""
    return f"{q(attack.attacker)} {attack.mode.upper()} {q(attack.target)}{aids}"


def _play(order: PlaySpecial) -> str:
    text = f"PLAY {q(order.card)}"
    if order.group:
        text += f" ON {q(order.group)}"
    if order.other:
        text += f" ON {q(order.other)}"
    if order.attacker:
        text += f" WITH {_names((order.attacker, *order.aids))}"
    if order.privilege == "bavarian":
        text += " PRIVILEGE BAVARIAN"
    elif order.privilege == "card":
        text += f" PRIVILEGE {q(order.privilege_card)}"
    if order.moves:
        steps = ", ".join(f"{n} FROM {q(a)} TO {q(b)}" for a, b, n in order.moves)
        text += f" MOVE {steps}"
    if order.bonus_to:
        text += f" BONUS TO {q(order.bonus_to)}"
    if order.master:
        text += f" AT {q(order.master)} {_side(order.arrow)}"
    return text


def _names(names: Iterable[str]) -> str:
    return ", ".join(q(n) for n in names)


def _or(name: str, anything: str) -> str:
    return q(name) if name else anything


def _upto(amount: int) -> str:
    return f" UPTO {amount}" if amount else ""


def _side(arrow: int) -> str:
    return SIDES[arrow].upper()


def fold_order(line: str, width: int, rest: int | None = None) -> list[str]:
    """Gives an order line cut into pieces of at most ``width`` characters where it can be:
    each cut is before the last keyword that goes on an order and begins none (SPEND, UPTO,
    WITH, CONTROL...) or after a list's comma, outside quotes, that leaves the piece within
    ``width``. The parser
    reads the pieces, one below the other, as the whole line again (pbem/orders/parse.py
    joins the lines that continue an order line). A piece with no such keyword to cut at
    stays longer than ``width``. The pieces after the first are held to ``rest`` if given
    (they are indented more)."""
    if len(line) <= width:
        return [line]
    cuts = [at for at in _keyword_starts(line) if at > 0]
    fitting = [at for at in cuts if at - 1 <= width]
    if not fitting:
        return [line]
    at = fitting[-1]
    return [line[:at - 1], *fold_order(line[at:], width if rest is None else rest)]


def _keyword_starts(line: str) -> list[int]:
    """Where each word of the line that may begin a continuation starts, outside quotes."""
    starts: list[int] = []
    quote = ""
    for at, char in enumerate(line):
        if quote:
            quote = "" if char in _CLOSERS[quote] else quote
        elif char in _CLOSERS:
            quote = char
        elif char != " " and (at == 0 or line[at - 1] == " "):
            word = line[at:].split(" ", 1)[0].casefold()
            if (word in RESERVED and word not in _BEGINS_ORDER) or line[:at].endswith(", "):
                starts.append(at)  # a keyword, or the next name of a list
    return starts


_CLOSERS = {'"': '"', "“": '”"', "«": '»"'}
_BEGINS_ORDER = frozenset(keywords.split()[0] for keywords in ORDER_FORMS)
