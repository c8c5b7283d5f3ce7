"""The card data file: its numbers against the reference CSVs and the rules, and its checks."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from support import REFERENCE

from pbem.engine.carddata import default_card_file, load_cardset, media_groups
from pbem.engine.cards import (
    Abilities,
    AttackBonus,
    CountsAs,
    DefenseBonus,
    Goal,
    Group,
    Illuminati,
    Immunity,
    RuleOption,
    TargetFilter,
)
from pbem.errors import CardDataError

needs_reference = pytest.mark.skipif(
    not REFERENCE.is_dir(), reason=f"reference data not found at {REFERENCE} (set PBEM_REFERENCE)"
)
CARDS = load_cardset()
SHIPPED = Path(default_card_file()).read_text(encoding="utf-8")


def _rows(name: str) -> list[dict[str, str]]:
    path = REFERENCE / name
    if not path.is_file():
        return []
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


ILLUMINATI_ROWS = _rows("illuminati.csv")
GROUP_ROWS = _rows("groups.csv")
SPECIAL_ROWS = _rows("specials.csv")


def _card(name: str) -> Illuminati | Group:
    card = CARDS.card(name)
    assert isinstance(card, Illuminati | Group)
    return card


ACTORS: list[Illuminati | Group] = [*CARDS.illuminati, *CARDS.groups]


def _ids(rows: list[dict[str, str]]) -> list[str]:
    return [row["name"] for row in rows]


# --- counts ---------------------------------------------------------------------------------


def test_the_box_holds_8_illuminati_83_groups_and_15_special_cards() -> None:
    assert len(CARDS.illuminati) == 8
    assert len(CARDS.groups) == 83
    assert len(CARDS.specials) == 14
    assert sum(s.copies for s in CARDS.specials) == 15
    assert CARDS.special("Interference").copies == 2


def test_the_shipped_file_is_read_once() -> None:
    assert load_cardset() is load_cardset()


def test_a_copy_of_the_file_read_from_a_path_gives_the_same_cards(tmp_path: Path) -> None:
    path = tmp_path / "cards.toml"
    path.write_text(SHIPPED, encoding="utf-8")
    assert load_cardset(path) == CARDS


# --- every number against the reference CSVs ---------------------------------------------------


@needs_reference
def test_the_card_names_are_exactly_those_of_the_csvs() -> None:
    assert [i.name for i in CARDS.illuminati] == _ids(ILLUMINATI_ROWS)
    assert [g.name for g in CARDS.groups] == _ids(GROUP_ROWS)
    assert [s.name for s in CARDS.specials] == _ids(SPECIAL_ROWS)


@needs_reference
@pytest.mark.parametrize("row", ILLUMINATI_ROWS, ids=_ids(ILLUMINATI_ROWS))
def test_illuminati_match_the_csv(row: dict[str, str]) -> None:
    card = CARDS.illuminati_card(row["name"])
    assert card.power == int(row["power"])
    assert card.transferable == int(row["transferable"])
    assert card.income == int(row["income"])
    assert card.sides.count("out") == int(row["outgoing_arrows"])
    assert "in" not in card.sides
    assert card.ability_text == row["ability"]
    assert card.goal_text == row["special_goal"]


@needs_reference
@pytest.mark.parametrize("row", GROUP_ROWS, ids=_ids(GROUP_ROWS))
def test_groups_match_the_csv(row: dict[str, str]) -> None:
    card = CARDS.group(row["name"])
    assert card.alignments == tuple(a for a in row["alignments"].split("/") if a)
    assert card.power == int(row["power"])
    assert card.transferable == int(row["transferable"])
    assert card.resistance == int(row["resistance"])
    assert card.income == int(row["income"])
    assert card.sides == (row["top"], row["right"], row["bottom"], row["left"])
    assert card.sides.count("in") == 1
    assert card.ability_text == row["ability"]


@needs_reference
@pytest.mark.parametrize("row", SPECIAL_ROWS, ids=_ids(SPECIAL_ROWS))
def test_specials_match_the_csv(row: dict[str, str]) -> None:
    card = CARDS.special(row["name"])
    assert card.copies == int(row["copies"])
    assert card.text == f"{row['when']}: {row['effect']}"
    assert card.effect == re.sub(r"[^a-z0-9]+", "_", row["name"].lower().replace("'", ""))


# --- abilities as data -----------------------------------------------------------------------

ALL_MODES = ("control", "neutralize", "destroy")
OMCL = "Orbital Mind Control Lasers"


def _bonus(
    amount: int,
    modes: tuple[str, ...],
    scope: str,
    names: tuple[str, ...] = (),
    alignments: tuple[str, ...] = (),
) -> AttackBonus:
    return AttackBonus(amount, modes, scope, TargetFilter(names, alignments))  # type: ignore[arg-type]


EXPECTED_ABILITIES: dict[str, Abilities] = {
    # Illuminati
    "The Bavarian Illuminati": Abilities(special=("bavarian_privilege",)),
    "The Bermuda Triangle": Abilities(special=("bermuda_reorganize",)),
    "The Discordian Society": Abilities(
        bonuses=(_bonus(4, ("control",), "any", alignments=("Weird",)),),
        immunities=(Immunity(TargetFilter(alignments=("Government", "Straight"))),),
    ),
    "The Gnomes of Zurich": Abilities(special=("gnomes_money",)),
    "The Network": Abilities(draws=2),
    "The Servants of Cthulhu": Abilities(bonuses=(_bonus(2, ("destroy",), "any"),)),
    "The Society of Assassins": Abilities(bonuses=(_bonus(4, ("neutralize",), "any"),)),
    "The UFOs": Abilities(attacks_per_turn=2),
    # groups
    "Anti-Nuclear Activists": Abilities(
        bonuses=(_bonus(2, ("destroy",), "any", ("Nuclear Power Companies",)),)
    ),
    "Chinese Campaign Donors": Abilities(
        counts_as=(CountsAs("Government", ("control",), TargetFilter(alignments=("Government",))),)
    ),
    "Clone Arrangers": Abilities(bonuses=(_bonus(3, ("destroy",), "any"),)),
    "Cycle Gangs": Abilities(bonuses=(_bonus(2, ("destroy",), "any"),)),
    "Evil Geniuses for a Better Tomorrow": Abilities(
        bonuses=(_bonus(4, ALL_MODES, "any", (OMCL,)),)
    ),
    "Federal Reserve": Abilities(special=("federal_reserve",)),
    "Feminists": Abilities(bonuses=(_bonus(3, ("control",), "any", alignments=("Liberal",)),)),
    "Gun Lobby": Abilities(
        defenses=(
            DefenseBonus(
                resistance_set=10,
                attacker=TargetFilter(alignments=("Liberal", "Communist", "Weird")),
            ),
        )
    ),
    # One source gives +2; the data keeps +3 (see the comment in cards.toml).
    "Hackers": Abilities(bonuses=(_bonus(3, ("neutralize",), "any"),)),
    "Health Food Stores": Abilities(
        bonuses=(_bonus(2, ("control",), "any", ("Anti-Nuclear Activists",)),)
    ),
    "International Cocaine Smugglers": Abilities(
        bonuses=(_bonus(4, ("control",), "any", ("Punk Rockers", "Cycle Gangs", "Hollywood")),)
    ),
    "International Communist Conspiracy": Abilities(
        bonuses=(_bonus(3, ("control",), "any", alignments=("Communist",)),)
    ),
    "I.R.S.": Abilities(special=("irs",)),
    "Junk Mail": Abilities(bonuses=(_bonus(4, ("control",), "any", ("Post Office",)),)),
    "KGB": Abilities(bonuses=(_bonus(2, ("destroy",), "any"),)),
    "L-4 Society": Abilities(bonuses=(_bonus(4, ALL_MODES, "direct", (OMCL,)),)),
    "Madison Avenue": Abilities(
        bonuses=(_bonus(5, ("control",), "any", ("Big Media", "Empty Vee")),)
    ),
    "Militia": Abilities(bonuses=(_bonus(6, ("destroy",), "any", alignments=("Communist",)),)),
    "Orbital Mind Control Lasers": Abilities(special=("orbital_mind_control_lasers",)),
    "Phone Phreaks": Abilities(bonuses=(_bonus(3, ALL_MODES, "any", ("The Phone Company",)),)),
    "Post Office": Abilities(special=("post_office",)),
    "Recyclers": Abilities(special=("recyclers",)),
    "Science Fiction Fans": Abilities(
        bonuses=(_bonus(2, ("control",), "any", alignments=("Weird",)),)
    ),
    "Semiconscious Liberation Army": Abilities(bonuses=(_bonus(1, ("destroy",), "any"),)),
    "S.M.O.F.": Abilities(
        bonuses=(
            _bonus(5, ("control",), "direct", ("Science Fiction Fans",)),
            _bonus(2, ("control",), "direct", ("Trekkies",)),
        )
    ),
    "Survivalists": Abilities(defenses=(DefenseBonus(amount=2, applies_to="structure"),)),
    "Tabloids": Abilities(bonuses=(_bonus(3, ("control",), "direct", ("Convenience Stores",)),)),
    "The Mafia": Abilities(bonuses=(_bonus(3, ("control",), "direct", alignments=("Criminal",)),)),
    "TV Preachers": Abilities(bonuses=(_bonus(3, ("control",), "direct", ("Moral Minority",)),)),
    "Video Games": Abilities(bonuses=(_bonus(3, ("control",), "direct", ("Convenience Stores",)),)),
}


@pytest.mark.parametrize("name", EXPECTED_ABILITIES)
def test_each_ability_is_expressed_as_data(name: str) -> None:
    assert _card(name).abilities == EXPECTED_ABILITIES[name]


def test_a_card_has_abilities_as_data_exactly_when_it_has_an_ability_text() -> None:
    """No paraphrase is left without its data form, and no data form without a paraphrase."""
    with_text = {c.name for c in ACTORS if c.ability_text}
    with_data = {c.name for c in ACTORS if c.abilities != Abilities()}
    assert with_text == with_data == set(EXPECTED_ABILITIES)


@pytest.mark.parametrize("name", [n for n, a in EXPECTED_ABILITIES.items() if a.bonuses], ids=str)
def test_bonus_amounts_modes_and_scope_agree_with_the_text(name: str) -> None:
    card = _card(name)
    text = card.ability_text
    for bonus in card.abilities.bonuses:
        assert f"+{bonus.amount} " in text
        assert ("directly" in text) == (bonus.scope == "direct")
        for mode in bonus.modes:
            assert mode in text
        for target in bonus.target.names:
            assert target in text.replace("the Post Office", "Post Office")
        for alignment in bonus.target.alignments:
            assert alignment in text


EXPECTED_GOALS = {
    "The Bavarian Illuminati": Goal("total_power", 35),
    "The Bermuda Triangle": Goal("every_alignment"),
    "The Discordian Society": Goal("alignment_count", 5, "Weird"),
    "The Gnomes of Zurich": Goal("treasury", 150),
    "The Network": Goal("total_transferable", 20),
    "The Servants of Cthulhu": Goal("destroyed", 8),
    "The Society of Assassins": Goal("alignment_count", 6, "Violent"),
    "The UFOs": Goal("secret_choice"),
}


@pytest.mark.parametrize("name", EXPECTED_GOALS)
def test_each_special_goal_is_expressed_as_data(name: str) -> None:
    assert CARDS.illuminati_card(name).goal == EXPECTED_GOALS[name]


EXPECTED_TIMINGS = {
    "Assassination": "after_roll",
    "Murphy's Law": "after_roll",
    "Bribery": "own_action",
    "Whispering Campaign": "own_action",
    "Computer Espionage": "any_time",
    "Media Campaign": "any_time",
    "Slush Fund": "any_time",
    "Swiss Bank Account": "any_time",
    "White Collar Crime": "any_time",
    "Deep Agent": "after_privilege",
    "Interference": "privileged_attack",
    "Market Manipulation": "own_income",
    "Secrets Man Was Not Meant To Know": "counter",
    "Senate Investigating Committee": "turn_start",
}


def test_each_special_card_has_its_timing() -> None:
    assert {s.name: s.timing for s in CARDS.specials} == EXPECTED_TIMINGS


def test_the_rule_options_and_their_english_defaults() -> None:
    options = {o.name: o for o in CARDS.options}
    assert set(options) == {
        "network_goal",
        "uncontrolled_refill",
        "media_alignment",
        "victory_groups",
        "agreed_end",
        "max_turns",
    }
    assert options["network_goal"] == RuleOption(
        "network_goal", 20, (20, 25), options["network_goal"].doc
    )
    assert (options["uncontrolled_refill"].default, options["uncontrolled_refill"].choices) == (
        0,
        (0, 3),
    )
    assert options["media_alignment"].default is False
    assert options["media_alignment"].choices == (False, True)
    assert options["victory_groups"].default == "by_players"
    assert options["victory_groups"].choices == ("by_players", 8, 9, 10, 11, 12, 13)
    assert (options["max_turns"].default, options["max_turns"].choices) == (0, ())
    assert (options["agreed_end"].default, set(options["agreed_end"].choices)) == (
        True, {True, False})
    assert all(o.doc for o in CARDS.options)


def test_the_media_groups_are_our_chosen_ten() -> None:
    assert media_groups(CARDS) == {
        "Big Media",
        "Empty Vee",
        "Madison Avenue",
        "Tabloids",
        "Comic Books",
        "Girlie Magazines",
        "Underground Newspapers",
        "TV Preachers",
        "Hollywood",
        "Video Games",
    }
    assert all("Media" not in g.alignments for g in CARDS.groups)


# --- the rules texts win over the CSVs --------------------------------------------------------
# No number in the CSVs contradicts the rules texts; these tests pin the numbers the rules
# state, so a future edit of the data that breaks one of them fails here.


@needs_reference
def test_basic_goal_table_is_the_summary_table() -> None:
    """Summary: "2 or 3 players ... 13, 4 players ... 12, 5 ... 10, 6 ... 9, 7 or 8 ... 8"."""
    summary = (REFERENCE / "rules" / "summary-en.txt").read_text(encoding="utf-8")
    table: dict[int, int] = {}
    for players, groups in re.findall(r"^(\d(?: or \d)?) players\D*?(\d+)$", summary, re.M):
        for count in re.findall(r"\d", players):
            table[int(count)] = int(groups)
    assert table == dict(CARDS.basic_goal) == {2: 13, 3: 13, 4: 12, 5: 10, 6: 9, 7: 8, 8: 8}


SUMMARY_GOALS = [
    # (card, pattern in the summary, what its numbers are)
    (
        "The Bavarian Illuminati",
        r"total power of (\d+)\s+or more \(including their own power of (\d+)\)",
        ("goal", "power"),
    ),
    ("The Discordian Society", r"Discordian Society\. Control (\d+) Weird groups", ("goal",)),
    ("The Gnomes of Zurich", r"Collect (\d+) MegaBucks", ("goal",)),
    (
        "The Network",
        r"Transferable Power of (\d+)\s+\(including their own (\d+)\)",
        ("goal", "transferable"),
    ),
    ("The Servants of Cthulhu", r"Servants of Cthulhu\. Destroy (\d+) groups", ("goal",)),
    ("The Society of Assassins", r"Society of Assassins\. Control (six) Violent", ("goal",)),
]


@needs_reference
@pytest.mark.parametrize(
    ("name", "pattern", "meaning"), SUMMARY_GOALS, ids=[g[0] for g in SUMMARY_GOALS]
)
def test_special_goals_are_the_summary_numbers(
    name: str, pattern: str, meaning: tuple[str, ...]
) -> None:
    """Summary, "Special Victory Conditions"."""
    summary = (REFERENCE / "rules" / "summary-en.txt").read_text(encoding="utf-8")
    found = re.search(pattern, summary)
    assert found is not None, pattern
    card = CARDS.illuminati_card(name)
    for what, number in zip(meaning, found.groups(), strict=True):
        value = 6 if number == "six" else int(number)
        actual = {"goal": card.goal.amount, "power": card.power, "transferable": card.transferable}
        assert actual[what] == value, what


def test_the_mafia_bonus_is_its_own_attack_only() -> None:
    """Rulebook: "the Mafia have a +3 to control any Criminal card. This means you get a 3-point
    bonus when trying to take over a Criminal Group with the Mafia"."""
    (bonus,) = CARDS.group("The Mafia").abilities.bonuses
    assert (bonus.amount, bonus.scope, bonus.modes) == (3, "direct", ("control",))
    assert bonus.target.alignments == ("Criminal",)


