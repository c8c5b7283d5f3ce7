"""Refusals in the player's language.

The service's own refusals of an order are worded by ``templates/<lang>/_refusals.txt.j2``
(``refused``). The rules engine and the order parser cannot render templates: their errors
carry a ``key`` and the ``words`` of the message, and ``worded`` gives a reader the wording of
``_engine_refusals.txt.j2`` or ``_parser_refusals.txt.j2`` in their language, or the error's
own English where a language has no wording for that key. The order words stay English.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2

from pbem.errors import IllegalCommandError, PbemError
from pbem.reports.templating import LANGUAGES, environment


def refused(lang: str, key: str, text: str = "", **words: Any) -> IllegalCommandError:
    """The refusal ``key`` with ``words`` in ``lang`` (the shipped templates' wording)."""
    message, suggestion = _wording(environment(), _lang(lang), "_refusals", key, key, words)
    return IllegalCommandError(message, text=text or None, suggestion=suggestion or None)


def worded(error: PbemError, lang: str, site_dir: Path | None = None) -> tuple[str, str]:
    """The reason and the suggestion (or ``""``) of ``error`` for a reader of ``lang``.

    English readers, and an error with no key, get the error's own text; otherwise each part
    comes from the language's template by key, or stays English when it has no wording.
    """
    english = error.message, error.suggestion or ""
    lang = _lang(lang)
    if lang == "en" or error.key is None:
        return english
    env = environment(str(site_dir) if site_dir else None)
    try:
        message, suggestion = _wording(env, lang, refusals_of(error), error.key,
                                       error.hint or error.key, error.words)
    except jinja2.TemplateNotFound:
        return english
    return message or english[0], (suggestion or english[1]) if english[1] else ""


def refusals_of(error: PbemError) -> str:
    """The name of the templates that word ``error``'s key: the rules engine's refusals, or
    the order parser's."""
    return "_engine_refusals" if isinstance(error, IllegalCommandError) else "_parser_refusals"


def _wording(env: jinja2.Environment, lang: str, refusals: str, key: str, hint: str,
             words: dict[str, Any]) -> tuple[str, str]:
    module = env.get_template(f"{lang}/{refusals}.txt.j2").module
    message = str(module.message(key, words)).strip()  # type: ignore[attr-defined]
    suggestion = str(module.suggestion(hint, words)).strip()  # type: ignore[attr-defined]
    return message, suggestion


def _lang(lang: str) -> str:
    return lang if lang in LANGUAGES else "en"
