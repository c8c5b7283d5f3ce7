"""A seat taken over works for both people (docs/service.md, "Sign-up, observers, takeover,
records"): the newcomer gets, beside the welcome, the report of the game as it stands with
its order form (and the request for an answer a window waits for); the player replaced gets
one mail saying the seat passed on, in their language, and their later mail to the game is
told the seat is no longer theirs, not that their password is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest
from transcripts.harness import Mailroom

from pbem.service import gm

PLAYERS = [("Alice", ""), ("Bob", ""), ("Carol", "")]  # the seed makes Carol play first


@pytest.fixture
def room(tmp_path: Path) -> Mailroom:
    return Mailroom(tmp_path)


def take_bobs_seat(room: Mailroom) -> list:
    room.override("offer_seat", "Bob", reason="Bob has not written for a week")
    room.at(minutes=5)
    out = room.mail("Zoe", "TAKEOVER illu Bob\n")
    welcome = next(m.text for m in out if m.to == "zoe@example.org")
    room.passwords[("illu", "Bob")] = welcome.split("YOUR PASSWORD\n-------------\n")[1].split()[0]
    return out


def test_the_newcomer_gets_the_report_and_the_one_replaced_is_told(room: Mailroom) -> None:
    room.new_game("illu", PLAYERS, options={"stand_in": "pass"})
    room.orders("Bob", "SET LANGUAGE FR")
    room.orders("Carol", "PASS")
    room.at(hours=80)
    room.tick()  # Alice misses her deadline: Bob's move
    out = take_bobs_seat(room)
    zoe = [m for m in out if m.to == "zoe@example.org"]
    assert [m.subject for m in zoe] == ["[illu] Welcome to the game, Bob (The UFOs)",
                                        "[illu] Turn 3: your move (Bob)"]
    welcome = " ".join(zoe[0].text.split())
    assert "Deadline of the turn under way: 2026-12-05 20:00 UTC" in welcome  # not "First"
    assert "meanwhile a turn of yours passes at once" in welcome  # the game's house rules
    report = zoe[1].text
    assert "It is your move." in report and "GAME illu PLAYER Bob PASSWORD ______ STEP" in report
    assert "A new player now plays Bob's seat." in report  # news as of the takeover
    bob = [m for m in out if m.to == "bob@example.org"]
    assert [m.subject for m in bob] == ["[illu] La place de Bob est passée à un autre joueur"]
    assert "zoe" not in bob[0].text and room.passwords[("illu", "Bob")] not in bob[0].text
    seq = room.state().seq
    out = room.orders("Bob", "PASS", password="bob-illu-02", address="bob@example.org")
    assert [(m.to, m.subject) for m in out] == [
        ("bob@example.org", "[illu] Non exécuté : la place de Bob n'est plus la vôtre")]
    assert room.state().seq == seq  # nothing done
    room.addresses["Bob"] = "zoe@example.org"
    out = room.orders("Bob", "PASS")
    assert "1 accepted" in out[0].subject
    out = room.orders("Bob", "STATUS", password="bob-illu-02", address="bob@example.org")
    assert "n'est plus la vôtre" in out[0].subject  # each later mail, told again
    for game in room.service.games():
        assert room.service.replay_check(game)


def test_a_newcomer_whose_answer_a_window_waits_for_is_asked(room: Mailroom) -> None:
    """Carol attacks; Bob is asked. The seat passes on before he answers: the newcomer is
    asked in turn, and their answer settles the attack."""
    room.new_game("illu", PLAYERS)
    room.orders("Carol", "ATTACK The Bavarian Illuminati CONTROL Feminists")
    room.orders("Alice", "NO RESPONSE")
    window = room.record().window
    assert window is not None and "Bob" in window.asked
    out = take_bobs_seat(room)
    assert [m.subject for m in out if m.to == "zoe@example.org"] == [
        "[illu] Welcome to the game, Bob (The UFOs)", "[illu] Turn 1: Carol's move (Bob)",
        "[illu] Turn 1: Carol attacks Feminists, your answer? (Bob)"]
    room.addresses["Bob"] = "zoe@example.org"
    room.orders("Bob", "NO RESPONSE")
    assert room.record().window is None


def test_the_game_masters_replacement_works_the_same(room: Mailroom) -> None:
    """``pbem replace``: the same report for the newcomer, and the same answer to the later
    mail of the one replaced (whom the game master tells as they see fit: their address may
    be why they were replaced)."""
    room.new_game("illu", PLAYERS)
    out = room.override("replace_seat", "Alice", "yan@example.org")
    assert [m.subject for m in out if m.to == "yan@example.org"][1:] == [
        "[illu] Turn 1: Carol's move (Alice)", "[illu] From the game master (Alice)"]
    assert [m.subject for m in out if m.to == "alice@example.org"] == []
    out = room.orders("Alice", "STATUS")
    assert [m.subject for m in out] == [
        "[illu] Not carried out: the seat of Alice is no longer yours"]
    assert gm  # (the override runs pbem.service.gm.replace_seat)
