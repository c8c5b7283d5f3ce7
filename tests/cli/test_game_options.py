"""One table of game options (``pbem.service.options``) serves `pbem game create`, `pbem game
open` and `pbem import`: the rules' variants declared with the cards and the service's house
rules, each with its documented choices. A sign-up game keeps its options with the lobby's
record and starts with them in force; a value outside its choices ends the command with a
usage error naming the option and its choices, never a traceback (issue 43, point 1)."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pbem.cli.gm import cli
from pbem.engine.carddata import load_cardset
from pbem.engine.state import Options
from pbem.errors import OptionError
from pbem.service.model import HouseRules
from pbem.service.options import check_options, option_table, read_options
from pbem.service.service import Service
from pbem.service.signup import LOBBY
from pbem.store import Store

NOW = "2024-05-01T12:00:00+00:00"
PLAYERS = ("--player", "ann=ann@example.org", "--player", "bob=bob@example.org")


def pbem(store: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, [*args, "--store", str(store), "--now", NOW, "--wait", "5"],
                              catch_exceptions=False)


def join(store: Path, game: str, *names: str) -> None:
    """Each of ``names`` mails JOIN ``game``; `pbem process` then reads the mails."""
    for name in names:
        address = f"{name.lower()}@example.org"
        raw = (f"From: {address}\r\nTo: pbem@localhost\r\nSubject: join\r\n"
               f"Message-ID: <join-{name}@example.org>\r\n\r\nJOIN {game} AS {name}\r\n")
        Store(store).receive(raw.encode(), message_id=f"<join-{name}@example.org>",
                             received_at=NOW, sender=address)


def test_the_table_holds_every_option_of_the_engine_and_of_the_house_rules() -> None:
    """One table: the engine's Options and the service's HouseRules, no more, no less; the
    rules' facts (default, choices) are the card set's, as cards.toml declares them."""
    cards = load_cardset()
    table = option_table(cards)
    assert sorted(o.name for o in table if not o.house) == sorted(f.name for f in fields(Options))
    assert [o.name for o in table if o.house] == [f.name for f in fields(HouseRules)]
    declared = {o.name: (o.default, o.choices) for o in cards.options}
    assert {o.name: (o.default, o.choices) for o in table if not o.house} == declared


def test_the_help_of_create_and_open_names_every_option_and_its_choices() -> None:
    """The --option help is written out by hand: it must keep up with the table."""
    for command in (["game", "create", "--help"], ["game", "open", "--help"]):
        text = " ".join(CliRunner().invoke(cli, command).output.split())
        for option in option_table(load_cardset()):
            assert f"{option.name}=" in text, (command, option.name)
            for choice in option.choices:
                word = option.shown(choice)
                assert word in text or option.name == "victory_groups", (option.name, word)
        assert "victory_groups=by_players|8..13" in text


def test_game_options_lists_the_table() -> None:
    listed = CliRunner().invoke(cli, ["game", "options"])
    assert listed.exit_code == 0, listed.output
    lines = listed.output.splitlines()
    for option in option_table(load_cardset()):
        row = next(line for line in lines if line.startswith(option.name + " "))
        assert row.split()[1] == option.shown(option.default)
        assert row.endswith(option.described())
        assert option.doc, f"{option.name} says nothing of what it does"


@pytest.mark.parametrize(("item", "option", "choices"), [
    ("uncontrolled_refill=2", "uncontrolled_refill", "0 or 3"),
    ("network_goal=22", "network_goal", "20 or 25"),
    ("victory_groups=3", "victory_groups", "by_players or a whole number from 8 to 13"),
    ("victory_groups=14", "victory_groups", "by_players or a whole number from 8 to 13"),
    ("media_alignment=maybe", "media_alignment", "yes or no"),
    ("max_turns=-1", "max_turns", "a whole number of 0 or more"),
    ("press=blue", "press", "white, grey or none"),
    ("press_in_attack=sometimes", "press_in_attack", "yes or no"),
    ("stand_in=robot", "stand_in", "wait, pass or bot"),
    ("absence_days=400", "absence_days", "a whole number from 0 to 365"),
    ("absence_days_per_game=x", "absence_days_per_game", "a whole number from 0 to 365"),
])
def test_a_value_outside_its_choices_is_refused_naming_them(
        tmp_path: Path, item: str, option: str, choices: str) -> None:
    """Values no rules text has (the French refill of 3, not 2; a goal of 20 or 25; 8 to 13
    groups) and house rules outside their words or range: a usage error (exit 2) that names
    the option and its choices, for `game create` and `game open` alike; nothing stored."""
    with pytest.raises(OptionError) as raised:
        read_options(load_cardset(), [item])
    assert raised.value.key == "option_value"
    assert raised.value.words["option"] == option and raised.value.words["choices"] == choices
    for command in (["game", "create", "g", *PLAYERS], ["game", "open", "g", "--seats", "3"]):
        result = pbem(tmp_path / "s", *command, "--option", item)
        assert result.exit_code == 2, result.output
        text = " ".join(result.output.split())
        assert "--option" in text and option in text and choices in text, text
        assert not (tmp_path / "s").exists() or not Store(tmp_path / "s").games()


def test_an_unknown_option_is_refused_with_the_one_meant() -> None:
    with pytest.raises(OptionError) as raised:
        read_options(load_cardset(), ["stand-inn=bot"])
    assert raised.value.key == "unknown_option" and raised.value.words["option"] == "stand-inn"
    assert "stand_in" in str(raised.value)


def test_values_are_read_as_the_game_master_writes_them() -> None:
    """yes/no, any case, ``-`` for ``_``; by_players leaves the rules' table in force; the
    last of an option given twice wins."""
    chosen = read_options(load_cardset(), [
        "Media-Alignment=YES", "network_goal=25", "uncontrolled_refill=3", "press=Grey",
        "press_in_attack=no", "stand_in=pass", "absence_days=0", "absence_days_per_game=365",
        "victory_groups=9", "victory_groups=by_players", "max_turns=40"])
    assert chosen == {"media_alignment": True, "network_goal": 25, "uncontrolled_refill": 3,
                      "press": "grey", "press_in_attack": False, "stand_in": "pass",
                      "absence_days": 0, "absence_days_per_game": 365, "max_turns": 40}


def test_game_create_puts_the_options_in_force(tmp_path: Path) -> None:
    store = tmp_path / "s"
    created = pbem(store, "game", "create", "g", *PLAYERS, "--option", "network_goal=25",
                   "--option", "victory_groups=8", "--option", "press=none",
                   "--option", "stand_in=bot")
    assert created.exit_code == 0, created.output
    service = Service(Store(store))
    options = service.state("g").options
    assert (options.network_goal, options.victory_groups) == (25, 8)
    house = service.service_record("g").house
    assert (house.press, house.stand_in) == ("none", "bot")


def test_a_sign_up_game_opens_with_house_rules_and_starts_with_them_in_force(
        tmp_path: Path) -> None:
    """`game open --option press=grey` ended in a traceback (TypeError: Options has no field
    'press'), as did every house rule: now the lobby's record keeps them all, and the game
    the last JOIN starts has them, the rules' options too."""
    store = tmp_path / "s"
    given = ["press=grey", "press_in_attack=no", "stand_in=pass", "absence_days=7",
             "absence_days_per_game=10", "network_goal=25", "uncontrolled_refill=3"]
    opened = pbem(store, "game", "open", "illu2", "--seats", "2",
                  *(a for item in given for a in ("--option", item)))
    assert opened.exit_code == 0, opened.output
    service = Service(Store(store))
    kept = service.lobby.open_games()["illu2"]["options"]
    assert kept == {"press": "grey", "press_in_attack": False, "stand_in": "pass",
                    "absence_days": 7, "absence_days_per_game": 10, "network_goal": 25,
                    "uncontrolled_refill": 3}
    join(store, "illu2", "Ann", "Bob")
    assert pbem(store, "process").exit_code == 0
    service = Service(Store(store))
    assert "illu2" in service.games() and "illu2" not in service.lobby.open_games()
    record = service.service_record("illu2")
    assert record.started
    assert record.house == HouseRules(press="grey", press_in_attack=False, absence_days=7,
                                      absence_days_per_game=10, stand_in="pass")
    options = service.state("illu2").options
    assert (options.network_goal, options.uncontrolled_refill) == (25, 3)
    assert options.victory_groups == 13  # by the players: the rules' table for two
    assert LOBBY in service.store.games()


