"""Every mail the service sends, rendered from plain values: subject, text, HTML, attachments.

One function per mail. Each takes plain values (the card set, the game state, events, the
time now and deadlines as aware datetimes, the reader's IANA time zone and language, and
``html=False`` for a reader of plain text only, whose mails get no HTML part) and does no I/O
beyond reading templates. Only ``view(cards, state, player)`` and values derived from it
reach the templates, so a mail can never show what its reader may not see.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from markupsafe import Markup

from pbem.engine.breakdown import success_chance
from pbem.engine.cards import CardSet
from pbem.engine.events import (
    AttackResult,
    Event,
    GroupGiven,
    OfferDeclined,
    OfferEnded,
    OfferWithdrawn,
)
from pbem.engine.state import GameState
from pbem.engine.victory import chooses_goal, goals_to_choose
from pbem.engine.view import PlayerView, View, view
from pbem.reports.context import (
    Deadline,
    ServiceSettings,
    answers,
    deadline_facts,
    me,
    moment_facts,
    offer_facts,
    report_events,
    utc_minute,
)
from pbem.reports.forms import (
    OrderForm,
    actions_left,
    offer_lines,
    response_form,
    response_lines,
    welcome_example,
)
from pbem.reports.languages import LANGUAGES
from pbem.reports.pictures import DRAWN_ZOOM, OTHERS_ZOOM, InlinePicture, png_picture
from pbem.reports.position import Attachment, Position, file_safe, position
from pbem.reports.svg import LEGEND, structure_svg
from pbem.reports.templating import render, template

Problem = Literal["unknown_game", "unreadable", "auth_failed", "flooding", "hushed", "failed"]

# The player's view goes as JSON with a report or a request while it weighs at most this
# (bytes, before base64): about 5-6 KB at a game's start, 14 KB late in a game of six. A
# reader who wants it always says SET JSON ON (the mail bots do, from their first orders).
JSON_SMALL = 8_000


@dataclass(frozen=True)
class Rendered:
    """One mail's content: a one-line subject, the text part, the HTML part, attachments."""

    subject: str
    text: str
    html: str
    attachments: tuple[Attachment, ...] = ()
    # The pictures the HTML part shows: (Content-ID, MIME type, content) each.
    inline: tuple[tuple[str, str, bytes], ...] = ()


@dataclass(frozen=True)
class OrderResult:
    """One order line as the acknowledgement reports it.

    ``text`` is the line as written, password blanked. ``note`` is the paraphrase of an
    accepted order, or the reason a line was refused; ``suggestion`` what to write instead.
    ``stale``: refused because the mail's STEP names a position already gone.
    """

    line: int
    text: str
    accepted: bool
    note: str
    suggestion: str = ""
    stale: bool = False
    detail: str = ""  # lines shown as they are below the note (ODDS: the breakdown)
    # An answer to the attack under way (NO RESPONSE, DEFEND, ...) whose words say all
    # there is to say (no note the player might act on): its acknowledgement may wait.
    quiet: bool = False


def welcome(
    cards: CardSet, state: GameState, player: str, *, password: str, now: datetime,
    deadline: datetime | None = None, settings: ServiceSettings | None = None,
    tz: str = "UTC", lang: str = "en", site_dir: Path | None = None, html: bool = True,
) -> Rendered:
    """The first mail: password, how to write orders, options, dice commitment, goals.

    ``settings`` are the service's own options (its deadlines), shown after the rule options.
    """
    ctx = _game_context(position(cards, state, player), now, deadline, tz)
    v = ctx["v"]
    me = state.player(player)
    # The UFOs choose their goal by mail (engine.victory.goal_choice_open says until when).
    choices = goals_to_choose(cards) if chooses_goal(cards, me) and not me.goal_chosen else ()
    return mail("welcome", lang, site_dir, html=html, **ctx, password=password,
                options=state.options, settings=settings, example=welcome_example(v, ctx["me"]),
                goal_choices=choices)


