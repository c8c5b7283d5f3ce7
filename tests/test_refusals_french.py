"""Refusals of the rules engine and of the order parser in the player's language: every key
raised has a French wording, each renders with the words its raise site gives, and a French
player reads the common refusals in French (an English player's stay as they were)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from transcripts.harness import Mailroom

import pbem
from pbem.errors import IllegalCommandError, OrderSyntaxError
from pbem.reports.templating import environment
from pbem.service.refusals import worded

PACKAGE = Path(pbem.__file__).parent
SOURCES = [*sorted((PACKAGE / "engine").glob("*.py")), *sorted((PACKAGE / "orders").glob("*.py")),
           PACKAGE / "orders" / "names.py", PACKAGE / "orders" / "vocabulary.py"]

# A value for every word a raise site gives (a new word needs a sample here).
SAMPLES: dict[str, Any] = {
    "active": "Alice", "aid": "Junk Mail", "alignment": "Weird", "amount": 9,
    "arrow": 1, "arrows": (0, 2), "attacker": "The Mafia", "card": "Bribery",
    "cards": ["Assassination", "Murphy's Law"], "dest": "Empty Vee", "expected": ["CONTROL"],
    "first": "PLAY", "first_line": 1, "form": "GAME <game> PLAYER <name> PASSWORD <password>",
    "forms": ["STANDING LIST", "STANDING CLEAR"], "found": "Bribery", "found_kind": "special",
    "giver": "Bob", "group": "Feminists", "have": 3, "illuminati": "The Network",
    "keyword": "SPEND", "keywords": ["PASS"], "least": 1, "length": 240,
    "master": "The Network", "missing": ["ON <group>"], "more": 0, "most": 24, "name": "Carol",
    "names": ["The Mafia"], "order": "PASS", "other": "Dee", "owner": "Bob", "phase": "actions",
    "player": "Bob", "purpose": "wait for the roll", "query": "'Mafai'", "quote": "»",
    "receiver": "Bob", "shield": "The Discordian Society", "shown": "'x'",
    "source": "The Network", "sources": ("The Mafia", "The Network"), "target": "Feminists",
    "typed": "'spnd'", "usage": "PASS", "value": 0, "what": "the MB to spend",
    "where": "after the attacking group",
}


def _calls(path: Path) -> Iterator[tuple[str, ast.Call]]:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            func = node.func
            yield (func.id if isinstance(func, ast.Name) else
                   func.attr if isinstance(func, ast.Attribute) else ""), node


def _strings(node: ast.expr) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and n.value]


ERRORS = {"fail", "OrderSyntaxError", "UnknownNameError", "AmbiguousNameError",
          "AmbiguousOrderError"}


def _assigned(path: Path) -> Iterator[tuple[str, str]]:
    """Gives (``key`` or ``hint``, value) for each constant assigned to a variable so named
    (``key = "name_not_here"``, ``suggestion, hint = ..., "write_as"``)."""
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            pairs = (zip(target.elts, node.value.elts, strict=False)
                     if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple)
                     else [(target, node.value)])
            for name, value in pairs:
                if isinstance(name, ast.Name) and name.id in ("key", "hint"):
                    # (a key is a name; a sentence assigned to ``hint`` is no key)
                    yield from ((name.id, s) for s in _strings(value)
                                if re.fullmatch(r"[a-z_]+", s))


def _words(call: ast.Call, name: str = "words") -> list[str]:
    given = next((k.value for k in call.keywords if k.arg == name), None)
    return [k.value for k in given.keys if isinstance(k, ast.Constant)] if isinstance(
        given, ast.Dict) else []


def _raised() -> tuple[dict[str, set[str]], dict[str, set[str]], dict[str, set[str]],
                       set[str]]:
    """The keys raised in the engine and the order parser, each with the words its sites
    give: engine keys, parser message keys, parser suggestion keys; and the engine keys
    raised with a suggestion."""
    engine: dict[str, set[str]] = {}
    parser: dict[str, set[str]] = {}
    hints: dict[str, set[str]] = {}
    suggested: set[str] = set()
    for path in SOURCES:
        for name, call in _calls(path):
            for keyword in call.keywords:
                if keyword.arg not in ("key", "hint"):
                    continue
                if name == "IllegalCommandError":
                    for key in _strings(keyword.value):
                        engine.setdefault(key, set()).update(_words(call))
                        if any(k.arg == "suggestion" for k in call.keywords):
                            suggested.add(key)
                elif name in ERRORS:
                    into = parser if keyword.arg == "key" else hints
                    for key in _strings(keyword.value):
                        into.setdefault(key, set()).update(_words(call))
            if name == "Hint" and len(call.args) >= 2:
                words = call.args[2] if len(call.args) > 2 else None
                for key in _strings(call.args[1]):
                    hints.setdefault(key, set()).update(
                        k.value for k in (words.keys if isinstance(words, ast.Dict) else [])
                        if isinstance(k, ast.Constant))
        for kind, key in _assigned(path):
            (parser if kind == "key" else hints).setdefault(key, set())
    return engine, parser, hints, suggested


ENGINE, PARSER, HINTS, SUGGESTED = _raised()


def _french(refusals: str) -> Any:
    return environment().get_template(f"fr/{refusals}.txt.j2").module


def test_the_scan_finds_the_raise_sites() -> None:
    """The keys are found where the errors are raised (a scan that found none would pass
    everything below)."""
    assert len(ENGINE) > 80 and {"not_in_structure", "money_short"} <= set(ENGINE)
    assert {"unknown_name", "expected", "unknown_order", "unreadable"} <= set(PARSER)
    assert {"did_you_mean", "write_as", "keyword_instead"} <= set(HINTS)
    assert ENGINE["not_in_structure"] == {"card", "player"}


@pytest.mark.parametrize("key", sorted(ENGINE))
def test_every_key_the_engine_raises_has_a_french_wording(key: str) -> None:
    """Rendered with the words its raise sites give (the environment is strict: a word the
    site does not give is an error), each key has a French reason, and a French suggestion
    where the English has one."""
    refusals = _french("_engine_refusals")
    words = {w: SAMPLES[w] for w in ENGINE[key]}
    assert str(refusals.message(key, words)).strip(), key
    if key in SUGGESTED:
        assert str(refusals.suggestion(key, words)).strip(), key


@pytest.mark.parametrize("key", sorted(PARSER))
def test_every_key_the_parser_raises_has_a_french_wording(key: str) -> None:
    refusals = _french("_parser_refusals")
    words = {w: SAMPLES[w] for w in PARSER[key] | {"what", "query"}}
    assert str(refusals.message(key, words)).strip(), key


@pytest.mark.parametrize("key", sorted(HINTS))
def test_every_suggestion_the_parser_makes_has_a_french_wording(key: str) -> None:
    refusals = _french("_parser_refusals")
    words = {w: SAMPLES[w] for w in HINTS[key] | {"what"}}
    assert str(refusals.suggestion(key, words)).strip(), key


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


def test_every_thing_and_place_the_parser_names_is_french() -> None:
    """A message says what was expected (``the MB to spend``) and where (``after AT``):
    each in French (the order words stay English)."""
    refusals = _french("_parser_refusals")
    what, where = _phrases()
    assert len(what) > 30 and len(where) > 20
    english = [w for w in what if str(refusals.thing(w)) == w] + [
        w for w in where if "the " in str(refusals.place(w)) or str(refusals.place(w)) == w]
    assert english == []


def test_an_amount_of_money_keeps_its_unit_on_its_line() -> None:
    """French typography puts a no-break space between a number and its unit, as the
    reports write money ("3\xa0MB"): every refusal, and every thing the parser names."""
    engine, parser = _french("_engine_refusals"), _french("_parser_refusals")
    said = [*(str(engine.message(k, {w: SAMPLES[w] for w in ENGINE[k]})) for k in ENGINE),
            *(str(engine.suggestion(k, {w: SAMPLES[w] for w in ENGINE[k]})) for k in ENGINE),
            *(str(parser.message(k, {w: SAMPLES[w] for w in PARSER[k] | {"what", "query"}}))
              for k in PARSER),
            *(str(parser.suggestion(k, {w: SAMPLES[w] for w in HINTS[k] | {"what"}}))
              for k in HINTS),
            *parser.things.values()]
    assert sum(bool(re.search(r"\d\sMB", text)) for text in said) >= 5
    assert [text for text in said if re.search(r"[\d?] MB", text)] == []


def test_a_key_with_no_french_wording_keeps_the_english() -> None:
    error = IllegalCommandError("something new", key="no_such_key", suggestion="do this")
    assert worded(error, "fr") == ("something new", "do this")
    assert worded(error, "en") == ("something new", "do this")
    plain = OrderSyntaxError("no key at all", suggestion="ask")
    assert worded(plain, "fr") == ("no key at all", "ask")


def _french_room(tmp_path: Path) -> Mailroom:
    room = Mailroom(tmp_path)
    room.new_game("illu", [("Alice", "The Network"), ("Bob", "The Gnomes of Zurich")])
    room.orders("Alice", "SET LANGUAGE FR")
    return room


def _refusals(text: str) -> list[str]:
    """The reasons and suggestions of an acknowledgement, one line each (no-break spaces
    read as spaces)."""
    said: list[str] = []
    going = False
    for line in text.replace("\xa0", " ").splitlines():
        if line.strip().startswith(("REFUS", "Essayez", "Try")):
            said.append(line.strip())
            going = True
        elif going and line.startswith("    ") and not line.startswith("    OK"):
            said[-1] += " " + line.strip()
        else:
            going = False
    return said


def test_a_french_player_reads_the_refusals_of_the_rules_in_french(tmp_path: Path) -> None:
    """rulebook-en: "Drop a group. [...] Remove any group from your Power Structure": a card
    not in the writer's structure cannot be dropped; and money paid must be there."""
    room = _french_room(tmp_path)
    ack = room.orders("Alice", "DROP Feminists", "GIVE 99 MB TO Bob")[0]
    assert _refusals(ack.text) == [
        "REFUSÉ : Feminists n'est pas dans la structure de pouvoir d'Alice",
        "REFUSÉ : The Network n'a que 18 MB, pas 99",
        "Essayez : dépensez au plus 18 MB",
    ]


