"""The power structures as PNG pictures for the HTML part of a mail.

Gmail and Outlook (desktop, web, the new Outlook) show no inline SVG, so a mail carries each
structure as a PNG part of a multipart/related HTML part, shown by ``<img src="cid:...">``,
with alt text; the text part stays complete without them. The PNG is rendered from the SVG
that ``pbem.reports.svg`` draws (the static archive keeps the SVG: browsers show it) by
resvg-py: a self-contained wheel (resvg is Rust, no system library), where CairoSVG needs
the system's Cairo through cffi. resvg draws text with the system's fonts (Helvetica, Arial
or any sans-serif: DejaVu Sans on Debian, deploy/ installs fonts-dejavu-core). The PNG is
then reduced to the 216 colours of the web-safe cube (six levels a channel: the colours the
SVG uses are in it, so they stay exact, and the grey steps of smoothed text edges are kept at
six levels) and packed by oxipng (pyoxipng, also a self-contained wheel) as an indexed PNG:
the six pictures of a 6-player late-game report weighed 46 KB so, 70 KB in full colour;
with the others' structures drawn at 1x, 35 KB (bench/report_size.py).
"""

from __future__ import annotations

import hashlib
import re
import struct
import zlib
from dataclasses import dataclass
from functools import lru_cache

import oxipng
import resvg_py
from markupsafe import Markup, escape

__all__ = ["DRAWN_ZOOM", "LEVEL", "OTHERS_ZOOM", "SHOWN_SCALE", "InlinePicture", "in_palette",
           "pixels", "png_picture"]

_SIZE = re.compile(r'<svg\b[^>]*?\bwidth="(\d+)"[^>]*?\bheight="(\d+)"')
# resvg takes "sans-serif" for Arial unless told: no text at all where Arial is missing.
_SANS = "DejaVu Sans"
# oxipng, losslessly: an indexed PNG, its rows unfiltered (PNG's advice for a palette; trying
# the filters saved nothing), deflated by libdeflate at level 9. Its level 11 (oxipng's level
# 2) made the PNG 5 % smaller in 9 times the time: 72 ms a picture against 8, on 18
# structures of late 6-player games; a step of a big table draws dozens.
_FILTERS = [oxipng.RowFilter.NoOp]
_DEFLATE = oxipng.Deflaters.libdeflater(9)
# Shown at 5/4 of the size the SVG says (the <img>'s width): the SVG's smallest text (9)
# then shows at 11.25 CSS px on any screen, a phone scrolling the picture sideways rather
# than shrinking it (issue 38). Drawn at that same size, a pixel a CSS pixel: at 2x a 6-player
# report was 204 KB (bench/report_size.py), past the 150 KB a report may weigh; sharpness on
# dense screens is what that costs, not text size.
DRAWN_ZOOM = 1.25
SHOWN_SCALE = 1.25
# The other players' structures are drawn at 1x, shown at the same size as the reader's (their
# text as big, a little softer): a third fewer bytes for the pictures a report carries most
# of (issue 38's 60 KB, bench/report_size.py).
OTHERS_ZOOM = 1.0
# The step between two levels of a channel in the pictures' palette: 0, 51, ... 255.
LEVEL = 51
_LEVELS = 256 // LEVEL + 1
_NEAREST_LEVEL = bytes(round(value / LEVEL) for value in range(256))
_PALETTE = [(r * LEVEL, g * LEVEL, b * LEVEL, 255)
            for r in range(_LEVELS) for g in range(_LEVELS) for b in range(_LEVELS)]


@dataclass(frozen=True)
class InlinePicture:
    """One picture of a mail's HTML part: its Content-ID (without <>), the PNG, and the
    ``<img>`` that shows it."""

    cid: str
    png: bytes
    img: Markup


