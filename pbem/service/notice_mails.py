"""Notices become mails: rendered for the reader's language and time zone, composed as bytes."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from pbem.engine.cards import CardSet
from pbem.engine.events import Event
from pbem.engine.state import GameState
from pbem.mail.compose import OutgoingMail, compose, message_id_for
from pbem.reports import mails as reports
from pbem.reports.context import ServiceSettings, moment_facts, report_events
from pbem.reports.mails import Rendered
from pbem.reports.observing import chat_post, lobby_mail, observer_report
from pbem.service.deadlines import offer_due
from pbem.service.entries import GmAnnounce
from pbem.service.model import GameService, HouseRules, Seat, Timing, parse_iso
from pbem.service.notices import (
    Absent,
    Ack,
    AlreadyDone,
    AttackOutcome,
    ChatPost,
    GameOver,
    GmNews,
    HistoryReply,
    Letter,
    Notice,
    ObserverPress,
    ObserverReport,
    OfferAnswered,
    OrderFailed,
    PressRelay,
    Reminder,
    ResponseRequest,
    StandingOrders,
    StatusReport,
    StoodIn,
    ToAddress,
    TurnReport,
    Welcome,
)
from pbem.service.settings import MailIdentity
from pbem.store import OutboxItem


def welcome_settings(timing: Timing, house: HouseRules | None = None) -> ServiceSettings:
    """The service's options the welcome mail lists, as numbers: its templates word them.
    The house rules are listed when the game changed any from the defaults."""
    house = house or HouseRules()
    return ServiceSettings(orders_hours=timing.orders_hours,
                           response_hours=timing.response_hours,
                           house_changed=house != HouseRules(), press=house.press,
                           press_in_attack=house.press_in_attack,
                           absence_days=house.absence_days,
                           absence_days_per_game=house.absence_days_per_game,
                           stand_in=house.stand_in)


@dataclass(frozen=True)
class MailContext:
    """Everything a notice's mail is rendered from: the game as it stood when the mail was
    called for (``state``, ``service``) and at the end of the step (``latest``), the news,
    the reader's seat and the mail's settings."""

    cards: CardSet
    state: GameState
    service: GameService
    seat: Seat
    now: datetime
    news: Sequence[Event]
    history: Sequence[tuple[int, Sequence[Event]]]
    site: Path | None
    latest: GameState | None

    @property
    def deadline(self) -> datetime | None:
        return parse_iso(self.service.deadline) if self.service.deadline else None

    @property
    def window_deadline(self) -> datetime | None:
        window = self.service.window
        return parse_iso(window.deadline) if window else None


def render_notice(
    cards: CardSet, state: GameState, service: GameService, notice: Notice, *, now: datetime,
    news: Sequence[Event], history: Sequence[tuple[int, Sequence[Event]]], sender: MailIdentity,
    latest: GameState | None = None,
) -> tuple[str, str, Rendered]:
    """(address, name, content) of the mail a notice asks for. ``state`` is the game as it
    stood when the mail was called for, ``latest`` as it stands at the end of the step (the
    attack result tells the attacker how their turn goes on from there)."""
    if notice.to == "":
        seat = Seat(name="Game master", address=sender.gm_address, lang=sender.gm_lang,
                    tz=sender.gm_tz)
    elif isinstance(notice, ToAddress):  # an observer, a newcomer: no seat of the game
        seat = Seat(name="", address=notice.to, lang=notice.lang, tz=notice.tz)
    else:
        seat = service.seat(notice.to)
    reader = MailContext(cards, state, service, seat, now, news, history, sender.site_dir, latest)
    rendered = RENDER.get(type(notice), _from_fields)(notice, reader)
    if not notice.tells_news and (notice.folded or notice.untold is not None):
        # What the reader's mails folded away told (pbem.service.digest): ``news`` are
        # then the events from the entry untold on.
        rendered = reports.with_carried(
            rendered, notice.to, orders=notice.folded,
            events=news if notice.untold is not None else (), tz=seat.tz, lang=seat.lang,
            site_dir=sender.site_dir, html=seat.html)
    return seat.address, seat.name, rendered


def _ack(notice: Notice, r: MailContext) -> Rendered:
    assert isinstance(notice, Ack)
    seat, state = r.seat, r.state
    # A withdrawn offer's giver with no other mail of the step: the answer tells them
    # their turn goes on, as the mail of an offer answered or an attack's result would.
    goes_on = (reports.turn_goes_on(r.cards, state, notice.to, now=r.now,
                                    deadline=r.deadline, tz=seat.tz)
               if notice.withdrew and not r.service.paused else None)
    return reports.acknowledgement(state.game, notice.to, list(notice.results),
                                   pending=notice.pending, warnings=list(notice.warnings),
                                   turn=state.seq, turn_number=state.turn_number,
                                   paused=r.service.paused, goes_on=goes_on, lang=seat.lang,
                                   site_dir=r.site, html=seat.html)


def _already_done(notice: Notice, r: MailContext) -> Rendered:
    assert isinstance(notice, AlreadyDone)
    return reports.mail("already_done", r.seat.lang, r.site, html=r.seat.html,
                        game=r.state.game, player=notice.to, turn=notice.turn,
                        at=moment_facts(parse_iso(notice.at), r.seat.tz))


def _welcome(notice: Notice, r: MailContext) -> Rendered:
    assert isinstance(notice, Welcome)
    return reports.welcome(r.cards, r.state, notice.to, password=notice.password, now=r.now,
                           deadline=r.deadline, settings=notice.settings, tz=r.seat.tz,
                           lang=r.seat.lang, site_dir=r.site, html=r.seat.html)


def _response_request(notice: Notice, r: MailContext) -> Rendered:
    return reports.response_request(r.cards, r.state, notice.to, now=r.now,
                                    deadline=r.window_deadline, tz=r.seat.tz,
                                    lang=r.seat.lang, site_dir=r.site, html=r.seat.html,
                                    json=_wants_json(r.seat))


def _attack_result(notice: Notice, r: MailContext) -> Rendered:
    assert isinstance(notice, AttackOutcome)
    return reports.attack_result(r.cards, r.state, notice.to, list(notice.events), now=r.now,
                                 deadline=r.deadline, latest=r.latest, tz=r.seat.tz,
                                 lang=r.seat.lang, site_dir=r.site, html=r.seat.html)


def _turn_report(notice: Notice, r: MailContext) -> Rendered:
    # STATUS shows, as a turn report, what happened since the last turn report (the
    # player saw nothing of it unless mailed about it).
    return reports.turn_report(r.cards, r.state, notice.to, r.news, now=r.now,
                               deadline=r.deadline, offer_deadline=offer_due(r.state, r.service),
                               tz=r.seat.tz, lang=r.seat.lang, site_dir=r.site,
                               html=r.seat.html, short=r.seat.report == "short",
                               folded=notice.folded, json=_wants_json(r.seat),
                               unchanged=notice.unchanged,
                               absences=[(parse_iso(a.start), parse_iso(a.end))
                                         for a in r.seat.absences])


def _wants_json(seat: Seat) -> bool:
    """True when the seat's mails carry its view as JSON whatever its size: SET JSON ON, or
    a bot playing the seat (it reads the view, pbem.bots.mailbots.read_view)."""
    return seat.json or seat.bot


def _game_over(notice: Notice, r: MailContext) -> Rendered:
    return reports.game_over(r.cards, r.state, notice.to, r.news, now=r.now, tz=r.seat.tz,
                             lang=r.seat.lang, site_dir=r.site, html=r.seat.html,
                             folded=notice.folded)


def _reminder(notice: Notice, r: MailContext) -> Rendered:
    assert isinstance(notice, Reminder)
    due = (r.window_deadline if notice.about == "response" and r.service.window
           else offer_due(r.state, r.service) if notice.about == "offer" else r.deadline)
    assert due is not None
    return reports.reminder(r.cards, r.state, notice.to, about=notice.about, now=r.now,
                            deadline=due, tz=r.seat.tz, lang=r.seat.lang, site_dir=r.site,
                            html=r.seat.html)


def _offer_answered(notice: Notice, r: MailContext) -> Rendered:
    assert isinstance(notice, OfferAnswered)
    return reports.offer_answered(r.cards, r.state, notice.to, list(notice.events),
                                  silence=notice.silence, waiting=notice.waiting,
                                  turn_over=notice.turn_over, now=r.now, deadline=r.deadline,
                                  tz=r.seat.tz, lang=r.seat.lang, site_dir=r.site,
                                  html=r.seat.html)


def _press(notice: Notice, r: MailContext) -> Rendered:
    assert isinstance(notice, PressRelay)
    return reports.press_relay(r.state.game, notice.to, notice.sender, notice.text,
                               to_all=notice.to_all, others=notice.others, lang=r.seat.lang,
                               site_dir=r.site, html=r.seat.html)


def _history(notice: Notice, r: MailContext) -> Rendered:
    assert isinstance(notice, HistoryReply)
    turns = r.history[-notice.turns:] if notice.turns else r.history
    return reports.history_reply(r.state.game, notice.to, turns, tz=r.seat.tz,
                                 lang=r.seat.lang, site_dir=r.site, html=r.seat.html)


def _gm_news(notice: Notice, r: MailContext) -> Rendered:
    """An override told in the reader's language and time zone: its engine events and its GM
    entry's event; an announcement's own words as they were written."""
    assert isinstance(notice, GmNews)
    state, player = r.state, notice.to
    closing = ("over" if state.phase == "over"
               else "orders" if state.player(player).playing else "out")
    events: list[Event] = list(notice.events)
    gm = notice.gm
    message = ""
    if isinstance(gm, GmAnnounce):
        message = gm.text
    elif gm is not None:
        events.append(gm.event)
    return reports.gm_announcement(state.game, player, message, events=events,
                                   closing=closing, tz=r.seat.tz, lang=r.seat.lang,
                                   site_dir=r.site, html=r.seat.html)


def _standing(notice: Notice, r: MailContext) -> Rendered:
    from pbem.orders.format import format_order

    mine = [format_order(o) for p, o in r.service.standing if p == notice.to]
    return reports.mail("standing", r.seat.lang, r.site, html=r.seat.html, game=r.state.game,
                        player=notice.to, orders=mine)


def _order_failed(notice: Notice, r: MailContext) -> Rendered:
    return reports.order_failed(r.cards, r.latest or r.state, notice.to, notice, now=r.now,
                                deadline=None if r.service.paused else r.deadline,
                                tz=r.seat.tz, lang=r.seat.lang, site_dir=r.site,
                                html=r.seat.html, json=_wants_json(r.seat))


def _absent(notice: Notice, r: MailContext) -> Rendered:
    """An absence set or cancelled, its times in UTC and in the reader's zone."""
    assert isinstance(notice, Absent)
    return reports.mail("absence", r.seat.lang, r.site, html=r.seat.html, game=r.state.game,
                        player=notice.to, data=notice,
                        start=moment_facts(parse_iso(notice.start), r.seat.tz),
                        end=moment_facts(parse_iso(notice.end), r.seat.tz))


