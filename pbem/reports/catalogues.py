"""The translation catalogues: every word a player reads, by language.

The templates (``pbem/templates/``) are written once, in English, each sentence whole and
marked for translation: ``_("Your orders for {game}: ...", game=game)``, ``ngettext(
"{n} accepted", "{n} accepted", count)`` (``n`` is the count), ``pgettext("context",
"...")`` where one English word means two things. The English is the message's id; each
other language is one gettext catalogue, ``pbem/locale/<lang>/LC_MESSAGES/pbem.po``,
compiled into ``pbem.mo`` when the package is built (``setup.py``) and read from the
``.po`` itself where no newer ``.mo`` is beside it (a checkout, a site's catalogue). A
site folder may hold ``locale/<lang>/LC_MESSAGES/pbem.po`` too, for a language the package
has: its messages win over the shipped ones (a club's own words). A new language is a
catalogue in the package (``pbem catalogue update``), offered once it is there.

Placeholders are named, in braces, the same in every language. A translation may give a
placeholder a *form* after a colon (``FORMS``): ``{player:de}`` is "de Bruno" or "d'Alice",
for the languages whose words change with the next one; ``{text:sentence}`` begins a
sentence with the value's first letter a capital. ``pbem catalogue check`` finds what a
catalogue lacks or gets wrong.
"""

from __future__ import annotations

import gettext
import io
import string
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
from markupsafe import Markup, escape

from pbem.reports.languages import DOMAIN, LOCALE, SOURCE_LANGUAGE

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog


def catalogue_path(root: Path, lang: str, suffix: str = ".po") -> Path:
    """Where ``lang``'s catalogue is under a locale folder ``root``."""
    return root / lang / "LC_MESSAGES" / f"{DOMAIN}{suffix}"


class CatalogueError(ValueError):
    """A catalogue that cannot be read: its file and what is wrong."""


def _read(po: Path) -> gettext.GNUTranslations | None:
    """The messages of one catalogue file, ``None`` when there is none: its compiled
    ``.mo`` when that is newer, else the ``.po`` compiled here."""
    mo = po.with_suffix(".mo")
    if mo.is_file() and (not po.is_file() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as file:
            return gettext.GNUTranslations(file)
    if not po.is_file():
        return None
    return gettext.GNUTranslations(io.BytesIO(compile_po(po)))


def read_catalogue(po: Path) -> Catalog:
    """The catalogue in the file ``po`` (Babel reads it); a ``CatalogueError`` naming the
    file when it cannot be read."""
    from babel.messages.pofile import PoFileError, read_po

    try:
        with po.open("rb") as file:
            return read_po(file, abort_invalid=True)
    except (PoFileError, OSError, ValueError) as error:
        raise CatalogueError(f"{po}: {error}") from error


def compile_po(po: Path) -> bytes:
    """The ``.mo`` form of the catalogue ``po`` (Babel compiles it); a message marked fuzzy
    is left out, as gettext's own tools do."""
    from babel.messages.mofile import write_mo

    catalogue = read_catalogue(po)
    out = io.BytesIO()
    write_mo(out, catalogue, use_fuzzy=False)
    return out.getvalue()


@cache
def translations(lang: str, site_dir: str | None = None) -> gettext.NullTranslations:
    """The messages of ``lang``: the site's catalogue first, then the package's; English
    (the templates' own words) where neither has one."""
    found: gettext.NullTranslations = gettext.NullTranslations()
    for root in (LOCALE, Path(site_dir) / "locale" if site_dir else None):
        if root is None or (lang == SOURCE_LANGUAGE and root == LOCALE):
            continue
        layer = _read(catalogue_path(root, lang))
        if layer is not None:
            layer.add_fallback(found)
            found = layer
    return found


class _Forms(string.Formatter):
    """Fills a message's named placeholders, each value escaped in an HTML template (the
    message's own text is the catalogue's, trusted), a placeholder's form applied."""

    def __init__(self, markup: bool) -> None:
        super().__init__()
        self.markup = markup

    def get_value(self, key: int | str, args: Any, kwargs: Mapping[str, Any]) -> Any:
        if isinstance(key, int) or key not in kwargs:
            raise KeyError(f"the message has a placeholder {{{key}}} no value is given for")
        return kwargs[key]

    def format_field(self, value: Any, format_spec: str) -> str:
        form = FORMS.get(format_spec)
        if form is None:
            text = format(value, format_spec) if format_spec else str(value)
            return str(escape(text if format_spec else value)) if self.markup else text
        lead, shown = form(str(value))  # the form's own words ("d'"), trusted as the message's
        if not self.markup:
            return lead + shown
        return str(Markup(lead) + (Markup(shown) if isinstance(value, Markup) else escape(shown)))


def _elided(word: str) -> Callable[[str], tuple[str, str]]:
    """The form "``word`` before the value", elided before a vowel: "de Bruno", "d'Alice"."""
    def form(text: str) -> tuple[str, str]:
        lead = f"{word[:-1]}'" if text[:1] and text[:1].lower() in _VOWELS else f"{word} "
        return lead, text
    return form


def _sentence(text: str) -> tuple[str, str]:
    """The form of a value that begins a sentence: its first letter a capital."""
    return "", text[:1].upper() + text[1:]


_VOWELS = "aeiouyàâäéèêëîïôöùûü"

# The forms a translation may give a placeholder ({name:form}): the words that go before
# the value, and the value as it is shown.
FORMS: dict[str, Callable[[str], tuple[str, str]]] = {
    "de": _elided("de"), "que": _elided("que"), "sentence": _sentence}


def fill(message: str, values: Mapping[str, Any], markup: bool) -> str:
    """``message`` with its placeholders filled from ``values``; markup in an HTML
    template."""
    text = _Forms(markup).vformat(message, (), values) if values or "{" in message else message
    return Markup(text) if markup else text


def placeholders(message: str) -> Iterator[tuple[str, str]]:
    """The (name, form) of each placeholder of ``message``, in order."""
    for _literal, name, spec, _conversion in string.Formatter().parse(message):
        if name is not None:
            yield name, spec or ""


def install(env: jinja2.Environment, messages: gettext.NullTranslations) -> None:
    """Give the templates of ``env`` their language's ``_``, ``gettext``, ``ngettext`` and
    ``pgettext``."""

    @jinja2.pass_eval_context
    def _(context: jinja2.nodes.EvalContext, message: str, **values: Any) -> str:
        return fill(messages.gettext(message), values, context.autoescape)

    @jinja2.pass_eval_context
    def ngettext(context: jinja2.nodes.EvalContext, singular: str, plural: str, n: int,
                 **values: Any) -> str:
        return fill(messages.ngettext(singular, plural, n), {"n": n, **values},
                    context.autoescape)

    @jinja2.pass_eval_context
    def pgettext(context: jinja2.nodes.EvalContext, where: str, message: str,
                 **values: Any) -> str:
        return fill(messages.pgettext(where, message), values, context.autoescape)

    env.globals.update(_=_, gettext=_, ngettext=ngettext, pgettext=pgettext)
