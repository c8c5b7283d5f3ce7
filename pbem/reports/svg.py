"""A power structure drawn as SVG: the cards on their grid, arrows in and out, alignments.

Pure: a player's view and the card set in, an SVG string out. Built with ElementTree so the
result is always well-formed XML and every name is escaped. The words shown (alignment
names, the labels of power and resistance) are given by the caller, who takes them from
the templates of the reader's language.
"""

from __future__ import annotations

import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass

from pbem.engine.cards import CardSet, Group
from pbem.engine.structure import DIRECTION_NAMES, STEP, sides
from pbem.engine.view import CardView, PlayerView

SVG_NS = "http://www.w3.org/2000/svg"
CELL_W, CELL_H = 176, 124  # grid spacing
CARD_W, CARD_H = 144, 92  # the gap between cards holds the arrows
MARGIN = 8
ARROW = 11  # length of an arrow head, outside the card edge
NAME_WIDTH = 22  # characters per line of a card's name

# One colour per alignment, opposites in related hues so a glance shows the pairs. Every
# colour drawn is of the web-safe cube (each channel a multiple of 0x33): the mails' PNG
# pictures keep only those (pbem.reports.pictures), so these show exactly, as the legend
# under a picture shows them (mails.PICTURE_KEYS).
COLOURS: dict[str, str] = {
    "Government": "#336699", "Communist": "#cc3333", "Liberal": "#3399cc",
    "Conservative": "#663399", "Peaceful": "#339966", "Violent": "#cc6600",
    "Straight": "#666666", "Weird": "#009999", "Criminal": "#333366",
    "Fanatic": "#999900", "Media": "#cc0099",
}
OPEN_COLOUR, USED_COLOUR, IN_COLOUR = "#009933", "#666666", "#666666"


@dataclass(frozen=True)
class Legend:
    """The colours the legend under a picture explains: the arrows', then each alignment's
    as (alignment, colour), the very ones the pictures are drawn with."""

    open: str
    used: str
    incoming: str
    alignments: tuple[tuple[str, str], ...]


LEGEND = Legend(OPEN_COLOUR, USED_COLOUR, IN_COLOUR, tuple(COLOURS.items()))


def structure_svg(
    player: PlayerView, cards: CardSet, words: Mapping[str, str] | None = None
) -> str:
    """The SVG picture of one player's power structure.

    ``words`` translates the labels: each alignment name, and the keys ``title``,
    ``power``, ``resistance``, ``money``, ``hidden`` and ``open``; a missing key shows the
    key itself. ``unit_gap`` is what goes between an amount and its unit (a space unless
    given: French wants a no-break one).
    """
    w = dict(words or {})
    structure = player.structure
    xs = [c.x for c in structure] or [0]
    ys = [c.y for c in structure] or [0]
    left, top = min(xs), min(ys)
    width = (max(xs) - left + 1) * CELL_W + 2 * MARGIN
    height = (max(ys) - top + 1) * CELL_H + 2 * MARGIN
    title = w.get("title", player.name)
    ET.register_namespace("", SVG_NS)
    root = ET.Element(f"{{{SVG_NS}}}svg", {
        "width": str(width), "height": str(height), "viewBox": f"0 0 {width} {height}",
        "role": "img", "aria-label": title, "class": "power-structure",
        "font-family": "Helvetica, Arial, sans-serif",
    })
    _sub(root, "title").text = title
    for card in structure:
        cx = MARGIN + (card.x - left) * CELL_W + CELL_W // 2
        cy = MARGIN + (card.y - top) * CELL_H + CELL_H // 2
        _draw_card(root, card, cards, cx, cy, w)
    return ET.tostring(root, encoding="unicode")


def _sub(parent: ET.Element, tag: str, attrs: Mapping[str, str] | None = None) -> ET.Element:
    return ET.SubElement(parent, f"{{{SVG_NS}}}{tag}", dict(attrs or {}))


