"""Where the orders of a reply stop when END is missing and an earlier mail is pasted below
them without ">" (docs/orders.md: everything after the orders is ignored)."""

from __future__ import annotations

import pytest
from factory import CARDS

from pbem.engine.commands import Pass
from pbem.orders.parse import parse_orders

START = "GAME g PLAYER Alice PASSWORD s3cret TURN 4"


@pytest.mark.parametrize("marker", [
    "-----Original Message-----",
    "----- Original Message -----",
    "-----Message d'origine-----",
    "________________________________",
    "---------- Forwarded message ---------",
    "On Mon, 30 Nov 2026 at 21:11, Illuminati PBEM <pbem@example.org> wrote:",
    "Le lun. 30 nov. 2026 à 21:11, Illuminati PBEM <pbem@example.org> a écrit :",
    # German mail clients (issue 42: German players answer German reports)
    "-----Ursprüngliche Nachricht-----",
    "Am Mo., 30. Nov. 2026 um 21:11 Uhr schrieb Illuminati PBEM <pbem@example.org>:",
    "Am 30.11.2026 um 21:11 schrieb Illuminati PBEM:",
    "Von: Illuminati PBEM <pbem@example.org>",
    "GAME g PLAYER Alice PASSWORD ______ TURN 3",
])
def test_reading_stops_where_a_pasted_mail_begins(marker: str) -> None:
    """The report below the marker (its suggested ATTACK lines, its order form) is not read;
    the marker line itself is reported, so the writer learns that END was missing."""
    text = "\n".join([START, "PASS", "", marker, "From: pbem@example.org",
                      "    ATTACK The Bavarian Illuminati CONTROL Hackers", "END"])
    parsed = parse_orders(text, CARDS, ("Alice", "Bob"))
    assert [o.order for o in parsed.orders] == [Pass("Alice")]
    assert [e.line for e in parsed.errors] == [4]
    assert "______" in marker or "END" in (parsed.errors[0].suggestion or "")
    assert parsed.warnings == ()  # the refused line says there was no END


def test_a_quoted_reply_with_end_reads_as_before() -> None:
    """With END, nothing after it is read, markers or not; quoted lines are skipped."""
    text = "\n".join([START, "> GAME g PLAYER Alice PASSWORD x", "PASS", "END",
                      "-----Original Message-----", "ATTACK x"])
    parsed = parse_orders(text, CARDS, ("Alice", "Bob"))
    assert [o.order for o in parsed.orders] == [Pass("Alice")]
    assert parsed.errors == () and parsed.warnings == ()


# Issue 35: what the reading missed, class by class, each as the clients write it.
QUOTE_HEADERS = {
    "outlook-da": "Fra: Illuminati PBEM <pbem@example.org>\nSendt: 2. juni 2025 21:00\nTil: Bob"
                  "\nEmne: Tur 3",
    "outlook-sv": "Från: Illuminati PBEM\nSkickat: den 2 juni 2025 21:00\nTill: Bob\nÄmne: Tur 3",
    "outlook-nl": "Van: Illuminati PBEM\nVerzonden: maandag 2 juni 2025 21:00\nAan: Bob",
    "outlook-it": "Da: Illuminati PBEM\nInviato: lunedì 2 giugno 2025 21:00\nA: Bob\n"
                  "Oggetto: Turno 3",
    "outlook-zh": "发件人: Illuminati PBEM <pbem@example.org>\n发送时间: 2025年6月2日 21:00\n"
                  "收件人: Bob",
    "windows-mail-ru": "От: Illuminati PBEM\nОтправлено: 2 июня 2025 г. 21:00\nКому: Bob",
    "separator-da": "-----Oprindelig meddelelse-----",
    "separator-reply": "-----Reply Message-----",
    "separator-antwort": "-----Antwort Nachricht-----",
    "zoho": "---- On Mon, 02 Jun 2025 21:00:00 +0200 Illuminati PBEM <pbem@example.org> wrote ----",
    "pl": "W dniu 2.06.2025 o 21:00, Illuminati PBEM <pbem@example.org> napisał:",
    "nl": "Op ma 2 jun 2025 om 21:00 schreef Illuminati PBEM <pbem@example.org>:",
    "nl-apple": "Op 2 jun. 2025 om 21:00 heeft Illuminati PBEM <pbem@example.org> het volgende "
                "geschreven:",
    "it": "Il giorno lun 2 giu 2025 alle ore 21:00 Illuminati PBEM <pbem@example.org> ha "
          "scritto:",
    "pt": "Em seg., 2 de jun. de 2025 às 21:00, Illuminati PBEM <pbem@example.org> escreveu:",
    "fi": "ma 2.6.2025 klo 21.00 Illuminati PBEM (<pbem@example.org>) kirjoitti:",
    "ru": "02.06.2025 21:00, Illuminati PBEM пишет:",
    "sv": "Den mån 2 juni 2025 kl 21:00 skrev Illuminati PBEM <pbem@example.org>:",
    "no": "man. 2. jun. 2025 kl. 21:00 skrev Illuminati PBEM <pbem@example.org>:",
    "uk": "пн, 2 черв. 2025 р. о 21:00 Illuminati PBEM <pbem@example.org> пише:",
    "ja": "2025年6月2日(月) 21:00 Illuminati PBEM <pbem@example.org>:",
    "wrote-no-colon": "On Mon, 2 Jun 2025 21:00:00 +0200 Illuminati PBEM <pbem@example.org> wrote",
    "yandex": '02.06.2025, 21:00, "Illuminati PBEM" <pbem@example.org>:',
    "mail.ru": "Понедельник, 2 июня 2025, 21:00 +03:00 от Illuminati PBEM <pbem@example.org>:",
    "gmail-iso": "2025-06-02 21:00 GMT+02:00 Illuminati PBEM <pbem@example.org>:",
    "iphone-3-lines": "On Jun 2, 2025, at 9:00 PM, Illuminati PBEM\n<pbem@example.org>\nwrote:",
    "polymail-4-lines": "On Mon, Jun 2, 2025 at 9:00 PM Illuminati PBEM\n<\n"
                        "mailto:pbem@example.org\n> wrote:",
}


