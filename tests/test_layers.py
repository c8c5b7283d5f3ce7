"""The layers of DESIGN.md hold: no module imports a layer above its own.

Every import counts: at module level, inside a function, and under ``TYPE_CHECKING``. A
layer is a package of ``pbem`` (or one of the few shared modules at its top); ``LAYERS``
lists, for each, the layers it may import. The same walk finds import cycles between
modules, which must be none.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pbem

ROOT = Path(pbem.__file__).parent

# Each layer and the layers below it that it may import (its own is always allowed).
SHARED = {"errors", "refusal_keys", "atomicfile"}
LAYERS: dict[str, set[str]] = {
    "engine": {"errors", "refusal_keys"},
    "games": set(),
    "store": {"errors", "refusal_keys", "atomicfile"},
    "mail": {"errors", "refusal_keys"},
    "orders": {"engine", "errors", "refusal_keys"},
    "reports": {"orders", "engine", "errors", "refusal_keys"},
    "service": {"bots", "reports", "orders", "engine", "store", "mail", "errors", "refusal_keys",
                "atomicfile"},
    "bots": {"orders", "engine", "errors", "refusal_keys"},
    "transport": {"mail", "errors", "refusal_keys", "atomicfile"},
    "archive": {"service", "bots", "reports", "orders", "engine", "store", "errors",
                "refusal_keys"},
    "daemon": {"transport", "bots", "archive", "service", "reports", "orders", "engine",
               "store", "mail", "errors", "refusal_keys", "atomicfile"},
    "cli": set(),  # the top: anything
    "errors": {"refusal_keys"},
    "refusal_keys": set(),
    "atomicfile": {"errors", "refusal_keys"},
}
# The one import upwards, made inside the function that needs it: the English of an error a
# player can read (its ``str``, for a log, the game master or a test) is its catalogue's,
# rendered by the words layer when asked, so the engine raises a key and values only.


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = _modules()


def _layer(module: str) -> str:
    return module.split(".")[1] if "." in module else "pbem"


def _imports(module: str, path: Path) -> set[str]:
    """Give every ``pbem`` module that ``module`` imports, wherever the import stands."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                stem = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*stem, base] if base else stem)
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                     for alias in node.names]
        found.update(name for name in names if name.split(".")[0] == "pbem")
    found.discard(module)
    return found


GRAPH = {module: _imports(module, path) for module, path in MODULES.items()}


def test_every_layer_is_listed() -> None:
    """A new package of ``pbem`` has its place in the table before it has code."""
    assert {_layer(m) for m in MODULES} - {"pbem"} <= set(LAYERS)


def test_no_module_imports_a_layer_above_its_own() -> None:
    """DESIGN.md, Layers: imports point one way, down."""
    upward = sorted(
        f"{module} imports {target}"
        for module, targets in GRAPH.items() if _layer(module) not in ("cli", "pbem")
        for target in targets
        if _layer(target) not in ("pbem", _layer(module))
        and _layer(target) not in LAYERS[_layer(module)])
    assert upward == []


def test_no_import_cycles() -> None:
    """No two modules import each other, directly or through others."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's strongly connected components
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in GRAPH.get(module, ()):
            if target not in GRAPH:
                continue
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in GRAPH:
        if module not in index:
            visit(module)
    assert cycles == []


def test_the_walk_sees_imports_inside_functions_and_type_checking(tmp_path: Path) -> None:
    """The check reads imports wherever they stand, so hiding one does not pass it."""
    source = tmp_path / "hidden.py"
    source.write_text("from typing import TYPE_CHECKING\n"
                      "if TYPE_CHECKING:\n    from pbem.daemon.server import Daemon\n"
                      "def f():\n    import pbem.cli.main\n")
    assert _imports("pbem.engine.hidden", source) == {"pbem.daemon.server", "pbem.cli.main"}
