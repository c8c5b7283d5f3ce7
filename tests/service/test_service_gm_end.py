"""The game master ends a game the rules do not end: told when one player is left, and
`pbem end` (pbem.service.gm.end_game) in each player's language."""

from __future__ import annotations

from pathlib import Path

from transcripts.harness import GM, SERVICE, Mailroom

from pbem.service import gm
from pbem.service.settings import Sender


def test_the_game_master_is_told_when_one_player_is_left(tmp_path: Path) -> None:
    """rulebook-en: "The game ends when, at the end of a turn ... a player meets one of his
    Goals": a player left alone plays on. The game master is told once, when the last other
    player goes, with the command that ends the game."""
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", ""), ("Carol", "")])
    gm.remove_seat(room.service, "illu", "Carol", room.now, "moved away")
    assert not [m for m in room.collect() if m.to == GM]
    gm.remove_seat(room.service, "illu", "Bob", room.now, "moved away")
    (alert,) = [m for m in room.collect() if m.to == GM]
    assert alert.subject == "[illu] Only Alice is left playing"
    assert 'pbem end illu --winner "Alice"' in alert.text
    answers = room.orders("Alice", "STATUS")
    assert answers and not [m for m in answers if m.to == GM]  # told once


def test_the_last_mail_of_a_game_the_game_master_ended_is_in_each_players_language(
        tmp_path: Path) -> None:
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", "")])
    room.orders("Bob", "SET LANGUAGE FR")
    gm.end_game(room.service, "illu", ["alice"], room.now, "Bob abandonne")
    last = {m.to: " ".join(m.text.replace("\u00a0", "_").split()) for m in room.collect()}
    assert ("The game illu is over after 1 turn: victory for Alice. The game master ended it. "
            "Congratulations!" in last["alice@example.org"])
    assert "The game master ended the game (Bob abandonne): victory for Alice." in last[
        "alice@example.org"]
    assert ("La partie illu est finie après 1 tour_: victoire d'Alice. Le maître du jeu y a "
            "mis fin." in last["bob@example.org"])
    assert ("Le maître du jeu a mis fin à la partie (Bob abandonne)_: victoire d'Alice."
            in last["bob@example.org"])


def test_the_game_masters_alert_is_in_their_own_language(tmp_path: Path) -> None:
    """The game master's mail follows gm_language ([mail] in the configuration), as a
    player's follows SET LANGUAGE (the French alert's text could not be rendered at all)."""
    room = Mailroom(tmp_path, sender=Sender(address=SERVICE, domain="pbem.example",
                                             gm_address=GM, gm_lang="fr"))
    room.new_game("illu", [("Alice", ""), ("Bob", "")])
    gm.remove_seat(room.service, "illu", "Bob", room.now, "parti")
    (alert,) = [m for m in room.collect() if m.to == GM]
    assert alert.subject == "[illu] Il ne reste qu'Alice en jeu", alert.subject
    assert "atteint un objectif\u00a0: Alice joue donc seul" in alert.text