def acknowledgement(
    game: str, player: str, results: Sequence[OrderResult], *, pending: str = "",
    warnings: Sequence[str] = (), turn: int = 0, turn_number: int = 0, paused: bool = False,
    goes_on: TurnGoesOn | None = None, lang: str = "en", site_dir: Path | None = None,
    html: bool = True,
) -> Rendered:
    """The answer to a mail of orders: each line accepted or refused, the ``warnings`` (in
    the reader's words: no END line), then what waits (``paused``: until the game master
    resumes the game).

    ``turn`` is the STEP the next orders carry, ``turn_number`` the game's turn. When a line
    was refused as stale the answer says where the game is now, and that the current report
    follows (the service sends it right after). ``goes_on``: the deadline and order form of
    the writer's turn, when no other mail will tell them that it goes on (see
    ``turn_goes_on``).
    """
    return mail("acknowledgement", lang, site_dir, html=html, game=game, player=player,
                results=tuple(results), warnings=tuple(warnings), goes_on=goes_on,
                pending=pending.strip("\n"), turn=turn,
                turn_number=turn_number, paused=paused, stale=any(r.stale for r in results),
                accepted=sum(1 for r in results if r.accepted),
                refused=sum(1 for r in results if not r.accepted))


def response_request(
    cards: CardSet, state: GameState, player: str, *, now: datetime,
    deadline: datetime | None, tz: str = "UTC", lang: str = "en",
    site_dir: Path | None = None, html: bool = True, json: bool = False,
) -> Rendered:
    """The open attack, its breakdown, and what this player may answer, ready to copy; the
    reader's view attached as JSON as with the turn report (``json``: SET JSON ON)."""
    seen = position(cards, state, player)
    v = seen.v
    if v.attack is None:
        raise ValueError("a response request needs an attack under way")
    ctx = _game_context(seen, now, deadline, tz)
    them = answers(cards, v, v.attack)
    rendered = mail("response_request", lang, site_dir, html=html, **ctx, attack=v.attack,
                    answers=them, lines=response_lines(v.attack, them, ctx["me"]),
                    chance=round(success_chance(v.attack.need) * 100))
    return Rendered(rendered.subject, rendered.text, rendered.html, view_attached(seen, json))


def attack_result(
    cards: CardSet, state: GameState, player: str, events: Sequence[Event], *,
    now: datetime, deadline: datetime | None = None, latest: GameState | None = None,
    tz: str = "UTC", lang: str = "en", site_dir: Path | None = None, html: bool = True,
) -> Rendered:
    """The result of an attack: breakdown, dice, what happened after (given its events).

    To the attacker whose turn still goes on, it ends as a turn report does: the regular
    actions left, the orders ``deadline`` and the order form. That is told from ``latest``,
    the game as the mail goes out (``state`` if None): orders sent with the attack or
    waiting behind it may have been carried out since, ending the turn or moving it on, and
    a form written for ``state`` would then be refused as stale.
    """
    shown = report_events(events, player, tz)
    results = [e for e in shown if isinstance(e, AttackResult)]
    if not results:
        raise ValueError("an attack result mail needs an attack_result event")
    ctx = _game_context(position(cards, state, player), now, deadline, tz)
    latest_seen = position(cards, latest or state, player)
    lv = latest_seen.v
    goes_on = player == results[-1].player and _own_turn_open(lv)
    form = latest_seen.facts["form"] if goes_on else ctx["form"]
    return mail("attack_result", lang, site_dir, html=html, **{**ctx, "form": form},
                result=results[-1], events=shown, goes_on=goes_on,
                actions_left=actions_left(lv), end_powers=lv.end_powers)


