"""Fewer mails, nothing missed (docs/service.md, "Fewer mails"): SET MAIL DIGEST answers an
order mail only when a line is refused, asks, or waits, and says the rest in the next mail,
where an attack's result also comes to those who did not make it; SET REPORT SHORT keeps in
the mail what the reader acts on and attaches the whole report. Golden transcripts in
tests/transcripts/.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from transcripts.harness import SEED, START, Mailroom

from pbem.service.bot_games import play_game
from pbem.service.service import Service, ServiceConfig
from pbem.store.memory import MemoryStore

PLAYERS = [("Alice", ""), ("Bob", ""), ("Carol", "")]  # the seed makes Carol play first
STANDING = ("STANDING DEFEND ANY UPTO 3", "STANDING NEVER INTERFERE")


@pytest.fixture
def room(tmp_path: Path) -> Mailroom:
    return Mailroom(tmp_path)


def flat(text: str) -> str:
    return " ".join(text.split())


def test_digest_answers_only_what_needs_an_answer(room: Mailroom) -> None:
    room.new_game("illu", PLAYERS)
    out = room.orders("Alice", "SET MAIL DIGEST", *STANDING)
    assert [m.to for m in out] == ["alice@example.org"]  # SET MAIL is confirmed
    room.orders("Bob", *STANDING, "SET LANGUAGE FR", "SET MAIL DIGEST")
    room.at(minutes=5)
    out = room.orders("Bob", "PRESS TO Carol", "Non.", "END PRESS")
    assert room.to("Bob", out) == []
    out = room.orders("Alice", "PRESS TO Bob", "Shall we?", "END PRESS")
    assert room.to("Alice", out) == []  # nothing refused, asked or waiting: no answer
    # Bob's next mail, press from Alice, carries what his own press mail's answer said.
    assert room.record().seat("Bob").folded == ()
    out = room.orders("Alice", "GIVE 100 MB TO Carol")
    assert "0 accepted, 1 refused" in room.to("Alice", out)[0].subject  # refused: answered
    assert room.record().seat("Alice").folded == ()  # her press's answer went with it
    room.at(minutes=5)
    out = room.orders("Carol", "ATTACK Bavarian CONTROL Feminists SPEND 1 UPTO 3")
    results = [m for m in out if "attack" in m.subject.lower() and "Orders" not in m.subject]
    assert {m.to for m in results} == {"carol@example.org"}  # only to its attacker
    assert room.to("Alice", out) == []  # the result waits for her next mail
    room.at(minutes=5)
    out = room.orders("Carol", "END TURN")
    assert len(room.to("Alice", out)) == 1  # her move: her report, the result in its news
    assert room.record().seat("Alice").untold is None
    assert room.to("Bob", out) == []  # not his move: his next mail will tell
    assert room.record().seat("Bob").untold is not None
    room.at(minutes=5)
    out = room.orders("Alice", "STATUS")
    assert "SINCE YOUR LAST MAIL" not in room.to("Alice", out)[1].text  # said once
    room.check("fewer_mails_digest")


def test_short_reports_attach_the_rest(room: Mailroom) -> None:
    room.new_game("illu", PLAYERS)
    room.orders("Bob", "SET REPORT SHORT", "SET LANGUAGE FR")
    room.orders("Alice", "SET REPORT SHORT")
    room.at(minutes=5)
    out = room.orders("Carol", "PASS")
    alice, = room.to("Alice", out)
    assert "OTHER PLAYERS" not in alice.text and "UNCONTROLLED GROUPS" not in alice.text
    assert "ODDS OF YOUR ATTACKS" not in alice.text
    for kept in ("It is your move. Deadline:", "WHAT HAPPENED", "YOUR POWER STRUCTURE",
                 "ORDERS", "GAME illu PLAYER Alice PASSWORD ______"):
        assert kept in alice.text
    name, kind, data = alice.attachments[-1]
    assert (name, kind) == ("report-illu-3.txt", "text/plain")
    full = data.decode()
    assert "OTHER PLAYERS" in full and "ODDS OF YOUR ATTACKS" in full
    assert name in flat(alice.text) and "OTHER PLAYERS" not in (alice.html or "")
    # Bob (the UFOs, silent about their goal) is also told the goal dealt to them stands.
    bob, = [m for m in room.to("Bob", out) if "objectif secret" not in m.subject.lower()]
    assert "LES AUTRES JOUEURS" not in bob.text and "est jointe" in bob.text
    carol = room.to("Carol", out)[-1]  # after the answer to her PASS
    assert "OTHER PLAYERS" in carol.text  # a full report for who did not ask
    assert len(alice.text.splitlines()) < len(full.splitlines()) * 2 / 3
    room.check("fewer_mails_short")


def test_bots_play_the_same_game_on_fewer_mails(tmp_path: Path) -> None:
    """Nothing is missed: mail-bots that read only what DIGEST and SHORT send them (and the
    JSON view) play the very game they play on full mail, with fewer mails and lines."""
    games = {}
    for setting in ((), ("SET MAIL DIGEST", "SET REPORT SHORT")):
        service = Service(MemoryStore(), ServiceConfig(password_cost=4))
        names = [(f"bot{i}", f"bot{i}@example.org") for i in range(3)]
        played = play_game(service, "same", names, start=START, seed=SEED,
                           options={"victory_groups": 6}, keep_mail=True,
                           first_lines=setting)
        assert service.replay_check("same")
        log = [e.get("command") for e in service.store.log("same")]
        lines = sum(len(raw.splitlines()) for raw in played.outbox)
        games[setting] = (played.outcome, played.winners, played.turns, log,
                          len(played.outbox), lines)
    full, fewer = games.values()
    assert full[0] == "victory" and full[:4] == fewer[:4]
    assert fewer[4] < full[4] * 0.75 and fewer[5] < full[5]


def test_answers_kept_are_told_once_even_back_on_full_mail(room: Mailroom) -> None:
    room.new_game("illu", PLAYERS)
    room.orders("Alice", "SET MAIL DIGEST")
    room.at(minutes=5)
    assert room.orders("Alice", "PRESS TO Bob", "Hello.", "END PRESS") == [
        m for m in room.outgoing[-1:] if m.to == "bob@example.org"]
    assert room.record().seat("Alice").folded != ()
    # The answer to SET MAIL FULL carries what was kept; two STATUS lines in one mail fold
    # into one report (issue 44), which finds nothing more to tell.
    first = room.orders("Alice", "SET MAIL FULL")
    assert len(first) == 1 and room.record().seat("Alice").folded == ()
    assert "PRESS TO Bob: You send a message to Bob." in flat(first[0].text)
    reports = [m for m in room.orders("Alice", "STATUS", "STATUS") if "Turn 1" in m.subject]
    assert len(reports) == 1
    assert "SINCE YOUR LAST MAIL" not in reports[0].text


def test_set_json_on_attaches_the_view_however_big(room: Mailroom,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 38, point 4: the view goes as JSON only to who asks (SET JSON ON) once it is
    no longer small; here every view counts as big (JSON_SMALL 0)."""
    from pbem.reports import mails as reports

    monkeypatch.setattr(reports, "JSON_SMALL", 0)
    room.new_game("illu", PLAYERS)
    room.orders("Alice", "SET JSON ON")
    room.at(minutes=5)
    out = room.orders("Carol", "PASS")
    kinds = {who: [kind for _, kind, _ in room.to(who, out)[-1].attachments]
             for who in ("Alice", "Bob")}
    assert "application/json" in kinds["Alice"]
    assert "application/json" not in kinds["Bob"]
