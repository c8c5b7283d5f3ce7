"""`pbem demo --cards FILE`: the demo game played with the game master's own cards
(docs/cards.md, "A game master's own cards"), run through the command line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from support import REPO

from pbem.cli import demo as demo_module
from pbem.cli.main import main
from pbem.service.service import Service
from pbem.store import Store

HOUSE_PACK = REPO / "docs" / "examples" / "house-pack.toml"


def test_the_demo_plays_with_a_card_pack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pack is kept with the demo's game (a replay, `verify` and the archive read it)
    and its cards are in play; a short game (a cap of 6 turns) keeps the test quick."""
    monkeypatch.setattr(demo_module, "TURN_CAP", 6)
    folder = tmp_path / "demo"
    result = CliRunner().invoke(main, ["demo", "--dir", str(folder), "--port", "0",
                                       "--seed", "5e" * 32, "--cards", str(HOUSE_PACK)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert 'With the card pack "The Basement Expansion" (add)' in result.output
    assert "The game ended after" in result.output
    service = Service(Store(folder / "store"))
    assert service.store.setup("demo")["cards"]["name"] == "The Basement Expansion"
    assert service.state("demo").phase == "over"
    cards = service.cards_of("demo")
    assert "Jinx" in cards.names() and "Jinx" not in service.cards.names()
    assert (folder / "archive" / "games" / "demo" / "index.html").is_file()


def test_a_broken_pack_starts_no_demo(tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text(HOUSE_PACK.read_text(encoding="utf-8").replace(
        'name = "Crossword Setters"\nalignments = ["Weird", "Peaceful"]\npower = 1',
        'name = "Crossword Setters"\nalignments = ["Weird", "Peaceful"]\npower = "one"'),
        encoding="utf-8")
    folder = tmp_path / "demo"
    result = CliRunner().invoke(main, ["demo", "--dir", str(folder), "--port", "0",
                                       "--cards", str(broken)])
    assert result.exit_code == 1
    assert '"Crossword Setters", field "power"' in result.output
    assert not folder.exists()
