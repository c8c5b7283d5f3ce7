"""The HTML turn report, picture included, as a real browser shows it (headless Chromium).

The screenshot is kept in ``test-artifacts/`` (not committed) for a person to look at. The
test is skipped only when Chromium is not installed; ``scripts/test.sh`` installs it.
"""

from __future__ import annotations

import os
import re
import signal
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from test_reports_game import CARDS, DEADLINE, NOW, first, steps

from pbem.engine.view import view
from pbem.reports import mails as reports

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
WIDTH, HEIGHT = 1100, 3000
TIMEOUT = 90  # seconds; a first start on a cold machine is slow

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="chromium is not installed")


@dataclass(frozen=True)
class Visit:
    dom: str
    console: list[str]
    screenshot: Path


def visit(page: Path, profile: Path, screenshot: Path) -> Visit:
    """Open ``page`` once: the DOM after loading, the console lines, a screenshot."""
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
    console = [line for line in err.splitlines() if ":CONSOLE" in line]
    return Visit(out, console, screenshot)


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def test_turn_report_renders_in_chromium_with_its_pictures(tmp_path: Path) -> None:
    """Every structure is an inline SVG with its cards; no console error; a screenshot."""
    state = steps()[first("report")].state
    who = state.active_player.name
    mail = reports.turn_report(CARDS, state, who, steps()[-1].events, now=NOW,
                               deadline=DEADLINE, tz="Europe/Paris")
    ARTIFACTS.mkdir(exist_ok=True)
    page = ARTIFACTS / "turn_report.html"
    page.write_text(mail.html, encoding="utf-8")
    result = visit(page, tmp_path / "profile", ARTIFACTS / "turn_report.png")

    assert result.console == []
    v = view(CARDS, state, who)
    pictures = re.findall(r"<svg\b.*?</svg>", result.dom, re.S)
    assert len(pictures) == sum(1 for p in v.players if p.structure)
    for p in v.players:
        for card in p.structure:
            assert f'data-card="{card.card}"' in result.dom
    assert "ATTACK" in result.dom and "<table" in result.dom
    assert png_size(result.screenshot) == (WIDTH, HEIGHT)
    assert result.screenshot.stat().st_size > 20_000  # a blank page compresses far smaller


def test_the_console_check_sees_errors(tmp_path: Path) -> None:
    """The same visit reports a page's script error, so an empty console list means it."""
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><p>x</p><script>noSuchFunction();</script>")
    result = visit(page, tmp_path / "profile", tmp_path / "broken.png")
    assert any("noSuchFunction" in line for line in result.console)
