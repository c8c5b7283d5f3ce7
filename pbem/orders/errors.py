"""The order parser's own error kind: a name in an order that fits several cards or players."""

from __future__ import annotations

from pbem.errors import AmbiguousNameError, OrderSyntaxError

__all__ = ["AmbiguousOrderError"]


class AmbiguousOrderError(OrderSyntaxError, AmbiguousNameError):
    """An order line is well formed but a name in it fits more than one card or player.

    It is an ``OrderSyntaxError`` (the line is reported like any unreadable line) and an
    ``AmbiguousNameError`` (so callers can tell "say which" apart from "I cannot read this").
    """
