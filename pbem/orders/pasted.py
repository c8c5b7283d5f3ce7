"""Where an earlier mail begins in the text of a reply, pasted below the orders without ">".

Mail clients paste the mail they answer in a few shapes (tests/orders/test_pasted_shapes.py
writes each the way its client does):

- a separator line: ``-----Original Message-----`` (Outlook, in the writer's language),
  ``-------- Forwarded Message --------`` (Thunderbird), ``Begin forwarded message:``
  (Apple Mail), Outlook's rule of underscores;
- an attribution line, which Gmail wraps over two lines when the address is long:
  ``On <date>, <name> wrote:``, ``Le <date>, <name> a écrit :``, ``Am <date> schrieb
  <name>:``, ``El <date>, <name> escribió:``;
- a bare header block, as Outlook desktop, Outlook for Mac and Outlook on the web paste it,
  with or without a rule above: ``From:``/``Sent:``/``To:``/``Subject:``, or
  ``From:``/``Date:``/``To:``/``Subject:``, in English, French (``De :``, ``Envoyé :``,
  ``À :``, ``Objet :``), German (``Von:``, ``Gesendet:``, ``An:``, ``Betreff:``) and Spanish
  (``De:``, ``Enviado:``, ``Para:``, ``Asunto:``), bold in HTML (``*From:*`` once made text);
- a rule line (three or more ``-``, ``=``, ``_``, ``*``, ``~``), or a heading underlined
  by one: every heading of the game's own text mails is, so a report pasted without ">"
  and without any of the above stops the reading at its first heading, above the lines it
  suggests to copy (tests/orders/test_own_text.py checks every mail kind).

No order begins with any of these, so a line of orders is never taken for one. Only reading
without END stops at them: after END nothing is read anyway.
"""

from __future__ import annotations

import re
from typing import Literal

__all__ = ["Pasted", "pasted_at"]

Pasted = Literal["pasted", "rule"]

_SEPARATOR = re.compile(
    r"-{2,} ?(original message|message d'origine|message original|forwarded message"
    r"|message transféré|ursprüngliche nachricht|originalnachricht"
    r"|weitergeleitete nachricht|mensaje original|mensaje reenviado) ?-{2,}"
    r"|(begin forwarded message|début du message réexpédié|anfang der weitergeleiteten "
    r"nachricht|inicio del mensaje reenviado) ?:"
    r"|_{10,}",
    re.IGNORECASE,
)
_ATTRIBUTION = re.compile(
    r"(on|le|am|el) .+ (wrote|a écrit|schrieb|escribió)(?: .+)? ?:", re.IGNORECASE)
# A header line of a pasted mail: its field name, optionally bold as HTML made text, a colon
# (French puts a space before it).
_FIELD = re.compile(
    r"\*?(?P<name>from|sent|date|to|cc|bcc|subject|reply-to|de|envoyé|à|a|objet|répondre à"
    r"|von|gesendet|datum|an|betreff|enviado|enviado el|fecha|para|asunto)\*? ?:\*?(?: |$)",
    re.IGNORECASE,
)
_RULE = re.compile(r"[-=_*~─━]{3,}|.*\S [-=]{5,}")  # a rule, or a heading a client joined to it
_UNDERLINE = re.compile(r"-{3,}|={3,}")
_BLOCK_LOOKAHEAD = 3  # lines after a header line in which its block's next field is looked for


def pasted_at(lines: list[str], index: int) -> Pasted | None:
    """Say whether an earlier mail (or a heading of the game's) begins at ``lines[index]``:
    ``"pasted"`` for a separator, attribution or header block, ``"rule"`` for a rule line,
    None otherwise. Lines are as written (stripped here)."""
    line = lines[index].strip()
    if not line:
        return None
    if _SEPARATOR.fullmatch(line):
        return "pasted"
    if _RULE.fullmatch(line):
        return "rule"
    if _ATTRIBUTION.fullmatch(line):
        return "pasted"
    following = [raw.strip() for raw in lines[index + 1:index + 1 + _BLOCK_LOOKAHEAD]]
    if following and _UNDERLINE.fullmatch(following[0]) \
            and abs(len(following[0]) - len(line)) <= 1:
        return "rule"  # a heading: its underline is as long as it is
    if following and _ATTRIBUTION.fullmatch(f"{line} {following[0]}"):  # wrapped by Gmail
        return "pasted"
    field = _FIELD.match(line)
    if field is None:
        return None
    name = field["name"].casefold()
    for other in following:
        more = _FIELD.match(other)
        if more is not None and more["name"].casefold() != name:
            return "pasted"
    return None
