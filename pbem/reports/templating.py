"""Jinja2 environments for every player-visible text.

Templates live in ``pbem/templates/``, one for each mail and page, written in English with
each sentence marked for translation; each other language's words are its catalogue
(``pbem.reports.catalogues``), and each language has its environment. A site folder given by
the game master overrides any template by the same relative name, for every language
(``<site>/<name>``) or for one (``<site>/<lang>/<name>``), and may add catalogues. Text
templates end in ``.txt.j2``, HTML ones in ``.html.j2`` and are autoescaped. Undefined
names are errors, never blanks.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import textwrap
from collections.abc import Callable, Iterable, MutableMapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup, escape

from pbem.orders.format import fold_order
from pbem.reports.catalogues import install, translations
from pbem.reports.languages import LANGUAGES, SOURCE_LANGUAGE

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


def environment(site_dir: str | None = None, lang: str = SOURCE_LANGUAGE) -> jinja2.Environment:
    """The environment of readers of ``lang``: the templates in its words, ``site_dir``'s
    templates and catalogues winning over the shipped ones. One for each (site, language)."""
    return _environment(site_dir, lang)


@cache
def _environment(site_dir: str | None, lang: str) -> jinja2.Environment:
    folders = [Path(site_dir) / lang, Path(site_dir)] if site_dir else []
    folders.append(TEMPLATES)
    env = _Environment(
        loader=_HtmlTwins(jinja2.FileSystemLoader([str(f) for f in folders])),
        undefined=jinja2.StrictUndefined,
        autoescape=is_html,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,  # a template changed on disk counts from the next start
        bytecode_cache=_compiled_cache(),
    )
    # Every rendered text, mail or page, has one full stop after a name ending in one.
    env.template_class = _OneStopTemplate
    env.filters["hang"] = hang
    env.filters["fold"] = fold_order
    env.filters["one_stop"] = one_stop
    env.filters["summed"] = summed
    env.filters["sentence"] = sentence
    env.filters["blocks"] = text_blocks
    install(env, translations(lang, site_dir))
    env.globals["lang"] = lang  # the language's code, as HTML's lang attribute wants it
    env.globals["languages"] = LANGUAGES  # those a reader may choose (SET LANGUAGE)
    return env


HTML_TWIN = "@html"  # a text template imported into an HTML one: its escaping twin


def is_html(name: str | None) -> bool:
    """Whether the template ``name`` writes HTML, so escapes every value: an HTML template,
    or the escaping twin of a text one that an HTML template imports."""
    return bool(name) and (str(name).endswith(".html.j2") or str(name).endswith(HTML_TWIN))


class _HtmlTwins(jinja2.BaseLoader):
    """The templates of ``loader``, and for each ``<name>@html`` the source of ``<name>``.

    The macros of the text templates (``_events.txt.j2``, ``_words.txt.j2``) serve the HTML
    mails too. Jinja compiles a template's escaping by its own name, and marks what a macro
    gives as safe in the HTML template that calls it: a macro of a text template would put a
    player's name into the HTML unescaped. An HTML template imports the twin instead
    (``_Environment.get_template``), the same source compiled with autoescape on.
    """

    def __init__(self, loader: jinja2.BaseLoader) -> None:
        self.loader = loader

    def get_source(self, environment: jinja2.Environment,
                   template: str) -> tuple[str, str | None, Callable[[], bool] | None]:
        return self.loader.get_source(environment, template.removesuffix(HTML_TWIN))

    def list_templates(self) -> list[str]:
        return self.loader.list_templates()


class _Environment(jinja2.Environment):
    """Jinja's environment, made cheaper for a render's fixed costs.

    Each template's globals are one plain dictionary: Jinja layers them over the
    environment's in a ChainMap, which each render copies key by key, twice, in Python.
    Nothing changes the environment's globals once it is made.

    A template loaded is kept by its name in a dictionary: Jinja finds it again in its LRU
    cache, under a lock, moving its key to the end of a queue, for every mail part and every
    ``import``. Templates are not reloaded anyway (``auto_reload`` is off).
    """

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._loaded: dict[str, jinja2.Template] = {}

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        return {**self.globals, **(d or {})}

    def get_template(self, name: str | jinja2.Template, parent: str | None = None,
                     globals: MutableMapping[str, Any] | None = None) -> jinja2.Template:
        if globals is not None or not isinstance(name, str):
            return super().get_template(name, parent, globals)
        if parent is not None:
            name = self.join_path(name, parent)
            if is_html(parent) and not is_html(name):
                name += HTML_TWIN
        template = self._loaded.get(name)
        if template is None:
            template = self._loaded[name] = super().get_template(name)
        return template


def summed(terms: Iterable[Sequence[Any]]) -> list[tuple[str, str, int]]:
    """The terms of an attack's breakdown, one per kind and source, their amounts added up.

    The engine keeps each payment as its own term (a SPEND, then what its UPTO added); a
    reader wants one line "-9 money spent to interfere, by anne", not "-2" then "-7".
    """
    totals: dict[tuple[str, str], int] = {}
    for kind, source, amount in terms:
        totals[(kind, source)] = totals.get((kind, source), 0) + amount
    return [(kind, source, amount) for (kind, source), amount in totals.items()]


def sentence(text: object) -> str:
    """``text`` with its first letter a capital, the rest untouched: a card's ability text
    ("may declare one attack per turn privileged") where it begins a sentence."""
    value = str(text)
    fixed = value[:1].upper() + value[1:]
    return Markup(fixed) if isinstance(text, Markup) else fixed


# An abbreviation's full stop ("C.I.A.") and the one after it, closing tags between them
# allowed ("<strong>C.I.A.</strong>."); never one of an ellipsis ("Plan B..."). The pattern
# begins with the full stop, not with the look behind it: the regex engine then skips from
# one "." to the next instead of trying the look-behind at every character (20 times faster
# on a mail).
_DOUBLE_STOP = re.compile(r"\.(?<=\b[A-Z]\.)((?:</[a-z]+>)*)\.(?!\.)")


def one_stop(text: str) -> str:
    """``text`` without the second full stop of a sentence ending in an abbreviation
    ("to C.I.A.." reads "to C.I.A."). Markup stays markup."""
    fixed = _DOUBLE_STOP.sub(r".\1", str(text))
    return Markup(fixed) if isinstance(text, Markup) else fixed


class _OneStopTemplate(jinja2.Template):
    """A template whose whole output goes through ``one_stop``: any sentence of any template
    may end on a card name, and "S.M.O.F." ends with its own full stop."""

    def render(self, *args: Any, **kwargs: Any) -> str:
        return one_stop(super().render(*args, **kwargs))


class _CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Jinja's own cache of compiled templates, in its private folder of the user's temp
    folder: a process would otherwise compile each template it uses (~3 ms each, 0.4 s for
    all) again. It checks each entry against the template's source; compiled code also
    depends on the filters (whether each takes the context), defined in this module, so
    the entries' names carry a digest of it. Failing to keep one (a full disk) costs only
    compiling it the next time."""

    def __init__(self, directory: str | None = None) -> None:
        digest = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
        super().__init__(directory, f"__pbem_{digest}_%s.cache")

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


