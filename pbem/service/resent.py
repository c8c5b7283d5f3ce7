"""Orders sent again are not carried out again (issue 21): a client resending, a player
pressing Send twice, or someone replaying a mail seen on the way (passwords travel in
clear) gets "already done", and the game does not change.

A mail's orders are known by a digest of the player, the STEP its start line gives, the
window open when it came (an answer is to one window) and its orders in their canonical
form (``format_order``), so spacing, case and comments do not matter. A mail with the
digest of the player's last mail carried out is a resend when it finds the game in the same
turn, or in the state that mail left it in. A player who means the same orders again in the
same turn writes the STEP number of our last mail on the start line (or changes a line): the
digest differs. Mails that only ask (STATUS, HISTORY, HELP, ODDS, STANDING LIST) change
nothing and are answered every time, and are not counted as the player's last.

What this does not catch: a copy sent after other orders of the same player (CLEAR ALL,
DEFEND..., CLEAR ALL again is meant), or in a later turn. Orders written with STEP are
refused then as written against a position gone (docs/orders.md); press, settings and
standing orders without it would be given again.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import datetime

from pbem.orders.format import format_order
from pbem.orders.model import Located, ParsedOrders, nature_of
from pbem.service.model import Done, GameService, iso
from pbem.service.table import Table


def digest(table: Table, player: str, parsed: ParsedOrders) -> str | None:
    """The digest of ``player``'s orders as the game finds them, None for a mail that only
    asks (or gives no order)."""
    if all(nature_of(located.order).query for located in parsed.orders):
        return None
    window = table.service.window
    words = [player.casefold(), str(parsed.header.turn), str(window.seq if window else ""),
             *(_canonical(located) for located in parsed.orders),
             *(" ".join((error.text or "").split()).casefold() for error in parsed.errors)]
    return hashlib.sha256("\n".join(words).encode()).hexdigest()


def _canonical(located: Located) -> str:
    """An order in its canonical form; one the formatter does not know, as written (blanks
    and case aside)."""
    try:
        return format_order(located.order)
    except TypeError:
        return " ".join(located.text.split()).casefold()


def done_before(table: Table, player: str, key: str) -> Done | None:
    """``player``'s last mail carried out, if this one (of digest ``key``) resends it: the
    same orders, and the game in the turn it was carried out in, or as it left it."""
    service, seq = table.service, table.state.seq
    return next((d for d in service.done if d.player == player and d.digest == key
                 and (d.turn_seq == service.turn_seq or d.seq_after == seq)), None)


def remember(table: Table, player: str, key: str, turn_seq: int, now: datetime) -> None:
    """Note ``player``'s mail carried out (its digest ``key``, found in turn ``turn_seq``)
    as their last."""
    service: GameService = table.service
    others = tuple(d for d in service.done if d.player != player)
    table.service = replace(service, done=(
        *others, Done(player, key, turn_seq, table.state.seq, iso(now))))