def _stood_in(notice: Notice, r: MailContext) -> Rendered:
    """What a bot did in the name of a player back from an absence: the events of theirs
    since the stand-in began, as the player sees them."""
    assert isinstance(notice, StoodIn)
    mine = [e for e in r.news if getattr(e, "player", None) == notice.to]
    return reports.mail("stood_in", r.seat.lang, r.site, html=r.seat.html, game=r.state.game,
                        player=notice.to, data=notice,
                        events=report_events(mine, notice.to, r.seat.tz),
                        start=moment_facts(parse_iso(notice.start), r.seat.tz),
                        end=moment_facts(parse_iso(notice.end), r.seat.tz))


def _from_fields(notice: Notice, r: MailContext) -> Rendered:
    """A mail whose template reads the notice's own fields (``data``): help, gm_alert,
    orders_dropped, called_off, eliminated."""
    return reports.mail(notice.kind, r.seat.lang, r.site, html=r.seat.html,
                        game=r.state.game, player=notice.to, data=notice)


def _letter(notice: Notice, r: MailContext) -> Rendered:
    assert isinstance(notice, Letter)
    return lobby_mail(notice.template, r.seat.lang, r.site, game=r.state.game,
                      **dict(notice.words))


def _observer_report(notice: Notice, r: MailContext) -> Rendered:
    return observer_report(r.cards, r.state, r.news, now=r.now,
                           deadline=None if r.service.paused else r.deadline, tz=r.seat.tz,
                           lang=r.seat.lang, site_dir=r.site)


