"""Order values: what one line of an order mail means, before the game state is consulted.

Where an order is exactly one engine command (``DROP Hackers`` is ``DropGroup``), the order *is*
that command value, so the service hands it to the engine unchanged. The orders below exist
where the mail says more than a command holds: money to add later in answer to others (UPTO),
a reaction that waits for the roll, standing orders, press, queries and settings. Names in
every value are canonical card and player names; ``""`` means "not given" (the service or the
engine chooses, e.g. which treasury pays).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import ClassVar, Literal, Protocol, get_args, runtime_checkable

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
    Interfere,
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
from pbem.errors import OrderSyntaxError

__all__ = [
    "COMMAND_NATURES",
    "KINDS",
    "ORDER_TYPES",
    "AttackOrder",
    "CancelAbsence",
    "ConditionalPlay",
    "DefendOrder",
    "Header",
    "Help",
    "History",
    "InterfereOrder",
    "Language",
    "Located",
    "Nature",
    "NoResponse",
    "NoSuchOrder",
    "Odds",
    "Order",
    "OrderWarning",
    "ParsedOrders",
    "Press",
    "SetAbsence",
    "SetHtml",
    "SetJson",
    "SetLanguage",
    "SetMail",
    "SetReport",
    "SetTimezone",
    "StandingAttackReaction",
    "StandingClear",
    "StandingCounter",
    "StandingDefend",
    "StandingList",
    "StandingNeverInterfere",
    "StandingTurnReaction",
    "Status",
    "WritesItself",
    "check_table",
    "kind_of",
    "nature_of",
]

Roll = Literal["succeeds", "fails"]
# A language's code, as its catalogue is named (``pbem/locale/<code>/``): "en", "fr", "de".
# The parser reads any code; the service takes those it has words for
# (pbem.reports.languages.LANGUAGES) and refuses the others (``language_unknown``).
Language = str


@dataclass(frozen=True)
class Nature:
    """What kind of order a class of order is, read wherever the service sorts orders.

    Each order class of this module declares its own (``nature``); the engine's commands
    that are orders as they are have theirs in ``COMMAND_NATURES``. ``nature_of`` reads
    either and fails on a class that has none: a new order cannot be silently taken for
    the active player's.
    """

    free: bool = False
    """It does not act on the game position (press, queries, settings, standing orders): it
    is not refused as written against a state gone, nor after the writer's END TURN."""
    query: bool = False
    """It only asks (STATUS, HELP, ...): it changes nothing, so a mail of queries alone is
    answered every time it comes, never "already done"."""
    answered: bool = False
    """A mail holding it is answered even under SET MAIL DIGEST (it asks, or confirms)."""
    out_of_game: bool = False
    """A seat out of the game (removed, left, eliminated) may still give it."""
    window: bool = False
    """It answers the open attack window (a special card's own timing says, PlaySpecial)."""


ACTIVE = Nature()  # the active player's order, or one acting on the position
WINDOW = Nature(window=True)  # an answer to the attack window
FREE = Nature(free=True)  # press, standing orders, absences
SETTING = Nature(free=True, out_of_game=True)  # the seat's settings
QUERY = Nature(free=True, query=True, answered=True)  # asks, and changes nothing


@runtime_checkable
class WritesItself(Protocol):
    """An order class that declares its written-back form on itself, beside its ``nature``.

    ``written()`` gives the canonical line that ``parse_orders`` reads back to the same value
    (names through ``pbem.orders.lexer.quote_name``). ``pbem.orders.format.format_order``
    writes such an order by it, so a new order word needs no entry in ``format.py``
    (docs/layout.md lists the files a new order word touches). The orders written before
    this existed keep their writing in ``format.py``, as do the engine's commands, which know
    nothing of the order language.
    """

    def written(self) -> str:
        """Gives the order's canonical line (several lines for an order that spans them)."""
        ...


@dataclass(frozen=True)
class Header:
    """The start line: which game, who writes, their password, the state they saw."""

    game: str
    player: str
    password: str
    turn: int | None = None  # the state sequence number the orders were written against


# --- the active player's orders that say more than one command ------------------------------


