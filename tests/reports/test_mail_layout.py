"""Every kind of mail's HTML part, as mailed (pictures as PNG parts shown by cid:), laid out
by a real browser (headless Chromium) at a phone's width (375 px) and a desktop's (1000 px),
in every language (English, French, German: issues 38 and 42).

How it checks: each HTML part is put in its own frame of the given width on one page (one
browser start per language and width); a script in each frame, once everything has loaded,
asks the layout where each word of the text sits (``Range.getClientRects``): a word whose
pieces lie on more than one line was broken inside. It also reads the font size of every
piece of text (body text at least 14 px), what sticks out of the frame (only a picture may
scroll sideways, in its box), and each picture's drawn and shown widths, from which the
size its smallest text shows at follows (at least 11 px). Words are split at spaces,
hyphens and slashes: a line may end after "Anti-" or "5/", never inside "Power".

The test is skipped only when Chromium is not installed; ``scripts/test.sh`` installs it.
The pages are kept in ``test-artifacts/`` (not committed) for a person to look at.
"""

from __future__ import annotations

import base64
import email
import email.message
import email.policy
import html
import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from support import CHROMIUM, PAGE_HEAD, REPO, chromium

from pbem.reports import pictures as pictures_module
from pbem.reports import svg as svg_module
from pbem.reports.languages import LANGUAGES
from pbem.reports.observing import lobby_mail
from pbem.service.bot_games import play_game
from pbem.service.service import Service, ServiceConfig
from pbem.store.memory import MemoryStore

ARTIFACTS = REPO / "test-artifacts"
HEIGHT = 1600  # each frame's; the layout of what is below the fold is computed all the same
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
PLAYERS = (("Zoë", "zoe@example.org"), ("O'Neil", "oneil@example.org"),
           ("Åsa", "asa@example.org"), ("Björn", "bjorn@example.org"))

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="chromium is not installed")

# Run in each frame once the page has loaded; writes its findings on the outer page.
PROBE = """<script>window.addEventListener("load", () => {
  const width = window.innerWidth, broken = [], small = [], wide = [], pics = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n; (n = walker.nextNode());) {
    const el = n.parentElement;
    if (!n.data.trim() || el.closest("style,script,title")) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    if (size < 14) small.push(el.tagName + " " + size + ": " + n.data.trim().slice(0, 40));
    if (el.closest(".digest")) continue;  // a hex digest, not a word: it may break anywhere
    for (const m of n.data.matchAll(/[^\\s\\-\\/]+/g)) {
      const r = document.createRange();
      r.setStart(n, m.index);
      r.setEnd(n, m.index + m[0].length);
      const lines = new Set([...r.getClientRects()].filter(x => x.width > 0)
                                                    .map(x => Math.round(x.bottom)));
      if (lines.size > 1) broken.push(m[0]);
    }
  }
  for (const e of document.querySelectorAll("body *")) {
    if (e.closest(".picture")) continue;
    if (e.getBoundingClientRect().right > width + 1 || e.scrollWidth > e.clientWidth + 1)
      wide.push(e.tagName + "." + e.className);
  }
  for (const i of document.images)
    pics.push([i.naturalWidth, i.width, Number(i.getAttribute("width"))]);
  window.parent.document.documentElement.setAttribute("data-INDEX",
    JSON.stringify({width, broken, small, wide, pics}));
});</script>"""


def html_page(raw: bytes) -> str | None:
    """The HTML part of a composed mail with each cid: picture made a data: URI (as a mail
    reader serves the multipart/related parts); None for a mail without one."""
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, email.message.EmailMessage)
    part = message.get_body(("html",))
    if part is None:
        return None
    page = str(part.get_content())
    for image in message.walk():
        if image.get_content_maintype() == "image":
            cid = str(image["Content-ID"]).strip("<>")
            data = base64.b64encode(image.get_payload(decode=True)).decode("ascii")
            page = page.replace(f"cid:{cid}", f"data:{image.get_content_type()};base64,{data}")
    assert "cid:" not in page, "a picture the HTML shows is not in the mail"
    return page


