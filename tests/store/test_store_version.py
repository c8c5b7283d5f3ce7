"""Issue 44, point 7: versions know each other.

The store carries its format version; this pbem marks every store it opens with its own, so
an older pbem refuses it from then on, and it refuses a store a newer pbem wrote, through
the daemon (``pbem run``, a real process) and the CLI alike, writing nothing. Before,
observers, absences, mail settings, house rules and resend records were added while the
store said 3, and an older daemon opened such a store and silently dropped them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from daemons import configure, new_game
from support import REPO

from pbem.cli.main import main as pbem_main
from pbem.errors import NewerStoreError, StoreError
from pbem.store import Store
from pbem.store.check import examine
from pbem.store.lock import VERSION


def _files(root: Path) -> dict[str, tuple[bytes, int]]:
    """Give every file under ``root`` with its bytes and modification time."""
    return {str(path.relative_to(root)): (path.read_bytes(), path.stat().st_mtime_ns)
            for path in sorted(root.rglob("*")) if path.is_file()}


def test_a_store_written_now_carries_this_versions_number(tmp_path: Path) -> None:
    Store(tmp_path / "new")
    assert (tmp_path / "new" / "format").read_text() == f"{VERSION}\n"
    old = tmp_path / "old"
    Store(old)
    (old / "format").write_text("3\n")  # as every pbem before this one wrote it
    Store(old)
    assert (old / "format").read_text() == f"{VERSION}\n"  # an older pbem now refuses it


def test_a_newer_store_is_refused_untouched_by_the_store_the_daemon_and_the_cli(
        tmp_path: Path) -> None:
    config = configure(tmp_path, "[listener]\nport = 0\n")
    new_game(config)
    root = config.store
    (root / "format").write_text(f"{VERSION + 1}\n")
    before = _files(root)

    with pytest.raises(NewerStoreError) as refused:
        Store(root)
    assert refused.value.words == {"found": VERSION + 1, "reads": VERSION}

    env = dict(os.environ, PYTHONPATH=str(REPO))
    daemon = subprocess.run([sys.executable, "-m", "pbem.cli.daemon", "run", "--once",
                             "--config", str(tmp_path / "pbem.toml")],
                            env=env, capture_output=True, text=True, timeout=120, check=False)
    assert daemon.returncode == 1, daemon.stderr
    assert f"format version {VERSION + 1}" in daemon.stderr and "newer pbem" in daemon.stderr

    for args in (["games"], ["history", "g1"], ["outbox", "list"]):
        result = CliRunner().invoke(pbem_main, [*args, "--config", str(tmp_path / "pbem.toml")])
        assert result.exit_code == 1, (args, result.output)
        assert f"format version {VERSION + 1}" in result.output, (args, result.output)

    assert _files(root) == before  # nothing written, nothing made
    assert any("newer pbem" in damage.problem for damage in examine(root))


def test_a_store_of_layout_1_is_still_refused_as_before(tmp_path: Path) -> None:
    (tmp_path / "index.json").mkdir()
    with pytest.raises(StoreError, match="has layout 1") as refused:
        Store(tmp_path)
    assert not isinstance(refused.value, NewerStoreError)
