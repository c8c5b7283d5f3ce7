"""The tests mirror the packages: each test module in the folder named for the package it
tests (cross-cutting ones at the top), basenames unique across the tree (the folders have
no ``__init__.py``, so pytest imports each module by its basename), and no test module
imports another: what tests share lives in the helper modules at the top of ``tests/``.

And the package's own structure rule that no import test sees: what acts on a kind of value
is a table from its type, never an if/elif ladder over ``"kind"`` strings, and no code
compares a stored entry's ``["kind"]`` (or ``.get("kind")``): it reads the typed entry
(``pbem.service.entries.log_entry``, ``pbem.service.lobby_log.lobby_entry``)."""

from __future__ import annotations

import ast
from collections import Counter
from itertools import pairwise
from pathlib import Path

import pytest
from support import REPO, TESTS

from pbem.engine.carddata import load_cardset

PBEM = REPO / "pbem"

PACKAGES = {p.name for p in (REPO / "pbem").iterdir() if (p / "__init__.py").exists()}
CROSS_CUTTING = {"test_layers.py", "test_layout.py", "test_privacy.py", "test_secrecy.py"}


def modules() -> list[Path]:
    return sorted(TESTS.rglob("test_*.py"))


def test_each_test_module_lives_in_its_package_s_folder() -> None:
    misplaced = [str(p.relative_to(TESTS)) for p in modules()
                 if not ((p.parent == TESTS and p.name in CROSS_CUTTING)
                         or (p.parent.parent == TESTS and p.parent.name in PACKAGES))]
    assert misplaced == []


def test_basenames_are_unique_and_no_folder_is_a_package() -> None:
    names = Counter(p.name for p in TESTS.rglob("*.py"))
    assert [n for n, count in names.items() if count > 1] == []
    assert list(TESTS.rglob("__init__.py")) == []


def test_no_test_module_imports_another() -> None:
    found = []
    for path in TESTS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{path.relative_to(TESTS)}: {n}" for n in names
                      if n.split(".")[-1].startswith("test_")]
    assert found == []


# Ladders over a "kind" that is not a value crossing the layers, each with why it stays:
KIND_LADDERS_KEPT = {
    # the lexer's token kinds: the names of its own regular expression's groups
    "orders/lexer.py": 4,
}


def _kind_key(node: ast.AST) -> bool:
    """``x["kind"]`` or ``x.get("kind")``."""
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == "kind"
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get" and bool(node.args)
            and isinstance(node.args[0], ast.Constant) and node.args[0].value == "kind")


def _kind_test(test: ast.expr) -> str | None:
    """What ``<a kind> == "word"`` (or ``in`` words) compares, dumped; None for any other
    test."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq | ast.In)):
        return None
    left, right = test.left, test.comparators[0]
    words = (isinstance(right, ast.Constant) and isinstance(right.value, str)) or (
        isinstance(right, ast.Tuple | ast.Set | ast.List)
        and all(isinstance(e, ast.Constant) for e in right.elts))
    kind = ((isinstance(left, ast.Attribute) and left.attr == "kind")
            or (isinstance(left, ast.Name) and left.id == "kind") or _kind_key(left))
    return ast.dump(left) if words and kind else None


def kind_offences(source: str) -> list[tuple[int, str]]:
    """(line, what) of each comparison of a ``["kind"]`` and each ladder over a kind: an
    ``if`` whose ``elif``, or whose next statement's ``if``, tests the same kind."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and any(map(_kind_key, (node.left, *node.comparators))):
            found.append((node.lineno, 'a ["kind"] compared'))
        for body in (getattr(node, name, None) for name in ("body", "orelse", "finalbody")):
            if not isinstance(body, list):
                continue
            for first, second in pairwise(body):
                if (isinstance(first, ast.If) and isinstance(second, ast.If)
                        and (subject := _kind_test(first.test))
                        and _kind_test(second.test) == subject):
                    found.append((first.lineno, "if after if over a kind"))
        if (isinstance(node, ast.If) and (subject := _kind_test(node.test))
                and len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If)
                and _kind_test(node.orelse[0].test) == subject):
            found.append((node.lineno, "if/elif over a kind"))
    return found


def test_no_ladder_over_kind_strings_and_no_stored_kind_compared() -> None:
    counted: Counter[str] = Counter()
    found = []
    for path in sorted(PBEM.rglob("*.py")):
        name = str(path.relative_to(PBEM))
        for line, what in kind_offences(path.read_text(encoding="utf-8")):
            counted[name] += 1
            found.append(f"pbem/{name}:{line}: {what}")
    kept = {name: count for name, count in counted.items() if name in KIND_LADDERS_KEPT}
    assert [f for f in found if f.split(":")[0].removeprefix("pbem/") not in
            KIND_LADDERS_KEPT] == []
    assert kept == {k: v for k, v in KIND_LADDERS_KEPT.items() if v}  # none left unlisted


@pytest.mark.parametrize(("source", "caught"), [
    ('if e["kind"] == "open":\n    f()\nelif e["kind"] == "join":\n    g()\n', 3),
    ('if entry.kind == "pause":\n    a()\nelif entry.kind == "rollback":\n    b()\n', 1),
    ('def f(goal):\n    if goal.kind == "a":\n        return 1\n'
     '    if goal.kind == "b":\n        return 2\n', 1),
    ('x = [u for u in undone if u.get("kind") == "pause"]\n', 1),
    ('if isinstance(e, Pause):\n    a()\nelif isinstance(e, Rollback):\n    b()\n', 0),
    ('FOLDS[type(entry)](meta, entry)\nif e.kind == "a":\n    a()\n', 0),
])
def test_the_walk_finds_each_shape(source: str, caught: int) -> None:
    assert len(kind_offences(source)) == caught


def test_one_name_one_thing() -> None:
    """Issue 36: no two classes of the package share a name (two ``Seat``s, an event and a
    notice both ``Eliminated``, ...): a name read anywhere means one thing."""
    found: dict[str, list[str]] = {}
    for path in sorted((REPO / "pbem").rglob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef):
                found.setdefault(node.name, []).append(str(path.relative_to(REPO)))
    assert {name: where for name, where in found.items() if len(where) > 1} == {}
# Test helpers that play or write orders by what the card data says a card does (its
# behaviour, pbem.engine.behaviour), so that they hold for a renamed or house card set.
NAME_FREE_HELPERS = ("scripted_game.py", "order_strategies.py")


def test_the_behaviour_driven_helpers_name_no_card() -> None:
    names = set(load_cardset().names())
    found = [f"{helper}:{node.lineno}: {node.value}" for helper in NAME_FREE_HELPERS
             for node in ast.walk(ast.parse((TESTS / helper).read_text(encoding="utf-8")))
             if isinstance(node, ast.Constant) and node.value in names]
    assert found == []
