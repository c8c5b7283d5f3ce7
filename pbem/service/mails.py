"""Notices become mails: rendered for the reader's language and time zone, composed as bytes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pbem.engine.cards import CardSet
from pbem.engine.state import Event, GameState
from pbem.mail.compose import OutgoingMail, compose, message_id_for
from pbem.reports import mails as reports
from pbem.reports.context import ServiceSettings
from pbem.reports.mails import Rendered
from pbem.service.deadlines import offer_due
from pbem.service.entries import GmEvent
from pbem.service.model import GameService, Seat, Timing, parse_iso
from pbem.service.table import Notice
from pbem.store import OutboxItem


@dataclass(frozen=True)
class Sender:
    """Who our mail comes from."""

    address: str = "pbem@localhost"
    name: str = "Illuminati PBEM"
    domain: str = "localhost"
    gm_address: str = ""
    site_dir: Path | None = None
    gm_lang: str = "en"  # how the game master's mail is written: language, time zone
    gm_tz: str = "UTC"


def welcome_settings(timing: Timing) -> ServiceSettings:
    """The service's options the welcome mail lists, as numbers: its templates word them."""
    return ServiceSettings(orders_hours=timing.orders_hours,
                           response_hours=timing.response_hours)


def render_notice(
    cards: CardSet, state: GameState, service: GameService, notice: Notice, *, now: datetime,
    news: Sequence[Event], history: Sequence[tuple[int, Sequence[Event]]], sender: Sender,
    latest: GameState | None = None,
) -> tuple[str, str, Rendered]:
    """(address, name, content) of the mail a notice asks for. ``state`` is the game as it
    stood when the mail was called for, ``latest`` as it stands at the end of the step (the
    attack result tells the attacker how their turn goes on from there)."""
    site = sender.site_dir
    if notice.to == "":
        seat = Seat(name="Game master", address=sender.gm_address, lang=sender.gm_lang,
                    tz=sender.gm_tz)
    else:
        seat = service.seat(notice.to)
    lang, tz, player, html = seat.lang, seat.tz, notice.to, seat.html
    game = state.game
    deadline = parse_iso(service.deadline) if service.deadline else None
    data = notice.data
    kind = notice.kind
    if kind == "ack":
        # A withdrawn offer's giver with no other mail of the step: the answer tells them
        # their turn goes on, as the mail of an offer answered or an attack's result would.
        goes_on = (reports.turn_goes_on(cards, state, player, now=now, deadline=deadline,
                                        tz=tz)
                   if data.get("withdrew") and not service.paused else None)
        rendered = reports.acknowledgement(game, player, data["results"], pending=data["pending"],
                                           warnings=data["warnings"], turn=state.seq,
                                           turn_number=state.turn_number,
                                           paused=service.paused, goes_on=goes_on, lang=lang,
                                           site_dir=site, html=html)
    elif kind == "welcome":
        rendered = reports.welcome(cards, state, player, password=data["password"], now=now,
                                   deadline=deadline, settings=data["settings"], tz=tz,
                                   lang=lang, site_dir=site, html=html)
    elif kind == "response_request":
        window = service.window
        rendered = reports.response_request(
            cards, state, player, now=now,
            deadline=parse_iso(window.deadline) if window else None, tz=tz, lang=lang,
            site_dir=site, html=html)
    elif kind == "attack_result":
        rendered = reports.attack_result(cards, state, player, data["events"], now=now,
                                         deadline=deadline, latest=latest,
                                         tz=tz, lang=lang, site_dir=site, html=html)
    elif kind in ("turn_report", "status"):
        # STATUS shows, as a turn report, what happened since the last turn report (the
        # player saw nothing of it unless mailed about it).
        rendered = reports.turn_report(cards, state, player, news, now=now, deadline=deadline,
                                       offer_deadline=offer_due(state, service), tz=tz,
                                       lang=lang, site_dir=site, html=html)
    elif kind == "game_over":
        rendered = reports.game_over(cards, state, player, news, now=now, tz=tz, lang=lang,
                                     site_dir=site, html=html)
    elif kind == "reminder":
        window = service.window
        due = (parse_iso(window.deadline) if data["about"] == "response" and window
               else offer_due(state, service) if data["about"] == "offer" else deadline)
        assert due is not None
        rendered = reports.reminder(cards, state, player, about=data["about"], now=now,
                                    deadline=due, tz=tz, lang=lang, site_dir=site,
                                    html=html)
    elif kind == "offer_answered":
        rendered = reports.offer_answered(cards, state, player, data["events"],
                                          silence=data["silence"], waiting=data["waiting"],
                                          turn_over=data.get("turn_over", False),
                                          now=now, deadline=deadline, tz=tz, lang=lang,
                                          site_dir=site, html=html)
    elif kind == "press":
        rendered = reports.press_relay(game, player, data["sender"], data["text"],
                                       to_all=data["to_all"], others=data["others"],
                                       lang=lang, site_dir=site, html=html)
    elif kind == "history":
        turns = history[-data["turns"]:] if data.get("turns") else history
        rendered = reports.history_reply(game, player, turns, tz=tz, lang=lang,
                                         site_dir=site, html=html)
    elif kind == "gm":
        closing = ("over" if state.phase == "over"
                   else "orders" if state.player(player).playing else "out")
        rendered = _gm_announcement(game, player, data, closing, tz, lang, site, html)
    elif kind == "standing":
        from pbem.orders.format import format_order

        mine = [format_order(o) for p, o in service.standing if p == player]
        rendered = reports.mail("standing", lang, site, html=html, game=game, player=player,
                                orders=mine)
    elif kind == "order_failed":
        rendered = reports.order_failed(cards, latest or state, player, data, now=now,
                                        deadline=None if service.paused else deadline, tz=tz,
                                        lang=lang, site_dir=site, html=html)
    else:  # help, gm_alert
        rendered = reports.mail(kind, lang, site, html=html, game=game, player=player,
                                data=data)
    return seat.address, seat.name, rendered