def kind_of(page: str) -> str:
    """What tells one kind of mail from another: the tags and classes it uses, words left
    out."""
    body = page[page.find("<body"):]
    return " ".join(sorted({f"{tag}.{cls}" for tag, cls in re.findall(
        r'<(h1|h2|table|pre|ul|img|form|strong|span)\b(?:[^>]*class="([^"]*)")?', body)}))


@cache
def sample(language: str) -> tuple[str, ...]:
    """One HTML part of each kind (by its skeleton) of a short four-player bot game whose
    players write in ``language``, the longest of each kind, and two of the lobby's."""
    found: dict[str, str] = {}

    def watch(mails: Sequence[tuple[str, bytes]]) -> None:
        for _to, raw in mails:
            page = html_page(raw)
            if page is None:
                continue
            kind = kind_of(page)
            if len(page) > len(found.get(kind, "")):
                found[kind] = page

    service = Service(MemoryStore(), ServiceConfig())
    play_game(service, "g", PLAYERS, start=NOW, seed="c3" * 32, options={"max_turns": 12},
              watch=watch, first_lines=(f"SET LANGUAGE {language.upper()}",))
    lobby = (lobby_mail("lobby_help", language, None, message=None, suggestion=None),
             lobby_mail("observing", language, None, game="g", press=True))
    return (*found.values(), *(mail.html for mail in lobby))


def visit(page: Path, profile: Path, flags: Sequence[str] = ()) -> str:
    """Open ``page`` once: the DOM after loading."""
    return chromium(page, profile, width=1100, height=1000, flags=flags).dom


def framed(pages: Sequence[str], probe: str, width: int, where: Path) -> None:
    """Write ``where``: each page in a frame ``width`` pixels wide, ``probe`` (its INDEX the
    frame's number) run in it."""
    probed = (page.replace("</body>", probe.replace("INDEX", str(n)) + "</body>")
              for n, page in enumerate(pages))
    frames = "".join(
        f'<iframe style="width:{width}px;height:{HEIGHT}px;border:0;display:block" '
        f'srcdoc="{html.escape(page)}"></iframe>' for page in probed)
    where.write_text(f'{PAGE_HEAD}<body style="margin:0">{frames}</body></html>',
                     encoding="utf-8")


def laid_out(pages: Sequence[str], width: int, where: Path) -> list[dict[str, Any]]:
    """Each page in a frame ``width`` pixels wide (headless Chromium's window is never
    narrower than 500 pixels, a phone's screen is), what its probe found."""
    framed(pages, PROBE, width, where)
    dom = visit(where, where.parent / f"profile-{where.stem}")
    root = re.search(r"<html[^>]*>", dom)
    assert root is not None
    facts = {int(n): json.loads(html.unescape(value))
             for n, value in re.findall(r'data-(\d+)="([^"]*)"', root.group(0))}
    assert sorted(facts) == list(range(len(pages))), "a frame's probe did not run"
    return [facts[n] for n in range(len(pages))]