@lru_cache(maxsize=128)  # a step's reports show the same structures to every reader
def png_picture(svg: str, alt: str, domain: str = "pbem.invalid",
                zoom: float = DRAWN_ZOOM) -> InlinePicture:
    """The PNG of ``svg`` drawn at ``zoom``, named by its content (the same picture, the same
    Content-ID, so composing stays deterministic), with an ``<img>`` that fits a phone's
    width (SHOWN_SCALE times the SVG's size, whatever the zoom)."""
    drawn = bytes(resvg_py.svg_to_bytes(svg_string=svg, zoom=zoom, background="#ffffff",
                                        sans_serif_family=_SANS, font_family=_SANS))
    png = _indexed(drawn)
    cid = f"{hashlib.sha256(f'{zoom}:{svg}'.encode()).hexdigest()[:24]}@{domain}"
    size = _SIZE.search(svg)
    width, height = ((round(int(size.group(1)) * SHOWN_SCALE),
                      round(int(size.group(2)) * SHOWN_SCALE)) if size else ("", ""))
    img = Markup(
        f'<img src="cid:{cid}" alt="{escape(alt)}" width="{width}" height="{height}" '
        f'style="width:{width}px;max-width:none;height:auto;display:block">')
    return InlinePicture(cid, png, img)


def in_palette(colour: str) -> bool:
    """True for a ``#rrggbb`` colour the pictures show exactly (one of the palette's)."""
    return all(int(colour[i:i + 2], 16) % LEVEL == 0 for i in (1, 3, 5))


def pixels(png: bytes) -> tuple[int, int, bytes]:
    """(width, height, RGB bytes) of a PNG, whatever its colour type, read through oxipng
    written back unfiltered and in RGB(A) so that no decoder is needed beyond zlib."""
    plain = bytes(oxipng.optimize_from_memory(
        png, level=0, force=True, filter=[oxipng.RowFilter.NoOp], bit_depth_reduction=False,
        color_type_reduction=False, palette_reduction=False, grayscale_reduction=False,
        deflate=oxipng.Deflaters.libdeflater(1)))
    width = height = channels = 0
    data = bytearray()
    palette = b""
    pos = 8
    while pos < len(plain):
        (size,) = struct.unpack(">I", plain[pos:pos + 4])
        kind, body = plain[pos + 4:pos + 8], plain[pos + 8:pos + 8 + size]
        pos += 12 + size
        if kind == b"IHDR":
            width, height, depth, colour_type = struct.unpack(">IIBB", body[:10])
            if depth != 8:
                raise ValueError(f"a PNG of {depth} bits a channel")
            channels = {2: 3, 6: 4, 3: 1}[colour_type]
        elif kind == b"PLTE":
            palette = body
        elif kind == b"IDAT":
            data += body
    raw = zlib.decompress(bytes(data))
    stride = width * channels + 1
    rows = b"".join(raw[y * stride + 1:(y + 1) * stride] for y in range(height))
    if channels == 1:
        return width, height, b"".join(palette[i * 3:i * 3 + 3] for i in rows)
    rgb = bytearray(width * height * 3)
    for c in range(3):
        rgb[c::3] = rows[c::channels]
    return width, height, bytes(rgb)


def _indexed(drawn: bytes) -> bytes:
    """The PNG ``drawn`` (opaque) in the web-safe palette, each channel at its nearest
    level, packed.

    The palette index 36r + 6g + b of every pixel is worked out on whole planes at once, as
    big integers whose bytes are the levels (no byte carries: 215 < 256), so a picture
    takes milliseconds in plain Python.
    """
    width, height, rgb = pixels(drawn)
    red, green, blue = (int.from_bytes(rgb[c::3].translate(_NEAREST_LEVEL), "big")
                        for c in range(3))
    index = (red * _LEVELS * _LEVELS + green * _LEVELS + blue).to_bytes(width * height, "big")
    image = oxipng.RawImage(index, width, height,
                            color_type=oxipng.ColorType.indexed(_PALETTE))
    return bytes(image.create_optimized_png(level=2, filter=_FILTERS, deflate=_DEFLATE))