def _gm_announcement(game: str, player: str, data: dict[str, Any], closing: str, tz: str,
                     lang: str, site: Path | None, html: bool) -> Rendered:
    """An override told in the reader's language and time zone: its engine events and its GM
    entry's event; an announcement's own words as they were written."""
    events: list[Event] = list(data.get("events", ()))
    gm: GmEvent | None = data.get("gm")
    message = ""
    if gm is not None and gm.kind == "announce":
        message = str(gm.data["text"])
    elif gm is not None:
        events.append(gm.event)
    return reports.gm_announcement(game, player, message, events=events, closing=closing,
                                   tz=tz, lang=lang, site_dir=site, html=html)


def outbox_item(
    outbox_id: str, game: str, to: str, to_name: str, rendered: Rendered, *, now: datetime,
    sender: Sender, in_reply_to: str | None = None, salt: str = "",
) -> OutboxItem:
    """The composed mail, ready for the outbox, with a Message-ID derived from its id and
    ``salt``: a game's mail takes its dice commitment, so that two stores each with a game
    of the same id (and so the same outbox ids) never send the same Message-ID, which mail
    clients would take for one mail and show once."""
    message_id = message_id_for(*filter(None, (game, salt)), outbox_id, domain=sender.domain)
    mail = OutgoingMail(
        to=to, to_name=to_name, from_addr=sender.address, from_name=sender.name,
        subject=rendered.subject, text=rendered.text, html=rendered.html or None,
        attachments=rendered.attachments, message_id=message_id, in_reply_to=in_reply_to,
        date=now, game=game or None,
    )
    return OutboxItem(outbox_id=outbox_id, game_id=game, to=to, message_id=message_id,
                      raw=compose(mail), created_at=now.isoformat())

