"""`pbem demo` makes its game as the game master's `pbem game create` and `start` do."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from pbem.cli.demo import run_demo
from pbem.cli.gm import cli


def test_the_demo_game_verifies(tmp_path: Path) -> None:
    """The dice commitment is logged at the creation and the start, so `pbem verify` holds
    the seed revealed at the end to it."""
    run_demo(tmp_path / "demo", port=0, seed="5e" * 32, victory_groups=5,
             echo=lambda line: None)
    result = CliRunner().invoke(cli, ["verify", "demo", "--store",
                                      str(tmp_path / "demo" / "store")])
    assert result.exit_code == 0, result.output
    assert "matches the seed, and the seed its commitment" in result.output