@pytest.mark.parametrize("header", QUOTE_HEADERS.values(), ids=QUOTE_HEADERS.keys())
def test_reading_stops_at_every_quote_header(header: str) -> None:
    """The quoted report below the header, its lines to copy included, is not read; the
    header's first line is reported as where an earlier mail begins."""
    text = "\n".join([START, "PASS", "", header, "",
                      "ATTACK The Bavarian Illuminati CONTROL Hackers"])
    parsed = parse_orders(text, CARDS, ("Alice", "Bob"))
    assert [o.order for o in parsed.orders] == [Pass("Alice")]
    assert [(e.key, e.line) for e in parsed.errors] == [("pasted", 4)]


@pytest.mark.parametrize("closing", [
    "Hilsen", "Mvh", "Mvh,\nOle", "Pozdrawiam", "Cordialement,\nChloé", "Gesendet von Outlook "
    "für Android", "Sent from my Wiko", "Med vänliga hälsningar\nAnna", "С уважением,\nИван",
    "Best regards, Ann Smith", "Enviado desde mi iPhone", "iPhoneから送信",
])
def test_a_sign_off_ends_the_orders_as_a_signature_line_does(closing: str) -> None:
    """Issue 35, point 4: no refusal for a "Hilsen"; what follows it is not read."""
    text = "\n".join([START, "PASS", "", closing, "",
                      "ATTACK The Bavarian Illuminati CONTROL Hackers"])
    parsed = parse_orders(text, CARDS, ("Alice", "Bob"))
    assert [o.order for o in parsed.orders] == [Pass("Alice")]
    assert parsed.errors == ()
    assert [w.key for w in parsed.warnings] == ["no_end_signature"]


def test_a_quote_header_under_an_end_turn_comment_is_not_joined_to_it() -> None:
    text = "\n".join([START, "END TURN # thanks, see you", "Den man. 2. jun. 2025 kl. 21.00 "
                      "skrev Illuminati PBEM <pbem@example.org>:", "",
                      "ATTACK The Bavarian Illuminati CONTROL Hackers"])
    parsed = parse_orders(text, CARDS, ("Alice", "Bob"))
    assert [o.text for o in parsed.orders] == ["END TURN # thanks, see you"]
    assert [(e.key, e.line) for e in parsed.errors] == [("pasted", 3)]


@pytest.mark.parametrize("line", [
    "ATTACK The Bavarian Illuminati CONTROL Hackers", "GIVE 2 MB TO Bob", "PASS",
    "TRANSFER 2 FROM The Bavarian Illuminati TO Hackers", "DEFEND 1 FROM Hackers",
])
def test_no_order_is_taken_for_a_quote_header_or_sign_off(line: str) -> None:
    from pbem.orders.pasted import pasted_at
    assert pasted_at([line, "On Mon, 2 Jun 2025 at 21:00, X <x@example.org>", "wrote:"], 0) \
        is None


def test_the_quote_words_are_tables_of_words() -> None:
    """Each language's words are tuples of lower-case words (a lone string would be read
    letter by letter)."""
    from dataclasses import astuple

    from pbem.orders.quote_words import LANGUAGES
    assert len(LANGUAGES) >= 16
    for words in LANGUAGES.values():
        for kind in astuple(words):
            assert isinstance(kind, tuple)
            assert all(isinstance(w, str) and w == w.lower() and w for w in kind)


def test_a_sign_off_above_end_gives_no_warning() -> None:
    text = "\n".join([START, "PASS", "", "Mvh", "Ole", "END"])
    parsed = parse_orders(text, CARDS, ("Alice", "Bob"))
    assert [o.order for o in parsed.orders] == [Pass("Alice")]
    assert parsed.errors == () and parsed.warnings == ()


def test_the_game_s_lines_below_a_sign_off_do_not_keep_it_from_closing() -> None:
    text = "\n".join([START, "PASS", "", "Hilsen", "    ATTACK The Bavarian Illuminati CONTROL "
                      "Hackers"])
    parsed = parse_orders(text, CARDS, ("Alice", "Bob"))
    assert [o.order for o in parsed.orders] == [Pass("Alice")]
    assert parsed.errors == ()