def test_cycle_gangs_help_every_destroy_attempt() -> None:
    """Rulebook: "if you control the Cycle Gangs, any attempt you make to destroy another Group
    with any of your Groups will get a +2 bonus"."""
    assert CARDS.group("Cycle Gangs").abilities.bonuses == (_bonus(2, ("destroy",), "any"),)


def test_irs_and_post_office_have_their_special_income() -> None:
    """Rulebook: "The IRS gets its Income by taxing each of the other players 2 MB ... The Post
    Office costs 1 MB per turn to control"."""
    assert CARDS.group("I.R.S.").income == 0
    assert CARDS.group("I.R.S.").abilities.special == ("irs",)
    assert CARDS.group("Post Office").income == -1


def test_only_the_ufos_attack_twice() -> None:
    """Rulebook: "No Group, except the UFOs, can attack more than once per turn"."""
    twice = [c.name for c in ACTORS if c.abilities.attacks_per_turn != 1]
    assert twice == ["The UFOs"]
    assert CARDS.illuminati_card("The UFOs").abilities.attacks_per_turn == 2


# --- a broken file names the card and the field ----------------------------------------------


def _broken(tmp_path: Path, card: str, old: str, new: str) -> Path:
    """Writes the shipped file with ``old`` replaced by ``new`` inside the block of ``card``."""
    start = SHIPPED.index(f'name = "{card}"\n')
    at = SHIPPED.index(old, start)
    end = SHIPPED.find("\n[[", start)
    assert end == -1 or at < end, f"{old!r} is not in the block of {card}"
    path = tmp_path / "cards.toml"
    path.write_text(SHIPPED[:at] + new + SHIPPED[at + len(old) :], encoding="utf-8")
    return path


