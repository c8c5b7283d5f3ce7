"""The archive of a finished bot game, opened in a real browser (headless Chromium).

The screenshots are kept in ``test-artifacts/`` (not committed) for a person to look at.
The test is skipped only when Chromium is not installed; ``scripts/test.sh`` installs it.
"""

from __future__ import annotations

import os
import signal
import struct
import subprocess
from pathlib import Path

import pytest
from test_history import CARDS, simulated_store

from pbem import history
from pbem.archive.build import build_game, build_index

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
WIDTH, HEIGHT = 1280, 2400
TIMEOUT = 90  # seconds; a first start on a cold machine is slow

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="chromium is not installed")


def visit(page: Path, profile: Path, screenshot: Path) -> tuple[str, list[str]]:
    """Open ``page`` once; gives the DOM after loading and the console's lines."""
    command = [
        str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
        f"--screenshot={screenshot}", f"--window-size={WIDTH},{HEIGHT}", "--dump-dom",
        page.as_uri(),
    ]
    # Its own process group, so a hung browser is ended with all its helpers, by our pid.
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    assert proc.returncode == 0, err[-2000:]
    return out, [line for line in err.splitlines() if ":CONSOLE" in line]


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


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