def smallest_picture_text() -> float:
    """The smallest font size the pictures' SVG uses (in the SVG's units)."""
    source = Path(svg_module.__file__).read_text(encoding="utf-8")
    return min(float(size) for size in re.findall(r'"font-size": "(\d+(?:\.\d+)?)"', source))


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("width", [375, 1000])
def test_every_kind_of_mail_reads_well_at_a_phone_and_a_desktop_width(
        width: int, language: str) -> None:
    pages = sample(language)
    assert len(pages) >= 5, "too few kinds of mail to say anything"
    ARTIFACTS.mkdir(exist_ok=True)
    found = laid_out(pages, width, ARTIFACTS / f"mail_layout_{language}_{width}.html")
    smallest = smallest_picture_text()
    seen_pictures, widest = 0, 0
    for n, facts in enumerate(found):
        where = f"mail {n} ({kind_of(pages[n])[:80]})"
        assert facts["width"] == width
        assert facts["broken"] == [], (where, facts["broken"])
        assert facts["small"] == [], (where, facts["small"])
        assert facts["wide"] == [], (where, facts["wide"])
        for drawn, shown, meant in facts["pics"]:
            assert drawn > 0, (where, "a picture did not load")
            seen_pictures += 1
            widest = max(widest, shown)
            # The SVG's size, whatever the zoom it was drawn at (the reader's structure at
            # DRAWN_ZOOM, the others' at OTHERS_ZOOM): the <img> says SHOWN_SCALE times it.
            svg_width = meant / pictures_module.SHOWN_SCALE
            assert drawn >= svg_width * pictures_module.OTHERS_ZOOM - 1, (where, drawn, meant)
            assert smallest * shown / svg_width >= 11, (where, drawn, shown)
    assert seen_pictures > 0
    assert widest > 375  # a picture wider than a phone, which must not shrink there


# Run in each frame in dark mode: each piece of text's colour against the background it is
# painted on (the nearest ancestor's opaque one, else the canvas's), and each picture's.
DARK_PROBE = """<script>window.addEventListener("load", () => {
  const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = c => { const [r, g, b] = c.slice(0, 3).map(v => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const canvas = getComputedStyle(document.documentElement).backgroundColor;
  const under = el => { for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c; }
    const c = rgb(canvas); return c.length === 3 || c[3] > 0.5 ? c : [0, 0, 0]; };
  const faint = [], pics = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n; (n = walker.nextNode());) {
    const el = n.parentElement;
    if (!n.data.trim() || el.closest("style,script,title")) continue;
    const a = lum(rgb(getComputedStyle(el).color)), b = lum(under(el));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (ratio < 3) faint.push(ratio.toFixed(2) + " " + n.data.trim().slice(0, 30));
  }
  for (const i of document.images) pics.push(getComputedStyle(i).backgroundColor);
  const body = getComputedStyle(document.body).backgroundColor;
  window.parent.document.documentElement.setAttribute("data-INDEX",
    JSON.stringify({faint, pics, body}));
});</script>"""


@pytest.mark.parametrize("language", LANGUAGES)
def test_in_dark_mode_no_text_vanishes_and_pictures_keep_their_white(language: str) -> None:
    """Issue 38: mail stays readable in dark mode. With prefers-color-scheme: dark (the
    mail asks for "light dark"), every piece of text contrasts at least 3:1 with what it is
    painted on, the page itself turned dark, and each picture keeps the white it is drawn
    on (its <img> background, and a PNG with no transparency an inverting app could show
    through)."""
    pages = sample(language)
    ARTIFACTS.mkdir(exist_ok=True)
    where = ARTIFACTS / f"mail_dark_{language}.html"
    framed(pages, DARK_PROBE, 1000, where)
    dom = visit(where, where.parent / f"profile-{where.stem}",
                flags=("--force-dark-mode", "--blink-settings=preferredColorScheme=0"))
    root = re.search(r"<html[^>]*>", dom)
    assert root is not None
    found = {int(n): json.loads(html.unescape(value))
             for n, value in re.findall(r'data-(\d+)="([^"]*)"', root.group(0))}
    assert sorted(found) == list(range(len(pages))), "a frame's probe did not run"
    pictures = 0
    for n, facts in found.items():
        where_ = f"mail {n} ({kind_of(pages[n])[:80]})"
        assert facts["body"] == "rgb(27, 27, 27)", (where_, "not in dark mode", facts["body"])
        assert facts["faint"] == [], (where_, facts["faint"])
        for background in facts["pics"]:
            pictures += 1
            assert background == "rgb(255, 255, 255)", (where_, background)
    assert pictures > 0
    for page in pages:
        for data in re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", page):
            png = base64.b64decode(data)
            assert b"tRNS" not in png and png[25] in (2, 3), "a picture with transparency"
