"""Turn an HTML mail body into plain lines, the way a reader sees it, quotes as '> '."""

from __future__ import annotations

import re
from html.parser import HTMLParser

_BLOCK_TAGS = frozenset({
    "address", "article", "aside", "dd", "div", "dl", "dt", "figure", "footer", "form", "h1",
    "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "section",
    "table", "tbody", "thead", "tfoot", "tr", "ul",
})
_HIDDEN_TAGS = frozenset({"script", "style", "title", "template"})
_HTML_SPACE = re.compile(r"[ \t\r\n\f]+")  # HTML white space; a no-break space stays


class _HtmlText(HTMLParser):
    """Collects the visible text of HTML as lines; blockquotes become '> ' quotes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self._line: list[str] = []
        self._line_depth = 0
        self._depth = 0  # blockquote nesting
        self._hidden = 0
        self._pre = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN_TAGS:
            self._hidden += 1
        elif tag == "br":
            self.end_line(force=True)
        elif tag == "blockquote":
            self.end_line()
            self._depth += 1
        elif tag == "pre":
            self.end_line()
            self._pre += 1
        elif tag in _BLOCK_TAGS:
            self.end_line()
        elif tag in ("td", "th") and self._line:
            self._line.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN_TAGS:
            self._hidden = max(0, self._hidden - 1)
        elif tag == "blockquote":
            self.end_line()
            self._depth = max(0, self._depth - 1)
        elif tag == "pre":
            self.end_line()
            self._pre = max(0, self._pre - 1)
        elif tag in _BLOCK_TAGS:
            self.end_line()

    def handle_data(self, data: str) -> None:
        if self._hidden:
            return
        if self._pre:
            first, *rest = data.split("\n")
            self.add(first)
            for piece in rest:
                self.end_line(force=True)
                self.add(piece)
        else:
            self.add(_HTML_SPACE.sub(" ", data))

    def add(self, text: str) -> None:
        if not self._line:
            text = text if self._pre else text.lstrip(" ")
            self._line_depth = self._depth
        if text:
            self._line.append(text)

    def end_line(self, *, force: bool = False) -> None:
        """End the current line; an empty one only when forced (a <br>)."""
        if self._line or force:
            depth = self._line_depth if self._line else self._depth
            text = "".join(self._line).rstrip()
            self.lines.append(f"{'> ' * depth}{text}".rstrip() if depth else text)
            self._line = []


def html_to_text(html: str) -> str:
    """Give the visible text of an HTML body, one line per block or <br>, quotes as '> '."""
    # This Python's HTMLParser (3.11.7; later security releases fix it) rescans to the end
    # for every '<' that never closes: 120 KB of "<a" took 20 s. After the last '>' no '<'
    # can open a tag, so those become text.
    last = html.rfind(">")
    html = html[: last + 1] + html[last + 1 :].replace("<", "&lt;")
    parser = _HtmlText()
    parser.feed(html)
    parser.close()
    parser.end_line()
    return "\n".join(parser.lines)
