"""Press modes, by the game's house rules (docs/service.md, "Press"): white press is signed,
grey press reaches its readers unsigned, a game with no press refuses it with a clear answer,
and a game may hold press back while an attack waits for answers. In no mode does any mail
show the writer's address. Golden transcripts in tests/transcripts/.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from transcripts.harness import Mailroom, Out

PLAYERS = [("Alice", ""), ("Bob", ""), ("Carol", "")]  # the seed makes Carol play first
PRESS = ("PRESS TO Bob", "Bob: the Bavarians are too strong.", "END PRESS",
         "PRESS TO ALL", "Peace to all Illuminati.", "END PRESS")


@pytest.fixture
def room(tmp_path: Path) -> Mailroom:
    return Mailroom(tmp_path)


def flat(text: str) -> str:
    return " ".join(text.split())


def no_address(mails: list[Out], address: str = "alice@example.org") -> None:
    """No part of any mail (headers, text, HTML) shows the writer's address, but their own."""
    for mail in mails:
        if mail.to != address:
            assert address not in mail.raw.decode("utf-8", "replace").lower()


def test_grey_press_reaches_its_readers_unsigned(room: Mailroom) -> None:
    room.new_game("illu", PLAYERS, options={"press": "grey"})
    room.orders("Bob", "SET LANGUAGE FR")
    room.at(minutes=5)
    out = room.orders("Alice", *PRESS)
    assert "2 accepted" in out[0].text
    to_bob, to_carol = room.to("Bob", out), room.to("Carol", out)
    assert len(to_bob) == 2 and len(to_carol) == 1
    for mail in to_bob + to_carol:
        assert "Alice" not in mail.text and "Alice" not in (mail.html or "")
        assert "Alice" not in mail.subject
    assert to_carol[0].subject == "[illu] Press, unsigned (Carol)"
    assert "A player sends this to every player of illu" in to_carol[0].text
    assert "not told who wrote it" in to_carol[0].text
    welcome = room.to("Alice")[0]
    assert "Press: unsigned (grey): readers are not told who wrote it." in flat(welcome.text)
    assert "Absences (SET ABSENCE): at most 14 days each, 28 in all" in flat(welcome.text)
    assert to_bob[0].subject == "[illu] Message anonyme (Bob)"
    assert "anonymes" in to_bob[0].text
    no_address(room.outgoing)
    room.check("press_grey")


def test_white_press_is_signed_by_name_never_by_address(room: Mailroom) -> None:
    room.new_game("illu", PLAYERS)
    out = room.orders("Alice", *PRESS)
    assert all("Alice" in m.text for m in room.to("Bob", out) + room.to("Carol", out))
    no_address(room.outgoing)


def test_a_game_without_press_refuses_it_clearly(room: Mailroom) -> None:
    room.new_game("illu", PLAYERS, options={"press": "none"})
    room.at(minutes=5)
    out = room.orders("Alice", *PRESS, "STATUS")
    (ack, status) = out  # no press relayed: the answer, and the report asked for
    assert "1 accepted, 2 refused" in ack.subject
    assert "this game has no press" in ack.text
    assert "Turn 1" in status.subject
    room.check("press_none")


def test_press_may_wait_until_an_attack_is_settled(room: Mailroom) -> None:
    room.new_game("illu", PLAYERS, options={"press_in_attack": False})
    room.at(minutes=5)
    room.orders("Carol", "ATTACK Bavarian CONTROL Feminists SPEND 1 UPTO 3")
    room.at(minutes=5)
    out = room.orders("Alice", "PRESS TO Bob", "Help Feminists?", "END PRESS")
    assert [m.to for m in out] == ["alice@example.org"]
    assert "no press while an attack waits for answers" in out[0].text
    assert "send it once the attack is settled" in out[0].text
    room.orders("Alice", "NO RESPONSE")
    room.orders("Bob", "NO RESPONSE")
    room.at(minutes=5)
    out = room.orders("Alice", "PRESS TO Bob", "Help Feminists?", "END PRESS")
    assert [m.to for m in out] == ["alice@example.org", "bob@example.org"]
    no_address(room.outgoing)
    room.check("press_in_attack")
