"""The ``pbem`` command starts at once: a module of ``pbem.cli`` imports click and little
else, and each command imports the service, the store and the engine when it runs.

Checked by what a fresh interpreter has imported, not by a clock (``bench/cli_start.py``
measures the time).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pbem.store import Store

# What `pbem --help` must not load: the template engine, the store's libraries, the mail
# libraries, and every layer of pbem below the CLI but its typed errors.
HEAVY = ("jinja2", "markupsafe", "tinydb", "sqlite3", "imapclient", "aiosmtpd", "email",
         "pbem.engine", "pbem.orders", "pbem.reports.templating", "pbem.mail", "pbem.store",
         "pbem.service", "pbem.bots", "pbem.transport", "pbem.daemon", "pbem.archive")
# `pbem games` on a store without games reads the configuration and the store, no more.
NOT_FOR_AN_EMPTY_STORE = ("jinja2", "markupsafe", "imapclient", "aiosmtpd", "pbem.engine",
                          "pbem.orders", "pbem.reports.templating", "pbem.service.service",
                          "pbem.service.gm", "pbem.bots", "pbem.transport", "pbem.archive")


def imported_by(code: str) -> set[str]:
    """The modules a fresh interpreter has imported after running ``code``."""
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"],
        capture_output=True, text=True, check=True, timeout=300)
    return set(json.loads(done.stdout.splitlines()[-1]))


def loaded(modules: set[str], forbidden: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules for f in forbidden if m == f or m.startswith(f + "."))


def test_importing_the_cli_loads_none_of_the_service_stack() -> None:
    assert loaded(imported_by("import pbem.cli.main"), HEAVY) == []


def test_pbem_help_loads_none_of_the_service_stack() -> None:
    modules = imported_by("from pbem.cli.main import main\n"
                          "main(['--help'], standalone_mode=False)")
    assert "pbem.cli.main" in modules
    assert loaded(modules, HEAVY) == []


def test_pbem_games_on_an_empty_store_loads_no_service(tmp_path: Path) -> None:
    store = tmp_path / "store"
    Store(store)
    modules = imported_by("from pbem.cli.main import main\n"
                          f"main(['games', '--store', {str(store)!r}], standalone_mode=False)")
    assert "pbem.store" in modules  # it did read the store
    assert loaded(modules, NOT_FOR_AN_EMPTY_STORE) == []


def test_the_check_sees_a_heavy_import() -> None:
    """The check fails when a command's module loads the service at its top."""
    modules = imported_by("import pbem.cli.main\nimport pbem.cli.gm_text")
    assert "pbem.service.service" in loaded(modules, HEAVY)
