"""The lobby's mails (sign-up, observing, takeover) have an HTML part of paragraphs, lists
and order lines, not their text in a ``<pre>`` block, every word of the text shown in it
(issue 38, point 5)."""

from __future__ import annotations

import html
import re

import pytest

from pbem.reports.observing import lobby_mail

CASES = [
    ("lobby_help", {"message": None, "suggestion": None}),
    ("lobby_help", {"message": "no order <here> & there", "suggestion": "try HELP"}),
    ("observing", {"game": "Tom & Jerry", "press": True}),
]


def shown_words(page: str) -> list[str]:
    body = page[page.find("<body"):]
    return html.unescape(re.sub(r"<[^>]+>", " ", body)).split()


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize(("template", "words"), CASES)
def test_a_lobby_mail_has_real_html_with_every_word_of_its_text(
        template: str, words: dict[str, object], lang: str) -> None:
    mail = lobby_mail(template, lang, None, **words)
    body = mail.html[mail.html.find("<body"):]
    assert body.count("<p>") >= 1
    assert '<pre class="orders">' in body
    first = mail.text.splitlines()[0]  # a paragraph's first line: in a <p>, not a <pre>
    for pre in re.findall(r"<pre[^>]*>(.*?)</pre>", body, flags=re.S):
        assert first not in html.unescape(pre)
    assert '<p class="signature">The game master robot.' in body or lang == "fr"
    text_words = [w for w in mail.text.split() if w != "--"]
    assert shown_words(mail.html) == text_words


def test_the_pieces_of_a_text_part() -> None:
    from pbem.reports.templating import TextBlock, text_blocks  # new with issue 38

    text = ("A paragraph\nwrapped here.\n\nHEADING\n-------\n- one item\n  going on\n"
            "- two\n    ORDER LINE\n      continued\n\n-- \nThe robot.\nOrders: one.")
    assert text_blocks(text) == [
        TextBlock("para", ("A paragraph", "wrapped here.")),
        TextBlock("heading", ("HEADING",)),
        TextBlock("items", ("one item going on", "two")),
        TextBlock("copy", ("ORDER LINE", "  continued")),
        TextBlock("signature", ("The robot. Orders: one.",)),
    ]
