"""The order language: order mail text to order values, and back to text and plain words.

``parse_orders`` reads a whole mail (start line, orders, END), ``parse_order`` one line;
``format_order`` gives the canonical text that reads back to the same value (the plain
words for an order are ``pbem.reports.paraphrase``'s). Syntax is checked here, without
the game state; legality is the engine's.
"""

from __future__ import annotations

from pbem.orders.errors import AmbiguousOrderError
from pbem.orders.format import BLANKED_PASSWORD, format_order, format_orders
from pbem.orders.line import ORDER_FORMS, parse_order
from pbem.orders.model import (
    KINDS,
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
    OrderWarning,
    ParsedOrders,
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
    kind_of,
)
from pbem.orders.parse import HEADER_FORM, blank_password, parse_orders

__all__ = [
    "BLANKED_PASSWORD",
    "HEADER_FORM",
    "KINDS",
    "ORDER_FORMS",
    "AmbiguousOrderError",
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
    "StandingCounter",
    "StandingDefend",
    "StandingList",
    "StandingNeverInterfere",
    "StandingTurnReaction",
    "Status",
    "blank_password",
    "format_order",
    "format_orders",
    "kind_of",
    "parse_order",
    "parse_orders",
]