def _observer_press(notice: Notice, r: MailContext) -> Rendered:
    assert isinstance(notice, ObserverPress)
    return lobby_mail("observer_press", r.seat.lang, r.site, game=r.state.game,
                      sender=notice.sender, message=notice.text.strip("\n"))


def _chat_post(notice: Notice, r: MailContext) -> Rendered:
    """The turn's news; or an override of the game master told to everyone, alone."""
    assert isinstance(notice, ChatPost)
    news = r.news
    if notice.override:
        news = [*notice.events, *([notice.gm.event] if notice.gm is not None else [])]
    return chat_post(r.cards, r.state, news, now=r.now,
                     deadline=None if r.service.paused else r.deadline, lang=r.seat.lang,
                     by_gm=notice.override)


# How each kind of notice is rendered; any other kind by ``_from_fields``.
RENDER: dict[type[Notice], Callable[[Notice, MailContext], Rendered]] = {
    Ack: _ack, AlreadyDone: _already_done, Welcome: _welcome, ResponseRequest: _response_request,
    AttackOutcome: _attack_result, TurnReport: _turn_report, StatusReport: _turn_report,
    GameOver: _game_over, Reminder: _reminder, OfferAnswered: _offer_answered,
    PressRelay: _press, HistoryReply: _history, GmNews: _gm_news, StandingOrders: _standing,
    OrderFailed: _order_failed, Absent: _absent, StoodIn: _stood_in,
    Letter: _letter, ObserverReport: _observer_report, ObserverPress: _observer_press,
    ChatPost: _chat_post,
}


