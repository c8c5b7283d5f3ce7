"""The archive: a static HTML site of every game, built from the store with Jinja2.

Layout under the output folder::

    index.html                      every game: players, status, winners
    games/<game>/index.html         one game: players, charts, final structures, its turns
    games/<game>/turn-<n>.html      one turn: its events, attack breakdowns, structures

A finished game shows everything (its seed is revealed, every secret with it). A running
game shows only what every player may see: the public view of ``pbem.engine.view`` (a viewer
who is no player) and the events meant for everyone. No address is ever shown.

The pages (``templates/archive/``) are written in a language, their words from its catalogue:
by default a game's pages in the game's language, the index in the one all its games share.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markupsafe import Markup

from pbem.archive.chart import line_chart
from pbem.engine.cards import CardSet
from pbem.engine.events import AttackResult, Event, GmEnd
from pbem.engine.rules import apply
from pbem.engine.setup import new_game
from pbem.engine.state import GameState
from pbem.engine.view import View, view
from pbem.reports.context import goal_lines, group_facts
from pbem.reports.languages import LANGUAGES
from pbem.reports.mails import structure_pictures
from pbem.reports.templating import template
from pbem.service.entries import command_of, log_entries
from pbem.service.history import GameFile, Section, timeline
from pbem.service.model import GameService
from pbem.service.service import NOT_GAMES
from pbem.store import GameStore

PUBLIC = ""  # the viewer of a running game's pages: no player, so only what all may see


@dataclass(frozen=True)
class GameSummary:
    """One line of the index."""

    game: str
    status: str  # "over", "running", "not started": the template words it
    players: tuple[tuple[str, str, str], ...]  # (name, Illuminati, status)
    turns: int
    winners: tuple[str, ...]
    outcome: str
    link: str
    lang: str = "en"  # the language of the game's pages
    gm_reason: str = ""  # why the game master ended the game, if they did


@dataclass(frozen=True)
class Line:
    """One line of a turn page: a sentence (plain text, escaped by the page) and, for an
    attack's result, its breakdown."""

    kind: str  # the event's kind, or "gm"
    text: str
    terms: tuple[tuple[str, str, int], ...] = ()
    need: int = 0


@dataclass(frozen=True)
class Turn:
    """One turn page: the timeline section and the view of the game when it ended, or now
    for the turn still being played."""

    index: int
    section: Section
    view: View
    # Per player, under the name they have now (a seat the GM renamed kept its place):
    groups: Mapping[str, int]  # groups controlled at the end of the turn (or now)
    money: Mapping[str, int]  # money (only shown for a finished game)
    lines: tuple[Line, ...]
    in_progress: bool = False  # the turn of a running game still being played

    @property
    def results(self) -> list[Event]:
        """The attack results of the turn."""
        return [e for item in self.section.items for e in item.events
                if isinstance(e, AttackResult)]

    @property
    def link(self) -> str:
        return f"turn-{self.index}.html"


def game_ids(store: GameStore) -> list[str]:
    """The games of the store worth a page (not the store's postmaster record)."""
    return [g for g in store.games() if g not in NOT_GAMES]


def game_language(service: GameService) -> str:
    """The game's language: the one more of its seats read their mail in than any other
    (each seat starts in the language the game was created with), else English."""
    counts = Counter(s.lang for s in service.seats if s.lang in LANGUAGES).most_common()
    if counts and (len(counts) == 1 or counts[0][1] > counts[1][1]):
        return counts[0][0]
    return "en"


def index_language(games: Sequence[GameSummary]) -> str:
    """The index's language: the one every game's pages are in, else English."""
    langs = {g.lang for g in games}
    return langs.pop() if len(langs) == 1 else "en"


