"""Secrets Man Was Not Meant To Know cancels a special card played outside any attack (issue
40 pt 4): Bob's standing order cancels Carol's Swiss Bank Account the moment she plays it.

specials.csv (Secrets Man Was Not Meant To Know): "cancel any special card when it is
played". By mail its holder cannot answer the moment a card is played out of an attack's
window, so the holder says beforehand which cards to cancel: ``STANDING IF <player>|ANYONE
PLAYS <special card> COUNTER``.
"""

from __future__ import annotations

from pathlib import Path

from transcripts.harness import Mailroom

from pbem.service import gm

PLAYERS = [("Alice", ""), ("Bob", ""), ("Carol", "")]  # the seed makes Carol play first
SECRETS = "Secrets Man Was Not Meant To Know"
SWISS = "Swiss Bank Account"


def test_a_standing_counter_cancels_a_card_played_out_of_any_attack(tmp_path: Path) -> None:
    room = Mailroom(tmp_path)
    room.new_game("illu", PLAYERS)
    gm.edit_move(room.service, "illu", SECRETS, "hand:Bob", "secrets", room.now)
    gm.edit_move(room.service, "illu", SWISS, "hand:Carol", "money", room.now)
    room.collect()
    answered = room.orders("Bob", f"STANDING IF Carol PLAYS {SWISS} COUNTER")
    assert "1 accepted" in answered[0].subject, answered[0].subject
    money = room.state().player("Carol").treasury
    room.orders("Carol", f"PLAY {SWISS}")
    state = room.state()
    assert state.player("Carol").treasury == money  # cancelled: no 25 MB
    assert SWISS in state.discards and SECRETS in state.discards
    assert SECRETS not in state.player("Bob").hand and SWISS not in state.player("Carol").hand
    kinds = [e.get("kind") for entry in room.store.log("illu") for e in entry.get("events", ())]
    assert "special_cancelled" in kinds


def test_without_a_standing_counter_the_card_takes_effect(tmp_path: Path) -> None:
    """specials.csv: "cancel any special card when it is played" - only when its holder
    wants: Bob's standing order names another player, so Carol's card pays."""
    room = Mailroom(tmp_path)
    room.new_game("illu", PLAYERS)
    gm.edit_move(room.service, "illu", SECRETS, "hand:Bob", "secrets", room.now)
    gm.edit_move(room.service, "illu", SWISS, "hand:Carol", "money", room.now)
    room.collect()
    room.orders("Bob", f"STANDING IF Alice PLAYS {SWISS} COUNTER")
    money = room.state().player("Carol").treasury
    room.orders("Carol", f"PLAY {SWISS}")
    state = room.state()
    assert state.player("Carol").treasury == money + 25
    assert SECRETS in state.player("Bob").hand