def with_carried(
    rendered: Rendered, player: str, *, orders: Sequence[tuple[int, str, str]] = (),
    events: Sequence[Event] = (), tz: str = "UTC", lang: str = "en",
    site_dir: Path | None = None, html: bool = True,
) -> Rendered:
    """``rendered`` opened by what the reader's mails folded away told (the service's fewer
    mails): the (line, order, words) of their ``orders`` accepted and not answered, and the
    ``events`` since the first mail not sent, those the reader may see."""
    shown = report_events(events, player, tz)
    if not orders and not shown:
        return rendered
    words = {"orders": tuple(orders), "events": shown, "player": player}
    text = _tidy(render("carried.txt.j2", lang, site_dir, **words)).strip("\n")
    page = rendered.html
    if html and page:
        part = render("carried.html.j2", lang, site_dir, **words)
        body = re.search(r"<body[^>]*>\n?", page)  # first in the body, as in the text
        page = f"{page[:body.end()]}{part}{page[body.end():]}" if body else page
    return replace(rendered, text=f"{text}\n\n{rendered.text}", html=page)


@dataclass(frozen=True)
class TurnGoesOn:
    """What a mail that leaves the active player's turn open shows at its end."""

    deadline: Deadline | None
    form: OrderForm


def turn_goes_on(cards: CardSet, state: GameState, player: str, *, now: datetime,
                 deadline: datetime | None, tz: str = "UTC") -> TurnGoesOn | None:
    """The orders ``deadline`` and the order form of ``player``'s turn, if it is theirs and
    open in ``state`` (their actions, nothing waiting for an answer); None otherwise."""
    seen = position(cards, state, player)
    if deadline is None or not _own_turn_open(seen.v):
        return None
    return TurnGoesOn(deadline_facts(deadline, now, tz), seen.facts["form"])


def _own_turn_open(v: View) -> bool:
    """True when it is the viewer's move in their turn's actions, with no group offer or
    special card waiting for an answer."""
    return (v.active == v.viewer and v.phase == "actions" and me(v).status == "playing"
            and v.offer is None and v.special is None)


def order_failed(
    cards: CardSet, state: GameState, player: str, data: Any, *, now: datetime,
    deadline: datetime | None, tz: str = "UTC", lang: str = "en", site_dir: Path | None = None,
    html: bool = True, json: bool = False,
) -> Rendered:
    """An order given earlier was refused when its moment came (``data``, by attribute: its
    ``line``,
    ``order`` text, ``reason`` and ``suggestion``, and the ``skipped`` (line, text) that were
    to follow it and did not run); when the player's turn is open, its deadline and a fresh
    order form, and the player's view as a JSON attachment as a report has it (a bot seat
    writes its next orders from it)."""
    goes_on = turn_goes_on(cards, state, player, now=now, deadline=deadline, tz=tz)
    rendered = mail("order_failed", lang, site_dir, html=html, game=state.game,
                    player=player, data=data, goes_on=goes_on)
    if goes_on is None:
        return rendered
    seen = position(cards, state, player)
    return Rendered(rendered.subject, rendered.text, rendered.html, view_attached(seen, json))


def reminder(
    cards: CardSet, state: GameState, player: str, *,
    about: Literal["orders", "response", "offer"], now: datetime, deadline: datetime,
    tz: str = "UTC", lang: str = "en", site_dir: Path | None = None, html: bool = True,
) -> Rendered:
    """The deadline is near and we have not heard from this player (``offer``: about the
    group offered to them, with the lines that answer it; ``response``: about the attack
    waiting for their answer, with the lines the response request gave, as they stand)."""
    ctx = _game_context(position(cards, state, player), now, deadline, tz)
    v = ctx["v"]
    if about == "response" and v.attack is not None:
        lines = response_lines(v.attack, answers(cards, v, v.attack), ctx["me"])
        ctx["form"] = response_form(ctx["form"], lines)
    return mail("reminder", lang, site_dir, html=html, **ctx, about=about,
                offer=offer_facts(v, ctx["deadline"]), offer_lines=offer_lines(v, ctx["me"]))