def build_game(cards: CardSet, game: GameFile, out: Path,
               lang: str | None = None) -> GameSummary:
    """Write one game's pages under ``out/games/<game>/`` in ``lang`` (by default the game's
    language); gives its line of the index."""
    lang = lang if lang in LANGUAGES else game_language(game.service)
    finished = game.state.phase == "over"
    viewer = None if finished else PUBLIC
    status = "over" if finished else "running" if game.service.started else "not started"
    turns = _turns(cards, game, viewer, lang) if game.service.started else []
    names = [p.name for p in game.state.players]
    groups = {n: [t.groups[n] for t in turns] for n in names}
    # Money is secret while the game runs: a running game's page has no numbers to chart.
    money = {n: [t.money[n] for t in turns] for n in names} if finished else None
    final = view(cards, game.state, viewer)
    gm_reason = _gm_reason(game) if game.state.outcome == "game master" else ""
    context = {"game": game.game, "finished": finished, "status": status}
    folder = out / "games" / game.game
    folder.mkdir(parents=True, exist_ok=True)  # once the pages are ready to be written
    for n, turn in enumerate(turns):
        _write(folder / turn.link, lang, "turn.html.j2", **context, turn=turn,
               previous=turns[n - 1] if n else None,
               next=turns[n + 1] if n + 1 < len(turns) else None,
               svgs=structure_pictures(cards, turn.view, lang),
               goals=_goals(cards, turn.view),
               uncontrolled=group_facts(cards, turn.view.uncontrolled))
    _write(folder / "index.html", lang, "game.html.j2", **context, v=final, turns=turns,
           chart=_chart, groups=groups, money=money,
           labels=[str(t.section.turn) for t in turns],
           svgs=structure_pictures(cards, final, lang), goals=_goals(cards, final),
           options=game.setup.options, gm_reason=gm_reason)
    # A turn page of an earlier build that this one has not (a rollback since) would show
    # what was undone.
    for page in set(folder.glob("turn-*.html")) - {folder / turn.link for turn in turns}:
        page.unlink()
    players = tuple((p.name, p.illuminati, p.status) for p in game.state.players)
    return GameSummary(game.game, status, players, game.state.turn_number,
                       game.state.winners, game.state.outcome,
                       f"games/{game.game}/index.html", lang, gm_reason)


def build_index(games: Sequence[GameSummary], out: Path, lang: str | None = None) -> None:
    """Write the index of all games in ``lang`` (by default the language of all their
    pages, else English)."""
    out.mkdir(parents=True, exist_ok=True)
    lang = lang if lang in LANGUAGES else index_language(games)
    _write(out / "index.html", lang, "index.html.j2", games=games)


def _gm_reason(game: GameFile) -> str:
    """Why the game master ended the game, as they wrote it (``pbem end --reason``): the
    state keeps only that they did, the log's last ``gm_end`` event says why."""
    for entry in log_entries(reversed(game.log)):
        for event in entry.events:
            if isinstance(event, GmEnd):
                return event.reason
    return ""


def _chart(title: str, series: Mapping[str, Sequence[int]], labels: Sequence[str],
           x_label: str) -> Markup:
    """A chart for a page's template, which gives its words."""
    return Markup(line_chart(title, series, labels, x_label))


def _turns(cards: CardSet, game: GameFile, viewer: str | None, lang: str) -> list[Turn]:
    """Each turn with the game as it stood when the turn ended (rebuilt from the log)."""
    sections = timeline(cards, game, viewer)
    ends: dict[int, list[int]] = {}
    for i, section in enumerate(sections):
        ends.setdefault(section.end, []).append(i)
    state, _ = new_game(cards, game.setup)
    at: dict[int, GameState] = {}
    for n, entry in enumerate(game.log):
        if n in ends:
            at[n] = state
        command = command_of(entry)
        if command is not None:  # a GM entry leaves the state as it was
            state, _ = apply(state, command, cards)
    at[len(game.log)] = state
    names = [p.name for p in game.state.players]  # a rename keeps the seats in order
    # The service begins a turn as soon as the one before ends: a running game's last turn
    # is always the one being played.
    running = game.state.phase != "over"
    turns = []
    for i, section in enumerate(sections):
        s = at[section.end]
        turns.append(Turn(
            i, section, view(cards, s, viewer),
            {n: len(p.structure) - 1 for n, p in zip(names, s.players, strict=True)},
            {n: sum(slot.treasury for slot in p.structure)
             for n, p in zip(names, s.players, strict=True)},
            _lines(section, lang), running and i == len(sections) - 1))
    return turns


def _lines(section: Section, lang: str) -> tuple[Line, ...]:
    """The sentences of a turn in ``lang``, made here as plain text so the HTML page escapes
    them: the mails' own sentences.

    (A text macro called from an autoescaping template would hand back its output marked
    safe, unescaped: a GM's announcement could then inject markup.)
    """
    event_sentence = getattr(template("_events.txt.j2", lang).module, "event")  # noqa: B009
    gm_sentence = getattr(template("_gm.txt.j2", lang).module, "sentence")  # noqa: B009
    lines = []
    for item in section.items:
        if item.gm_event is not None:
            lines.append(Line("gm", str(gm_sentence(item.gm_event.kind, item.gm_event.public))))
        for e in item.events:
            text = str(event_sentence(e))
            if isinstance(e, AttackResult):
                lines.append(Line(e.kind, text, e.terms, e.need))
            else:
                lines.append(Line(e.kind, text))
    return tuple(lines)


def _goals(cards: CardSet, v: View) -> dict[str, Any]:
    return {p.name: goal_lines(cards, p) for p in v.players}


def _write(path: Path, lang: str, page: str, **context: Any) -> None:
    # Plain writes: the site is rebuilt from the store at will, so a torn page costs nothing.
    path.write_text(template(f"archive/{page}", lang).render(**context, lang=lang),
                    encoding="utf-8")
