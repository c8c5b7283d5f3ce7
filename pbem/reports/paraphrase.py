"""Order values in plain words: "The Mafia attacks to control Boy Sprouts, ..."

The sentences live in ``templates/paraphrase.txt.j2``, one macro per kind of order (see
``model.KINDS``), each sentence a message of the catalogues (``pbem.reports.catalogues``);
a site folder may override the template like any other.
"""

from __future__ import annotations

import re
from pathlib import Path

from pbem.orders.model import Order, kind_of
from pbem.reports.templating import one_stop, template

__all__ = ["paraphrase"]

TEMPLATE = "paraphrase.txt.j2"
# The layout's white space only: a no-break space (French "passez\u00a0:") belongs to the text.
_LAYOUT_SPACE = re.compile(r"[ \t\r\n]+")


def paraphrase(order: Order, lang: str = "en", site_dir: Path | None = None) -> str:
    """Gives one plain-language sentence saying what ``order`` does, in ``lang``."""
    macro = getattr(template(TEMPLATE, lang, site_dir).module, kind_of(order))
    # Macros are laid out over several lines for reading; the sentence is one line, its
    # no-break spaces kept. A name ending in a full stop ("C.I.A.") at the end of the
    # sentence would give two: a macro's output is not a template's, so it is fixed here.
    return one_stop(_LAYOUT_SPACE.sub(" ", str(macro(order))).strip(" "))
