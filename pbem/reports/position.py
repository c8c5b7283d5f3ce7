"""What the mails about a game position show their reader, worked out once per position.

A step's mails to one reader, and the mails that follow while the game stands still (a
STATUS, the next one, the acknowledgements between), are about the same position: the
reader's view, the odds table, the order form and the view as JSON are the same for the
same state and reader. A ``GameState`` is a frozen value, so the same object is the same
position; the last positions asked for are kept, found again by that object's identity.
"""

from __future__ import annotations

import re
import threading
from functools import cached_property
from typing import Any

from pbem.engine.cards import CardSet
from pbem.engine.odds import AttackOdds, best_attacks
from pbem.engine.state import Deal, GameState
from pbem.engine.view import view
from pbem.reports.context import (
    answers,
    goal_lines,
    group_facts,
    illuminati_facts,
    me,
    others,
    special_facts,
)
from pbem.reports.forms import (
    attack_lines,
    offer_lines,
    order_form,
    response_form,
    response_lines,
    welcome_example,
)
from pbem.reports.json_text import indented_json
from pbem.reports.tree import tree_rows

Attachment = tuple[str, str, bytes]  # (filename, mimetype, content)
ODDS_ROWS = 12
KEPT = 32  # positions: a step's readers, and a few games at a time


class Position:
    """One reader's side of one position: the view and what the mails derive from it."""

    def __init__(self, cards: CardSet, state: GameState, player: str) -> None:
        self.cards, self.state = cards, state
        self.v = view(cards, state, player)

    @cached_property
    def odds(self) -> tuple[AttackOdds, ...]:
        """The odds table, for the active player only, while the turn's actions are open."""
        v = self.v
        if v.viewer != v.active or v.phase not in ("turn_start", "actions"):
            return ()
        return best_attacks(self.cards, self.state, v.viewer, limit=ODDS_ROWS)

    @cached_property
    def facts(self) -> dict[str, Any]:
        """What every mail about the position may show, all of it from the view, but the
        time (the deadline, now, the reader's zone): the templates' names for them."""
        cards, v = self.cards, self.v
        mine = me(v)
        return {
            "v": v,
            "game": v.game,
            "player": v.viewer,
            "me": mine,
            "others": others(v),
            "illuminati": illuminati_facts(cards, mine.illuminati),
            "goals": {p.name: goal_lines(cards, p) for p in v.players},
            "hand": special_facts(cards, mine.hand or ()),
            "trees": {p.name: tree_rows(p.structure) for p in v.players},
            "uncontrolled": group_facts(cards, v.uncontrolled),
            "resistance": {g.name: g.resistance for g in group_facts(
                cards, (c.card for p in v.players for c in p.structure))},
            "dead": group_facts(cards, v.dead),
            "active": v.active == v.viewer and v.phase not in ("over",),
            "odds": self.odds,
            "odds_lines": attack_lines(v.viewer, self.odds),
            "form": order_form(v, mine, self.odds,
                               cards.illuminati_card(mine.illuminati).end_of_turn),
            "deals": self.deals,
            "end_votes": self.state.end_votes,
        }

    @cached_property
    def deals(self) -> tuple[Deal, ...]:
        """The deals waiting for an answer that the reader proposed or is asked to accept
        (only the two players of a deal see it)."""
        return tuple(d for d in self.state.deals if self.v.viewer in (d.proposer, d.partner))

    def deal_lines(self) -> frozenset[str]:
        """The lines the report offers to copy about the reader's deals."""
        lines: set[str] = set()
        for d in self.deals:
            if d.partner == self.v.viewer:
                lines |= {f"ACCEPT DEAL {d.number}", f"DECLINE DEAL {d.number}"}
            else:
                lines.add(f"WITHDRAW DEAL {d.number}")
        return frozenset(lines)

    @cached_property
    def lines_to_copy(self) -> frozenset[str]:
        """Every order line the mails about this position offer the reader to copy: the odds
        table's, the order form's, the welcome's example, and the answers to a group offered
        or to an attack. The order reader never runs one of them below text the player did
        not write as orders (``pbem.orders.parse.parse_orders``, ``sent``)."""
        v, mine = self.v, me(self.v)
        form = order_form(v, mine, self.odds)
        lines = {*attack_lines(v.viewer, self.odds), *form.examples,
                 *welcome_example(v, mine)}
        offer = offer_lines(v, mine)
        if offer is not None:
            lines |= {offer.accept, offer.accept_at, offer.decline}
        if v.attack is not None:
            answering = response_lines(v.attack, answers(self.cards, v, v.attack), mine)
            lines |= set(response_form(form, answering).examples)
        lines |= self.deal_lines()
        return frozenset(lines - {""})

    @cached_property
    def attachment(self) -> Attachment:
        """The reader's view as JSON, as the reports attach it: what a program (a bot, a
        player's own tool) reads instead of the text."""
        v = self.v
        body = indented_json(v) + "\n"
        return (f"view-{file_safe(v.game)}-{v.seq}.json", "application/json", body.encode())


_kept: dict[tuple[int, int, str], Position] = {}
_keeping = threading.Lock()


def position(cards: CardSet, state: GameState, player: str) -> Position:
    """``player``'s side of the position ``state``: the one kept, if it was asked for lately."""
    key = (id(cards), id(state), player)
    with _keeping:
        kept = _kept.get(key)
    # The kept position holds its state and cards, so their ids are not reused while kept:
    # one found under these ids holds this very state and these very cards.
    if kept is not None:
        return kept
    found = Position(cards, state, player)
    with _keeping:
        if len(_kept) >= KEPT:
            _kept.clear()
        _kept[key] = found
    return found


def file_safe(name: str) -> str:
    """``name`` as a part of an attachment's file name: letters, digits, "_.-" only."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name) or "game"
