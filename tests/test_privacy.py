"""A private name stays where it is defined: no module of ``pbem`` (or ``bench``) imports a
``_name`` from another module, and no code reaches into ``obj._attr`` of anything but
``self`` or ``cls`` (dunder names are public). What another module needs is public, with a
docstring.

The only exceptions are a library's internals that it offers no public way to, listed in
``LIBRARY_INTERNALS`` with the reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pbem

ROOT = Path(pbem.__file__).parent
TREES = (ROOT, ROOT.parent / "bench")

# (file, expression): why it reaches into a library's private members.
LIBRARY_INTERNALS = {
    # logging gives no public way to a formatter's format, which the child processes copy.
}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _crossings(source: str) -> list[tuple[int, str]]:
    """Every private name ``source`` takes from elsewhere, as (line, what)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            modules = (node.module or "").split(".")
            if any(_private(part) for part in modules):
                found.append((node.lineno, f"from {node.module} import"))
            found += [(node.lineno, f"import {alias.name}") for alias in node.names
                      if _private(alias.name)]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, f"import {alias.name}") for alias in node.names
                      if any(_private(part) for part in alias.name.split("."))]
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                found.append((node.lineno, f"{ast.unparse(owner)}.{node.attr}"))
    return found


def _all_crossings() -> list[tuple[str, int, str]]:
    return [(path.relative_to(ROOT.parent).as_posix(), line, what)
            for tree in TREES for path in sorted(tree.rglob("*.py"))
            for line, what in sorted(_crossings(path.read_text()))]


def test_no_private_name_crosses_a_module() -> None:
    crossings = [f"{path}:{line}: {what}" for path, line, what in _all_crossings()
                 if (path, what) not in LIBRARY_INTERNALS]
    assert crossings == []


def test_every_library_internal_listed_is_still_used() -> None:
    used = {(path, what) for path, _, what in _all_crossings()}
    assert set(LIBRARY_INTERNALS) <= used


def test_the_walk_finds_each_kind_of_crossing() -> None:
    source = ("from pbem.x import _hidden, shown, __version__\n"
              "import pbem._inner\n"
              "service._table(game)\n"
              "self._fine, cls._fine, other.__dict__\n")
    assert _crossings(source) == [(1, "import _hidden"), (2, "import pbem._inner"),
                                  (3, "service._table")]