def test_game_start_starts_an_open_game_with_its_house_rules(tmp_path: Path) -> None:
    store = tmp_path / "s"
    assert pbem(store, "game", "open", "g", "--seats", "4", "--option", "press=none",
                "--option", "absence_days=3").exit_code == 0
    join(store, "g", "Ann", "Bob")
    assert pbem(store, "process").exit_code == 0
    started = pbem(store, "game", "start", "g")
    assert started.exit_code == 0, started.output
    house = Service(Store(store)).service_record("g").house
    assert (house.press, house.absence_days) == ("none", 3)


def test_import_refuses_a_game_whose_options_no_rules_text_has(tmp_path: Path) -> None:
    """`pbem import` checks a moved game's options against the same table: a file edited
    to a goal of 22 is refused naming the option and its choices, and nothing is stored;
    the file as written is taken."""
    a, b = tmp_path / "a", tmp_path / "b"
    assert pbem(a, "game", "create", "g1", *PLAYERS, "--option", "press=grey").exit_code == 0
    moved = tmp_path / "g1.json"
    assert pbem(a, "export", "g1", "--move", "-o", str(moved)).exit_code == 0
    data = json.loads(moved.read_text())
    data["move"]["setup"]["setup"]["options"]["network_goal"] = 22
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data))
    refused = pbem(b, "import", str(edited))
    assert refused.exit_code == 1 and "network_goal is 20 or 25" in refused.output
    assert not (b / "games").is_dir() or "g1" not in Store(b).games()
    data["move"]["setup"]["service"]["house"]["stand_in"] = "robot"
    data["move"]["setup"]["setup"]["options"]["network_goal"] = 20
    edited.write_text(json.dumps(data))
    refused = pbem(b, "import", str(edited))
    assert refused.exit_code == 1 and "stand_in is wait, pass or bot" in refused.output
    imported = pbem(b, "import", str(moved))
    assert imported.exit_code == 0, imported.output
    assert Service(Store(b)).service_record("g1").house.press == "grey"


def test_check_options_takes_what_read_options_gives() -> None:
    cards = load_cardset()
    check_options(cards, {"victory_groups": 12, "media_alignment": False, "max_turns": 300,
                          "press": "white", "press_in_attack": True, "absence_days": 14})
    with pytest.raises(OptionError):
        check_options(cards, {"media_alignment": 1})  # a number is no yes or no
