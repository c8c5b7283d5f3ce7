"""A step's notices become the mails it sends: rendered with the news since each reader's
last report, composed, and named so a redo of the step names them the same."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from pbem.engine.cards import CardSet
from pbem.engine.codec import from_json
from pbem.engine.events import Event, TurnBegins
from pbem.service.entries import under_current_names
from pbem.service.notice_mails import outbox_item, render_notice, thread_of
from pbem.service.notices import ChatPost, HistoryReply, Notice, Welcome
from pbem.service.settings import MailIdentity
from pbem.service.table import Table
from pbem.store import GameStore, OutboxItem


def addressed_mails(cards: CardSet, store: GameStore, sender: MailIdentity, table: Table,
                    now: datetime) -> list[tuple[str, OutboxItem]]:
    """The step's mails, each with the seat it goes to ("" for the game master)."""
    game_id = table.state.game
    news_cache: dict[int, list[Event]] = {}
    items = []
    for n, notice in enumerate(table.notices):
        if notice.to == "" and not sender.gm_address:
            continue
        since = notice.news_since
        if since is None:
            since = table.service.reported
        if notice.untold is not None:  # news of mails folded away (pbem.service.digest)
            since = min(since, notice.untold) if notice.tells_news else notice.untold
        if since not in news_cache:
            news_cache[since] = events_since(store, table, since)
        history = timeline(store, table) if isinstance(notice, HistoryReply) else []
        to, name, rendered = render_notice(
            cards, notice.state or table.state, notice.service or table.service,
            notice, now=now,
            news=news_cache[since], history=history, sender=sender, latest=table.state)
        outbox_id = f"{game_id}-{table.service.steps}-{n}"
        key = _thread_key(table, notice)
        # (An observer's or a newcomer's mail, to an address of no seat, names the address.)
        # (A chat post is no mail of a thread: its title is its own subject.)
        thread = None if isinstance(notice, ChatPost) else thread_of(
            game_id, table.state.dice.commitment, name or to, key, sender.domain,
            starts=isinstance(notice, Welcome))
        chat = isinstance(notice, ChatPost)
        item = outbox_item(outbox_id, game_id, sender.address_of(game_id) if chat else to,
                           name, rendered, now=now, sender=sender,
                           in_reply_to=notice.reply_to, salt=table.state.dice.commitment,
                           thread=thread, refers=notice.folded_mails)
        # A chat post is queued as a mail to the game's own address (no one reads that
        # header: the post is its subject and text), for the chat: ``chat:<game>``.
        items.append((notice.to, replace(item, to=notice.to) if chat else item))
    return items


def _thread_key(table: Table, notice: Notice) -> str:
    """What names the thread of the notice's reader: their seat's as the step ends (a
    welcome of this step, which goes first, starts the thread of all its mails to them), ""
    for the game master."""
    if not notice.to:
        return ""
    for service in (table.service, notice.service):
        for seat in service.seats if service is not None else ():
            if seat.name == notice.to:
                return seat.thread or seat.name
    return notice.to


def events_since(store: GameStore, table: Table, since: int) -> list[Event]:
    """The events logged from entry ``since`` on, GM entries' included; who may see each
    is named as the players are called now."""
    events: list[Event] = []
    if since < table.base:
        for entry in store.log(table.state.game, since):
            events += [from_json(Event, e) for e in entry["events"]]
    start = max(0, since - table.base)
    for entry in table.entries[start:]:
        events += [from_json(Event, e) for e in entry["events"]]
    return under_current_names(events)


def timeline(store: GameStore, table: Table) -> list[tuple[int, list[Event]]]:
    """Every event of the game so far, by turn (turn 0: before the first)."""
    turns: list[tuple[int, list[Event]]] = [(0, [])]
    for event in events_since(store, table, 0):
        if isinstance(event, TurnBegins):
            turns.append((event.turn, []))
        turns[-1][1].append(event)
    return [t for t in turns if t[1]]