@dataclass(frozen=True)
class AttackOrder:
    """An attack with the money put in at once and the most the service may add later.

    ``spend`` goes in when the attack is announced; ``upto`` is how much more the service
    may put in, a little at a time, in answer to the defender (proxy bidding). The money
    moved into a captured group (THEN MOVE) is ``attack.transfer_on_success``.
    """

    nature: ClassVar[Nature] = ACTIVE

    attack: Attack
    spend: int = 0
    spend_from: str = ""  # the card whose treasury pays; "" lets the service choose
    upto: int = 0

    @property
    def then_move(self) -> int:
        """Gives the MB moved from the attacker into the group it captures."""
        return self.attack.transfer_on_success


# --- answers to an attack -------------------------------------------------------------------


@dataclass(frozen=True)
class DefendOrder:
    """Money against the attack on my group: ``amount`` now, up to ``upto`` more in answer.

    Without a source the service pays from the attacked group first (its MB count double).
    """

    nature: ClassVar[Nature] = WINDOW

    amount: int
    source: str = ""
    upto: int = 0


@dataclass(frozen=True)
class InterfereOrder:
    """Money from my Illuminati treasury for (assist) or against (interfere) the attacker."""

    nature: ClassVar[Nature] = WINDOW

    interfere: Interfere
    upto: int = 0


@dataclass(frozen=True)
class ConditionalPlay:
    """A card to play right after the roll, only if the attack succeeds (or fails)."""

    nature: ClassVar[Nature] = WINDOW

    when: Roll
    play: PlaySpecial


@dataclass(frozen=True)
class NoResponse:
    """I answer the open attack with nothing."""

    nature: ClassVar[Nature] = WINDOW


# --- standing orders ------------------------------------------------------------------------


@dataclass(frozen=True)
class StandingDefend:
    """Always defend ``group`` (``""``: any of my groups) with up to ``upto`` MB."""

    nature: ClassVar[Nature] = FREE

    upto: int
    group: str = ""


@dataclass(frozen=True)
class StandingNeverInterfere:
    """Never interfere or assist: the service answers every attack of others for me."""

    nature: ClassVar[Nature] = FREE


@dataclass(frozen=True)
class StandingAttackReaction:
    """When ``attacker`` (``""``: anyone) attacks ``target`` (``""``: any group), play a card.

    ``when`` "always" plays it as the attack is announced (Deep Agent, Interference);
    "succeeds" and "fails" wait for the roll (Murphy's Law, Assassination).
    """

    nature: ClassVar[Nature] = FREE

    card: str
    attacker: str = ""
    target: str = ""
    when: Literal["always", "succeeds", "fails"] = "always"


@dataclass(frozen=True)
class StandingTurnReaction:
    """When ``player`` (``""``: anyone) begins a turn, play a card (Senate, Market Manipulation)."""

    nature: ClassVar[Nature] = FREE

    card: str
    player: str = ""


@dataclass(frozen=True)
class StandingCounter:
    """When ``player`` (``""``: anyone) plays ``card``, cancel it with Secrets Man Was Not
    Meant To Know (if the writer holds it then): the card "cancels any special card when it
    is played", wherever it is played, not only in an attack's window."""

    nature: ClassVar[Nature] = FREE
    card: str
    player: str = ""


@dataclass(frozen=True)
class StandingList:
    """Send me my standing orders, numbered."""

    nature: ClassVar[Nature] = QUERY


@dataclass(frozen=True)
class StandingClear:
    """Forget standing order ``number`` (1 is the first listed); ``None``: all of them."""

    nature: ClassVar[Nature] = FREE

    number: int | None = None


# --- press, queries, settings ---------------------------------------------------------------


@dataclass(frozen=True)
class Press:
    """A message to other players; no recipients means everyone."""

    nature: ClassVar[Nature] = FREE

    recipients: tuple[str, ...]
    text: str


@dataclass(frozen=True)
class Status:
    """Send my report again."""

    nature: ClassVar[Nature] = Nature(free=True, query=True, answered=True, out_of_game=True)


@dataclass(frozen=True)
class Odds:
    """What would this attack need to roll? The service answers with the breakdown."""

    nature: ClassVar[Nature] = QUERY

    attack: Attack
    spend: int = 0


@dataclass(frozen=True)
class History:
    """Send the game log of the last ``turns`` turns (``None``: the whole game)."""

    nature: ClassVar[Nature] = Nature(free=True, query=True, answered=True, out_of_game=True)

    turns: int | None = None


@dataclass(frozen=True)
class Help:
    """Send help about ``topic`` (an order word, lower case), or the overview."""

    nature: ClassVar[Nature] = QUERY

    topic: str = ""


