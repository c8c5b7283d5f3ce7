"""The HTML turn report, as mailed (pictures as PNG parts), as a real browser shows it
(headless Chromium) at a phone's width and a desktop's.

The screenshot is kept in ``test-artifacts/`` (not committed) for a person to look at. The
test is skipped only when Chromium is not installed; ``scripts/test.sh`` installs it.
"""

from __future__ import annotations

import base64
import email
import email.message
import email.policy
import html
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from scripted_game import CARDS, DEADLINE, NOW, first, steps
from support import CHROMIUM, PAGE_HEAD, REPO, chromium, png_size

from pbem.engine.view import view
from pbem.mail.compose import OutgoingMail, compose
from pbem.reports import mails as reports

ARTIFACTS = REPO / "test-artifacts"
WIDTH, HEIGHT = 1100, 3000

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="chromium is not installed")


@dataclass(frozen=True)
class Visit:
    dom: str
    console: list[str]
    screenshot: Path


def visit(page: Path, profile: Path, screenshot: Path, width: int = WIDTH) -> Visit:
    """Open ``page`` once: the DOM after loading, the console lines, a screenshot."""
    seen = chromium(page, profile, width=width, height=HEIGHT, screenshot=screenshot)
    return Visit(seen.dom, seen.console, screenshot)


# Run once the page has loaded: what the test reads back from the DOM it dumps.
PROBE = """<script>window.addEventListener("load", () => {
  const root = window.parent.document.documentElement, width = window.innerWidth;
  const wide = [...document.querySelectorAll("body *")].filter(
    e => e.getBoundingClientRect().right > width + 1 || e.scrollWidth > e.clientWidth + 1);
  const small = [...document.querySelectorAll("body *")].filter(
    e => [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())
         && parseFloat(getComputedStyle(e).fontSize) < 12);
  root.setAttribute("data-width", String(width));
  root.setAttribute("data-images", [...document.images].map(i => i.naturalWidth).join(","));
  root.setAttribute("data-wide", wide.map(e => e.tagName + "." + e.className).join(" "));
  root.setAttribute("data-small", small.map(e => e.tagName + "." + e.className).join(" "));
});</script>"""


def mail_page(raw: bytes) -> tuple[str, int]:
    """The HTML part of a composed mail with each cid: picture made a data: URI (as a mail
    reader serves the multipart/related parts), and how many pictures it holds."""
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, email.message.EmailMessage)
    html_part = message.get_body(("html",))
    assert html_part is not None
    page = html_part.get_content()
    pictures = 0
    for part in message.walk():
        if part.get_content_maintype() == "image":
            cid = str(part["Content-ID"]).strip("<>")
            data = base64.b64encode(part.get_payload(decode=True)).decode("ascii")
            page = page.replace(f"cid:{cid}", f"data:{part.get_content_type()};base64,{data}")
            pictures += 1
    assert "cid:" not in page, "a picture the HTML shows is not in the mail"
    return page.replace("</body>", PROBE + "</body>"), pictures


def framed(page: str, width: int) -> str:
    """The page in a frame ``width`` pixels wide: headless Chromium's window is never
    narrower than 500 pixels, a phone's screen is. The probe writes on this page."""
    return (f'{PAGE_HEAD}<body style="margin:0"><iframe style="width:{width}px;'
            f'height:{HEIGHT - 20}px;border:0" srcdoc="{html.escape(page)}"></iframe>'
            "</body></html>")


@pytest.mark.parametrize("width", [375, WIDTH])
def test_turn_report_mail_renders_in_chromium_with_its_pictures(tmp_path: Path,
                                                                width: int) -> None:
    """Issue 19, point 8: the report as mailed (pictures as PNG parts shown by cid:), at a
    phone's width and a desktop's: every picture loads, nothing is wider than the window
    (the page, or a box that would need scrolling), no text under 12 px, no console
    error; a screenshot for a person to look at."""
    state = steps()[first("report")].state
    who = state.active_player.name
    rendered = reports.turn_report(CARDS, state, who, steps()[-1].events, now=NOW,
                                   deadline=DEADLINE, tz="Europe/Paris")
    raw = compose(OutgoingMail(
        to="p@example.org", from_addr="game@example.org", subject=rendered.subject,
        text=rendered.text, html=rendered.html, attachments=(), inline=rendered.inline,
        message_id="<r1@example.org>", date=NOW))
    page_html, pictures = mail_page(raw)
    ARTIFACTS.mkdir(exist_ok=True)
    page = ARTIFACTS / f"turn_report_{width}.html"
    page.write_text(framed(page_html, width), encoding="utf-8")
    window = max(width, 500)
    result = visit(page, tmp_path / "profile", ARTIFACTS / f"turn_report_{width}.png", window)

    assert result.console == []
    root = re.search(r"<html[^>]*>", result.dom)
    assert root is not None
    facts = dict(re.findall(r'data-(\w+)="([^"]*)"', root.group(0)))
    assert facts["width"] == str(width)
    v = view(CARDS, state, who)
    assert pictures == sum(1 for p in v.players if p.structure) > 1
    loaded = facts["images"].split(",")
    assert len(loaded) == pictures and all(int(w) > 0 for w in loaded), loaded
    assert facts["wide"] == "", facts["wide"]
    assert facts["small"] == "", facts["small"]
    for p in v.players:
        if p.structure:
            assert re.search(rf'alt="[^"]*{re.escape(p.name)}: [^"]*{p.structure[0].card}',
                             page_html)
    assert "ATTACK" in page_html and "<table" in page_html
    assert png_size(result.screenshot) == (window, HEIGHT)
    assert result.screenshot.stat().st_size > 20_000  # a blank page compresses far smaller


def test_the_console_check_sees_errors(tmp_path: Path) -> None:
    """The same visit reports a page's script error, so an empty console list means it."""
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><p>x</p><script>noSuchFunction();</script>")
    result = visit(page, tmp_path / "profile", tmp_path / "broken.png")
    assert any("noSuchFunction" in line for line in result.console)