def offer_answered(
    cards: CardSet, state: GameState, player: str, events: Sequence[Event], *,
    silence: bool, waiting: bool, now: datetime, deadline: datetime | None, tz: str = "UTC",
    turn_over: bool = False, lang: str = "en", site_dir: Path | None = None, html: bool = True,
) -> Rendered:
    """How a group offered ended, told at once to whom it concerns: to its giver, accepted
    and where it went, declined, or ended as the receiver left play; to its receiver,
    withdrawn by the giver; to both, lapsed unanswered (``silence``), by its deadline or by
    the end of the giver's turn (``turn_over``). Whether the active giver's turn goes on
    with orders ``waiting`` for the answer, or with new orders by ``deadline``.
    ``events``: the one that ended it."""
    ctx = _game_context(position(cards, state, player), now, deadline, tz)
    answer = next(e for e in report_events(events, player, tz) if isinstance(e, (
        GroupGiven, OfferDeclined, OfferWithdrawn, OfferEnded)))
    return mail("offer_answered", lang, site_dir, html=html, **ctx, answer=answer,
                silence=silence, waiting=waiting, turn_over=turn_over)


def turn_report(
    cards: CardSet, state: GameState, player: str, events: Sequence[Event], *,
    now: datetime, deadline: datetime | None, offer_deadline: datetime | None = None,
    tz: str = "UTC", lang: str = "en", site_dir: Path | None = None, html: bool = True,
    short: bool = False, folded: Sequence[tuple[int, str, str]] = (),
    absences: Sequence[tuple[datetime, datetime]] = (), json: bool = False,
    unchanged: Collection[str] = (),
) -> Rendered:
    """The full report: what happened, every structure, goals, whose move, odds, order form.

    With a group offered and not yet answered, the report says so, and to its receiver how to
    answer (the lines to copy) and by when: ``offer_deadline``, when silence declines it.
    The player's view goes with it as a JSON attachment when ``json`` (SET JSON ON) or while
    small (``view_attached``). ``short`` (SET REPORT SHORT) keeps
    in the mail what the reader acts on and attaches the whole report as text; ``folded``
    are the (line, order, words) of the answers SET MAIL DIGEST left unsent; ``absences``
    the reader's own (SET ABSENCE), numbered as CANCEL ABSENCE counts them. ``unchanged``
    names the other players whose structure's picture is left out, the same (but for its
    money, which the text under it gives) as in the last report that showed it to the reader
    (``picture_keys``); the reader's own picture is always shown.
    """
    seen = position(cards, state, player)
    v = seen.v
    ctx = _game_context(seen, now, deadline, tz)
    # The pictures are for the HTML part only, as PNG parts it shows (Gmail and Outlook show
    # no inline SVG).
    same = frozenset(unchanged) - {player}
    pictures = ({name: p for name, p in mail_pictures(cards, v, lang, site_dir).items()
                 if name not in same} if html else {})
    words: dict[str, Any] = {
        **ctx, "events": report_events(events, player, tz), "quiet": not events,
        "offer": offer_facts(v, deadline_facts(offer_deadline, now, tz)),
        "offer_lines": offer_lines(v, ctx["me"]), "folded": tuple(folded),
        "absences": [(moment_facts(start, tz), moment_facts(end, tz)) for start, end in absences]}
    attachments = view_attached(seen, json)
    words["json_attached"] = bool(attachments)  # says so only when it is
    if short:
        # The short HTML part shows the reader's structure only: no picture of the others.
        pictures = {name: p for name, p in pictures.items() if name == player}
        full_name = f"report-{file_safe(v.game)}-{v.seq}.txt"
        full = mail("turn_report", lang, site_dir, html=False, **words, short=False)
        attachments += ((full_name, "text/plain", full.text.encode()),)
        words["full_name"] = full_name
    rendered = mail("turn_report", lang, site_dir, html=html, **words, short=short,
                    svgs={name: p.img for name, p in pictures.items()}, legend=LEGEND,
                    same=same)
    return Rendered(rendered.subject, rendered.text, rendered.html, attachments,
                    tuple((p.cid, "image/png", p.png) for p in pictures.values()))


