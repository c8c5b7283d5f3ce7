"""What an observer reads: the public part of a game's reports (what every player sees of
everyone, never what only one player may know), and the mails of sign-up by mail.

An observer's view is the engine's view for a reader who holds no seat: no hand, no
treasury, no secret goal is shown (the same rule that hides them from the other players),
and only the events every player sees. At the end the seed is revealed, as to everyone.
Their HTML part is the text part as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from pbem.engine.cards import CardSet
from pbem.engine.events import Event
from pbem.engine.state import GameState
from pbem.engine.view import view
from pbem.reports.context import (
    deadline_facts,
    goal_lines,
    group_facts,
    report_events,
    utc_minute,
)
from pbem.reports.mails import Rendered, mail
from pbem.reports.templating import render
from pbem.reports.tree import tree_rows

NOBODY = ""  # the viewer an observer is: no player's name


def observer_report(cards: CardSet, state: GameState, events: Sequence[Event], *,
                    now: datetime, deadline: datetime | None, tz: str = "UTC",
                    lang: str = "en", site_dir: Path | None = None,
                    html: bool = True) -> Rendered:
    """The public report of the game as it stands (the last one at the game's end)."""
    v = view(cards, state, NOBODY)
    return lobby_mail("observer_report", lang, site_dir, html=html, v=v, game=v.game,
                events=report_events(events, NOBODY, tz),
                goals={p.name: goal_lines(cards, p) for p in v.players},
                trees={p.name: tree_rows(p.structure) for p in v.players},
                resistance={g.name: g.resistance for g in group_facts(
                    cards, (c.card for p in v.players for c in p.structure))},
                uncontrolled=group_facts(cards, v.uncontrolled),
                deadline=deadline_facts(deadline, now, tz), now=utc_minute(now), tz=tz)


def chat_post(cards: CardSet, state: GameState, events: Sequence[Event], *, now: datetime,
              deadline: datetime | None, lang: str = "en", by_gm: bool = False) -> Rendered:
    """The short public post to the game's chat (text only): whose move and the deadline
    (UTC), or the end, and the events every player saw since the last report (``by_gm``:
    those of an override of the game master). Drawn from the engine's view for no seat, as
    an observer's report is."""
    v = view(cards, state, NOBODY)
    return mail("chat_post", lang, None, html=False, v=v, game=v.game, by_gm=by_gm,
                events=report_events(events, NOBODY, "UTC"),
                deadline=deadline_facts(deadline, now, "UTC"), now=utc_minute(now), tz="UTC")


def lobby_mail(template: str, lang: str, site_dir: Path | None, html: bool = True,
               **words: object) -> Rendered:
    """A short mail of sign-up, observing or takeover (``pbem/templates/<template>``, in the
    words of ``lang``'s catalogue; its HTML part, unless ``html`` is false, is the text part
    as it is)."""
    plain = mail(template, lang, site_dir, html=False, **words)
    if not html:
        return plain
    return replace(plain, html=render(f"{template}.html.j2", lang, site_dir, text=plain.text,
                                      game=words.get("game", "")))