@dataclass(frozen=True)
class Thread:
    """The thread a game's mail to one reader belongs to (docs/service.md, Threads): one per
    game and reader, its subject the same for every mail, its root the welcome.

    ``root`` is the Message-ID the welcome carries and every later mail refers to;
    ``starts``: this mail is the welcome, the root itself."""

    root: str
    subject: str
    starts: bool = False

    @property
    def headers(self) -> tuple[tuple[str, str], ...]:
        """Outlook's own threading headers (MS-OXOMSG: PidTagConversationTopic and
        PidTagConversationIndex): the topic, and an index whose first 22 bytes name the
        conversation (taken from the root) and which a reply lengthens by 5."""
        head = hashlib.sha256(self.root.encode()).digest()[:22]
        index = head if self.starts else head + b"\x00" * 5
        return (("Thread-Topic", self.subject),
                ("Thread-Index", base64.b64encode(index).decode("ascii")))


def thread_of(game: str, salt: str, reader: str, key: str, domain: str, *,
              starts: bool) -> Thread:
    """The thread of ``reader``'s mail in ``game``. ``key`` names the thread's start: the
    seat and the step of its last welcome (a replaced seat's new player, or one given their
    seat back from a bot, gets a thread of their own), "" for the game master's."""
    root = message_id_for(game, salt, "thread", key or "game master", domain=domain)
    return Thread(root, f"[{game}] Illuminati: {reader}", starts)


def outbox_item(
    outbox_id: str, game: str, to: str, to_name: str, rendered: Rendered, *, now: datetime,
    sender: MailIdentity, in_reply_to: str | None = None, salt: str = "",
    thread: Thread | None = None, refers: tuple[str, ...] = (),
) -> OutboxItem:
    """The composed mail, ready for the outbox, with a Message-ID derived from its id and
    ``salt``: a game's mail takes its dice commitment, so that two stores each with a game
    of the same id (and so the same outbox ids) never send the same Message-ID, which mail
    clients would take for one mail and show once.

    A mail of a ``thread`` takes its subject (the kind's own subject opens the text) and
    refers to its root, or is the root (the welcome); it refers to ``refers`` besides (the
    order mails whose answers it carries)."""
    message_id = message_id_for(*filter(None, (game, salt)), outbox_id, domain=sender.domain)
    subject, text = rendered.subject, rendered.text
    references: tuple[str, ...] = ()
    headers: tuple[tuple[str, str], ...] = ()
    if thread is not None:
        subject, text, headers = thread.subject, f"{rendered.subject}\n\n{text}", thread.headers
        if thread.starts:
            message_id = thread.root
        else:
            references = (thread.root,)
    mail = OutgoingMail(
        to=to, to_name=to_name, from_addr=sender.address_of(game), from_name=sender.name,
        subject=subject, text=text, html=rendered.html or None,
        attachments=rendered.attachments, inline=rendered.inline, message_id=message_id,
        in_reply_to=in_reply_to, references=(*references, *refers), headers=headers,
        date=now, game=game or None,
    )
    return OutboxItem(outbox_id=outbox_id, game_id=game, to=to, message_id=message_id,
                      raw=compose(mail), created_at=now.isoformat())

