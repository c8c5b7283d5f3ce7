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
