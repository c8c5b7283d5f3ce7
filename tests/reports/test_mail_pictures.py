"""The power structures as PNG parts of the HTML mail (issue 19, point 6): drawn with their
words, shown by cid: from a multipart/related part, with alt text; the text part complete."""

from __future__ import annotations

import email
import email.message
import email.policy
import re
from datetime import UTC, datetime, timedelta

from factory import BAVARIA, CARDS, GNOMES, NETWORK, free, game, place

from pbem.engine.state import GameState
from pbem.engine.view import view
from pbem.mail.compose import OutgoingMail, compose
from pbem.reports import mails as reports
from pbem.reports.pictures import png_picture

PNG = b"\x89PNG\r\n\x1a\n"
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def position() -> GameState:
    """Three players, two with groups under their Illuminati."""
    state = free(game(ann=BAVARIA, bob=GNOMES, cat=NETWORK), "Hackers")
    state = place(state, "bob", "Boy Sprouts", treasury=2)
    return place(state, "ann", "Hackers", treasury=1)


def test_a_picture_is_drawn_with_its_words() -> None:
    """resvg needs a font: without one the cards would come out blank, and quietly."""
    svg = str(next(iter(reports.structure_pictures(CARDS, view(CARDS, position(), "ann"))
                        .values())))
    blank = re.sub(r"(<text\b[^>]*>)[^<]*(</text>)", r"\1\2", svg)
    drawn, empty = png_picture(svg, "a"), png_picture(blank, "b")
    assert drawn.png.startswith(PNG) and drawn.png != empty.png
    assert len(drawn.png) > len(empty.png) + 500  # the words take room


def test_the_report_mail_shows_its_pictures_from_related_parts() -> None:
    state = position()
    who = state.active_player.name
    rendered = reports.turn_report(CARDS, state, who, (), now=NOW,
                                   deadline=NOW + timedelta(days=2), tz="Europe/Paris")
    raw = compose(OutgoingMail(
        to="p@example.org", from_addr="game@example.org", subject=rendered.subject,
        text=rendered.text, html=rendered.html, attachments=rendered.attachments,
        inline=rendered.inline, message_id="<r1@example.org>", date=NOW))
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, email.message.EmailMessage)
    assert message.get_content_type() == "multipart/mixed"
    alternative = message.get_payload()[0]
    plain, related = alternative.get_payload()
    assert (plain.get_content_type(), related.get_content_type()) == (
        "text/plain", "multipart/related")
    html_part, *images = related.get_payload()
    html = html_part.get_content()
    assert "<svg" not in html
    shown = re.findall(r'<img src="cid:([^"]+)" alt="([^"]+)"', html)
    v = view(CARDS, state, who)
    owners = [p for p in v.players if p.structure]
    assert len(shown) == len(images) == len(owners) > 1
    for image, (cid, alt), owner in zip(images, shown, owners, strict=True):
        assert image["Content-ID"] == f"<{cid}>"
        assert image.get_content_disposition() == "inline"
        assert image.get_payload(decode=True).startswith(PNG)
        assert alt.startswith(f"Power structure of {owner.name}: {owner.structure[0].card}")
    # The text part is complete without the pictures: every structure is in words there.
    text = plain.get_content()
    assert all(f"{c.card}: " in text for p in owners for c in p.structure)


def test_a_short_report_carries_only_the_pictures_it_shows() -> None:
    """Issue 38, point 4: SET REPORT SHORT shows the reader's structure only; the others'
    pictures are not sent along unseen (every picture sent is one the HTML shows)."""
    state = position()
    for who in ("ann", "bob"):
        for short in (False, True):
            rendered = reports.turn_report(CARDS, state, who, (), now=NOW,
                                           deadline=NOW + timedelta(days=2), short=short)
            shown = set(re.findall(r'<img src="cid:([^"]+)"', rendered.html))
            sent = {cid for cid, _type, _png in rendered.inline}
            assert sent == shown
            assert len(sent) == (1 if short else 3)