def picture_keys(cards: CardSet, state: GameState, player: str) -> dict[str, str]:
    """A key of the picture of each other player's structure as ``player`` sees it, but
    for the money on its cards (which changes nearly every turn, and which the text under
    the picture gives): the same key, the same picture to show again but for its money."""
    return {p.name: hashlib.sha256(repr(tuple(replace(c, treasury=None)
                                              for c in p.structure)).encode()).hexdigest()[:16]
            for p in view(cards, state, player).players if p.name != player and p.structure}


def game_over(
    cards: CardSet, state: GameState, player: str, events: Sequence[Event], *,
    now: datetime, tz: str = "UTC", lang: str = "en", site_dir: Path | None = None,
    html: bool = True, folded: Sequence[tuple[int, str, str]] = (),
) -> Rendered:
    """The end: winners or why it stopped, final structures, the revealed seed and how to
    check every roll against the commitment; ``folded`` as for ``turn_report``."""
    seen = position(cards, state, player)
    if seen.v.seed is None:
        raise ValueError("the game is not over: its seed is still secret")
    ctx = _game_context(seen, now, None, tz)
    return mail("game_over", lang, site_dir, html=html, **ctx,
                events=report_events(events, player, tz), folded=tuple(folded))


def gm_announcement(
    game: str, player: str, message: str = "", *, events: Sequence[Event] = (),
    closing: str = "orders", tz: str = "UTC", lang: str = "en", site_dir: Path | None = None,
    html: bool = True,
) -> Rendered:
    """A message or an override of the game master, told to one player in their language
    and time zone: ``events`` are what the override did (the GM entry's own event among
    them), ``message`` an announcement's words; ``closing`` what a reply does ("orders",
    "out" for a player out of the game, "over" for a finished game: see _words.txt.j2)."""
    return mail("gm_announcement", lang, site_dir, html=html, game=game, player=player,
                events=tuple(report_events(events, player, tz)), message=message.strip("\n"),
                closing=closing)


def press_relay(
    game: str, player: str, sender: str, text: str, *, to_all: bool = True,
    others: Sequence[str] = (), lang: str = "en", site_dir: Path | None = None,
    html: bool = True,
) -> Rendered:
    """Press from another player, by name only: no address of anyone is shown. Press to
    some players names the ``others`` who received it too, so that nobody takes a message
    sent to several for a secret between two."""
    return mail("press", lang, site_dir, html=html, game=game, player=player, sender=sender,
                message=text.strip("\n"), to_all=to_all, others=tuple(others))


def history_reply(
    game: str, player: str, turns: Sequence[tuple[int, Sequence[Event]]], *,
    tz: str = "UTC", lang: str = "en", site_dir: Path | None = None, html: bool = True,
) -> Rendered:
    """A player's own view of the timeline: for each turn, the events they may see."""
    shown = tuple((turn, tuple(report_events(events, player, tz))) for turn, events in turns)
    return mail("history", lang, site_dir, html=html, game=game, player=player, turns=shown)


def error_reply(
    problem: Problem, *, game: str = "", games: Sequence[str] = (), message: str = "",
    suggestion: str = "", limit: int = 0, until: datetime | None = None, tz: str = "UTC",
    lang: str = "en", site_dir: Path | None = None, html: bool = True, minutes: int = 0,
) -> Rendered:
    """A short reply when a mail cannot be used: unknown game, unreadable mail, wrong
    password, too many mails (more than ``limit`` an hour; read again from ``until``, shown
    in the zone ``tz`` too), or ("hushed") no more answers for ``minutes``, until ``until``.
    ``games`` are names to suggest; ``message`` and ``suggestion`` the details. The example
    start line names the game (for an unknown one, the one game suggested, if only one)."""
    start_game = game if problem != "unknown_game" else games[0] if len(games) == 1 else ""
    return mail("error", lang, site_dir, html=html, problem=problem, game=game,
                games=tuple(games), start_game=start_game,
                message=message, suggestion=suggestion, limit=limit, minutes=minutes,
                until=moment_facts(until, tz) if until else None)


