"""A player not asked when an attack was announced may still interfere until the dice are
rolled (issue 40 pt 4): Alice had no money and no card to answer with, so she was not
asked; she cashes a Swiss Bank Account while the window waits for Bob and interferes.

rulebook-en: "A player may interfere in an attack, either by helping the attacker or by
opposing him." The rules name no moment after which he may not, until the spending is over
and the dice are rolled; only the mail's asking was limited to who could answer then.
"""

from __future__ import annotations

from pathlib import Path

from transcripts.harness import Mailroom

from pbem.service import gm

PLAYERS = [("Alice", ""), ("Bob", ""), ("Carol", "")]  # the seed makes Carol play first
CARD = "Swiss Bank Account"


def test_a_player_not_asked_may_interfere_until_the_dice_are_rolled(tmp_path: Path) -> None:
    room = Mailroom(tmp_path)
    room.new_game("illu", PLAYERS)
    alice = room.state().player("Alice").illuminati
    gm.edit_money(room.service, "illu", alice, 0, "broke", room.now)
    gm.edit_move(room.service, "illu", CARD, "hand:Alice", "a card to cash", room.now)
    room.collect()
    out = room.orders("Carol", "ATTACK The Bavarian Illuminati CONTROL Feminists")
    assert [m.to for m in out if "your answer?" in m.subject] == ["bob@example.org"]
    window = room.record().window
    assert window is not None and "Alice" not in window.asked

    answered = room.orders("Alice", f"PLAY {CARD}", "INTERFERE 3")
    assert "2 accepted" in answered[0].subject, answered[0].subject
    window = room.record().window
    assert window is not None and window.answered("Alice")

    room.orders("Bob", "NO RESPONSE")
    assert room.record().window is None
    assert room.state().player("Alice").treasury == 25 - 3  # her 3 MB went to the bank
    spent = [e["data"] for entry in room.store.log("illu") for e in entry.get("events", ())
             if e.get("kind") == "spend" and e["data"].get("player") == "Alice"]
    assert spent and spent[0]["amount"] == 3
