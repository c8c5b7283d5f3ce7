"""``pbem cards``, run through click's test runner."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pbem.cli.cards import card_record, cards
from pbem.engine.carddata import default_card_file, load_cardset

CARDS = load_cardset()


def _run(*args: str) -> Result:
    return CliRunner().invoke(cards, list(args), catch_exceptions=False)


def _json(*args: str) -> list[dict[str, object]]:
    result = _run("--json", *args)
    assert result.exit_code == 0, result.output
    records = json.loads(result.stdout)
    assert isinstance(records, list)
    return records


def test_json_lists_every_card_once_with_every_field() -> None:
    records = _json()
    kinds = [r["kind"] for r in records]
    assert (kinds.count("illuminati"), kinds.count("group"), kinds.count("special")) == (8, 83, 14)
    assert sum(r["copies"] for r in records if r["kind"] == "special") == 15  # type: ignore[misc]
    for record in records:
        card = CARDS.card(str(record["name"]))
        assert list(record) == ["kind", *(f.name for f in dataclasses.fields(card))]
        assert record == json.loads(json.dumps(card_record(card)))


def test_json_carries_the_abilities_structure() -> None:
    (gun_lobby,) = _json("--name", "gun lobby")
    assert gun_lobby["abilities"] == {
        "bonuses": [],
        "defenses": [
            {
                "amount": 0,
                "resistance_set": 10,
                "applies_to": "self",
                "attacker": {"names": [], "alignments": ["Liberal", "Communist", "Weird"]},
            }
        ],
        "immunities": [],
        "counts_as": [],
        "draws": 1,
        "attacks_per_turn": 1,
        "special": [],
    }
    (discordians,) = _json("--name", "discordians")
    assert discordians["goal"] == {"kind": "alignment_count", "amount": 5, "alignment": "Weird"}
    (interference,) = _json("--name", "interference")
    assert interference["copies"] == 2


def test_the_table_lists_every_card_with_a_total_line() -> None:
    result = _run()
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split() == ["NAME", "KIND", "ALIGNMENTS", "POWER", "RES", "INCOME", "ABILITY"]
    assert lines[-1] == "8 Illuminati, 83 groups, 15 special cards (14 kinds)."
    body = lines[1:-1]
    assert [line[: lines[0].index("KIND")].rstrip() for line in body] == list(CARDS.names())


def test_the_table_columns_line_up() -> None:
    lines = _run().output.splitlines()
    header, body = lines[0], lines[1:-1]
    kind_at, ability_at = header.index("KIND"), header.index("ABILITY")
    income_ends = header.index("INCOME") + len("INCOME")
    for line in body:
        assert line[kind_at - 2 : kind_at] == "  " and line[kind_at] != " ", line
        assert line[income_ends - 1] != " " and line[income_ends : income_ends + 1] in ("", " ")
        if len(line) > ability_at:
            assert line[ability_at - 2 : ability_at] == "  " and line[ability_at] != " ", line
    texas = next(line for line in body if line.startswith("Texas "))
    assert texas[kind_at:].split()[:2] == ["group", "Violent/Conservative/Government"]
    assert texas.split()[-3:] == ["6", "6", "4"]  # power, resistance, income
    big_media = next(line for line in body if line.startswith("Big Media "))
    assert "Liberal/Straight (Media)" in big_media and " 4/3 " in big_media


def test_kind_and_alignment_filter_case_insensitively() -> None:
    specials = _json("--kind", "SPECIAL")
    assert [r["name"] for r in specials] == [s.name for s in CARDS.specials]
    weird = _json("--alignment", "weird")
    assert [r["name"] for r in weird] == [g.name for g in CARDS.groups if "Weird" in g.alignments]
    assert len(weird) > 10
    media = _json("--alignment", "Media")
    assert {r["name"] for r in media} == {g.name for g in CARDS.groups if g.media}


def test_an_empty_selection_says_so() -> None:
    result = _run("--kind", "illuminati", "--alignment", "Weird")
    assert result.exit_code == 0
    assert result.output == "No card matches these filters.\n"
    assert _json("--kind", "illuminati", "--alignment", "Weird") == []


def test_name_picks_one_card_and_the_filters_narrow_the_choice() -> None:
    result = _run("--name", "OMCL")
    assert result.output.splitlines()[1].startswith("Orbital Mind Control Lasers ")
    assert result.output.splitlines()[-1] == "1 group."
    # "society" alone is ambiguous; among the Illuminati it is not.
    assert [r["name"] for r in _json("--kind", "illuminati", "--name", "society")] == [
        "The Society of Assassins"
    ]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("cthulu", "did you mean: The Servants of Cthulhu?"),
        ("phone", "say which: Phone Phreaks or The Phone Company."),
        ("xyzzy plugh", "no card is named like that."),
    ],
)
def test_a_mistyped_name_is_a_usage_error(query: str, expected: str) -> None:
    result = _run("--name", query)
    assert result.exit_code == 2
    assert expected in result.stderr
    assert "--name" in result.stderr


def test_an_unknown_alignment_is_a_usage_error() -> None:
    result = _run("--alignment", "Wierd")
    assert result.exit_code == 2
    assert "--alignment" in result.stderr


def test_data_reads_another_card_file(tmp_path: Path) -> None:
    text = Path(default_card_file()).read_text(encoding="utf-8")
    house = tmp_path / "house.toml"
    house.write_text(text.replace('name = "New York"', 'name = "New Amsterdam"'), encoding="utf-8")
    (renamed,) = _json("--data", str(house), "--name", "new amst")
    assert renamed["name"] == "New Amsterdam"
    assert renamed["power"] == CARDS.group("New York").power


def test_a_broken_card_file_is_reported_naming_card_and_field(tmp_path: Path) -> None:
    text = Path(default_card_file()).read_text(encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("income = -1", 'income = "-1"'), encoding="utf-8")
    result = _run("--data", str(bad))
    assert result.exit_code == 1
    assert 'card "Post Office", field "income": expected a whole number' in result.stderr


def test_data_reads_a_card_pack_over_the_shipped_set() -> None:
    """docs/cards.md, "A game master's own cards": ``--data`` given a pack lists the set a
    game created with ``--cards`` plays with (the usual cards and the pack's)."""
    pack = Path(__file__).parents[2] / "docs" / "examples" / "house-pack.toml"
    result = _run("--data", str(pack), "--kind", "special", "--json")
    names = [c["name"] for c in json.loads(result.stdout)]
    assert "Jinx" in names and "Murphy's Law" in names
