"""The game master ends a game the rules do not end: told when one player is left, and
`pbem end` (pbem.service.gm.end_game) in each player's language."""

from __future__ import annotations

from pathlib import Path

from transcripts.harness import GM, SERVICE, Mailroom

from pbem.service import gm
from pbem.service.settings import MailIdentity


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
    room = Mailroom(tmp_path, sender=MailIdentity(address=SERVICE, domain="pbem.example",
                                             gm_address=GM, gm_lang="fr"))
    room.new_game("illu", [("Alice", ""), ("Bob", "")])
    gm.remove_seat(room.service, "illu", "Bob", room.now, "parti")
    (alert,) = [m for m in room.collect() if m.to == GM]
    assert alert.subject == "[illu] Il ne reste qu'Alice en jeu", alert.subject
    assert "atteint un objectif\u00a0: Alice joue donc seul" in alert.text


# --- the game master acts while a response window is open (issue 43, point 8) ------------


def _window(room: Mailroom, spend: int) -> tuple[str, str]:
    """The active player attacks an uncontrolled group, putting ``spend`` MB in (0: none
    yet, only an UPTO for the close), and a response window opens; give (attacker,
    target)."""
    state = room.state()
    attacker = state.active_player
    target = state.uncontrolled[0]
    money = f"SPEND {spend}" if spend else "UPTO 2"
    room.orders(attacker.name, f"ATTACK {attacker.illuminati} CONTROL {target} {money}")
    assert room.record().window is not None and room.state().attack is not None
    room.collect()
    return attacker.name, target


def _text(room: Mailroom, player: str, mails: list) -> str:
    return " ".join(" ".join(m.text for m in room.to(player, mails)).replace(
        "\u00a0", " ").split())


def test_the_game_ends_while_an_attack_with_money_in_it_waits_for_answers(
        tmp_path: Path) -> None:
    """`pbem end` while a window is open (main refused it: "between attacks only"). Money is
    in the attack: "It must be played out" (rulebook, Calling Off an Attack): it is rolled
    and settled at once with the answers given, then the game ends; the last mail says so."""
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", ""), ("Carol", "")])
    attacker, target = _window(room, spend=1)
    other = next(p.name for p in room.state().players if p.name != attacker)
    gm.end_game(room.service, "illu", [], room.now, "the club closes")
    out = room.collect()
    state = room.state()
    assert state.phase == "over" and state.attack is None and room.record().window is None
    assert any(x["kind"] == "roll" for e in room.service.store.log("illu")
               for x in e["events"])
    text = _text(room, other, out)
    assert (f"The game master ended the game while {attacker}'s attack on {target} waited "
            "for answers: money was in it already, so it is played out now") in text, text
    assert room.service.replay_check("illu")


def test_the_game_ends_while_an_attack_without_money_waits_and_it_is_called_off(
        tmp_path: Path) -> None:
    """No money in the attack yet: "he can change his mind and call it off -- until he puts
    some money down": it is called off (no roll), and the last mail says so, in French to a
    French reader."""
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", ""), ("Carol", "")])
    state = room.state()
    reader = next(p.name for p in state.players if p.name != state.active_player.name)
    room.orders(reader, "SET LANGUAGE FR")
    _window(room, spend=0)
    gm.end_game(room.service, "illu", [], room.now)
    out = room.collect()
    assert room.state().phase == "over"
    log = list(room.service.store.log("illu"))
    assert not any(x["kind"] == "roll" for e in log for x in e["events"])
    assert any(x["kind"] == "called_off" for e in log for x in e["events"])
    text = _text(room, reader, out)
    assert "aucun argent n'y était encore engagé, elle est donc annulée" in text, text
    assert room.service.replay_check("illu")


def test_a_player_is_removed_while_a_window_is_open(tmp_path: Path) -> None:
    """`pbem remove` of a player asked in the open window: the attack (money in it) is played
    out without their answer, then they leave; the others are told both in one mail."""
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", ""), ("Carol", "")])
    attacker, _ = _window(room, spend=1)
    window = room.record().window
    assert window is not None
    asked = window.asked
    gone = next(p for p in asked if p != attacker)
    gm.remove_seat(room.service, "illu", gone, room.now, "moved away")
    out = room.collect()
    state = room.state()
    assert not state.player(gone).playing and state.phase == "actions"
    assert state.attack is None and room.record().window is None
    witness = next(p.name for p in state.players if p.name not in (gone, attacker))
    text = _text(room, witness, out)
    assert f"The game master removed {gone} from the game while {attacker}'s attack" in text
    assert room.service.replay_check("illu")


def test_the_attacker_is_removed_before_money_went_in(tmp_path: Path) -> None:
    """The attacker removed while their attack, no money in it yet, waits: called off, the
    next player's turn begins."""
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", ""), ("Carol", "")])
    attacker, _ = _window(room, spend=0)
    gm.remove_seat(room.service, "illu", attacker, room.now, "vanished")
    state = room.state()
    assert not state.player(attacker).playing
    assert state.active_player.name != attacker and room.record().window is None
    assert room.service.replay_check("illu")


def test_the_game_ends_during_a_window_with_bot_seats(tmp_path: Path) -> None:
    """With bot seats playing (their answers through the inbox), the game master need not
    switch them off first: `pbem end` during the window works, and the bots' mail after the
    end is answered as any mail to a game over."""
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", ""), ("Carol", "")])
    attacker, _ = _window(room, spend=1)
    for seat in room.record().seats:
        if seat.name != attacker:
            room.service.set_bot("illu", seat.name, True, room.now)
    assert room.record().window is not None
    gm.end_game(room.service, "illu", [], room.now)
    room.service.process(room.now)  # the bots' mail, as the daemon would
    room.collect()
    assert room.state().phase == "over"
    assert room.service.replay_check("illu")


def test_a_player_is_removed_during_a_window_with_bot_seats(tmp_path: Path) -> None:
    """`pbem remove` of a bot seat asked in the open window, the other seats bots too: no
    need to switch them off first; the attack is played out without the removed seat's
    answer and the bots play on (their mail processed as the daemon would)."""
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", ""), ("Carol", "")])
    attacker, _ = _window(room, spend=1)
    window = room.record().window
    assert window is not None
    gone = next(p for p in window.asked if p != attacker)
    for seat in room.record().seats:
        if seat.name != attacker:
            room.service.set_bot("illu", seat.name, True, room.now)
    gm.remove_seat(room.service, "illu", gone, room.now, "the bot is not wanted")
    room.service.process(room.now)
    room.collect()
    state = room.state()
    assert not state.player(gone).playing
    assert room.service.replay_check("illu")