def _draw_card(
    root: ET.Element, card: CardView, cards: CardSet, cx: int, cy: int, w: Mapping[str, str]
) -> None:
    printed = cards.card(card.card)
    is_group = isinstance(printed, Group)
    g = _sub(root, "g", {"class": "card", "data-card": card.card})
    x0, y0 = cx - CARD_W // 2, cy - CARD_H // 2
    amount = w.get("hidden", "?") if card.treasury is None else str(card.treasury)
    treasury = amount + w.get("unit_gap", " ") + w.get("money", "MB")
    stats = f"{w.get('power', 'P')} {card.power}/{card.transferable}"
    if isinstance(printed, Group):
        stats += f"  {w.get('resistance', 'R')} {printed.resistance}"
    aligned = [w.get(a, a) for a in card.alignments]
    _sub(g, "title").text = "\n".join(
        [card.card, stats, ", ".join(aligned), treasury]
    )
    _sub(g, "rect", {
        "x": str(x0), "y": str(y0), "width": str(CARD_W), "height": str(CARD_H), "rx": "6",
        "fill": "#ffffff" if is_group else "#ffffcc", "stroke": "#333333",
        "stroke-width": "2" if not is_group else "1",
    })
    # Alignment stripes along the top edge: the colours read at a glance, names below.
    if card.alignments:
        stripe = CARD_W / len(card.alignments)
        for i, alignment in enumerate(card.alignments):
            _sub(g, "rect", {
                "x": f"{x0 + i * stripe:.1f}", "y": str(y0 + 1), "width": f"{stripe:.1f}",
                "height": "6", "fill": COLOURS.get(alignment, "#cccccc"),
                "class": "alignment", "data-alignment": alignment,
            })
    name_lines = textwrap.wrap(card.card, NAME_WIDTH)[:3]
    y = y0 + 20
    for line in name_lines:
        _text(g, cx, y, line, {"font-size": "11", "font-weight": "bold"})
        y += 13
    _text(g, cx, y + 1, stats, {"font-size": "10"})
    if aligned:
        for line in textwrap.wrap(", ".join(aligned), 28)[:2]:
            y += 11
            _text(g, cx, y + 1, line, {"font-size": "9", "fill": "#333333"})
    _text(g, x0 + CARD_W - 6, y0 + CARD_H - 6, treasury,
          {"font-size": "10", "font-weight": "bold", "text-anchor": "end",
           "class": "treasury"})
    _draw_arrows(g, card, sides(cards, card.card), cx, cy, w)


def _text(parent: ET.Element, x: float, y: float, text: str, attrs: Mapping[str, str]) -> None:
    element = _sub(parent, "text", {"x": f"{x:g}", "y": f"{y:g}", "text-anchor": "middle",
                                    **attrs})
    element.text = text


def _draw_arrows(
    g: ET.Element, card: CardView, printed: tuple[str, str, str, str], cx: int, cy: int,
    w: Mapping[str, str],
) -> None:
    """Outgoing arrows point away from the card (green while open), the incoming one in."""
    for printed_side, kind in enumerate(printed):
        if kind == "-":
            continue
        direction = (printed_side + card.rotation) % 4
        dx, dy = STEP[direction]
        # The middle of the edge facing that way, then a head just outside it.
        ex, ey = cx + dx * CARD_W / 2, cy + dy * CARD_H / 2
        outward = kind == "out"
        tip = (ex + dx * ARROW, ey + dy * ARROW) if outward else (ex, ey)
        base = (ex, ey) if outward else (ex + dx * ARROW, ey + dy * ARROW)
        px, py = -dy * 7, dx * 7  # half the head's width, across the direction
        points = [(base[0] + px, base[1] + py), tip, (base[0] - px, base[1] - py)]
        is_open = outward and DIRECTION_NAMES[direction] in card.open_arrows
        colour = OPEN_COLOUR if is_open else (USED_COLOUR if outward else IN_COLOUR)
        arrow = _sub(g, "polygon", {
            "points": " ".join(f"{x:g},{y:g}" for x, y in points), "fill": colour,
            "class": f"arrow {'out' if outward else 'in'}{' open' if is_open else ''}",
        })
        if is_open:
            _sub(arrow, "title").text = w.get("open", "open")