BROKEN = [
    pytest.param(
        "Gun Lobby",
        'sides = ["-", "in", "out", "out"]',
        'sides = ["-", "out", "out", "out"]',
        'card "Gun Lobby", field "sides": expected exactly one "in", got 0',
        id="no-in",
    ),
    pytest.param(
        "KKK",
        'sides = ["-", "in", "out", "-"]',
        'sides = ["in", "in", "out", "-"]',
        'card "KKK", field "sides": expected exactly one "in", got 2',
        id="two-ins",
    ),
    pytest.param(
        "KKK",
        'sides = ["-", "in", "out", "-"]',
        'sides = ["-", "in", "out"]',
        'card "KKK", field "sides": expected 4 sides',
        id="three-sides",
    ),
    pytest.param(
        "KKK",
        'sides = ["-", "in", "out", "-"]',
        'sides = ["-", "in", "up", "-"]',
        'card "KKK", field "sides[2]": unknown value "up"',
        id="bad-side",
    ),
    pytest.param(
        "Texas",
        "power = 6\n",
        "powr = 6\n",
        'card "Texas", field "powr": unknown field; did you mean "power"?',
        id="unknown-key",
    ),
    pytest.param(
        "Texas", "resistance = 6\n", "", 'card "Texas", field "resistance": missing', id="missing"
    ),
    pytest.param(
        "Texas",
        "power = 6\n",
        'power = "6"\n',
        'card "Texas", field "power": expected a whole number, got a text \'6\'',
        id="text-for-number",
    ),
    pytest.param(
        "Texas",
        "power = 6\n",
        "power = true\n",
        'card "Texas", field "power": expected a whole number, got true/false True',
        id="bool-for-number",
    ),
    pytest.param(
        "Texas",
        "power = 6\n",
        "power = -1\n",
        'card "Texas", field "power": must be at least 0, got -1',
        id="negative-power",
    ),
    pytest.param(
        "Texas",
        'alignments = ["Violent", "Conservative", "Government"]',
        'alignments = ["Violent", "Conservative", "Goverment"]',
        'card "Texas", field "alignments[2]": unknown value "Goverment"; '
        'did you mean "Government"?',
        id="unknown-alignment",
    ),
    pytest.param(
        "Texas",
        'alignments = ["Violent", "Conservative", "Government"]',
        'alignments = ["Violent", "Media"]',
        'card "Texas", field "alignments": write "media = true" instead',
        id="media-alignment",
    ),
    pytest.param(
        "Cycle Gangs",
        'modes = ["destroy"]',
        'modes = ["destory"]',
        'card "Cycle Gangs", field "bonuses[0].modes[0]": unknown value "destory"; '
        'did you mean "destroy"?',
        id="unknown-mode",
    ),
    pytest.param(
        "Cycle Gangs",
        'scope = "any"',
        'scope = "all"',
        'card "Cycle Gangs", field "bonuses[0].scope": unknown value "all"',
        id="unknown-scope",
    ),
    pytest.param(
        "Cycle Gangs",
        "amount = 2",
        "amout = 2",
        'card "Cycle Gangs", field "bonuses[0].amout": unknown field; did you mean "amount"?',
        id="unknown-nested-key",
    ),
    pytest.param(
        "Anti-Nuclear Activists",
        'names = ["Nuclear Power Companies"]',
        'names = ["Nuclear Power Company"]',
        'card "Anti-Nuclear Activists", field "bonuses[0].target.names[0]": '
        '"Nuclear Power Company" is not a card; did you mean "Nuclear Power Companies"?',
        id="unknown-target",
    ),
    pytest.param(
        "Anti-Nuclear Activists",
        'names = ["Nuclear Power Companies"]',
        'names = ["The UFOs"]',
        'field "bonuses[0].target.names[0]": "The UFOs" is not a group',
        id="target-not-a-group",
    ),
    pytest.param(
        "Gun Lobby",
        "resistance_set = 10",
        "amount = 2, resistance_set = 10",
        'card "Gun Lobby", field "defenses[0].amount": give either "amount"',
        id="defense-both",
    ),
    pytest.param(
        "The Discordian Society",
        'immunities = [{ attacker = { alignments = ["Government", "Straight"] } }]',
        "immunities = [{ attacker = {} }]",
        'card "The Discordian Society", field "immunities[0].attacker": an immunity against every',
        id="immunity-everyone",
    ),
    pytest.param(
        "The Network",
        "draws = 2",
        'special = ["network_draws"]',
        'card "The Network", field "special[0]": unknown value "network_draws"',
        id="unknown-special",
    ),
    pytest.param(
        "The UFOs",
        'sides = ["out", "out", "out", "out"]',
        'sides = ["out", "out", "out", "in"]',
        'card "The UFOs", field "sides": an Illuminati card has no incoming arrow',
        id="illuminati-in",
    ),
    pytest.param(
        "The Discordian Society",
        'alignment = "Weird"\n',
        "",
        'card "The Discordian Society", field "goal.alignment": needed with kind "alignment_count"',
        id="goal-without-alignment",
    ),
    pytest.param(
        "The Gnomes of Zurich",
        'kind = "treasury"',
        'kind = "money"',
        'card "The Gnomes of Zurich", field "goal.kind": unknown value "money"',
        id="unknown-goal",
    ),
    pytest.param(
        "Bribery",
        'effect = "bribery"',
        'effect = "bribe"',
        'card "Bribery", field "effect": unknown value "bribe"; did you mean "bribery"?',
        id="unknown-effect",
    ),
    pytest.param(
        "Bribery",
        'timing = "own_action"',
        'timing = "whenever"',
        'card "Bribery", field "timing": unknown value "whenever"',
        id="unknown-timing",
    ),
    pytest.param(
        "Bribery",
        "copies = 1",
        "copies = 0",
        'card "Bribery", field "copies": must be at least 1, got 0',
        id="no-copies",
    ),
    pytest.param(
        "Bribery",
        'name = "Bribery"',
        'name = "Assassination"',
        'card "Assassination", field "name": another card has the same name',
        id="duplicate-name",
    ),
    pytest.param(
        "Texas",
        'name = "Texas"',
        "",
        f"card #{[g.name for g in CARDS.groups].index('Texas') + 1} in [[group]], "
        'field "name": missing',
        id="no-name",
    ),
]


