"""The engine is pure: no I/O, no clock, no global random (STYLE.md, habit 1)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from support import REPO

ENGINE = REPO / "pbem" / "engine"
FORBIDDEN = {
    "random", "time", "datetime", "os", "io", "socket", "subprocess", "pathlib", "shutil",
    "tempfile", "urllib", "http", "smtplib", "imaplib", "email", "logging", "sqlite3",
    "tinydb", "asyncio", "threading", "uuid", "secrets",
}
# Reading the shipped card file is the one I/O the engine does, once, at load.
ALLOWED = {"carddata.py": {"importlib", "tomllib", "pathlib", "os"}}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", sorted(ENGINE.glob("*.py")), ids=lambda p: p.name)
def test_engine_module_imports_no_io_clock_or_random(path: Path) -> None:
    """Each engine module imports nothing that does I/O, reads the clock or draws at random."""
    bad = imported_modules(path) & (FORBIDDEN - ALLOWED.get(path.name, set()))
    assert not bad, f"{path.name} imports {sorted(bad)}"


def test_the_check_catches_a_forbidden_import(tmp_path: Path) -> None:
    """The purity check itself fails on a module that imports the clock."""
    module = tmp_path / "bad.py"
    module.write_text("import time\nfrom random import choice\n")
    assert imported_modules(module) & FORBIDDEN == {"time", "random"}
