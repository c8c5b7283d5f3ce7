"""The archive of a finished bot game, opened in a real browser (headless Chromium).

The screenshots are kept in ``test-artifacts/`` (not committed) for a person to look at.
The test is skipped only when Chromium is not installed; ``scripts/test.sh`` installs it.
"""

from __future__ import annotations

import html
import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from stored_games import CARDS, SEED, T0, simulated_store
from support import CHROMIUM, PAGE_HEAD, REPO, chromium, png_size

from pbem.archive.build import build_game, build_index
from pbem.archive.chart import line_chart
from pbem.service import gm, history
from pbem.service.service import Service
from pbem.store import Store

ARTIFACTS = REPO / "test-artifacts"
WIDTH, HEIGHT = 1280, 2400

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="chromium is not installed")


def visit(page: Path, profile: Path, screenshot: Path) -> tuple[str, list[str]]:
    """Open ``page`` once; gives the DOM after loading and the console's lines."""
    seen = chromium(page, profile, width=WIDTH, height=HEIGHT, screenshot=screenshot)
    return seen.dom, seen.console


def test_the_archive_of_a_finished_bot_game_opens_in_chromium(tmp_path: Path) -> None:
    """Index, game page and a turn page load without a console error, their pictures
    parsed as SVG elements, and look like something (screenshots kept)."""
    service = simulated_store(tmp_path / "store")
    game = history.read_game(service.store, "sim")
    assert game.state.phase == "over"
    site = ARTIFACTS / "archive"
    build_index([build_game(CARDS, game, site)], site)
    busiest = max(range(game.state.turn_number + 1), key=lambda n: (
        site / "games" / "sim" / f"turn-{n}.html").read_text().count("attack_result"))
    pages = {
        "index": (site / "index.html", 0, 0),
        "game": (site / "games" / "sim" / "index.html", 2, len(game.state.players)),
        "turn": (site / "games" / "sim" / f"turn-{busiest}.html", 0,
                 len(game.state.players)),
    }
    for name, (page, charts, structures) in pages.items():
        shot = ARTIFACTS / f"archive-{name}.png"
        shot.unlink(missing_ok=True)
        dom, console = visit(page, tmp_path / f"profile-{name}", shot)
        assert console == [], console
        assert "</html>" in dom and "sim" in dom
        # Parsed as SVG (not text): the browser serializes each picture as an svg element
        # with its children.
        assert dom.count('<svg xmlns="http://www.w3.org/2000/svg"') == charts + structures
        assert dom.count('class="chart"') == charts
        assert dom.count('class="power-structure"') == structures
        assert png_size(shot) == (WIDTH, HEIGHT)
        assert shot.stat().st_size > 10_000  # not a blank page
    turn_dom = visit(pages["turn"][0], tmp_path / "profile-again", tmp_path / "again.png")[0]
    assert 'class="breakdown"' in turn_dom and "or less to succeed" in turn_dom


def measured(page: Path, profile: Path) -> Any:
    """Open ``page``, whose script writes what it measured as JSON into the body's
    ``data-measure`` attribute; gives that."""
    dom, console = visit(page, profile, profile.with_suffix(".png"))
    assert console == [], console
    found = re.search(r'<body[^>]* data-measure="([^"]*)"', dom)
    assert found, "the page's script measured nothing"
    return json.loads(html.unescape(found.group(1)))


PHONE = 360  # CSS pixels across a small phone's screen
# Each page in a frame a phone's width (Chromium's window cannot be made that narrow), same
# origin (srcdoc) so the script can measure it once everything is loaded.
FRAMES_SCRIPT = """<script>
addEventListener("load", () => {
  const widths = {};
  for (const frame of document.querySelectorAll("iframe")) {
    const page = frame.contentDocument.documentElement;
    widths[frame.name] = [page.scrollWidth, page.clientWidth];
  }
  document.body.setAttribute("data-measure", JSON.stringify(widths));
});
</script>"""


LONG_GAME = "Illuminati" * 6 + "2024"


def long_named_game(root: Path) -> Service:
    """A running game with the longest names there may be (a 64-character game id, a
    30-letter player) and an announcement holding a long address, all without a space."""
    service = Service(Store(root), cards=CARDS)
    game = LONG_GAME
    gm.create_game(service, game, [("Maximilianfriedrichwilhelmvonx", "m@example.org", ""),
                                   ("bob", "bob@example.org", "")], seed=SEED, now=T0)
    gm.start_game(service, game, T0)
    gm.announce(service, game, "Rules: https://example.org/" + "illuminati" * 12, T0)
    gm.process(service, T0 + timedelta(days=4))
    return service


def on_a_phone(site: Path, pages: list[Path], script: str, wrapper: Path) -> Path:
    """A page holding each of ``pages`` in a frame a phone's width, then ``script``."""
    frames = "".join(
        f'<iframe name="{page.relative_to(site)}" width="{PHONE}" height="640" '
        f'srcdoc="{html.escape(page.read_text(encoding="utf-8"))}"></iframe>'
        for page in pages)
    wrapper.write_text(f"{PAGE_HEAD}<body>{frames}{script}</body></html>",
                       encoding="utf-8")
    return wrapper


def test_no_archive_page_is_wider_than_a_phone(tmp_path: Path) -> None:
    """At 360 pixels across, a long seed, game id, name or address wraps, and a picture,
    chart or table scrolls inside its own box: the page itself is never wider."""
    finished = simulated_store(tmp_path / "finished")
    running = long_named_game(tmp_path / "running")
    site = tmp_path / "site"
    games = [history.read_game(finished.store, "sim"),
             history.read_game(running.store, LONG_GAME)]
    build_index([build_game(CARDS, game, site) for game in games], site)
    pages = [site / "index.html"]
    for game in games:
        folder = site / "games" / game.game
        pages += [folder / "index.html", *sorted(folder.glob("turn-*.html"))[-2:]]
    widths = measured(on_a_phone(site, pages, FRAMES_SCRIPT, tmp_path / "phone.html"),
                      tmp_path / "profile")
    assert len(widths) == len(pages)
    for name, (page_width, screen) in widths.items():
        assert PHONE - 20 <= screen <= PHONE, name  # less a scrollbar, if any
        assert page_width <= screen, f"{name} is {page_width} pixels wide"


