"""Benchmark: how the replies of the reply corpus (tests/reply_corpus.py) are read, by our
reader and by public quote strippers, side by side, per language and per client (issue 35).

Run ``.venv/bin/python bench/quotes.py [seeds]``; it prints one JSON object. For each
reader: the replies read as meant (the player's orders exactly, nothing refused but the
player's own words) and the replies where a quoted line was run (must be 0 for ours).

- ``ours``: ``pbem.mail.inbound.parse_mail`` then ``parse_orders``, told the lines the
  game sent the player, as the service is (``Position.lines_to_copy``);
- ``ours_alone``: the same, not told them (the shape of the game's lines only);
- ``talon``: mailgun/talon's ``extract_from_plain`` / ``extract_from_html`` on the decoded
  body, what it keeps read by the bare order grammar (our quote knowledge switched off:
  no quote headers, sign-offs or game lines recognized; ">" lines, END, "-- " and a second
  start line still end or skip as they always did): the library's knowledge measured;
- ``talon+ours``: what talon keeps, read by our whole reader (the two together);
- ``mail_parser_reply`` and ``quotequail`` (and ``+ours``), likewise, when installed
  (mail-parser-reply reads no HTML: its HTML replies count as not read).

The libraries are never a dependency of pbem: they run in a virtual environment of their
own (``--venv``, default /tmp/talon-venv, made with ``python -m venv`` and ``pip install
talon mail-parser-reply quotequail`` when missing), in a child process fed JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from factory import CARDS
from reply_corpus import GAME_ORDERS, PLAYERS, Reading, Reply, judge, replies

from pbem.errors import MailFormatError, PbemError
from pbem.mail.html_text import html_to_text
from pbem.mail.inbound import parse_mail
from pbem.orders import parse
from pbem.orders.parse import parse_orders

parse_reading = vars(parse)["_Reading"]  # the reader's class, switched by _bare_grammar

# Run in the libraries' own environment: a JSON list of [body, is_html] in, one JSON object
# of the text each library keeps (null where it is not installed or fails) out.
_STRIPPERS = r"""
import json, sys
bodies = json.load(open(sys.argv[1]))
out = {}
try:
    from talon import quotations
    def talon(body, html):
        return quotations.extract_from_html(body) if html else quotations.extract_from_plain(body)
    out["talon"] = talon
except Exception:
    pass
try:
    from mailparser_reply import EmailReplyParser
    languages = ["en", "de", "fr", "es", "it", "nl", "da", "sv", "pl", "ja", "zh", "cs", "ko"]
    mpr = EmailReplyParser(languages=languages)
    def mail_parser_reply(body, html):
        return None if html else mpr.parse_reply(text=body)
    out["mail_parser_reply"] = mail_parser_reply
except Exception:
    pass
try:
    import quotequail
    def qq(body, html):
        parts = quotequail.quote_html(body) if html else quotequail.quote(body)
        return "".join(text for kept, text in parts if kept)
    out["quotequail"] = qq
except Exception:
    pass
result = {}
for name, strip in out.items():
    kept = []
    for body, html in bodies:
        try:
            kept.append(strip(body, html))
        except Exception:
            kept.append(None)
    result[name] = kept