def test_a_french_player_reads_why_a_line_cannot_be_read_in_french(tmp_path: Path) -> None:
    """An unknown card name with its "did you mean", a misspelt order word, an order the
    parser does not know, a card's order missing a part: the reason and the suggestion in
    French, the names as printed."""
    room = _french_room(tmp_path)
    ack = room.orders("Alice", "ATTACK The Network CONTROL Feminsts", "ATACK The Network",
                      "TRANSFER -3 FROM The Network TO Feminists", "FLY TO THE MOON",
                      "PLAY Bribery")[0]
    assert _refusals(ack.text) == [
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
    assert _refusals(ack.text) == [
        "REFUSED: Feminists is not in Alice's power structure",
        "REFUSED: unknown group name: 'Feminsts'",
        "Try: did you mean: Feminists?",
    ]


def test_a_french_player_whose_start_line_cannot_be_read_is_told_why_in_french(
        tmp_path: Path) -> None:
    """A player's name the game does not know, on the start line: the whole mail is refused,
    and the postmaster says why and what was meant in the writer's language."""
    room = _french_room(tmp_path)
    room.at(hours=2)  # the postmaster answers an address at most once an hour
    (unread,) = room.orders("Alicia", "STATUS", game="illu", address=room.addresses["Alice"])
    text = unread.text.replace("\xa0", " ")
    assert "nom de joueur inconnu : 'Alicia'\n\nvouliez-vous dire : Alice ?" in text, text
