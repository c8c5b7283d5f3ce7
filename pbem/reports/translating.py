"""What a translator's commands do (``pbem catalogue``): gather every message the templates
mark for translation, bring a language's catalogue up to date with them, and check a
catalogue: every message translated, each translation's placeholders the original's.

Babel does the reading and writing of catalogues; the messages are found by Jinja's own
extractor for Babel, in every template of the package (and of a site folder).
"""

from __future__ import annotations

import enum
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import write_po

from pbem.reports.catalogues import FORMS, catalogue_path, placeholders, read_catalogue
from pbem.reports.languages import DOMAIN, LOCALE
from pbem.reports.templating import TEMPLATES

KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2)}
# The templates' own layout options, so a message's lines are read as the templates give them;
# a template Jinja cannot read is an error, never a template silently skipped.
_JINJA = {"trim_blocks": "true", "lstrip_blocks": "true", "keep_trailing_newline": "true",
          "silent": "false"}
HEADER = f"# The messages of {DOMAIN}'s mails and pages.\n#"


def template_messages(folder: Path = TEMPLATES) -> Catalog:
    """Every message the templates under ``folder`` mark for translation, each with the
    templates and lines it is in."""
    catalogue = Catalog(domain=DOMAIN, project=DOMAIN, header_comment=HEADER, fuzzy=False)
    found = extract_from_dir(str(folder), method_map=[("**.j2", "jinja2")],
                             options_map={"**.j2": _JINJA}, keywords=KEYWORDS)
    for filename, lineno, message, comments, context in found:
        catalogue.add(message, locations=[(filename, lineno)], auto_comments=comments,
                      context=context)
    return catalogue


def write_catalogue(catalogue: Catalog, po: Path) -> None:
    """Write ``catalogue`` to ``po``, its messages in the order of their ids (a change shows
    as the lines it changes), at most 100 columns."""
    out = io.BytesIO()
    write_po(out, catalogue, width=100, sort_output=True, omit_header=False)
    po.parent.mkdir(parents=True, exist_ok=True)
    po.write_bytes(out.getvalue())


def update(lang: str, locale: Path = LOCALE, templates: Path = TEMPLATES) -> Path:
    """Bring ``lang``'s catalogue under ``locale`` up to date with the templates: new
    messages added untranslated, those no template has any more dropped (a translation of a
    changed message kept, marked fuzzy, for the translator to check). Gives the file; a
    missing one is begun."""
    po = catalogue_path(locale, lang)
    messages = template_messages(templates)
    if po.is_file():
        catalogue = read_catalogue(po)
    else:
        catalogue = Catalog(locale=lang, domain=DOMAIN, project=DOMAIN, header_comment=HEADER,
                            fuzzy=False)
    catalogue.update(messages, update_creation_date=False)
    catalogue.obsolete.clear()
    write_catalogue(catalogue, po)
    return po


class Wrong(enum.Enum):
    """What can be wrong with a catalogue's message."""

    UNTRANSLATED = "untranslated"
    FUZZY = "fuzzy"  # a translation of an earlier original, to be checked
    PLACEHOLDERS = "placeholders"  # not the original's
    FORM = "form"  # a placeholder's form no language has
    UNREAD = "unread"  # a brace not closed


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a catalogue: the message (its id), what is wrong, and how."""

    message: str
    wrong: Wrong
    detail: str = ""


def problems(catalogue: Catalog, messages: Catalog) -> Iterator[Problem]:
    """What is wrong with ``catalogue`` for the templates' ``messages``: a message it lacks,
    leaves empty or marks fuzzy; a translation whose placeholders are not the original's,
    or that gives one a form no language has."""
    for original in messages:
        if not original.id:
            continue
        ids = texts(original.id)
        translated = catalogue.get(original.id, original.context)
        if translated is None or not all(texts(translated.string)):
            yield Problem(ids[0], Wrong.UNTRANSLATED)
            continue
        if translated.fuzzy:
            yield Problem(ids[0], Wrong.FUZZY)
        yield from _placeholder_problems(ids, texts(translated.string), plural=len(ids) > 1)


def texts(value: str | list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    """A message's id or translation as its strings: one, or one per plural form."""
    if value is None:
        return ("",)
    return (value,) if isinstance(value, str) else tuple(value)


def _placeholder_problems(ids: tuple[str, ...], strings: tuple[str, ...],
                          plural: bool) -> Iterator[Problem]:
    try:
        wanted = {name for i in ids for name, _form in placeholders(i)}
        for text in strings:
            used = list(placeholders(text))
            names = {name for name, _form in used}
            # A plural's forms may leave the count out ("un ordre"), never anything else.
            if names != wanted and not (plural and names | {"n"} == wanted | {"n"}):
                yield Problem(ids[0], Wrong.PLACEHOLDERS,
                              f"{sorted(names)} in {text!r}, {sorted(wanted)} in the original")
            for name, form in used:
                if form and form not in FORMS:
                    yield Problem(ids[0], Wrong.FORM, f"{{{name}:{form}}}: forms are "
                                  f"{', '.join(sorted(FORMS))}")
    except ValueError as error:  # a brace not closed, an unpaired one
        yield Problem(ids[0], Wrong.UNREAD, str(error))
