"""The names players may have: each must read back in every order that names a player.

Orders name players in plain text (``GIVE 3 MB TO Bob``, ``PRESS TO Ann, Cy``), matched
without regard to case, and the same names reach every mail, HTML included. So a name is
refused when it is empty or long, holds a control, zero-width or markup character, is an
order word on its own (``END``, ``ALL``, ``ME``), or equals another player's name but for
case: each would make some order read wrong, or a mail show something else than a name.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from pbem.errors import IllegalCommandError
from pbem.orders.lexer import RESERVED, WHOLE_RESERVED
from pbem.orders.line import ORDER_FORMS

__all__ = ["MAX_NAME_LENGTH", "check_player_name"]

MAX_NAME_LENGTH = 32
# Characters that are markup in a mail's HTML part or quote marks of the order language.
_MARKUP = frozenset('<>&"\\`“”«»#,')
_ORDER_WORDS = frozenset(
    {w for keywords in ORDER_FORMS for w in keywords.split()} | RESERVED | WHOLE_RESERVED)


def check_player_name(name: str, taken: Iterable[str] = ()) -> str:
    """Give ``name`` stripped, or raise IllegalCommandError saying why no order could name
    that player safely; ``taken`` are the other players' names."""
    name = name.strip()
    if not name or len(name) > MAX_NAME_LENGTH:
        raise IllegalCommandError(text=name, key="name_length", name=name, most=MAX_NAME_LENGTH)
    if any(not c.isprintable() or unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")
           or (c.isspace() and c != " ") or c in _MARKUP for c in name):
        raise IllegalCommandError(text=name, key="name_characters", name=name)
    if name.casefold() in _ORDER_WORDS or name[0].isdigit() or name[0] in "+-":
        raise IllegalCommandError(text=name, key="name_order_word", name=name, shown=repr(name))
    if any(name.casefold() == other.strip().casefold() for other in taken):
        raise IllegalCommandError(text=name, key="name_taken", name=name, shown=repr(name))
    return name
