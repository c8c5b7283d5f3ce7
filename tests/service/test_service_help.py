"""HELP <topic>: the help mail starts with how to write the orders the topic names."""

from __future__ import annotations

from pathlib import Path

from transcripts.harness import Mailroom


def test_help_on_a_topic_gives_the_forms_of_its_orders_first(tmp_path: Path) -> None:
    """docs/orders.md: "HELP [<topic>] sends help, about one order if you name it"."""
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", "")])
    helps = [m for m in room.orders("Alice", "HELP defend") if "help" in m.subject.lower()
             or "Orders go in the body" in m.text]
    (help_mail,) = helps
    text = help_mail.text
    assert text.index("How to write DEFEND:") < text.index("Orders go in the body")
    assert "DEFEND <n> [FROM <card>] [UPTO <n>]" in text
    assert "STANDING DEFEND <group>|ANY UPTO <n>" in text
    assert "ATTACK" not in text.split("Orders go in the body")[0]
    assert "STANDING DEFEND &lt;group&gt;|ANY UPTO &lt;n&gt;" in help_mail.html
    room.orders("Alice", "SET LANGUAGE FR")
    (unknown,) = [m for m in room.orders("Alice", "HELP nothing") if "Aucun ordre" in m.text]
    assert "Aucun ordre ne s'appelle NOTHING." in unknown.text


def test_help_tells_how_to_offer_a_group_and_answer_one(tmp_path: Path) -> None:
    """docs/orders.md: "When a group is offered to you, answer: ACCEPT ... DECLINE", and the
    player who offered it "may take the offer back": HELP says so, in either language."""
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", ""), ("Bob", "")])
    room.orders("Bob", "SET LANGUAGE FR")
    for player, words in (("Alice", "the player offered answers ACCEPT"),
                          ("Bob", "qui le reçoit répond ACCEPT")):
        (help_mail,) = [m for m in room.orders(player, "HELP") if "GIVE 5 MB" in m.text]
        text = " ".join(help_mail.text.split())
        assert words in text and "WITHDRAW OFFER" in text
        assert "WITHDRAW OFFER" in " ".join((help_mail.html or "").split())
    assert "Groupes offerts\u00a0: GIVE" in help_mail.text
