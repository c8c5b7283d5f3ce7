"""A game master's own cards (issue 36 pt 2; docs/cards.md, "A game master's own cards"):
a card pack added to the usual set or replacing it, checked with errors naming the card and
the field, kept with the game so that its replay, ``verify`` and export read the same
cards, and played through by whole bot games."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from card_copies import shipped_text
from support import REPO

from pbem.archive.build import build_game
from pbem.bots.simulate import play_game as simulate_game
from pbem.engine.carddata import CardPack, load_cardset, read_pack, with_pack
from pbem.errors import CardDataError
from pbem.service import history
from pbem.service.bot_games import play_game
from pbem.service.service import Service, ServiceConfig
from pbem.store.memory import MemoryStore

START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
HOUSE = REPO / "docs" / "examples" / "house-pack.toml"
HOUSE_CARDS = ("Neighbourhood Watch", "Crossword Setters", "Pigeon Fanciers' Guild",
               "Late-Night Radio Hosts", "Jinx", "Lucky Break", "Tax Refund")


def house_pack() -> CardPack:
    return read_pack(HOUSE.read_text(encoding="utf-8"), str(HOUSE))


def pack(text: str) -> CardPack:
    return read_pack('[pack]\nname = "test"\nmode = "add"\n' + text, "test.toml")


def test_the_house_pack_adds_its_cards_to_the_usual_set() -> None:
    """The example pack of docs/cards.md: four groups and three special cards (four copies)
    join the 83 groups and 15 special cards; its cards have their data's abilities and
    behaviour (Jinx is a Murphy's Law, helping the defender, written IF SUCCEEDS)."""
    base = load_cardset()
    cards = with_pack(base, house_pack())
    assert len(cards.groups) == len(base.groups) + 4
    assert sum(s.copies for s in cards.specials) == sum(s.copies for s in base.specials) + 4
    jinx = cards.special("Jinx")
    assert (jinx.effect, jinx.helps, jinx.conditional) == ("murphys_law", "defender",
                                                           "succeeds")
    assert cards.group("Pigeon Fanciers' Guild").abilities.defenses[0].amount == 3
    assert cards.aliases()["Watch"] == "Neighbourhood Watch"


@pytest.mark.parametrize(("text", "says"), [
    ('[[group]]\nname = "Chess Club"\nalignments = ["Straight"]\npowr = 1\n',
     'card "Chess Club", field "powr": unknown field; did you mean "power"?'),
    ('[[special]]\nname = "Hex"\neffect = "curse"\ntiming = "any_time"\ntext = "x"\n',
     'card "Hex", field "effect": unknown value "curse"'),
    ('[[special]]\nname = "Hex"\neffect = "murphys_law"\ntiming = "after_roll"\ntext = "x"\n'
     'helps = "defender"\n',
     'card "Hex", field "conditional": needed with timing "after_roll"'),
    ('[[special]]\nname = "Slush Fund"\neffect = "slush_fund"\ntiming = "any_time"\n'
     'text = "x"\n', 'card "Slush Fund", field "name": another card has the same name'),
    ('[[group]]\nname = "Chess Club"\nalignments = ["Straight"]\npower = 1\ntransferable = 0\n'
     'resistance = 4\nincome = 1\nsides = ["in", "-", "-", "-"]\naliases = ["UN"]\n',
     'card "Chess Club", field "aliases": "UN" is already a short name of "The United '
     'Nations"'),
    ('[deck]\ngroups = 84\n', "unknown section [deck] in a pack that adds cards"),
])
def test_a_wrong_pack_is_refused_naming_the_card_and_the_field(text: str, says: str) -> None:
    """docs/cards.md, "What the loader refuses": a pack is checked as the card file is,
    against the whole set it makes."""
    with pytest.raises(CardDataError) as caught:
        with_pack(load_cardset(), pack(text))
    assert says in str(caught.value)


def test_a_pack_without_its_pack_table_is_refused() -> None:
    with pytest.raises(CardDataError, match=r"begins with a \[pack\] table"):
        read_pack('[[group]]\nname = "x"\n', "loose.toml")
    with pytest.raises(CardDataError, match=r'field "mode": unknown value "append"'):
        read_pack('[pack]\nname = "x"\nmode = "append"\n', "bad.toml")


def test_a_pack_that_replaces_the_set_is_a_whole_card_file() -> None:
    """mode = "replace": the pack is read as the card file is, every check included."""
    whole = '[pack]\nname = "reprint"\nmode = "replace"\n' + shipped_text()
    cards = with_pack(load_cardset(), read_pack(whole, "whole.toml"))
    assert cards == load_cardset()
    short = whole.replace('[[special]]\nname = "Bribery"', '[[special]]\nname = "Bribe"')
    assert "Bribe" in with_pack(load_cardset(), read_pack(short, "short.toml")).names()


def test_whole_bot_games_play_through_with_the_house_pack() -> None:
    """The engine's seeded bot games with the house pack: each ends, no invariant broken
    (money, every card in one place), the log replays to the final state."""
    cards = with_pack(load_cardset(), house_pack())
    for index in range(4):
        result = simulate_game(cards, index, 4, 36, turn_cap=80)
        assert result.violations == [], result.violations
        assert result.outcome in ("victory", "turn cap", "no players"), result.outcome


def test_a_game_by_mail_with_the_house_pack_keeps_it_for_replay_and_verify(
        tmp_path: Path) -> None:
    """A whole game of mail-bots through the service with the pack: its cards are dealt and
    shown in the players' mail, the pack is kept in the game's setup record, and the
    replay check, ``verify`` and the export read the same cards."""
    svc = Service(MemoryStore(), ServiceConfig(password_cost=4))
    played = play_game(svc, "house", [(f"bot{i}", f"bot{i}@example.org") for i in range(4)],
                       start=START, seed=f"{5:064x}", options={"victory_groups": 5},
                       keep_mail=True, pack=house_pack())
    assert played.outcome == "victory"
    assert svc.store.setup("house")["cards"]["name"] == "The Basement Expansion"
    assert "Jinx" in svc.cards_of("house").names() and "Jinx" not in svc.cards.names()
    assert svc.replay_check("house")
    game = history.read_game(svc.store, "house")
    cards = game.played_with(svc.cards)
    assert history.replay_difference(cards, game) is None
    checked = history.verify(cards, game)  # (bot_games records no commitment: said apart)
    assert checked.rolls > 0
    assert [p for p in checked.problems if not p.startswith("No commitment")] == []
    assert json.loads(json.dumps(history.export(game)))["cards"]["mode"] == "add"
    mentioned = {name for name in HOUSE_CARDS
                 if any(name.encode() in raw or name.replace("'", "&#39;").encode() in raw
                        for raw in played.outbox)}
    assert mentioned, "no card of the pack showed in any mail"
    with pytest.raises(KeyError):  # the daemon's own cards do not know them
        svc.cards.card("Jinx")
    build_game(cards, game, tmp_path)  # the archive shows them as any other card
    pages = " ".join(p.read_text(encoding="utf-8") for p in tmp_path.rglob("*.html"))
    assert any(name in pages or name.replace("'", "&#39;") in pages for name in HOUSE_CARDS)


def test_a_pack_written_in_a_file_is_read_by_game_create(tmp_path: Path) -> None:
    """``pbem game create --cards FILE``: the pack is checked and kept as written; a wrong
    pack is refused naming the card and the field, and stores nothing."""
    from click.testing import CliRunner

    from pbem.cli.gm import cli
    from pbem.store import Store

    def create(game: str, pack_file: Path) -> tuple[int, str]:
        result = CliRunner().invoke(cli, [
            "game", "create", game, "--player", "ann=ann@example.org", "--player",
            "bob=bob@example.org", "--cards", str(pack_file), "--store", str(tmp_path / "s"),
            "--now", "2024-05-01T12:00:00+00:00"], catch_exceptions=False)
        return result.exit_code, result.output

    code, output = create("g", HOUSE)
    assert code == 0, output
    assert 'With the card pack "The Basement Expansion" (add)' in output
    assert Store(tmp_path / "s").setup("g")["cards"]["text"] == HOUSE.read_text(
        encoding="utf-8")
    broken = tmp_path / "broken.toml"
    broken.write_text(HOUSE.read_text(encoding="utf-8").replace("resistance = 3",
                                                                 'resistance = "3"'),
                      encoding="utf-8")
    code, output = create("h", broken)
    assert code != 0
    assert 'ard "Pigeon Fanciers\' Guild", field "resistance": expected a whole number' in (
        output)
    assert "h" not in Store(tmp_path / "s").games()


def test_game_show_names_the_pack(tmp_path: Path) -> None:
    """``pbem game show`` tells the game master which cards the game plays with."""
    from pbem.cli.gm_text import show_text

    svc = Service(MemoryStore(), ServiceConfig(password_cost=4))
    svc.create_game("g", [("ann", "ann@example.org", ""), ("bob", "bob@example.org", "")],
                    seed="ab" * 32, pack=house_pack())
    game = history.read_game(svc.store, "g")
    text = " ".join(show_text(game.played_with(svc.cards), game, START).split())
    assert ('Cards: the game master\'s pack "The Basement Expansion" added to the usual set'
            in text)


def test_a_game_moved_to_another_store_keeps_its_pack() -> None:
    """``pbem export --move`` and ``pbem import``: the game plays on elsewhere with the
    cards it was created with (the pack travels in its setup record)."""
    from pbem.service.moves import move_in, move_out

    here = Service(MemoryStore(), ServiceConfig(password_cost=4))
    here.create_game("g", [("ann", "ann@example.org", ""), ("bob", "bob@example.org", "")],
                     seed="ab" * 32, pack=house_pack())
    data = move_out(here.store, "g", wait=0, sleep=lambda _: None)
    there = Service(MemoryStore(), ServiceConfig(password_cost=4))
    move_in(there.store, json.loads(json.dumps(data)), START, cards=there.cards)
    assert "Jinx" in there.cards_of("g").names()
    assert there.replay_check("g")
