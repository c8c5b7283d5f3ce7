"""Order values: what one line of an order mail means, before the game state is consulted.

Where an order is exactly one engine command (``DROP Hackers`` is ``DropGroup``), the order *is*
that command value, so the service hands it to the engine unchanged. The orders below exist
where the mail says more than a command holds: money to add later in answer to others (UPTO),
a reaction that waits for the roll, standing orders, press, queries and settings. Names in
every value are canonical card and player names; ``""`` means "not given" (the service or the
engine chooses, e.g. which treasury pays).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pbem.engine.commands import (
    AbolishPrivilege,
    AcceptGroup,
    Attack,
    CallOff,
    ChooseGoal,
    Counter,
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
    TransferMoney,
    UseLasers,
    UseRecyclers,
    WithdrawOffer,
)
from pbem.errors import OrderSyntaxError

__all__ = [
    "KINDS",
    "AttackOrder",
    "CancelAbsence",
    "ConditionalPlay",
    "DefendOrder",
    "Header",
    "Help",
    "History",
    "InterfereOrder",
    "Located",
    "NoResponse",
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
    "StandingDefend",
    "StandingList",
    "StandingNeverInterfere",
    "StandingTurnReaction",
    "Status",
    "kind_of",
]

Roll = Literal["succeeds", "fails"]


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

    amount: int
    source: str = ""
    upto: int = 0


@dataclass(frozen=True)
class InterfereOrder:
    """Money from my Illuminati treasury for (assist) or against (interfere) the attacker."""

    interfere: Interfere
    upto: int = 0


@dataclass(frozen=True)
class ConditionalPlay:
    """A card to play right after the roll, only if the attack succeeds (or fails)."""

    when: Roll
    play: PlaySpecial


@dataclass(frozen=True)
class NoResponse:
    """I answer the open attack with nothing."""


# --- standing orders ------------------------------------------------------------------------


@dataclass(frozen=True)
class StandingDefend:
    """Always defend ``group`` (``""``: any of my groups) with up to ``upto`` MB."""

    upto: int
    group: str = ""


@dataclass(frozen=True)
class StandingNeverInterfere:
    """Never interfere or assist: the service answers every attack of others for me."""


@dataclass(frozen=True)
class StandingAttackReaction:
    """When ``attacker`` (``""``: anyone) attacks ``target`` (``""``: any group), play a card.

    ``when`` "always" plays it as the attack is announced (Deep Agent, Interference);
    "succeeds" and "fails" wait for the roll (Murphy's Law, Assassination).
    """

    card: str
    attacker: str = ""
    target: str = ""
    when: Literal["always", "succeeds", "fails"] = "always"


@dataclass(frozen=True)
class StandingTurnReaction:
    """When ``player`` (``""``: anyone) begins a turn, play a card (Senate, Market Manipulation)."""

    card: str
    player: str = ""


@dataclass(frozen=True)
class StandingList:
    """Send me my standing orders, numbered."""


@dataclass(frozen=True)
class StandingClear:
    """Forget standing order ``number`` (1 is the first listed); ``None``: all of them."""

    number: int | None = None


# --- press, queries, settings ---------------------------------------------------------------


@dataclass(frozen=True)
class Press:
    """A message to other players; no recipients means everyone."""

    recipients: tuple[str, ...]
    text: str


@dataclass(frozen=True)
class Status:
    """Send my report again."""


@dataclass(frozen=True)
class Odds:
    """What would this attack need to roll? The service answers with the breakdown."""

    attack: Attack
    spend: int = 0


@dataclass(frozen=True)
class History:
    """Send the game log of the last ``turns`` turns (``None``: the whole game)."""

    turns: int | None = None


@dataclass(frozen=True)
class Help:
    """Send help about ``topic`` (an order word, lower case), or the overview."""

    topic: str = ""


@dataclass(frozen=True)
class SetTimezone:
    zone: str  # an IANA key as zoneinfo spells it, e.g. "Europe/Paris"


@dataclass(frozen=True)
class SetLanguage:
    language: Literal["en", "fr"]


@dataclass(frozen=True)
class SetHtml:
    enabled: bool


@dataclass(frozen=True)
class SetJson:
    """ON: the reader's view goes with every report and request as a JSON attachment (a
    program reads it); OFF (the default): only while it is small (docs/orders.md)."""

    enabled: bool


# --- fewer mails and absences (docs/service.md, "Fewer mails" and "Absences") ----------------


@dataclass(frozen=True)
class SetMail:
    """FULL: every order mail is answered; DIGEST: only one with a line refused, a question,
    or an order waiting, the rest said in the next report."""

    mode: Literal["full", "digest"]


@dataclass(frozen=True)
class SetReport:
    """FULL: the whole report in the mail; SHORT: what the reader acts on, the rest attached."""

    mode: Literal["full", "short"]


@dataclass(frozen=True)
class SetAbsence:
    """Away from ``start`` to ``end`` (each ``YYYY-MM-DD`` or ``YYYY-MM-DDTHH:MM`` in the
    writer's time zone; a day alone is the whole day; ``end`` "" is ``start``'s day)."""

    start: str
    end: str = ""


@dataclass(frozen=True)
class CancelAbsence:
    """Forget absence ``number`` (1 is the first listed); ``None``: all of them."""

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
}


def kind_of(order: Order) -> str:
    """Gives the kind name of an order (``"attack"``, ``"give_money"``, ...)."""
    return KINDS[type(order)]


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
