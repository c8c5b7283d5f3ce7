"""English of ours left in a mail of another language (issue 42): the runs of two words or
more of the templates' messages (their ids are the English) that a language translates, and
which of them a text still shows. The game master's and the players' own words, card names
and order words are not the templates' messages, so they may stay as written."""

from __future__ import annotations

import html
import re
import string
from functools import cache

from pbem.reports.catalogues import translations
from pbem.reports.mails import Rendered
from pbem.reports.translating import template_messages, texts

_TAG = re.compile(r"<[^>]+>")
_BREAK = re.compile(r"[.:;,!?()\[\]\"“”«»„—–/=+*#|]|\s-\s")
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")


def runs(text: str) -> set[str]:
    """The runs of two words or more (8 letters or more) in ``text`` between punctuation and
    markup, leaving out runs of capitals (order words: END TURN)."""
    found = set()
    for run in _BREAK.split(_TAG.sub(" ", text)):
        words = run.split()
        if (len(words) >= 2 and all(_WORD.fullmatch(w) for w in words)
                and sum(len(w) for w in words) >= 8 and not all(w.isupper() for w in words)):
            found.add(" ".join(words))
    return found


def _literal(message: str) -> str:
    return "".join(part for part, *_ in string.Formatter().parse(message))


@cache
def english(lang: str) -> frozenset[str]:
    """The runs of English of the templates' messages that ``lang`` translates: not those its
    translations say too (a name, a word both languages write alike)."""
    said = translations(lang)
    found: set[str] = set()
    kept: set[str] = set()
    for message in template_messages():
        if not message.id:
            continue
        ids = texts(message.id)
        for n, original in enumerate(ids):
            if len(ids) > 1:
                translated = said.ngettext(ids[0], ids[1], 1 if n == 0 else 2)
            elif message.context:
                translated = said.pgettext(message.context, original)
            else:
                translated = said.gettext(original)
            found |= runs(_literal(original))
            kept |= runs(_literal(translated))
    return frozenset(found - kept)


def readable(text: str, is_html: bool = False) -> str:
    """What a reader reads of ``text``: an HTML one without its head and markup, its
    entities read; white space made one space."""
    if is_html:
        text = html.unescape(_TAG.sub(" ", re.sub(r"(?s)<(style|head)\b.*?</\1>", " ", text)))
    return " ".join(text.split())


@cache
def _finder(lang: str) -> re.Pattern[str]:
    """One pattern for every run of ``lang``'s ``english``, each a whole run of words; the
    longest first, so that one run holding another is found as itself."""
    alternatives = "|".join(re.escape(run) for run in sorted(english(lang), key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z])(?:{alternatives})(?![A-Za-z])")


def english_left(text: str, lang: str, is_html: bool = False) -> list[str]:
    """The runs of our English that ``text``, read by a reader of ``lang``, still shows."""
    return sorted(set(_finder(lang).findall(readable(text, is_html))))


def english_left_in_mail(mail: Rendered, lang: str) -> list[str]:
    """The runs of our English left in a mail's subject, text or HTML part."""
    return sorted(set(english_left(mail.subject, lang) + english_left(mail.text, lang)
                      + english_left(mail.html, lang, is_html=True)))