# Every box that can scroll sideways, in each frame: what a keyboard and a screen reader
# make of it, and whether it scrolls at a phone's width.
BOXES_SCRIPT = """<script>
addEventListener("load", () => {
  const boxes = {};
  for (const frame of document.querySelectorAll("iframe")) {
    const page = frame.contentDocument, style = frame.contentWindow.getComputedStyle;
    boxes[frame.name] = [...page.body.querySelectorAll("*")]
      .filter((box) => ["auto", "scroll"].includes(style(box).overflowX))
      .map((box) => {
        box.focus();
        return {what: box.firstElementChild ? box.firstElementChild.getAttribute("class") : "",
                focused: page.activeElement === box, tabindex: box.tabIndex,
                role: box.getAttribute("role"), name: box.getAttribute("aria-label"),
                scrolls: box.scrollWidth > box.clientWidth};
      });
  }
  document.body.setAttribute("data-measure", JSON.stringify(boxes));
});
</script>"""


def test_every_box_that_scrolls_takes_the_keyboards_focus_and_has_a_name(
        tmp_path: Path) -> None:
    """A table, picture or chart wider than the screen scrolls in its own box: a keyboard
    reaches the box (it takes the focus, in the tab order) so the arrow keys scroll it, and
    a screen reader names it as a region (WCAG 2.1.1; axe's scrollable-region-focusable),
    in English pages and French ones."""
    finished = simulated_store(tmp_path / "finished")
    running = long_named_game(tmp_path / "running")
    site = tmp_path / "site"
    build_index([build_game(CARDS, history.read_game(finished.store, "sim"), site),
                 build_game(CARDS, history.read_game(running.store, LONG_GAME), site, "fr")],
                site)
    pages = [site / "index.html"]
    for game in ("sim", LONG_GAME):
        folder = site / "games" / game
        pages += [folder / "index.html", *sorted(folder.glob("turn-*.html"))[-2:]]
    boxes = measured(on_a_phone(site, pages, BOXES_SCRIPT, tmp_path / "boxes.html"),
                     tmp_path / "profile")
    assert len(boxes) == len(pages)
    every = [(name, box) for name, found in boxes.items() for box in found]
    # Tables, structure pictures and charts among them, some too wide for the phone (the
    # groups tables stack on a phone instead of scrolling: issue 38).
    assert {"games", "breakdown", "power-structure", "chart"} <= {
        box["what"] for _, box in every}
    assert len([box for _, box in every if box["scrolls"]]) > 5
    for name, box in every:
        assert box["focused"] and box["tabindex"] == 0, (name, box)
        assert box["role"] == "region" and box["name"], (name, box)
    french = [box["name"] for name, box in every if name.startswith(f"games/{LONG_GAME}")]
    assert "Groupes contrôlés" in french and "Les groupes non contrôlés" in french


CHART_SCRIPT = """<script>
addEventListener("load", () => {
  const problems = [];
  for (const chart of document.querySelectorAll("svg.chart")) {
    const name = chart.getAttribute("aria-label");
    const width = chart.viewBox.baseVal.width, height = chart.viewBox.baseVal.height;
    const ticks = [...chart.querySelectorAll("text.axis-label")].map((t) => t.getBBox());
    if (ticks.length < 2) problems.push(`${name}: ${ticks.length} labels under the axis`);
    ticks.forEach((box, i) => {
      if (i && ticks[i - 1].x + ticks[i - 1].width + 2 > box.x)
        problems.push(`${name}: labels ${i - 1} and ${i} touch`);
    });
    const legend = [...chart.querySelectorAll("text.legend")].map((t) => t.getBBox());
    legend.forEach((box, i) => {
      if (i && legend[i - 1].y + legend[i - 1].height > box.y)
        problems.push(`${name}: names ${i - 1} and ${i} of the legend touch`);
    });
    for (const text of chart.querySelectorAll("text")) {
      const box = text.getBBox();
      if (box.x < 0 || box.y < 0 || box.x + box.width > width || box.y + box.height > height)
        problems.push(`${name}: "${text.textContent}" goes past the edge`);
    }
  }
  document.body.setAttribute("data-measure", JSON.stringify(problems));
});
</script>"""


def test_no_text_of_a_chart_touches_another_or_leaves_it_whatever_the_turns(
        tmp_path: Path) -> None:
    """Drawn by the browser with its own fonts: for 5 to 1,000 turns, the turn numbers
    under the axis stand apart; eight players' names, the longest possible, fit the legend."""
    names = ["Maximilianfriedrichwilhelmvonx", "WWWWWWWWWWWWWWWWWWWWWWWWWWWWWW",
             *(f"p{n}" for n in range(6))]
    charts = "".join(
        line_chart(f"{turns} turns", {name: [n * turn % 97 for turn in range(turns)]
                                      for n, name in enumerate(names)},
                   [str(turn) for turn in range(turns)], "turn")
        for turns in (5, 30, 38, 100, 500, 1000))
    page = tmp_path / "charts.html"
    page.write_text(f"{PAGE_HEAD}<body>{charts}{CHART_SCRIPT}</body></html>",
                    encoding="utf-8")
    assert measured(page, tmp_path / "profile") == []
