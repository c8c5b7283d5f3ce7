"""A whole game by mail with binding deals and an end by agreement (issue 40): Carol takes
Feminists and deals it to Bob for money and a special card, the deal made whole when Bob
accepts; the same group, dealt to Alice too, is no longer Carol's when Alice accepts, so that
deal fails whole and both are told why; then the three players vote the game to an end, a
victory shared by Carol and Bob.

rulebook-en, When Is a Deal Binding?: "When two players agree to a deal, it is binding if they
make the exchange immediately." Played through the transcript harness (clock pinned, seed
fixed); the game keeps a golden transcript, ``tests/transcripts/deals.txt``.
"""

from __future__ import annotations

from pathlib import Path

from mailrooms import PLAYERS, STANDING, words
from transcripts.harness import Mailroom

from pbem.archive.build import build_game, build_index
from pbem.service import gm, history

CARD = "Swiss Bank Account"


def test_a_game_of_deals_ends_by_agreement(tmp_path: Path) -> None:
    room = Mailroom(tmp_path)
    room.new_game("illu", PLAYERS)
    gm.edit_move(room.service, "illu", CARD, "hand:Bob", "a card for the deal", room.now)
    room.collect()
    room.at(minutes=5)
    room.orders("Alice", *STANDING)
    room.at(minutes=5)
    room.orders("Bob", *STANDING)
    room.at(minutes=5)
    bavaria = room.state().player("Carol").illuminati
    carol_money = room.state().player("Carol").treasury
    bob_money = room.state().player("Bob").treasury
    out = room.orders("Carol", "ATTACK Bavarian CONTROL Feminists SPEND 1 UPTO 3",
                      f"DEAL Bob GIVE Feminists TAKE 5 MB, CARD {CARD}",
                      "DEAL Alice GIVE Feminists TAKE 8 MB")
    state = room.state()
    assert state.player("Carol").slot("Feminists") is not None
    assert [(d.number, d.partner) for d in state.deals] == [(1, "Bob"), (2, "Alice")]
    carol_money = state.player("Carol").treasury  # after the attack's spending

    # Each partner's report lists the deal and the lines that answer it.
    (bob_report,) = [m for m in room.to("Bob", out) if m.view_json() is not None]
    assert "ACCEPT DEAL 1" in bob_report.text and "DECLINE DEAL 1" in bob_report.text
    assert "Feminists" in words(bob_report.text)
    (alice_report,) = [m for m in room.to("Alice", out) if m.view_json() is not None]
    assert "ACCEPT DEAL 2" in alice_report.text and "DEAL 1" not in alice_report.text
    status = room.orders("Carol", "STATUS")
    assert "WITHDRAW DEAL 1" in status[-1].text and "WITHDRAW DEAL 2" in status[-1].text

    # Bob accepts: the group, the money and the card change hands in one step.
    room.at(minutes=5)
    out = room.orders("Bob", "ACCEPT DEAL 1")
    state = room.state()
    assert state.owner("Feminists").name == "Bob"  # type: ignore[union-attr]
    assert state.player("Carol").treasury == carol_money + 5
    assert state.player("Bob").treasury == bob_money - 5
    assert CARD in state.player("Carol").hand and CARD not in state.player("Bob").hand
    assert state.turn.actions == 2  # the attack, and the group given on Carol's turn
    (told,) = [m for m in room.to("Carol", out) if m.view_json() is not None]
    assert "Deal 1 was made" in words(told.text)

    # Alice accepts deal 2: Feminists is no longer Carol's, so nothing changes hands.
    room.at(minutes=5)
    alice_money = state.player("Alice").treasury
    out = room.orders("Alice", "ACCEPT DEAL 2")
    state = room.state()
    assert state.owner("Feminists").name == "Bob"  # type: ignore[union-attr]
    assert state.player("Alice").treasury == alice_money and state.deals == ()
    for name in ("Alice", "Carol"):
        (mail,) = [m for m in room.to(name, out) if m.view_json() is not None]
        text = words(mail.text)
        assert "Deal 2 between Carol and Alice was accepted but could not be made" in text
        assert "Carol no longer controls Feminists" in text

    # The game ends by agreement: every player still in it votes for the same ending.
    room.at(minutes=5)
    room.orders("Alice", "VOTE END WINNERS Carol, Bob")
    room.orders("Bob", "VOTE END WINNERS Bob, Carol")
    assert room.state().phase != "over"
    out = room.orders("Carol", "VOTE END WINNERS Carol, Bob")
    state = room.state()
    assert state.phase == "over" and state.outcome == "agreement"
    assert state.winners == ("Bob", "Carol") or state.winners == ("Carol", "Bob")
    over = [words(m.text) for m in out if "is over" in words(m.text)]
    assert over and all("agreed to end it" in text for text in over)
    assert bavaria
    # The players' records say how it ended (pbem players, and LIST's players).
    records = gm.players(room.service)
    assert {a: (r.finished, r.won, r.agreed) for a, r in records.items()} == {
        "alice@example.org": (1, 0, 1), "bob@example.org": (1, 1, 1),
        "carol@example.org": (1, 1, 1)}
    # And so does the archive: the game's page and the index.
    site = tmp_path / "site"
    build_index([build_game(room.service.cards, history.read_game(room.store, "illu"), site)],
                site)
    pages = " ".join(words(p.read_text()) for p in site.rglob("*.html"))
    assert "The players still in the game agreed to end it." in pages
    index = words((site / "index.html").read_text())
    assert "Carol, Bob (the players still in the game agreed to end it)" in index
    room.check("deals")