# --- shared ---------------------------------------------------------------------------------


def mail(name: str, lang: str, site_dir: Path | None, *, html: bool = True,
         **ctx: Any) -> Rendered:
    """The mail ``<lang>/<name>.{subject.txt,txt,html}.j2`` renders: the subject on one line,
    the text part tidied, the HTML part unless ``html`` is false (a reader of plain text
    only): then it is "". Every mail the service sends goes through here, the short ones
    (help, standing orders, alerts) included."""
    lang = lang if lang in LANGUAGES else "en"
    subject = render(f"{name}.subject.txt.j2", lang, site_dir, **ctx)
    return Rendered(
        # Plain whitespace only: French no-break spaces stay where the template put them.
        subject=re.sub(r"[ \t\r\n]+", " ", subject).strip(),
        text=_tidy(render(f"{name}.txt.j2", lang, site_dir, **ctx)),
        html=render(f"{name}.html.j2", lang, site_dir, **ctx) if html else "",
    )


def view_attached(seen: Position, json: bool) -> tuple[Attachment, ...]:
    """The reader's view as the JSON attachment of a mail: always when ``json`` (SET JSON
    ON, a bot seat), else while it is at most ``JSON_SMALL`` bytes."""
    attachment = seen.attachment
    return (attachment,) if json or len(attachment[2]) <= JSON_SMALL else ()


def _game_context(
    seen: Position, now: datetime, deadline: datetime | None, tz: str,
) -> dict[str, Any]:
    """What every mail about a game position may show, all of it from the reader's view:
    the facts of ``seen`` (worked out once for it) and the time."""
    return {**seen.facts,
            "deadline": deadline_facts(deadline, now, tz), "now": utc_minute(now), "tz": tz}


def structure_pictures(cards: CardSet, v: View, lang: str = "en",
                       site_dir: Path | None = None) -> dict[str, Markup]:
    """The picture of each power structure a view shows, labelled in the reader's language."""
    return {p.name: _picture(p, cards, lang, site_dir) for p in v.players if p.structure}


def mail_pictures(cards: CardSet, v: View, lang: str = "en",
                  site_dir: Path | None = None) -> dict[str, InlinePicture]:
    """Each power structure a view shows as a PNG for a mail's HTML part, with alt text that
    names its cards, in the reader's language."""
    label = _words(lang, site_dir).get("alt", "")
    return {p.name: png_picture(str(_picture(p, cards, lang, site_dir)),
                                f"{label} {p.name}: {', '.join(c.card for c in p.structure)}",
                                zoom=DRAWN_ZOOM if p.name == v.viewer else OTHERS_ZOOM)
            for p in v.players if p.structure}


@lru_cache(maxsize=128)
def _picture(player: PlayerView, cards: CardSet, lang: str, site_dir: Path | None) -> Markup:
    # Kept for the next reports: a step's reports draw every structure for each reader, and
    # the readers other than its owner see the same one.
    words = {**_words(lang, site_dir), "title": player.name}
    return Markup(structure_svg(player, cards, words))


def _words(lang: str, site_dir: Path | None) -> dict[str, str]:
    """The labels of the structure picture, from the language's word templates."""
    module = template("_words.txt.j2", lang, site_dir).module
    labels: Mapping[str, str] = getattr(module, "svg_words")  # noqa: B009
    alignments: Mapping[str, str] = getattr(module, "alignments")  # noqa: B009
    return {**alignments, **labels}


def _tidy(text: str) -> str:
    """The text part with no trailing blanks and never two blank lines in a row.

    Templates stay readable when they need not count newlines; the signature separator
    "-- " keeps its space, as mail readers expect.
    """
    lines = [line if line == "-- " else line.rstrip() for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n") + "\n"

