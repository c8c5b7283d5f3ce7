"""Every kind of mail's HTML part, as mailed (pictures as PNG parts shown by cid:), laid out
by a real browser (headless Chromium) at a phone's width (375 px) and a desktop's (1000 px),
in English and in French (issue 38, point 1).

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
import os
import re
import signal
import subprocess
from collections.abc import Sequence
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from support import REPO

from pbem.reports import pictures as pictures_module
from pbem.reports import svg as svg_module
from pbem.reports.observing import lobby_mail
from pbem.service.bot_games import play_game
from pbem.service.service import Service, ServiceConfig
from pbem.store.memory import MemoryStore

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = REPO / "test-artifacts"
HEIGHT = 1600  # each frame's; the layout of what is below the fold is computed all the same
TIMEOUT = 180  # seconds; a first start on a cold machine is slow
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
  for (const i of document.images) pics.push([i.naturalWidth, i.width]);
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


def visit(page: Path, profile: Path) -> str:
    """Open ``page`` once: the DOM after loading."""
    command = [
        str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", f"--user-data-dir={profile}", "--window-size=1100,1000",
        "--dump-dom", page.as_uri(),
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
    return out


def laid_out(pages: Sequence[str], width: int, where: Path) -> list[dict[str, Any]]:
    """Each page in a frame ``width`` pixels wide (headless Chromium's window is never
    narrower than 500 pixels, a phone's screen is), what its probe found."""
    probed = (page.replace("</body>", PROBE.replace("INDEX", str(n)) + "</body>")
              for n, page in enumerate(pages))
    frames = "".join(
        f'<iframe style="width:{width}px;height:{HEIGHT}px;border:0;display:block" '
        f'srcdoc="{html.escape(page)}"></iframe>' for page in probed)
    where.write_text(f'<!DOCTYPE html><html><body style="margin:0">{frames}</body></html>',
                     encoding="utf-8")
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


@pytest.mark.parametrize("language", ["en", "fr"])
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
        for drawn, shown in facts["pics"]:
            assert drawn > 0, (where, "a picture did not load")
            seen_pictures += 1
            widest = max(widest, shown)
            svg_width = drawn / pictures_module.DRAWN_ZOOM
            assert smallest * shown / svg_width >= 11, (where, drawn, shown)
    assert seen_pictures > 0
    assert widest > 375  # a picture wider than a phone, which must not shrink there
