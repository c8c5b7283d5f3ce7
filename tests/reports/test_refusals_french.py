"""Refusals of the rules engine and of the order parser in the player's language: a French
player reads the common refusals in French (an English player's stay as they were). That
every key raised has its wording in each language is tests/reports/test_catalogue.py's."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mailrooms import french_room, refusals_said
from transcripts.harness import Mailroom

import pbem
from pbem.reports.languages import LANGUAGES, SOURCE_LANGUAGE
from pbem.reports.templating import template

PACKAGE = Path(pbem.__file__).parent


def _calls(path: Path) -> Iterator[tuple[str, ast.Call]]:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            func = node.func
            yield (func.id if isinstance(func, ast.Name) else
                   func.attr if isinstance(func, ast.Attribute) else ""), node


def _french(refusals: str) -> Any:
    return template(f"{refusals}.txt.j2", "fr").module


def test_every_phase_has_its_french_words() -> None:
    """"That cannot be done now", and why, for each phase of the game."""
    refusals = _french("_engine_refusals")
    said = {str(refusals.message("wrong_phase", {"phase": phase, "active": "Alice"}))
            for phase in ("turn_start", "actions", "attack", "after_roll", "over")}
    assert len(said) == 5 and all(s.startswith("cela ne peut pas se faire maintenant")
                                  for s in said)


def _phrases() -> tuple[set[str], set[str]]:
    """What the parser reads (``what``) and where (``where``), as written in pbem/orders."""
    what: set[str] = set()
    where: set[str] = set()
    for path in sorted((PACKAGE / "orders").glob("*.py")):
        for name, call in _calls(path):
            args = [a.value for a in call.args
                    if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if name in ("name", "names") and len(args) >= 2:
                what.add(args[1])
            elif name == "number" and args:
                what.add(args[0])
            elif name == "clauses" and args:
                where.add(args[0])
            where.update(k.value.value for k in call.keywords if k.arg == "where"
                         and isinstance(k.value, ast.Constant))
    return what - {"card", "group", "special", "player", "alignment"}, where


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != SOURCE_LANGUAGE])
def test_every_thing_and_place_the_parser_names_is_in_the_readers_language(lang: str) -> None:
    """A message says what was expected (``the MB to spend``) and where (``after AT``):
    each in French, or in any other language the package has (the order words stay
    English)."""
    refusals = template("_parser_refusals.txt.j2", lang).module
    what, where = _phrases()
    assert len(what) > 30 and len(where) > 20
    english = [w for w in what if str(refusals.thing(w)) == w] + [
        w for w in where if "the " in str(refusals.place(w)) or str(refusals.place(w)) == w]
    assert english == []


def test_a_french_player_reads_the_refusals_of_the_rules_in_french(tmp_path: Path) -> None:
    """rulebook-en: "Drop a group. [...] Remove any group from your Power Structure": a card
    not in the writer's structure cannot be dropped; and money paid must be there."""
    room = french_room(tmp_path)
    ack = room.orders("Alice", "DROP Feminists", "GIVE 99 MB TO Bob")[0]
    assert refusals_said(ack.text) == [
        "REFUSÉ : Feminists n'est pas dans la structure de pouvoir d'Alice",
        "REFUSÉ : The Network n'a que 18 MB, pas 99",
        "Essayez : dépensez au plus 18 MB",
    ]


def test_a_french_player_reads_why_a_line_cannot_be_read_in_french(tmp_path: Path) -> None:
    """An unknown card name with its "did you mean", a misspelt order word, an order the
    parser does not know, a card's order missing a part: the reason and the suggestion in
    French, the names as printed."""
    room = french_room(tmp_path)
    ack = room.orders("Alice", "ATTACK The Network CONTROL Feminsts", "ATACK The Network",
                      "TRANSFER -3 FROM The Network TO Feminists", "FLY TO THE MOON",
                      "PLAY Bribery")[0]
    assert refusals_said(ack.text) == [
        "REFUSÉ : nom de groupe inconnu : 'Feminsts'",
        "Essayez : vouliez-vous dire : Feminists ?",
        "REFUSÉ : ordre inconnu 'ATACK'",
        "Essayez : vouliez-vous dire ATTACK ?",
        "REFUSÉ : pas de nombre négatif pour les MB à transférer",
        "Essayez : écrivez 1 ou plus.",
        "REFUSÉ : ordre inconnu 'FLY'",
        "Essayez : un ordre commence par un mot comme ATTACK, TRANSFER, GIVE, PLAY, DEFEND "
        "ou PASS (envoyez HELP pour la liste).",
        "REFUSÉ : Bribery demande ON <group>",  # the order words stay English
        "Essayez : écrivez-le ainsi : PLAY Bribery ON <uncontrolled group> [AT <card> "
        "TOP|RIGHT|BOTTOM|LEFT]",
    ]
    assert "Refusé</span> : nom de groupe inconnu" in ack.html.replace("\xa0", " ")


def test_an_english_player_keeps_the_english_refusals(tmp_path: Path) -> None:
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", "The Network"), ("Bob", "The Gnomes of Zurich")])
    ack = room.orders("Alice", "DROP Feminists", "DROP Feminsts")[0]
    assert refusals_said(ack.text) == [
        "REFUSED: Feminists is not in Alice's power structure",
        "REFUSED: unknown group name: 'Feminsts'",
        "Try: did you mean: Feminists?",
    ]


def test_a_french_player_whose_start_line_cannot_be_read_is_told_why_in_french(
        tmp_path: Path) -> None:
    """A player's name the game does not know, on the start line: the whole mail is refused,
    and the postmaster says why and what was meant in the writer's language."""
    room = french_room(tmp_path)
    room.at(hours=2)  # the postmaster answers an address at most once an hour
    (unread,) = room.orders("Alicia", "STATUS", game="illu", address=room.addresses["Alice"])
    text = unread.text.replace("\xa0", " ")
    assert "nom de joueur inconnu : 'Alicia'\n\nvouliez-vous dire : Alice ?" in text, text


def test_a_french_player_whose_mail_holds_no_orders_is_told_why_in_french(
        tmp_path: Path) -> None:
    """A mail with no start line cannot be read at all: the postmaster's reason and what to
    send instead are the mail catalogue's, in the writer's language (once English whatever
    the reader's)."""
    room = french_room(tmp_path)
    room.at(hours=2)  # the postmaster answers an address at most once an hour
    (unread,) = room.mail("Alice", "> GAME illu PLAYER Alice PASSWORD x\nhello")
    text = unread.text.replace("\xa0", " ")
    assert "Aucun ordre trouvé dans ce mail. Ses seules lignes GAME sont citées" in text, text
    assert "Les ordres commencent par une ligne dont le premier mot est GAME" in text
    assert "No orders found" not in text