@dataclass(frozen=True)
class SetTimezone:
    nature: ClassVar[Nature] = SETTING

    zone: str  # an IANA key as zoneinfo spells it, e.g. "Europe/Paris"


@dataclass(frozen=True)
class SetLanguage:
    nature: ClassVar[Nature] = SETTING

    language: Language


@dataclass(frozen=True)
class SetHtml:
    nature: ClassVar[Nature] = SETTING

    enabled: bool


@dataclass(frozen=True)
class SetJson:
    """ON: the reader's view goes with every report and request as a JSON attachment (a
    program reads it); OFF (the default): only while it is small (docs/orders.md)."""

    nature: ClassVar[Nature] = SETTING
    enabled: bool


# --- fewer mails and absences (docs/service.md, "Fewer mails" and "Absences") ----------------


@dataclass(frozen=True)
class SetMail:
    """FULL: every order mail is answered; DIGEST: only one with a line refused, a question,
    or an order waiting, the rest said in the next report."""

    # answered, to confirm it
    nature: ClassVar[Nature] = Nature(free=True, answered=True, out_of_game=True)

    mode: Literal["full", "digest"]


@dataclass(frozen=True)
class SetReport:
    """FULL: the whole report in the mail; SHORT: what the reader acts on, the rest attached."""

    nature: ClassVar[Nature] = SETTING

    mode: Literal["full", "short"]


@dataclass(frozen=True)
class SetAbsence:
    """Away from ``start`` to ``end`` (each ``YYYY-MM-DD`` or ``YYYY-MM-DDTHH:MM`` in the
    writer's time zone; a day alone is the whole day; ``end`` "" is ``start``'s day)."""

    nature: ClassVar[Nature] = FREE

    start: str
    end: str = ""


@dataclass(frozen=True)
class CancelAbsence:
    """Forget absence ``number`` (1 is the first listed); ``None``: all of them."""

    nature: ClassVar[Nature] = FREE

    number: int | None = None


Order = (
    AttackOrder
    | TransferMoney
    | MoveGroup
    | DropGroup
    | OfferGroup
    | GiveMoney
    | GiveCard
    | PlaySpecial
    | Counter
    | UseLasers
    | UseRecyclers
    | EndPowers
    | Pass
    | EndTurn
    | CallOff
    | LeaveGame
    | ChooseGoal
    | AcceptGroup
    | DeclineGroup
    | WithdrawOffer
    | DefendOrder
    | InterfereOrder
    | AbolishPrivilege
    | ConditionalPlay
    | NoResponse
    | StandingDefend
    | StandingNeverInterfere
    | StandingAttackReaction
    | StandingTurnReaction
    | StandingCounter
    | StandingList
    | StandingClear
    | Press
    | Status
    | Odds
    | History
    | Help
    | SetTimezone
    | SetLanguage
    | SetHtml
    | SetJson
    | SetMail
    | SetReport
    | SetAbsence
    | CancelAbsence
    | ProposeDeal
    | AcceptDeal
    | DeclineDeal
    | WithdrawDeal
    | VoteEnd
    | WithdrawVote
)

# The name of each kind of order: the paraphrase template has one macro by each name.
KINDS: dict[type, str] = {
    AttackOrder: "attack",
    TransferMoney: "transfer",
    MoveGroup: "move",
    DropGroup: "drop",
    OfferGroup: "give_group",
    GiveMoney: "give_money",
    GiveCard: "give_card",
    PlaySpecial: "play",
    Counter: "counter",
    UseLasers: "lasers",
    UseRecyclers: "recycle",
    EndPowers: "end_powers",
    Pass: "pass_turn",
    EndTurn: "end_turn",
    CallOff: "call_off",
    LeaveGame: "leave_game",
    ChooseGoal: "choose_goal",
    AcceptGroup: "accept",
    DeclineGroup: "decline",
    WithdrawOffer: "withdraw_offer",
    DefendOrder: "defend",
    InterfereOrder: "interfere",
    AbolishPrivilege: "abolish",
    ConditionalPlay: "conditional_play",
    NoResponse: "no_response",
    StandingDefend: "standing_defend",
    StandingNeverInterfere: "standing_never_interfere",
    StandingAttackReaction: "standing_attack_reaction",
    StandingTurnReaction: "standing_turn_reaction",
    StandingCounter: "standing_counter",
    StandingList: "standing_list",
    StandingClear: "standing_clear",
    Press: "press",
    Status: "status",
    Odds: "odds",
    History: "history",
    Help: "help",
    SetTimezone: "set_timezone",
    SetLanguage: "set_language",
    SetHtml: "set_html",
    SetJson: "set_json",
    SetMail: "set_mail",
    SetReport: "set_report",
    SetAbsence: "set_absence",
    CancelAbsence: "cancel_absence",
    ProposeDeal: "deal",
    AcceptDeal: "accept_deal",
    DeclineDeal: "decline_deal",
    WithdrawDeal: "withdraw_deal",
    VoteEnd: "vote_end",
    WithdrawVote: "withdraw_vote",
}


