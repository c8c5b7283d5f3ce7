"""A report leaves out the pictures of the other players' structures unchanged, but for
their money, since the last report that showed them to the reader (issue 38 point 4: a
late six-player report at most 60 KB): the seat remembers a key per structure
(``Seat.pictured``), kept in the game's record across steps; the reader's own picture always
goes, and a seat on plain text or SET REPORT SHORT keeps the memory of the last report
that had them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from transcripts.harness import Mailroom

import pbem.service.outgoing as outgoing
from pbem.engine.carddata import load_cardset
from pbem.reports.mails import Rendered, picture_keys
from pbem.service.digest import deliver
from pbem.service.model import GameService
from pbem.service.notices import Notice, StatusReport, TurnReport
from pbem.service.table import Table

PLAYERS = [("Alice", ""), ("Bob", ""), ("Carol", "")]  # the seed makes Carol play first
CARDS = load_cardset()
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[Notice, Rendered]]]:
    seen: list[tuple[Notice, Rendered]] = []
    render = outgoing.render_notice

    def spied(*args: Any, **kwargs: Any) -> Any:
        to, name, rendered = render(*args, **kwargs)
        seen.append((args[3], rendered))
        return to, name, rendered

    monkeypatch.setattr(outgoing, "render_notice", spied)
    yield seen


def reports_to(player: str, sent: list[tuple[Notice, Rendered]]) -> list[tuple[Notice, Rendered]]:
    return [(n, r) for n, r in sent
            if isinstance(n, TurnReport | StatusReport) and n.to == player]


def test_the_next_report_leaves_out_the_pictures_unchanged_but_for_money(
        tmp_path: Path, sent: list[tuple[Notice, Rendered]]) -> None:
    room = Mailroom(tmp_path)
    room.new_game("illu", PLAYERS)
    first, shown = reports_to("Alice", sent)[0]  # the game's first report
    assert first.unchanged == ()
    assert len(shown.inline) == 3  # her own structure and the two others'
    assert set(dict(room.record().seat("Alice").pictured)) == {"Bob", "Carol"}
    sent.clear()
    room.at(minutes=5)
    room.orders("Carol", "END TURN")
    second, fewer = reports_to("Alice", sent)[-1]
    # Nobody's structure changed but for its money (income): only her own picture goes.
    assert set(second.unchanged) == {"Bob", "Carol"}
    assert len(fewer.inline) == 1
    assert fewer.html.count('class="same"') == 2


def test_a_seat_on_plain_text_or_short_reports_keeps_what_it_was_last_shown(
        tmp_path: Path, sent: list[tuple[Notice, Rendered]]) -> None:
    room = Mailroom(tmp_path)
    room.new_game("illu", PLAYERS)
    room.orders("Alice", "SET REPORT SHORT")
    room.orders("Bob", "SET HTML OFF")
    # What the game's first reports showed them, with pictures.
    before = {p: room.record().seat(p).pictured for p in ("Alice", "Bob")}
    sent.clear()
    room.at(minutes=5)
    room.orders("Carol", "END TURN")
    assert reports_to("Bob", sent) and reports_to("Alice", sent)
    assert {p: room.record().seat(p).pictured for p in ("Alice", "Bob")} == before
    report, shown = reports_to("Alice", sent)[-1]
    assert report.unchanged == () and len(shown.inline) == 1  # her own only (SHORT)


def test_a_new_player_on_a_seat_gets_every_picture_again(
        tmp_path: Path, sent: list[tuple[Notice, Rendered]]) -> None:
    """The game master gives Alice's seat to someone else: what the seat was shown was
    shown to her, so the newcomer's first report has every picture."""
    room = Mailroom(tmp_path)
    room.new_game("illu", PLAYERS)
    assert room.record().seat("Alice").pictured
    sent.clear()
    room.override("replace_seat", "Alice", "new@example.org")
    reports = reports_to("Alice", sent)
    if not reports:  # no report in the step: the seat remembers nothing
        assert room.record().seat("Alice").pictured == ()
        room.at(minutes=5)
        room.orders("Carol", "END TURN")
        reports = reports_to("Alice", sent)
    report, shown = reports[0]
    assert report.unchanged == () and len(shown.inline) == 3



def test_the_memory_follows_the_settings_the_report_was_rendered_with(
        tmp_path: Path) -> None:
    """A report is rendered with the seat's settings as it was called for (the notice's
    service); a SET HTML later in the step changes the seat, not that mail: the seat
    remembers pictures only when that report had them."""
    room = Mailroom(tmp_path)
    room.new_game("illu", PLAYERS)
    state, service = room.state(), room.record()
    keys = tuple(sorted(picture_keys(CARDS, state, "Carol").items()))
    for then, now, remembered in ((False, True, ()), (True, False, keys)):
        called = with_carol(service, html=then, pictured=())
        table = Table(CARDS, state, with_carol(service, html=now, pictured=()), NOW, 0)
        table.notices = [TurnReport("Carol", state=state, service=called)]
        deliver(table)
        assert table.service.seat("Carol").pictured == remembered, then
        assert table.notices[0].unchanged == ()


def with_carol(service: GameService, **changes: Any) -> GameService:
    return replace(service, seats=tuple(replace(s, **changes) if s.name == "Carol" else s
                                        for s in service.seats))
