"""The attack result mail tells the attacker whose turn goes on how to go on: the regular
actions left, the orders deadline in their zone, and the order form for their position now.

Played by mail through the transcript harness (clock pinned, seed fixed), as in
``test_service_transcripts``; the other readers' attack result mails keep no such part.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from transcripts.harness import Mailroom, Out

PLAYERS = [("Alice", ""), ("Bob", ""), ("Carol", "")]  # the seed makes Carol play first
STANDING = ("STANDING DEFEND ANY UPTO 3", "STANDING NEVER INTERFERE")
NB = "\u00a0"


@pytest.fixture
def room(tmp_path: Path) -> Mailroom:
    room = Mailroom(tmp_path)
    room.new_game("illu", PLAYERS)
    assert room.state().active_player.name == "Carol"
    return room


def words(text: str | None) -> str:
    """The text with every run of plain blanks (wrapping) as one space; no-break spaces
    stay, so French punctuation is checked as written."""
    return " ".join((text or "").replace(NB, "\0").split()).replace("\0", NB)


def results(mails: list[Out]) -> dict[str, Out]:
    """The attack result mails among ``mails``, by reader's local part."""
    return {m.to.split("@")[0]: m for m in mails
            if "succeeded" in m.subject or "failed" in m.subject
            or "a réussi" in m.subject or "a échoué" in m.subject}


def test_the_attacker_is_told_the_actions_left_the_deadline_and_the_form(
        room: Mailroom) -> None:
    """summary-en: "Take any "free actions." These do not count against the two actions
    allowed during each turn."

    The window closes on the last answer; the attacker, with one of the two actions left,
    gets them told with the deadline and a form for the position now. The others, who
    answered NO RESPONSE, get no mail of it: the attack does not touch them, and their next
    mail tells it (tests/service/test_mail_folding.py)."""
    room.at(minutes=5)
    room.orders("Carol", "SET TIMEZONE Europe/Paris")
    room.at(minutes=5)
    room.orders("Carol", "ATTACK Bavarian CONTROL Feminists")
    room.at(minutes=5)
    room.orders("Alice", "NO RESPONSE")
    room.at(minutes=5)
    mails = results(room.orders("Bob", "NO RESPONSE"))
    state = room.state()
    assert room.record().window is None and state.active_player.name == "Carol"
    assert state.turn.actions == 1
    assert sorted(mails) == ["carol"]
    carol = mails["carol"]
    assert ("Your turn goes on: one of the turn's two regular actions is left (attack, move a "
            "group, give a group away, or a transfer beyond the two free ones), and free "
            "actions. Deadline for your orders: 2026-12-02 12:00 UTC (2026-12-02 13:00 "
            "Europe/Paris), in 2 days 23 h 40 min.") in words(carol.text)
    assert ("Deadline for your orders: <strong>2026-12-02 12:00 UTC (2026-12-02 13:00 "
            "Europe/Paris), in 2 days 23 h 40 min</strong>.") in words(carol.html)
    for part in (words(carol.text), words(carol.html)):
        assert "two regular actions is left" in part
        assert f"GAME illu PLAYER Carol PASSWORD ______ STEP {state.seq}" in part
        assert "# END TURN" in part and "# ATTACK " in part
    assert words(carol.text).index("YOUR POWER STRUCTURE") < words(carol.text).index(
        "ORDERS") < words(carol.text).index("PASSWORD ______")


def test_the_form_is_for_the_turn_as_the_mail_goes_out(room: Mailroom) -> None:
    """summary-en: "Take any "free actions." These do not count against the two actions
    allowed during each turn."

    Orders sent with the attack are carried out before the mail goes out: its form names
    that position, and with both actions used (the third transfer is one) and both free
    transfers too offers neither an attack nor a transfer; after an END TURN sent with the
    attack, the attacker is not asked for more orders: the next turn's report, in the same
    step, tells the result (no mail of its own)."""
    for player in ("Alice", "Bob", "Carol"):
        room.at(minutes=5)
        room.orders(player, *STANDING)
    room.at(minutes=5)
    mails = room.orders("Carol", "ATTACK Bavarian CONTROL Feminists",
                        *["TRANSFER 1 FROM Bavarian TO Feminists"] * 3)
    state = room.state()
    assert state.turn.actions == 2 and state.turn.free_transfers == 2
    assert state.active_player.name == "Carol"
    carol = results(mails)["carol"]
    for part in (words(carol.text), words(carol.html)):
        assert ("Your turn goes on: both regular actions of the turn are used, so only free "
                "actions are left, then END TURN.") in part
        assert f"GAME illu PLAYER Carol PASSWORD ______ STEP {state.seq}" in part
        assert "# END TURN" in part
        assert "# ATTACK " not in part and "# TRANSFER " not in part
    room.at(minutes=5)
    room.orders("Carol", "END TURN")
    room.at(minutes=5)
    mails = room.orders("Alice", "ATTACK Network CONTROL Tabloids", "END TURN")
    assert room.state().active_player.name == "Bob"
    assert "alice" not in results(mails)
    (alice,) = room.to("Alice", mails)[-1:]
    assert alice.subject == "[illu] Turn 3: Bob's move (Alice)"
    assert "Tabloids" in alice.text.split("WHAT HAPPENED")[1]
    assert "turn goes on" not in alice.text


def test_the_attacker_is_told_in_french(room: Mailroom) -> None:
    for player in ("Alice", "Bob"):
        room.at(minutes=5)
        room.orders(player, *STANDING)
    room.at(minutes=5)
    room.orders("Carol", "SET LANGUAGE FR")
    room.at(minutes=5)
    carol = results(room.orders("Carol", "ATTACK Bavarian CONTROL Feminists"))["carol"]
    seq = room.state().seq
    assert (f"Votre tour continue{NB}: il vous reste une des deux actions régulières du tour "
            "(attaquer, déplacer un groupe, donner un groupe, ou un transfert au-delà des deux "
            f"gratuits), et les actions gratuites. Date limite de vos ordres{NB}: 2026-12-02 "
            "12:00 UTC") in words(carol.text)
    assert (f"Date limite de vos ordres{NB}: <strong>2026-12-02 12:00 UTC"
            in words(carol.html))
    for part in (words(carol.text), words(carol.html)):
        assert f"Votre tour continue{NB}: il vous reste une des deux actions" in part
        assert f"GAME illu PLAYER Carol PASSWORD ______ STEP {seq}" in part
    assert "ORDRES" in carol.text and "<h2>Ordres</h2>" in (carol.html or "")
