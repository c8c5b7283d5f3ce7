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

The words of these lines, in each language the clients speak, are data
(``pbem.orders.quote_words``); the shapes are below. The same table gives the lines that end
the orders as ``-- `` does (``"signature"``): a person's sign-off on a line of its own
("Hilsen", "Mvh,", "Pozdrawiam", "Best regards, Ann") and a phone's or an app's signature
("Sent from my Wiko", "Gesendet von Outlook für Android").

No order begins with any of these, so a line of orders is never taken for one. Only reading
without END stops at them: after END nothing is read anyway.
"""

from __future__ import annotations

import re
from typing import Literal

from pbem.orders.quote_words import LANGUAGES

__all__ = ["Pasted", "pasted_at"]

Pasted = Literal["pasted", "rule", "signature"]


def _words(kind: str) -> str:
    """An alternation of one kind of word of every language, longest first."""
    found = {word for table in LANGUAGES.values() for word in getattr(table, kind)}
    return "|".join(re.escape(word).replace(r"\ ", r"\s+")
                    for word in sorted(found, key=lambda w: (-len(w), w)))


# A dashed separator (its words between two runs of dashes, or after one), a forwarded
# mail's opening line, or Outlook's rule of underscores.
_SEPARATOR = re.compile(
    rf"[-=*_ ]*-{{2,}} ?(?:{_words('separators')}) ?(?:-{{2,}}[-=*_ ]*)?:?"
    rf"|(?:{_words('forwarded')}) ?:?"
    r"|_{10,}",
    re.IGNORECASE,
)
# The verb of an attribution near the end of the (joined) lines, and where it may stand:
# "On <date>, <name> wrote:", "Am <date> schrieb <name>:", "<name> napisał:", "...写道：",
# "---- On <date> <name> wrote ----" (Zoho); a colon after or not.
_WROTE = re.compile(
    rf"(?:^|[\s,)>\]]|(?<=[^\x00-\u024f]))(?:{_words('wrote')})(?:[\s(:：].{{0,90}})?[:：]?$"
    rf"|(?:{_words('wrote')})[:：]?$",
    re.IGNORECASE,
)
# What an attribution has beside its verb: a date, a time or an address.
_DATED = re.compile(r"\d|@")
# The date or time of a date-first attribution (Yandex, Mail.ru, Gmail in some locales,
# the Japanese and Chinese clients), which has an address and a colon at its end too.
_DATE = re.compile(r"\d{1,4}[./-]\d{1,2}[./-]\d{1,4}|\d{1,2}:\d{2}|\d{4}\s*年")
# The start of an attribution a client wrapped: its first word, a weekday's or a date's.
_OPENS = re.compile(rf"(?:{_words('opens')})[\s.,]|\d|[^\W\d]{{2,3}}\.?,?\s+\d", re.IGNORECASE)
_ATTRIBUTION_LINES = 4  # Polymail writes its attribution over four lines, the iPhone three
# A header line of a pasted mail: its field name, optionally bold as HTML made text, a colon
# (French puts a space before it; Chinese and Japanese clients a full-width one).
_FIELD = re.compile(
    rf"\*?(?P<name>{_words('fields')})\*? ?(?:[:：]\*?(?: |$)|：)", re.IGNORECASE)
# A sign-off on a line of its own, and a name after it; a phone's or an app's signature.
_SIGN_OFF = re.compile(
    rf"(?:{_words('sign_offs')})[ ,.!]*(?:[,\s]+[^\s,]+){{0,3}}[ ,.!]*", re.IGNORECASE)
_SENT_FROM = re.compile(rf"(?:{_words('sent_from')})\b.*", re.IGNORECASE)
_RULE = re.compile(r"[-=_*~─━]{3,}|.*\S [-=]{5,}")  # a rule, or a heading a client joined to it
_UNDERLINE = re.compile(r"-{3,}|={3,}")
_BLOCK_LOOKAHEAD = 3  # lines after a header line in which its block's next field is looked for
_DASHES = "-=*_ \t"


def pasted_at(lines: list[str], index: int) -> Pasted | None:
    """Say whether an earlier mail (or a heading of the game's, or a signature) begins at
    ``lines[index]``: ``"pasted"`` for a separator, attribution or header block, ``"rule"``
    for a rule line, ``"signature"`` for a sign-off or a phone's signature, None otherwise.
    Lines are as written (stripped here)."""
    line = lines[index].strip()
    if not line:
        return None
    if _SEPARATOR.fullmatch(line):
        return "pasted"
    if _attribution(line):
        return "pasted"
    if _RULE.fullmatch(line):
        return "rule"
    if _SENT_FROM.fullmatch(line) or _SIGN_OFF.fullmatch(line):
        return "signature"
    following = [raw.strip() for raw in lines[index + 1:index + 1 + _BLOCK_LOOKAHEAD]]
    if following and _UNDERLINE.fullmatch(following[0]) \
            and abs(len(following[0]) - len(line)) <= 1:
        return "rule"  # a heading: its underline is as long as it is
    if _wrapped_attribution(line, lines[index + 1:index + _ATTRIBUTION_LINES]):
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


def _attribution(text: str) -> bool:
    """True for an attribution line: its verb near its end with a date, time or address,
    or a date-first line with an address and a colon at its end."""
    bare = text.strip(_DASHES)
    if len(bare) > 400 or _DATED.search(bare) is None:
        return False
    if _WROTE.search(bare) is not None:
        return True
    return bare.endswith((":", "：")) and "@" in bare and _DATE.search(bare) is not None


def _wrapped_attribution(line: str, below: list[str]) -> bool:
    """True when ``line`` opens an attribution a client wrapped over the lines ``below``
    (Gmail's two lines, the iPhone's three, Polymail's four): it opens as one does, and
    joined with no blank line between, they are one."""
    if _attribution(line) or _FIELD.match(line) or not _OPENS.match(line.lstrip(_DASHES)):
        return False
    joined = line
    for more in below:
        more = more.strip()
        if not more:
            return False
        joined = f"{joined} {more}"
        if more.startswith(">"):  # only Polymail's "> wrote:" may close it so
            return _attribution(joined)
        if _attribution(joined):
            return True
    return False