def kind_of(order: Order) -> str:
    """Gives the kind name of an order (``"attack"``, ``"give_money"``, ...)."""
    return KINDS[type(order)]


ORDER_TYPES: tuple[type, ...] = get_args(Order)
"""Every class of order, in the order of ``Order``."""

# The engine's commands that are orders as they are: their nature, which the engine does not
# know (each order class of this module declares its own ``nature``).
COMMAND_NATURES: dict[type, Nature] = {
    TransferMoney: ACTIVE, MoveGroup: ACTIVE, DropGroup: ACTIVE, OfferGroup: ACTIVE,
    GiveMoney: ACTIVE, GiveCard: ACTIVE, PlaySpecial: ACTIVE, UseLasers: ACTIVE,
    UseRecyclers: ACTIVE, EndPowers: ACTIVE, Pass: ACTIVE, EndTurn: ACTIVE, CallOff: ACTIVE,
    LeaveGame: ACTIVE, AcceptGroup: ACTIVE, DeclineGroup: ACTIVE, WithdrawOffer: ACTIVE,
    ChooseGoal: FREE,  # the UFOs' secret goal: chosen whoever is to act, at any step
    Counter: WINDOW, AbolishPrivilege: WINDOW,
    # deals and votes act on the position: refused as written against a state gone
    ProposeDeal: ACTIVE, AcceptDeal: ACTIVE, DeclineDeal: ACTIVE, WithdrawDeal: ACTIVE,
    VoteEnd: ACTIVE, WithdrawVote: ACTIVE,
}


class NoSuchOrder(TypeError):
    """A class that is not an order, or an order some table has no entry for: a defect of
    the program, raised where it is first met (at import for the service's tables)."""


def nature_of(order: object) -> Nature:
    """Gives the nature of an order, or of a class of order; raises ``NoSuchOrder`` for a
    class that declares none."""
    kind = order if isinstance(order, type) else type(order)
    if kind in COMMAND_NATURES:
        return COMMAND_NATURES[kind]
    nature = kind.__dict__.get("nature")
    if not isinstance(nature, Nature):
        raise NoSuchOrder(f"{kind.__name__} declares no nature: it is no order")
    return nature


def check_table(table: Mapping[type, object], name: str,
                kinds: Iterable[type] = ORDER_TYPES) -> None:
    """Raise ``NoSuchOrder`` naming the classes among ``kinds`` that ``table`` (called
    ``name``) has no entry for: a dispatch table is checked as it is built, so an order
    added without its entries fails at import, not as a silent default."""
    missing = [k.__name__ for k in kinds if k not in table]
    if missing:
        raise NoSuchOrder(f"{name} has no entry for {', '.join(missing)}")


check_table(KINDS, "KINDS")
for _kind in ORDER_TYPES:
    nature_of(_kind)  # every order has a nature: fails at import otherwise


@dataclass(frozen=True)
class Located:
    """An order with the line it was read from (1 is the first line of the text)."""

    line: int
    text: str
    order: Order


@dataclass(frozen=True)
class OrderWarning:
    """Something the writer should know that did not stop the orders being read. ``key``
    names its words in the note template (the acknowledgement says it in the reader's
    language); ``message`` says it in English, for logs and tests."""

    message: str
    line: int | None = None
    text: str = ""
    key: str = ""


@dataclass(frozen=True)
class ParsedOrders:
    """Everything read from one order mail: the orders in mail order, and what went wrong."""

    header: Header
    orders: tuple[Located, ...]
    errors: tuple[OrderSyntaxError, ...]
    warnings: tuple[OrderWarning, ...] = ()
