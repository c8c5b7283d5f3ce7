"""A line chart as inline SVG: one line per player over the turns (groups held, money).

Pure: numbers in, an SVG string out, built with ElementTree so names are always escaped and
the result is well-formed. The words (title, axis labels) come from the caller's template.
"""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Mapping, Sequence

SVG_NS = "http://www.w3.org/2000/svg"
PLOT_W, HEIGHT = 446, 260
LEFT, LEGEND, TOP, BOTTOM = 44, 150, 28, 34  # room for the axis numbers and the legend
FONT_SIZE = 11
LABEL_GAP = 6  # the least room between two labels under the axis
# Distinct colours that stay apart for the colour-blind (Okabe-Ito), then a few more.
PALETTE = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#d55e00", "#56b4e9", "#f0e442",
           "#000000")


def line_chart(title: str, series: Mapping[str, Sequence[int]], labels: Sequence[str],
               x_label: str = "") -> str:
    """An SVG chart of ``series`` (name -> one value per label), with a legend.

    Under the axis only some labels are shown, on a round step (every 1, 2, 5, 10, 20, ...
    points) wide enough that no two touch, however many points there are; the last label
    is always shown. The legend is as wide as its longest name.
    """
    ET.register_namespace("", SVG_NS)
    legend = max([LEGEND, *(30 + _text_width(name) + 8 for name in series)])
    width = round(LEFT + PLOT_W + legend)
    root = ET.Element(f"{{{SVG_NS}}}svg", {
        "width": str(width), "height": str(HEIGHT), "viewBox": f"0 0 {width} {HEIGHT}",
        "role": "img", "aria-label": title, "class": "chart",
        "font-family": "Helvetica, Arial, sans-serif", "font-size": str(FONT_SIZE),
    })
    _sub(root, "title").text = title
    _text(root, LEFT, 16, title, {"font-weight": "bold", "font-size": "13"})
    count = max((len(v) for v in series.values()), default=0)
    top = max((max(v, default=0) for v in series.values()), default=0)
    scale = _nice(top)
    plot_h = HEIGHT - TOP - BOTTOM
    spacing = PLOT_W / (count - 1) if count > 1 else float(PLOT_W)

    def x(i: int) -> float:
        return LEFT + (spacing * i if count > 1 else PLOT_W / 2)

    def y(value: float) -> float:
        return TOP + plot_h - plot_h * value / scale

    for step in range(5):
        value = scale * step / 4
        _sub(root, "line", {"x1": str(LEFT), "x2": str(LEFT + PLOT_W), "y1": f"{y(value):.1f}",
                            "y2": f"{y(value):.1f}", "stroke": "#dddddd"})
        _text(root, LEFT - 6, y(value) + 4, f"{value:g}", {"text-anchor": "end"})
    for i in shown_labels(labels[:count], spacing):
        _text(root, x(i), HEIGHT - BOTTOM + 14, labels[i],
              {"text-anchor": "middle", "class": "axis-label"})
    if x_label:
        _text(root, LEFT + PLOT_W / 2, HEIGHT - 4, x_label, {"text-anchor": "middle"})
    for n, (name, values) in enumerate(series.items()):
        colour = PALETTE[n % len(PALETTE)]
        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
        line = _sub(root, "polyline", {"points": points, "fill": "none", "stroke": colour,
                                       "stroke-width": "2", "class": "series",
                                       "data-player": name})
        # No word nor colon (its spacing differs by language): the name, then the numbers.
        _sub(line, "title").text = f"{name} ({', '.join(str(v) for v in values)})"
        ly = TOP + 14 + 18 * n
        _sub(root, "rect", {"x": str(LEFT + PLOT_W + 12), "y": str(ly - 9), "width": "12",
                            "height": "12", "fill": colour})
        _text(root, LEFT + PLOT_W + 30, ly + 1, name, {"class": "legend"})
    return ET.tostring(root, encoding="unicode")


def shown_labels(labels: Sequence[str], spacing: float) -> list[int]:
    """The indices of the labels to draw, ``spacing`` apart per index, so none overlap.

    Every label is given the room of the widest (turn numbers grow by a digit now and then),
    so one round step serves the whole axis; the last label is always shown, and the
    regular ones too close to it are dropped.
    """
    if not labels:
        return []
    room = max(_text_width(label) for label in labels) + LABEL_GAP
    step = next(s for s in _round_steps() if s * spacing >= room)
    last = len(labels) - 1
    shown = [i for i in range(0, last, step) if (last - i) * spacing >= room]
    return [*shown, last]


def _text_width(text: str, size: float = FONT_SIZE) -> float:
    """A generous width of ``text`` in pixels: the glyphs of DejaVu Sans (the widest of the
    fonts a browser falls back to for Helvetica), rounded up by kind of character."""
    em = sum(0.3 if c in "il.,:;'|!" else 1.0 if c in "mwMW@%" else
             0.8 if c.isupper() else 0.65 for c in text)
    return em * size


def _round_steps() -> Iterator[int]:
    """1, 2, 5, 10, 20, 50, 100, ..."""
    for power in itertools.count():
        for digit in (1, 2, 5):
            yield digit * 10**power


def _nice(top: int) -> float:
    """A round upper bound for the axis: 4, 8, 12, 20, 40, ... at least ``top``."""
    for bound in (4, 8, 12, 16, 20, 24, 32, 40, 60, 80, 100, 120, 160, 200, 300, 400):
        if top <= bound:
            return float(bound)
    return float((top // 100 + 1) * 100)


def _sub(parent: ET.Element, tag: str, attrs: Mapping[str, str] | None = None) -> ET.Element:
    return ET.SubElement(parent, f"{{{SVG_NS}}}{tag}", dict(attrs or {}))


def _text(parent: ET.Element, x: float, y: float, text: str, attrs: Mapping[str, str]) -> None:
    _sub(parent, "text", {"x": f"{x:.1f}", "y": f"{y:.1f}", **attrs}).text = text
