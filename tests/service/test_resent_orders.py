"""Orders sent again (issue 21, point 3) as the service tells them apart from orders meant
again: a copy of a player's last mail in the same turn, or finding the game as that mail
left it, is "already done"; queries are answered each time; the same orders after others
of the same player, or under a new TURN, are carried out."""

from __future__ import annotations

from pathlib import Path

from transcripts.harness import Mailroom

PLAYERS = [("Alice", ""), ("Bob", ""), ("Carol", "")]  # the seed makes Carol play first


def _room(tmp_path: Path) -> Mailroom:
    room = Mailroom(tmp_path)
    room.new_game("illu", PLAYERS)
    room.at(minutes=5)
    return room


def test_a_copy_of_press_is_not_relayed_again_and_the_answer_is_french(
        tmp_path: Path) -> None:
    room = _room(tmp_path)
    room.orders("Alice", "SET LANGUAGE FR")
    press = ("PRESS TO Bob", "Meet me at the Pentagon.", "END PRESS")
    first = room.orders("Alice", *press, turn=None)
    assert [m.to for m in first] == ["alice@example.org", "bob@example.org"]
    room.at(minutes=3)
    (again,) = room.orders("Alice", *press, turn=None)
    assert again.subject.replace("\xa0", " ").startswith(
        "[illu] Déjà fait : ces ordres ont été exécutés le 2026-11-29 12:05 UTC")
    assert "Meet me" not in again.text  # (and nothing of the orders is quoted back)


def test_the_same_orders_after_other_orders_of_the_player_are_carried_out(
        tmp_path: Path) -> None:
    room = _room(tmp_path)
    room.orders("Alice", "STANDING NEVER INTERFERE", turn=None)
    room.orders("Alice", "STANDING CLEAR ALL", turn=None)
    room.orders("Alice", "STANDING NEVER INTERFERE", turn=None)
    assert len(room.record().standing) == 1
    (copy,) = room.orders("Alice", "STANDING NEVER INTERFERE", turn=None)
    assert "Already done" in copy.subject
    for _ in range(2):  # a question is answered each time
        assert any("Turn 1: Carol's move" in m.subject for m in room.orders("Alice", "STATUS"))


def test_a_copy_that_finds_the_game_as_its_mail_left_it_is_already_done(
        tmp_path: Path) -> None:
    """Carol's END TURN ends her turn: a copy of it in Alice's turn finds the game as the
    first left it, and is not carried out (the END TURN would be refused as not her turn,
    but the gift given again); a new TURN makes the same gift new orders."""
    room = _room(tmp_path)
    before = room.state().player("Bob").structure[0].treasury
    room.orders("Carol", "GIVE 1 MB TO Bob", "END TURN", turn=None)
    assert room.state().active_player.name == "Alice"
    (copy,) = room.orders("Carol", "GIVE 1 MB TO Bob", "END TURN", turn=None)
    assert "Already done" in copy.subject
    assert room.state().player("Bob").structure[0].treasury == before + 1
    room.orders("Carol", "GIVE 1 MB TO Bob")  # TURN: the state now
    assert room.state().player("Bob").structure[0].treasury == before + 2
