"""A line chart as inline SVG: one line per player over the turns (groups held, money).

Pure: numbers in, an SVG string out, built with ElementTree so names are always escaped and
the result is well-formed. The words (title, axis labels) come from the caller's template.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence

SVG_NS = "http://www.w3.org/2000/svg"
WIDTH, HEIGHT = 640, 260
LEFT, RIGHT, TOP, BOTTOM = 44, 150, 28, 34  # room for the axis numbers and the legend
# Distinct colours that stay apart for the colour-blind (Okabe-Ito), then a few more.
PALETTE = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#d55e00", "#56b4e9", "#f0e442",
           "#000000")


def line_chart(title: str, series: Mapping[str, Sequence[int]], labels: Sequence[str],
               x_label: str = "") -> str:
    """An SVG chart of ``series`` (name -> one value per label), with a legend."""
    ET.register_namespace("", SVG_NS)
    root = ET.Element(f"{{{SVG_NS}}}svg", {
        "width": str(WIDTH), "height": str(HEIGHT), "viewBox": f"0 0 {WIDTH} {HEIGHT}",
        "role": "img", "aria-label": title, "class": "chart",
        "font-family": "Helvetica, Arial, sans-serif", "font-size": "11",
    })
    _sub(root, "title").text = title
    _text(root, LEFT, 16, title, {"font-weight": "bold", "font-size": "13"})
    count = max((len(v) for v in series.values()), default=0)
    top = max((max(v, default=0) for v in series.values()), default=0)
    scale = _nice(top)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + (plot_w * i / (count - 1) if count > 1 else plot_w / 2)

    def y(value: float) -> float:
        return TOP + plot_h - plot_h * value / scale

    for step in range(5):
        value = scale * step / 4
        _sub(root, "line", {"x1": str(LEFT), "x2": str(LEFT + plot_w), "y1": f"{y(value):.1f}",
                            "y2": f"{y(value):.1f}", "stroke": "#dddddd"})
        _text(root, LEFT - 6, y(value) + 4, f"{value:g}", {"text-anchor": "end"})
    every = max(1, count // 12)  # at most about a dozen labels under the axis
    for i, label in enumerate(labels[:count]):
        if i % every == 0 or i == count - 1:
            _text(root, x(i), HEIGHT - BOTTOM + 14, label, {"text-anchor": "middle"})
    if x_label:
        _text(root, LEFT + plot_w / 2, HEIGHT - 4, x_label, {"text-anchor": "middle"})
    for n, (name, values) in enumerate(series.items()):
        colour = PALETTE[n % len(PALETTE)]
        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
        line = _sub(root, "polyline", {"points": points, "fill": "none", "stroke": colour,
                                       "stroke-width": "2", "class": "series",
                                       "data-player": name})
        _sub(line, "title").text = f"{name}: {', '.join(str(v) for v in values)}"
        ly = TOP + 14 + 18 * n
        _sub(root, "rect", {"x": str(WIDTH - RIGHT + 12), "y": str(ly - 9), "width": "12",
                            "height": "12", "fill": colour})
        _text(root, WIDTH - RIGHT + 30, ly + 1, name, {})
    return ET.tostring(root, encoding="unicode")


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
