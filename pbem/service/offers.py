"""A group offered by mail during one step: the receiver asked, and the end of the offer
told at once to whom no mail of theirs said it (docs/service.md, "Group offers").

The offer's answer deadline lives in the service's record; ``Table.do`` drops it with the
offer, however the offer ended.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from pbem.engine.commands import AcceptGroup, DeclineGroup, WithdrawOffer
from pbem.engine.events import Event, OfferEnded
from pbem.engine.state import GroupOffer
from pbem.service.model import iso
from pbem.service.notices import OfferAnswered, TurnReport
from pbem.service.table import Table


def offered(table: Table, since: int) -> None:
    """A group was offered: its answer is due a response period from now, and the receiver
    is told (their report shows the offer)."""
    offer = table.state.offer
    if offer is not None:
        table.service = replace(table.service, offer_deadline=iso(
            table.now + timedelta(hours=table.service.timing.response_hours)),
            offer_reminded=False)
        table.notify(TurnReport(offer.receiver, since, offer))


def answer_offer(table: Table, command: AcceptGroup | DeclineGroup | WithdrawOffer,
                 silence: bool = False, turn_over: bool = False) -> None:
    """The group offered is accepted or declined by its receiver, withdrawn by its giver,
    or lapses unanswered (``silence``: its deadline passed; ``turn_over``: the giver's turn
    ended at the orders deadline first).

    The other side is told at once: the giver, whose orders waited for the answer, or the
    receiver of an offer withdrawn. Both are told of a lapse, since no mail of theirs said
    it.
    """
    offer = table.state.offer
    events = table.do(command)
    if offer is None:
        return
    if isinstance(command, WithdrawOffer) and _forget_unseen(table, offer):
        return
    other = offer.receiver if command.player == offer.giver else offer.giver
    told = (offer.giver, offer.receiver) if silence else (other,)
    _tell_end(table, offer, events, told, silence=silence, turn_over=turn_over)


def _forget_unseen(table: Table, offer: GroupOffer) -> bool:
    """Whether ``offer`` was made in this step, so its receiver has not been told of it
    yet: the report asking for their answer is dropped (they would answer an offer already
    gone), and so is the news of its withdrawal. Their next report shows both events."""
    kept = [n for n in table.notices if not (isinstance(n, TurnReport)
                                             and n.to == offer.receiver and n.offer == offer)]
    dropped = len(kept) < len(table.notices)
    table.notices = kept
    return dropped


def tell_offer_ended(table: Table, events: list[Event]) -> None:
    """Tell the giver of an offer that ended as its receiver left play (``events``: those of
    the departure): the group stays theirs and their turn goes on. A giver who leaves ends
    their turn, and the next turn's report tells the receiver."""
    for e in events:
        if not isinstance(e, OfferEnded) or e.player != e.receiver:
            continue
        giver = e.giver
        if table.state.player(giver).playing:
            offer = GroupOffer(giver, e.receiver, e.group)
            _tell_end(table, offer, [e], (giver,))


def _tell_end(table: Table, offer: GroupOffer, events: list[Event], told: tuple[str, ...], *,
              silence: bool = False, turn_over: bool = False) -> None:
    for player in told:
        table.notify(OfferAnswered(player, tuple(events), offer.giver, offer.receiver,
                                   offer.group, silence=silence, turn_over=turn_over,
                                   waiting=bool(table.service.queue)))
