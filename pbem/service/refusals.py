"""The service's own refusals of an order, worded by ``templates/<lang>/_refusals.txt.j2`` in the
player's language: the reason, and what to write instead (the order words stay English)."""

from __future__ import annotations

from typing import Any

from pbem.errors import IllegalCommandError
from pbem.render import LANGUAGES, environment


def refused(lang: str, key: str, text: str = "", **words: Any) -> IllegalCommandError:
    """The refusal ``key`` with ``words`` in ``lang`` (the shipped templates' wording)."""
    refusals = environment().get_template(
        f"{lang if lang in LANGUAGES else 'en'}/_refusals.txt.j2").module
    suggestion = str(refusals.suggestion(key, words)).strip()  # type: ignore[attr-defined]
    message = str(refusals.message(key, words)).strip()  # type: ignore[attr-defined]
    return IllegalCommandError(message, text=text or None, suggestion=suggestion or None)
