"""The archive site: its pages, their pictures and links, and what a running game hides.

Built from real stores: a finished bot game (``test_history.simulated_store``) and a game
run through the game master's functions.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

import pytest
from gm_cli import run
from stored_games import CARDS, SEED, simulated_store

from pbem.archive.build import build_game, build_index, game_ids, game_language
from pbem.archive.chart import line_chart
from pbem.service import gm, history
from pbem.service.model import GameService, Seat
from pbem.service.service import Service
from pbem.store import Store

T0 = datetime(2024, 6, 1, 9, 0, tzinfo=UTC)
SVG = re.compile(r"<svg\b.*?</svg>", re.S)
NB = "\xa0"


class Page(HTMLParser):
    """The links, ids and text of one page; raises on tags closed out of order."""

    VOID: ClassVar[set[str]] = {"meta", "br", "img", "input", "link", "hr"}

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.links: list[str] = []
        self.text: list[str] = []
        self.open: list[str] = []
        self.feed(path.read_text(encoding="utf-8"))
        self.close()
        assert self.open == [], f"{path.name}: unclosed {self.open}"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.links += [v for k, v in attrs if k == "href" and v]
        if tag not in self.VOID and not tag.startswith(("svg:",)):
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass  # <rect/> and friends inside the SVG pictures

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, f"</{tag}> closes {self.open[-1:]}"
        self.open.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    @property
    def words(self) -> str:
        return " ".join(" ".join(self.text).replace("\xa0", " ").split())


@pytest.fixture(scope="module")
def finished_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, history.GameFile]:
    root = tmp_path_factory.mktemp("finished")
    service = simulated_store(root / "store")
    game = history.read_game(service.store, "sim")
    site = root / "site"
    build_index([build_game(CARDS, game, site)], site)
    return site, game


def running_game(root: Path, game: str = "live", lang: str = "en") -> Service:
    """A game two turns in, one player holding a special card, an announcement made."""
    service = Service(Store(root), cards=CARDS)
    gm.create_game(service, game, [("ann", "ann@example.org", "Bavarian Illuminati"),
                                   ("bob", "bob@example.org", "")], seed=SEED, now=T0,
                   lang=lang)
    gm.start_game(service, game, T0)
    state = service.state(game)
    special = next(c for c in state.deck if c in ("Bribery", "Deep Agent", "Murphy's Law"))
    gm.edit_move(service, game, special, "hand:ann", "a test card", T0)
    gm.announce(service, game, "<script>alert(1)</script> Be nice.", T0)
    gm.process(service, T0 + timedelta(days=4))
    return service


def well_formed(site: Path) -> list[Path]:
    """The pages of ``site``, each checked: tags closed in order, every link leads to a page,
    every picture is well-formed XML."""
    pages = sorted(site.rglob("*.html"))
    for page in pages:
        for link in Page(page).links:
            assert (page.parent / link).resolve().is_file(), f"{page.name} -> {link}"
        for svg in SVG.findall(page.read_text(encoding="utf-8")):
            ET.fromstring(svg)
    return pages


def test_every_page_is_well_formed_and_every_link_leads_somewhere(
        finished_site: tuple[Path, history.GameFile]) -> None:
    site, _ = finished_site
    assert len(well_formed(site)) > 5


def test_the_index_lists_the_game(finished_site: tuple[Path, history.GameFile]) -> None:
    site, game = finished_site
    index = Page(site / "index.html")
    assert index.links == ["games/sim/index.html"]
    assert "over" in index.words
    assert all(f"{p.name} ({p.illuminati})" in index.words for p in game.state.players)


def test_the_game_page_has_its_turns_charts_and_final_structures(
        finished_site: tuple[Path, history.GameFile]) -> None:
    site, game = finished_site
    html = (site / "games" / "sim" / "index.html").read_text(encoding="utf-8")
    page = Page(site / "games" / "sim" / "index.html")
    turns = game.state.turn_number
    assert [link for link in page.links if link.startswith("turn-")] == [
        f"turn-{n}.html" for n in range(turns + 1)]
    charts = [ET.fromstring(s) for s in SVG.findall(html) if 'class="chart"' in s]
    assert len(charts) == 2  # groups and money: the game is over, money may be shown
    ns = {"s": "http://www.w3.org/2000/svg"}
    for chart in charts:
        lines = chart.findall("s:polyline", ns)
        assert [line.get("data-player") for line in lines] == [
            p.name for p in game.state.players]
        assert all(len(str(line.get("points")).split()) == turns + 1 for line in lines)
    structures = [s for s in SVG.findall(html) if 'class="power-structure"' in s]
    assert len(structures) == len(game.state.players)
    assert game.state.dice.seed in page.words  # revealed at the end
    assert "the turn limit was reached" in page.words


def test_a_turn_page_shows_its_events_breakdowns_and_structures(
        finished_site: tuple[Path, history.GameFile]) -> None:
    site, game = finished_site
    sections = history.timeline(CARDS, game)
    n, section = next((i, s) for i, s in enumerate(sections)
                      if any(e.kind == "attack_result" for item in s.items for e in item.events))
    html = (site / "games" / "sim" / f"turn-{n}.html").read_text(encoding="utf-8")
    page = Page(site / "games" / "sim" / f"turn-{n}.html")
    results = [e for item in section.items for e in item.events if e.kind == "attack_result"]
    assert html.count('<table class="breakdown">') == len(results)
    for e in results:
        assert f"needed {e.data['need']} or less" in page.words
    assert f"Turn {section.turn} begins: {section.player} to play." in page.words
    assert len([s for s in SVG.findall(html) if "power-structure" in s]) == sum(
        1 for p in game.state.players)
    assert {"index.html", f"turn-{n - 1}.html", f"turn-{n + 1}.html"} <= set(page.links)


def test_a_running_game_shows_only_what_every_player_may_see(tmp_path: Path) -> None:
    service = running_game(tmp_path / "store")
    game = history.read_game(service.store, "live")
    state = game.state
    assert state.phase != "over" and state.player("ann").hand
    site = tmp_path / "site"
    build_index([build_game(CARDS, game, site)], site)
    pages = sorted((site / "games" / "live").glob("*.html"))
    text = "\n".join(p.read_text(encoding="utf-8") for p in pages)
    words = " ".join(Page(p).words for p in pages)
    assert SEED not in text and "@example.org" not in text
    drawn = [e["data"]["card"] for entry in game.log for e in entry["events"]
             if e["kind"] == "drew_special"]
    for card in drawn:  # special cards drawn stay secret (a GM's move is announced to all)
        assert f"drew a special card: {card}" not in words
    assert 'class="treasury">? MB<' in text.replace("\xa0", " ")
    assert "Money (MB)" not in text  # no money chart while the game runs
    assert "Groups controlled" in text
    assert "only what every player may see" in words
    assert "&lt;script&gt;alert(1)&lt;/script&gt; Be nice." in text  # escaped, and shown
    assert "<script>" not in text


def test_a_rebuilt_archive_has_no_page_of_turns_a_rollback_undid(tmp_path: Path) -> None:
    service = running_game(tmp_path / "store")
    site = tmp_path / "site"
    build_game(CARDS, history.read_game(service.store, "live"), site)
    before = {p.name for p in (site / "games" / "live").glob("turn-*.html")}
    gm.rollback(service, "live", 1, T0 + timedelta(days=5))
    build_game(CARDS, history.read_game(service.store, "live"), site)
    after = {p.name for p in (site / "games" / "live").glob("turn-*.html")}
    assert after < before
    assert after == {link for link in Page(site / "games" / "live" / "index.html").links
                     if link.startswith("turn-")}


def test_an_archive_folder_that_cannot_be_made_is_said_so(tmp_path: Path) -> None:
    running_game(tmp_path / "store")
    (tmp_path / "afile").write_text("")
    result = run(tmp_path / "store", "archive", "build", str(tmp_path / "afile" / "site"),
                 code=1)
    assert f"Cannot write the archive to {tmp_path / 'afile' / 'site'}: Not a directory." in (
        result.output)


def test_a_game_not_started_has_a_page_without_turns(tmp_path: Path) -> None:
    service = Service(Store(tmp_path / "store"), cards=CARDS)
    gm.create_game(service, "soon", [("ann", "a@example.org", ""), ("bob", "b@example.org", "")],
                   seed=SEED, now=T0)
    assert game_ids(service.store) == ["soon"]
    summary = build_game(CARDS, history.read_game(service.store, "soon"), tmp_path / "site")
    assert summary.status == "not started" and summary.turns == 0
    page = Page(tmp_path / "site" / "games" / "soon" / "index.html")
    assert "has not started yet" in page.words and not [
        link for link in page.links if link.startswith("turn-")]


def test_the_chart_draws_one_line_per_player_with_a_legend() -> None:
    svg = line_chart("Groups <held>", {"ann": [0, 1, 3], "b&b": [0, 2, 2]}, ["0", "1", "2"])
    root = ET.fromstring(svg)
    ns = {"s": "http://www.w3.org/2000/svg"}
    lines = root.findall("s:polyline", ns)
    assert [line.get("data-player") for line in lines] == ["ann", "b&b"]
    ys = [float(p.split(",")[1]) for p in str(lines[0].get("points")).split()]
    assert ys[0] > ys[1] > ys[2]  # more groups, higher up
    assert root.findtext("s:title", namespaces=ns) == "Groups <held>"
    assert "b&amp;b" in svg


# DejaVu Sans, the font a browser without Helvetica or Arial falls back to, draws each digit
# 1303/2048 em wide: the widest of the usual fonts.
DIGIT_WIDTH = 1303 / 2048 * 11


@pytest.mark.parametrize("points", [1, 2, 5, 30, 38, 100, 500, 1000])
def test_the_turn_numbers_under_the_chart_never_touch(points: int) -> None:
    """However many turns, the labels under the axis are a few pixels apart at least, the
    first and the last among them, and enough of them to read the axis by."""
    labels = [str(n) for n in range(points)]
    root = ET.fromstring(line_chart("Groups", {"ann": list(range(points))}, labels, "turn"))
    ticks = root.findall("s:text[@class='axis-label']", {"s": "http://www.w3.org/2000/svg"})
    shown = [str(t.text) for t in ticks]
    assert shown[0] == "0" and shown[-1] == labels[-1]
    assert len(shown) >= min(points, 5)
    spans = [(float(str(t.get("x"))) - len(s) * DIGIT_WIDTH / 2,
              float(str(t.get("x"))) + len(s) * DIGIT_WIDTH / 2)
             for t, s in zip(ticks, shown, strict=True)]
    for (label, (_, right)), (following, (left, _)) in zip(
            zip(shown, spans, strict=True), zip(shown[1:], spans[1:], strict=True),
            strict=False):
        assert right + 3 <= left, f"{label} and {following} touch"


def test_the_turn_still_being_played_is_shown_as_it_stands_now(
        tmp_path: Path, finished_site: tuple[Path, history.GameFile]) -> None:
    """The last turn of a running game has not ended: its page says what it shows is the
    game now, not at the end of the turn; the turns before it, and a finished game's last
    turn, did end."""
    service = running_game(tmp_path / "store")
    game = history.read_game(service.store, "live")
    build_game(CARDS, game, tmp_path / "site")
    folder = tmp_path / "site" / "games" / "live"
    last = len(history.timeline(CARDS, game, "")) - 1
    now = Page(folder / f"turn-{last}.html").words
    assert f"live: Turn {game.state.turn_number}: ann (in progress)" in now
    assert "This turn is still being played" in now
    assert "What has happened so far" in now and "The power structures now" in now
    assert "end of the turn" not in now
    before = Page(folder / f"turn-{last - 1}.html").words
    assert "The power structures at the end of the turn" in before
    assert "in progress" not in before and "What happened" in before
    assert f"Turn {game.state.turn_number}: ann (in progress)" in Page(
        folder / "index.html").words
    site, finished = finished_site
    ended = Page(site / "games" / "sim" / f"turn-{finished.state.turn_number}.html").words
    assert "in progress" not in ended and "at the end of the turn" in ended



# --- the language of the pages ----------------------------------------------------------------


def shown(page: Path) -> str:
    """The words a reader sees on ``page`` (its title among them), on one line: no style
    sheet, no picture (its labels come from the mails' word templates), no markup."""
    text = re.sub(r"<style>.*?</style>|<svg\b.*?</svg>", " ",
                  page.read_text(encoding="utf-8"), flags=re.S)
    # Plain white space folded, the no-break spaces kept (str.split would take them too).
    return re.sub(r"[ \t\r\n]+", " ", html.unescape(re.sub(r"<[^>]+>", " ", text))).strip()


def labels(page: Path) -> str:
    """What ``page`` says to a screen reader or in its pictures: the names of its boxes and
    pictures, the words drawn in them."""
    text = page.read_text(encoding="utf-8")
    return " | ".join(html.unescape(t) for t in re.findall(
        r'aria-label="([^"]*)"|<text\b[^>]*>([^<]*)</text>', text) for t in t if t)


# What an English page says that no French page may (words the Python code once made
# among them: the turns' titles, the charts' titles).
ENGLISH = ("Setting up", "Turn ", "Groups controlled", "Money (MB)", "What happened",
           "power structure", "Uncontrolled", "All games", "Illuminati games", "Made by",
           "The game is", " over", "running", " attack")


def test_a_french_games_archive_is_in_french(
        tmp_path: Path, finished_site: tuple[Path, history.GameFile]) -> None:
    """A game created in French (``pbem game create --language fr``) has French pages unless
    told otherwise, the index too when every game is French: the mails' own sentences for
    the events, a no-break space before : ; ? ! as French typography wants, and pages as
    well-formed as the English ones."""
    service = running_game(tmp_path / "store", "partie", lang="fr")
    running = history.read_game(service.store, "partie")
    _, finished = finished_site
    site = tmp_path / "site"
    build_index([build_game(CARDS, running, site), build_game(CARDS, finished, site, "fr")],
                site)
    pages = well_formed(site)
    assert len(pages) > 10
    for page in pages:
        words = shown(page)
        assert '<html lang="fr">' in page.read_text(encoding="utf-8"), page
        assert not re.search(r"[^\xa0][:;?!»]|«[^\xa0]", words), (page, words)
        assert not [w for w in ENGLISH if w in words], (page, words)
        assert not [w for w in (*ENGLISH, "turn", "Power ") if w in labels(page)], page
    game = shown(site / "games" / "partie" / "index.html")
    assert "Mise en place" in game and f"Tour 2{NB}: ann (en cours)" in game
    charts = labels(site / "games" / "partie" / "index.html")
    assert "Groupes contrôlés" in charts and "Argent (MB)" not in charts  # money is secret
    assert "La structure de pouvoir d'ann" in charts and "Pouvoir 10/10" in charts
    assert f"La partie est en cours{NB}: tour 2, à ann de jouer." in game
    assert "Argent (MB)" in labels(site / "games" / "sim" / "index.html")
    first = shown(site / "games" / "partie" / "turn-1.html")
    assert f"partie{NB}: Tour 1{NB}: bob" in first
    assert f"Le tour 1 commence{NB}: à bob de jouer." in first  # fr/_events.txt.j2
    assert "Les structures de pouvoir à la fin du tour" in first
    index = shown(site / "index.html")
    assert "Parties d'Illuminati" in index and "en cours" in index and "finie" in index
    assert "aucun (le nombre de tours prévu est atteint)" in index


def test_each_game_is_in_its_language_and_the_index_in_the_one_they_share(
        tmp_path: Path) -> None:
    """Without a language named, a game's pages are in its players' language; the list of
    games is in the language all of them share, else in English."""
    service = running_game(tmp_path / "store", "partie", lang="fr")
    english = Service(service.store, cards=CARDS)
    gm.create_game(english, "game", [("cy", "cy@example.org", ""), ("di", "di@example.org", "")],
                   seed=SEED, now=T0)
    site = tmp_path / "site"
    summaries = [build_game(CARDS, history.read_game(service.store, g), site)
                 for g in ("partie", "game")]
    assert [s.lang for s in summaries] == ["fr", "en"]
    build_index(summaries, site)
    assert '<html lang="en">' in (site / "index.html").read_text(encoding="utf-8")
    assert '<html lang="en">' in (site / "games" / "game" / "index.html").read_text(
        encoding="utf-8")
    build_index(summaries[:1], site)
    assert '<html lang="fr">' in (site / "index.html").read_text(encoding="utf-8")


def test_a_games_language_is_the_one_most_of_its_players_read() -> None:
    """Each seat starts in the game's language; a player may choose another (SET
    LANGUAGE): the game's is the language more seats read than any other, else English."""
    def seats(*langs: str) -> GameService:
        return GameService(tuple(Seat(f"p{n}", f"p{n}@example.org", lang=lang)
                                 for n, lang in enumerate(langs)))

    assert game_language(seats("fr", "fr", "en")) == "fr"
    assert game_language(seats("fr", "fr")) == "fr"
    assert game_language(seats("fr", "en")) == "en"
    assert game_language(seats("en", "en", "fr")) == "en"
    assert game_language(seats("xx", "xx", "fr")) == "fr"  # a language we have no words for
    assert game_language(seats()) == "en"


def test_archive_build_writes_the_language_it_is_given(tmp_path: Path) -> None:
    """``pbem archive build --language fr``: an English game's archive in French."""
    running_game(tmp_path / "store")
    site = tmp_path / "site"
    run(tmp_path / "store", "archive", "build", str(site), "--language", "fr")
    for page in well_formed(site):
        assert '<html lang="fr">' in page.read_text(encoding="utf-8"), page
    assert "Mise en place" in shown(site / "games" / "live" / "index.html")
    run(tmp_path / "store", "archive", "build", str(site))
    assert "Setting up" in shown(site / "games" / "live" / "index.html")


def test_a_box_that_scrolls_is_reached_by_the_keyboard_and_named(
        finished_site: tuple[Path, history.GameFile]) -> None:
    """A table or picture wider than a phone scrolls in its box; a keyboard must reach the
    box to scroll it (WCAG 2.1.1), and a screen reader name it: each such box is a region
    with a name, in the tab order. (tests/archive/test_archive_browser.py checks it in Chromium.)"""
    site, _ = finished_site
    boxes = 0
    for page in sorted(site.rglob("*.html")):
        for tag in re.findall(r'<div class="(?:scroll|picture)"[^>]*>',
                              page.read_text(encoding="utf-8")):
            boxes += 1
            assert 'role="region"' in tag and 'tabindex="0"' in tag, (page, tag)
            assert re.search(r'aria-label="[^"]+"', tag), (page, tag)
    assert boxes > 20