def _compiled_cache() -> jinja2.BytecodeCache | None:
    try:
        return _CompiledTemplates()
    except (OSError, RuntimeError):  # no private temp folder to be had: compile every time
        return None


def hang(text: str, first: str = "", rest: str = "", width: int = 78) -> str:
    """``text`` wrapped to ``width`` columns, its first line after ``first``, the others after
    ``rest``: the lines Jinja's ``wordwrap`` gives (never breaking at hyphens) to the width
    both leads leave, each one's newlines trimmed. A line that fits is kept as it is.

    In an HTML template (a text macro's twin) ``text`` comes escaped already: it is wrapped
    by the characters a reader sees and given back escaped once, as markup, so the escaping
    is never done twice ("Tobacco &amp;amp; Liquor")."""
    if isinstance(text, Markup):
        return escape(_hung(text.unescape(), first, rest, width))
    return _hung(str(text), first, rest, width)


@lru_cache(maxsize=4096)
def _hung(text: str, first: str, rest: str, width: int) -> str:
    # Kept: most of what a mail wraps (its fixed paragraphs, the lines of the cards in play)
    # is wrapped again, the same, for the next mail.
    room = width - max(len(first), len(rest))
    rows: list[str] = []
    for line in text.splitlines():
        if len(line) <= room and not line[-1:].isspace():
            rows.append(line)  # what textwrap would give, at a fraction of the cost
        else:
            rows += _wrapper(room).wrap(line) or [""]
    return "\n".join(((rest if n else first) + row).strip("\n")
                     for n, row in enumerate(rows or [""]))


@cache
def _wrapper(width: int) -> textwrap.TextWrapper:
    return textwrap.TextWrapper(width, expand_tabs=False, replace_whitespace=False,
                                break_on_hyphens=False, break_long_words=False)


def template(name: str, lang: str = SOURCE_LANGUAGE,
             site_dir: Path | None = None) -> jinja2.Template:
    """The template ``name`` in the words of ``lang`` (English for a language the package has
    no words for)."""
    if lang not in LANGUAGES:
        lang = SOURCE_LANGUAGE
    return environment(str(site_dir) if site_dir else None, lang).get_template(name)


def render(name: str, lang: str = SOURCE_LANGUAGE, site_dir: Path | None = None,
           **context: Any) -> str:
    """Render ``name`` for a reader of ``lang`` (e.g. ``render("ack.txt.j2", "fr", ...)``)."""
    return template(name, lang, site_dir).render(**context)


@dataclass(frozen=True)
class TextBlock:
    """A piece of a plain-text mail, for its HTML part: ``kind`` is "para" (its lines one
    paragraph), "heading", "copy" (order lines to copy, kept as they are), "items" (a list,
    an item a line) or "signature"."""

    kind: str
    lines: tuple[str, ...]


_RULE = re.compile(r"^-{3,}$")


def text_blocks(text: str) -> list[TextBlock]:
    """The pieces of a mail's text part as the text macros (para, copy, item, heading) and
    the signature's ``-- `` line make them, so its HTML part shows paragraphs, lists and
    order lines rather than the text in a ``<pre>`` block (issue 38)."""
    blocks: list[TextBlock] = []
    kind, lines = "", list[str]()  # the block being read

    def close() -> None:
        nonlocal kind, lines
        if lines:
            blocks.append(TextBlock(kind, tuple(lines)))
        kind, lines = "", []

    rows = text.splitlines()
    for n, row in enumerate(rows):
        if row == "-- ":
            close()
            rest = " ".join(r.strip() for r in rows[n + 1:] if r.strip())
            if rest:
                blocks.append(TextBlock("signature", (rest,)))
            return blocks
        if not row.strip():
            close()
        elif _RULE.match(row) and kind == "para" and len(lines) == 1:
            kind = "heading"
            close()
        elif row.startswith("    "):
            if kind != "copy":
                close()
            kind = "copy"
            lines.append(row[4:])
        elif row.startswith("- "):
            if kind != "items":
                close()
            kind = "items"
            lines.append(row[2:])
        elif row.startswith("  ") and kind == "items":
            lines[-1] += " " + row.strip()
        else:
            if kind != "para":
                close()
            kind = "para"
            lines.append(row.strip())
    close()
    return blocks