json.dump(result, open(sys.argv[2], "w"))
"""


def _orders(sent: frozenset[str]) -> Callable[[str], tuple[list[str], list[tuple[str, str]]]]:
    def read(text: str) -> tuple[list[str], list[tuple[str, str]]]:
        parsed = parse_orders(text, CARDS, PLAYERS, sent=sent)
        return ([o.text.strip() for o in parsed.orders],
                [(e.key, e.text or "") for e in parsed.errors])
    return read


def ours(reply: Reply, sent: frozenset[str]) -> Reading:
    try:
        text = parse_mail(reply.raw).text
    except MailFormatError:
        return Reading(False, (), ("<unreadable>",))
    return judge(reply, text, _orders(sent))


def stripped(reply: Reply, kept: str | None, *, bare: bool) -> Reading:
    """What a library kept of the body, read by the order parser: ``bare``, with our quote
    knowledge switched off, else whole (told the game's lines as the service is)."""
    if kept is None:
        return Reading(False, (), ("<the library failed>",))
    text = html_to_text(kept) if reply.html_only else kept
    try:
        if not bare:
            return judge(reply, text, _orders(GAME_ORDERS))
        with _bare_grammar():
            return judge(reply, text, _orders(frozenset()))
    except PbemError:  # no start line left: the library cut the orders
        return Reading(False, (), ("<no orders left>",))


@contextlib.contextmanager
def _bare_grammar() -> Iterator[None]:
    """The order parser without the knowledge of quotes this issue gave it: no pasted mail,
    sign-off or line of the game's recognized (a bench's switch, never the service's)."""
    saved = parse.pasted_at, parse_reading.game_line
    parse.pasted_at = lambda lines, index: None  # type: ignore[assignment]
    parse_reading.game_line = lambda self, raw, line: False  # type: ignore[method-assign]
    try:
        yield
    finally:
        parse.pasted_at, parse_reading.game_line = saved  # type: ignore[method-assign]


def _venv(path: Path) -> Path | None:
    python = path / "bin" / "python"
    if not python.exists():
        try:
            subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
            subprocess.run([str(path / "bin" / "pip"), "install", "-q", "talon",
                            "mail-parser-reply", "quotequail"], check=True)
        except (subprocess.CalledProcessError, OSError):
            return None
    return python


def run(seeds: int = 2, venv: Path = Path("/tmp/talon-venv")) -> dict[str, Any]:
    """Give the figures of every reader over the corpus, in all, per language, per client
    family and per project."""
    built = list(replies(seeds))
    readings: dict[str, list[Reading]] = {
        "ours": [ours(r, GAME_ORDERS) for r in built],
        "ours_alone": [ours(r, frozenset()) for r in built],
    }
    python = _venv(venv)
    unavailable = "no virtual environment with the libraries" if python is None else ""
    if python is not None:
        with tempfile.TemporaryDirectory() as tmp:
            bodies, kept = Path(tmp) / "bodies.json", Path(tmp) / "kept.json"
            bodies.write_text(json.dumps([[r.body, r.html_only] for r in built]))
            done = subprocess.run([str(python), "-c", _STRIPPERS, str(bodies), str(kept)],
                                  capture_output=True, text=True)
            if done.returncode == 0:
                for name, texts in json.loads(kept.read_text()).items():
                    pairs = list(zip(built, texts, strict=True))
                    readings[name] = [stripped(r, t, bare=True) for r, t in pairs]
                    readings[f"{name}+ours"] = [stripped(r, t, bare=False) for r, t in pairs]
            else:
                unavailable = done.stderr[-500:]
    figures: dict[str, Any] = {"bench": "quotes", "replies": len(built), "seeds": seeds,
                               "all": _figures(built, readings, lambda r: "all")["all"],
                               "by_language": _figures(built, readings, _language),
                               "by_family": _figures(built, readings, _family),
                               "by_project": _figures(built, readings,
                                                      lambda r: r.fixture.project)}
    if unavailable:
        figures["libraries_unavailable"] = unavailable
    return figures


def _language(reply: Reply) -> str:
    return reply.fixture.language or "en"


def _family(reply: Reply) -> str:
    if reply.fixture.project == "generated":
        return f"{reply.fixture.family} (generated)"
    return "html" if reply.fixture.html is not None else reply.fixture.family


def _figures(built: list[Reply], readings: dict[str, list[Reading]],
             key: Callable[[Reply], str]) -> dict[str, Any]:
    groups: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"replies": 0, **{name: {"as_meant": 0, "quoted_run": 0} for name in readings}})
    for n, reply in enumerate(built):
        group = groups[key(reply)]
        group["replies"] += 1
        for name, results in readings.items():
            group[name]["as_meant"] += results[n].as_meant
            group[name]["quoted_run"] += bool(results[n].quoted_run)
    for group in groups.values():
        for name in readings:
            group[name]["as_meant_pct"] = round(100 * group[name]["as_meant"] / group["replies"],
                                                1)
    return dict(sorted(groups.items()))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("seeds", nargs="?", type=int, default=2)
    parser.add_argument("--venv", type=Path, default=Path("/tmp/talon-venv"))
    options = parser.parse_args()
    print(json.dumps(run(options.seeds, options.venv), ensure_ascii=False, indent=1))
