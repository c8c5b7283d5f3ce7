"""The tests mirror the packages: each test module in the folder named for the package it
tests (cross-cutting ones at the top), basenames unique across the tree (the folders have
no ``__init__.py``, so pytest imports each module by its basename), and no test module
imports another: what tests share lives in the helper modules at the top of ``tests/``."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from support import REPO, TESTS

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
