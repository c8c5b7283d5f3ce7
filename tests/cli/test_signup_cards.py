"""A game open for sign-up with the game master's own cards (issue 36 pt 2; docs/cards.md,
"A game master's own cards"): `pbem game open --cards FILE` keeps the pack with the
lobby's record; JOINs prefer its Illuminati, the seats are dealt from its cards, and the
game the last JOIN starts plays with it; a broken pack opens nothing."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result
from support import REPO

from pbem.cli.gm import cli
from pbem.engine.carddata import default_card_file
from pbem.service.service import Service
from pbem.store import Store

NOW = "2024-05-01T12:00:00+00:00"
HOUSE_PACK = REPO / "docs" / "examples" / "house-pack.toml"


def pbem(store: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, [*args, "--store", str(store), "--now", NOW, "--wait", "5"],
                              catch_exceptions=False)


def join(store: Path, game: str, name: str, prefer: str = "") -> None:
    """``name`` mails JOIN ``game`` (PREFER ``prefer``), for `pbem process` to read."""
    address = f"{name.lower()}@example.org"
    line = f"JOIN {game} AS {name}" + (f" PREFER {prefer}" if prefer else "")
    raw = (f"From: {address}\r\nTo: pbem@localhost\r\nSubject: join\r\n"
           f"Message-ID: <join-{name}@example.org>\r\n\r\n{line}\r\n")
    Store(store).receive(raw.encode(), message_id=f"<join-{name}@example.org>",
                         received_at=NOW, sender=address)


def test_an_open_game_keeps_its_pack_and_starts_with_it(tmp_path: Path) -> None:
    store = tmp_path / "s"
    opened = pbem(store, "game", "open", "g", "--seats", "2", "--cards", str(HOUSE_PACK))
    assert opened.exit_code == 0, opened.output
    assert 'With the card pack "The Basement Expansion" (add)' in opened.output
    kept = Service(Store(store)).lobby.open_games()["g"]["cards"]
    assert (kept["name"], kept["mode"]) == ("The Basement Expansion", "add")
    assert kept["text"] == HOUSE_PACK.read_text(encoding="utf-8")
    shown = pbem(store, "game", "show", "g")
    assert 'Cards: the card pack "The Basement Expansion" (add).' in shown.output
    join(store, "g", "Ann")
    join(store, "g", "Bob")
    assert pbem(store, "process").exit_code == 0
    service = Service(Store(store))
    assert service.service_record("g").started
    assert service.store.setup("g")["cards"]["name"] == "The Basement Expansion"
    assert "Jinx" in service.cards_of("g").names() and "Jinx" not in service.cards.names()


def test_joins_prefer_and_are_dealt_the_pack_s_illuminati(tmp_path: Path) -> None:
    """A pack that replaces the set, the Bavarians renamed: a JOIN may PREFER them under
    the pack's name (the daemon's cards do not know it), and is dealt them."""
    text = Path(default_card_file()).read_text(encoding="utf-8").replace(
        'name = "The Bavarian Illuminati"', 'name = "The House of Wittelsbach"')
    pack = tmp_path / "wittelsbach.toml"
    pack.write_text('[pack]\nname = "Wittelsbach"\nmode = "replace"\n' + text,
                    encoding="utf-8")
    store = tmp_path / "s"
    assert pbem(store, "game", "open", "g", "--seats", "2", "--cards", str(pack)).exit_code == 0
    join(store, "g", "Ann", prefer="The House of Wittelsbach")
    join(store, "g", "Bob")
    assert pbem(store, "process").exit_code == 0
    service = Service(Store(store))
    assert service.state("g").player("Ann").illuminati == "The House of Wittelsbach"


def test_a_broken_pack_opens_nothing_and_names_the_card_and_field(tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text(HOUSE_PACK.read_text(encoding="utf-8").replace(
        'name = "Crossword Setters"\nalignments = ["Weird", "Peaceful"]\npower = 1',
        'name = "Crossword Setters"\nalignments = ["Weird", "Peaceful"]\npower = "one"'),
        encoding="utf-8")
    store = tmp_path / "s"
    refused = pbem(store, "game", "open", "g", "--seats", "2", "--cards", str(broken))
    assert refused.exit_code == 1
    assert '"Crossword Setters", field "power"' in refused.output
    assert Service(Store(store)).lobby.open_games() == {}
