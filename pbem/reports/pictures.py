"""The power structures as PNG pictures for the HTML part of a mail.

Gmail and Outlook (desktop, web, the new Outlook) show no inline SVG, so a mail carries each
structure as a PNG part of a multipart/related HTML part, shown by ``<img src="cid:...">``,
with alt text; the text part stays complete without them. The PNG is rendered from the SVG
that ``pbem.reports.svg`` draws (the static archive keeps the SVG: browsers show it) by
resvg-py: a self-contained wheel (resvg is Rust, no system library), where CairoSVG needs
the system's Cairo through cffi. resvg draws text with the system's fonts (Helvetica, Arial
or any sans-serif: DejaVu Sans on Debian, deploy/ installs fonts-dejavu-core). The PNG is
then packed by oxipng (pyoxipng, also a self-contained wheel): a 6-player late-game report
is about 110 KB in all with it, 174 KB without (bench/report_size.py).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache

import oxipng
import resvg_py
from markupsafe import Markup, escape

__all__ = ["DRAWN_ZOOM", "SHOWN_SCALE", "InlinePicture", "png_picture"]

_SIZE = re.compile(r'<svg\b[^>]*?\bwidth="(\d+)"[^>]*?\bheight="(\d+)"')
# resvg takes "sans-serif" for Arial unless told: no text at all where Arial is missing.
_SANS = "DejaVu Sans"
# oxipng, losslessly (opaque RGB, a palette where the colours fit): level 1 halves the PNG
# in 70 ms a picture, level 4 saves 4 % more in 20 times the time.
_PACKING = 1
# Shown at 5/4 of the size the SVG says (the <img>'s width): the SVG's smallest text (9)
# then shows at 11.25 CSS px on any screen, a phone scrolling the picture sideways rather
# than shrinking it (issue 38). Drawn at that same size, a pixel a CSS pixel: at 2x a 6-player
# report was 204 KB (bench/report_size.py), past the 150 KB a report may weigh; sharpness on
# dense screens is what that costs, not text size.
DRAWN_ZOOM = 1.25
SHOWN_SCALE = 1.25


@dataclass(frozen=True)
class InlinePicture:
    """One picture of a mail's HTML part: its Content-ID (without <>), the PNG, and the
    ``<img>`` that shows it."""

    cid: str
    png: bytes
    img: Markup


@lru_cache(maxsize=128)  # a step's reports show the same structures to every reader
def png_picture(svg: str, alt: str, domain: str = "pbem.invalid") -> InlinePicture:
    """The PNG of ``svg``, named by its content (the same picture, the same Content-ID, so
    composing stays deterministic), with an ``<img>`` that fits a phone's width."""
    drawn = bytes(resvg_py.svg_to_bytes(svg_string=svg, zoom=DRAWN_ZOOM, background="#ffffff",
                                        sans_serif_family=_SANS, font_family=_SANS))
    png = bytes(oxipng.optimize_from_memory(drawn, level=_PACKING))
    cid = f"{hashlib.sha256(svg.encode()).hexdigest()[:24]}@{domain}"
    size = _SIZE.search(svg)
    width, height = ((round(int(size.group(1)) * SHOWN_SCALE),
                      round(int(size.group(2)) * SHOWN_SCALE)) if size else ("", ""))
    img = Markup(
        f'<img src="cid:{cid}" alt="{escape(alt)}" width="{width}" height="{height}" '
        f'style="width:{width}px;max-width:none;height:auto;display:block">')
    return InlinePicture(cid, png, img)