@pytest.mark.parametrize(("card", "old", "new", "message"), BROKEN)
def test_a_broken_card_is_refused_naming_card_and_field(
    tmp_path: Path, card: str, old: str, new: str, message: str
) -> None:
    with pytest.raises(CardDataError) as caught:
        load_cardset(_broken(tmp_path, card, old, new))
    assert message in str(caught.value)


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "cards.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_lost_card_is_caught_by_the_deck_counts(tmp_path: Path) -> None:
    start = SHIPPED.index('[[group]]\nname = "Texas"')
    end = SHIPPED.index("[[group]]", start + 1)
    path = _write(tmp_path, SHIPPED[:start] + SHIPPED[end:])
    with pytest.raises(CardDataError, match=r"\[deck\] says groups = 83 but the file holds 82"):
        load_cardset(path)


def test_the_special_card_count_counts_copies(tmp_path: Path) -> None:
    path = _write(tmp_path, SHIPPED.replace("copies = 2", "copies = 1"))
    with pytest.raises(CardDataError, match="special_cards = 15 but the file holds 14"):
        load_cardset(path)


def test_an_option_default_must_be_one_of_its_choices(tmp_path: Path) -> None:
    path = _write(tmp_path, SHIPPED.replace("default = 20\n", "default = 22\n"))
    with pytest.raises(CardDataError, match=r'option "network_goal", field "default": 22 is not'):
        load_cardset(path)


def test_an_unknown_section_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, SHIPPED + '\n[[groups]]\nname = "X"\n')
    with pytest.raises(CardDataError, match=r"unknown section \[groups\]"):
        load_cardset(path)


def test_a_file_that_is_not_toml_says_so(tmp_path: Path) -> None:
    path = _write(tmp_path, SHIPPED.replace("power = 6\n", "power = \n", 1))
    with pytest.raises(CardDataError, match="is not a valid TOML file"):
        load_cardset(path)


def test_a_missing_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(CardDataError, match="cannot read the card file"):
        load_cardset(tmp_path / "nowhere.toml")
