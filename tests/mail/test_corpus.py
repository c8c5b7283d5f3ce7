"""Replies built from the test data of public reply parsers, and from the shapes the mail
clients of sixteen languages write (tests/reply_corpus.py), read end to end: the raw mail
through pbem.mail.inbound, its text through the order parser (issue 35).

On the whole corpus no quoted line is ever run, and at least 99 % of the replies are read
as meant: the player's orders exactly, nothing refused but the player's own words (or the
line where the reading stopped, which tells the player END was missing). bench/quotes.py
measures the same replies against talon's quote stripping, per language and per client.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from factory import CARDS
from reply_corpus import (
    CLIENTS,
    CLOSINGS,
    CORPUS,
    GAME_LINES,
    GAME_ORDERS,
    PLAYERS,
    Reading,
    Reply,
    build,
    fixtures,
    generated,
    judge,
    replies,
)

from pbem.errors import MailFormatError
from pbem.mail.inbound import parse_mail
from pbem.orders.parse import parse_orders

GOLDENS = Path(__file__).parent.parent / "golden" / "reports"


def read(reply: Reply, *, sent: frozenset[str] = GAME_ORDERS) -> Reading:
    """Read ``reply`` as the service does (it passes the lines its mails offered the player
    to copy as ``sent``)."""
    try:
        text = parse_mail(reply.raw).text
    except MailFormatError:
        return Reading(False, (), ("<unreadable mail>",))

    def orders(text: str) -> tuple[list[str], list[tuple[str, str]]]:
        parsed = parse_orders(text, CARDS, PLAYERS, sent=sent)
        return ([o.text.strip() for o in parsed.orders],
                [(e.key, e.text or "") for e in parsed.errors])

    return judge(reply, text, orders)


@cache
def corpus() -> tuple[tuple[Reply, Reading], ...]:
    return tuple((reply, read(reply)) for reply in replies())


def test_the_corpus_is_the_world_not_us() -> None:
    """Every fixture file of the six projects is in the manifest, read or set aside with a
    reason, and each project keeps its licence and the commit it came from."""
    manifest = json.loads((CORPUS / "replies.json").read_text(encoding="utf-8"))
    files = {str(p.relative_to(CORPUS)) for p in CORPUS.glob("*/fixtures/**/*") if p.is_file()
             and not p.name.endswith(("_sender", "_signature", "_reply_text"))}
    assert files == set(manifest)
    for project in {name.split("/")[0] for name in manifest}:
        assert (CORPUS / project / "LICENSE").stat().st_size > 500
        assert "commit: " in (CORPUS / project / "SOURCE").read_text(encoding="utf-8")
    assert len(fixtures()) >= 250


def test_the_game_lines_are_the_game_s() -> None:
    """What goes into the quoted part is what the game's mails say (the golden renders)."""
    goldens = "\n".join(p.read_text(encoding="utf-8") for p in GOLDENS.glob("*.txt"))
    for block in GAME_LINES:
        for line in block:
            assert line.strip() in goldens, line


def test_every_language_and_client_is_generated() -> None:
    languages = {f.language for f in generated()}
    assert languages >= {"en", "fr", "de", "es", "it", "pt", "nl", "da", "sv", "no", "fi",
                         "pl", "ru", "uk", "zh", "ja"}
    assert set(CLOSINGS) == set(CLIENTS)


def test_no_quoted_line_is_ever_run_on_the_corpus() -> None:
    run = [(reply.name, reading.quoted_run) for reply, reading in corpus()
           if reading.quoted_run]
    assert run == []
    assert len(corpus()) > 5000


def test_the_corpus_is_read_as_meant() -> None:
    """At least 99 % of the replies give the player's orders exactly, and refuse nothing
    but the player's own words."""
    wrong = [(reply.name, reading.refused_quoted) for reply, reading in corpus()
             if not reading.as_meant]
    assert len(wrong) <= len(corpus()) // 100, wrong[:20]


def _trimmed(shape: str) -> Iterator[Reply]:
    """Replies whose quote a client trimmed to the lines of the game's mail, in ``shape``."""
    for fixture in fixtures()[::7]:
        if fixture.html is None and fixture.quote < len(fixture.lines):
            yield build(fixture, 3, shape=shape, trimmed=True)


@pytest.mark.parametrize("shape", ["stripped", "rewrapped-72", "reindented"])
def test_a_trimmed_quote_runs_none_of_the_game_s_lines_even_unknown(shape: str) -> None:
    """Issue 35, point 3: below text the player did not write as orders, the lines of the
    game's mail (indented as its lines to copy are) are not run, even when the reader is
    not told which lines the game sent."""
    built = list(_trimmed(shape))
    assert len(built) > 20
    for reply in built:
        assert read(reply, sent=frozenset()).quoted_run == (), reply.name


def test_a_flattened_trimmed_quote_runs_none_of_the_lines_sent() -> None:
    """A client that strips the quote marks and the indentation leaves the game's lines as
    the player's would look: the lines the game sent this player are not run below text
    the player did not write as orders; the player's own orders above still are."""
    text = "\n".join([
        "GAME illu1 PLAYER Bob PASSWORD reed-55", "PASS", "",
        "- California, to control: need 2 or less (3%); 5 MB more for 7 (58%); 8 MB",
        "more for 10 (92%).", "ATTACK The UFOs CONTROL California"])
    parsed = parse_orders(text, CARDS, PLAYERS, sent=GAME_ORDERS)
    assert [o.text for o in parsed.orders] == ["PASS"]
    assert [e.key for e in parsed.errors] == ["unknown_order", "unknown_order", "pasted"]
    alone = parse_orders(text, CARDS, PLAYERS)  # not told: it cannot know
    assert [o.text for o in alone.orders] == ["PASS", "ATTACK The UFOs CONTROL California"]


def test_a_line_sent_is_run_when_the_player_writes_it_among_orders() -> None:
    """A line of the game's mail the player copied among the orders is an order as meant."""
    text = "GAME illu1 PLAYER Bob PASSWORD reed-55\nPASS\nATTACK The UFOs CONTROL California"
    parsed = parse_orders(text, CARDS, PLAYERS, sent=GAME_ORDERS)
    assert [o.text for o in parsed.orders] == ["PASS", "ATTACK The UFOs CONTROL California"]


def test_end_turn_below_a_line_of_chat_is_run_though_the_form_offers_it() -> None:
    """Bare words (END TURN, PASS) name nothing a quote could have chosen: a player who
    writes them below a line of chat means them."""
    text = "GAME illu1 PLAYER Bob PASSWORD reed-55\nPASS\nSee you all!\nEND TURN\nEND"
    parsed = parse_orders(text, CARDS, PLAYERS, sent=GAME_ORDERS | {"END TURN", "PASS"})
    assert [o.text for o in parsed.orders] == ["PASS", "END TURN"]
    assert [e.key for e in parsed.errors] == ["unknown_order"]
