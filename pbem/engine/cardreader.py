"""Checks a parsed card file, section by section and card by card, into a ``CardSet``.

Split from ``pbem.engine.carddata``, which reads the file; this module only checks the
parsed TOML, so it is pure.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import NoReturn, get_args

from pbem.engine.behaviour import EFFECT_TARGETS, ON_ATTACK
from pbem.engine.cardfields import Fields, fail_field, kind_of, quoted
from pbem.engine.cards import (
    ALIGNMENTS,
    ATTACK_MODES,
    END_OF_TURN_ABILITIES,
    GOAL_KINDS,
    Abilities,
    AttackBonus,
    AttackMode,
    CardSet,
    CountsAs,
    DefenseBonus,
    EndOfTurnOrder,
    Goal,
    Group,
    Illuminati,
    Immunity,
    RuleOption,
    Side,
    Special,
    SpecialAbility,
    SpecialAsked,
    SpecialCondition,
    SpecialEffect,
    SpecialHelps,
    SpecialTarget,
    SpecialTiming,
    TargetFilter,
)
from pbem.errors import CardDataError

_SIDES: tuple[Side, ...] = ("out", "in", "-")
_SPECIAL_ABILITIES: tuple[SpecialAbility, ...] = get_args(SpecialAbility)
_END_OF_TURN: tuple[EndOfTurnOrder, ...] = get_args(EndOfTurnOrder)
_EFFECTS: tuple[SpecialEffect, ...] = get_args(SpecialEffect)
_TIMINGS: tuple[SpecialTiming, ...] = get_args(SpecialTiming)
_ASKED: tuple[SpecialAsked, ...] = get_args(SpecialAsked)
_HELPS: tuple[SpecialHelps, ...] = get_args(SpecialHelps)
_CONDITIONS: tuple[SpecialCondition, ...] = get_args(SpecialCondition)
_TARGETS: tuple[SpecialTarget, ...] = get_args(SpecialTarget)
# The side a card played on a roll's outcome must work for: IF SUCCEEDS to stop an attack.
_CONDITION_HELPS: dict[SpecialCondition, SpecialHelps] = {"succeeds": "defender",
                                                          "fails": "attacker"}
_SCOPES: tuple[str, ...] = ("any", "direct")
_APPLIES_TO: tuple[str, ...] = ("self", "structure")
_SECTIONS = ("deck", "basic_goal", "option", "illuminati", "group", "special")
_PACK_SECTIONS = ("illuminati", "group", "special")

# The fields each kind of table may hold; anything else is refused as a likely typo.
_ABILITY_KEYS = ("bonuses", "defenses", "immunities", "counts_as", "draws", "attacks_per_turn")
_GROUP_KEYS = ("name", "alignments", "media", "power", "transferable", "resistance", "income")
_CARD_KEYS = {
    "illuminati": ("name", "power", "transferable", "income", "sides", "ability", "goal",
                   "end_of_turn", "aliases"),
    "group": (*_GROUP_KEYS, "sides", "ability", "aliases"),
    "special": ("name", "copies", "effect", "timing", "text", "asked", "helps", "conditional",
                "targets", "aliases"),
}
_GOAL_KEYS = ("kind", "amount", "alignment", "text")
_BONUS_KEYS = ("amount", "modes", "scope", "target")
_DEFENSE_KEYS = ("amount", "resistance_set", "applies_to", "attacker")
_COUNTS_AS_KEYS = ("alignment", "modes", "target")
_FILTER_KEYS = ("names", "alignments")
_OPTION_KEYS = ("name", "default", "choices", "doc")


class CardFileReader:
    """Reads one parsed file; remembers the target names to check once all cards are known."""

    def __init__(self, source: str) -> None:
        self.source = source
        # (card label, field path, group name) for every name a filter mentions
        self.references: list[tuple[str, str, str]] = []
        self.alias_owner: dict[str, str] = {}  # each short name, to the card that has it

    def fail(self, problem: str) -> NoReturn:
        raise CardDataError(f"{self.source}: {problem}")

    def read(self, data: dict[str, object]) -> CardSet:
        for key in data:
            if key not in _SECTIONS:
                self.fail(f"unknown section [{key}]; the sections are {', '.join(_SECTIONS)}")
        illuminati = tuple(self.illuminati(c) for c in self.cards(data, "illuminati"))
        groups = tuple(self.group(c) for c in self.cards(data, "group"))
        specials = tuple(self.special(c) for c in self.cards(data, "special"))
        self.check_names(illuminati, groups, specials)
        self.check_deck(data, len(illuminati), len(groups), sum(s.copies for s in specials))
        return CardSet(
            illuminati=illuminati,
            groups=groups,
            specials=specials,
            options=self.options(data),
            basic_goal=self.basic_goal(data),
        )

    def read_added(self, data: dict[str, object], base: CardSet) -> CardSet:
        """``base`` with the cards of a pack that adds to it (``[[illuminati]]``,
        ``[[group]]``, ``[[special]]``; none required), checked as the whole set would be:
        names unique in both, the pack's filters naming groups of either."""
        for key in data:
            if key not in _PACK_SECTIONS:
                self.fail(f"unknown section [{key}] in a pack that adds cards; the sections "
                          f"are {', '.join(_PACK_SECTIONS)} (a pack with mode = \"replace\" "
                          "is a whole card file)")
        illuminati = tuple(self.illuminati(c)
                           for c in self.cards({**data, "illuminati": data.get("illuminati", [])},
                                               "illuminati"))
        groups = tuple(self.group(c)
                       for c in self.cards({**data, "group": data.get("group", [])}, "group"))
        specials = tuple(self.special(c)
                         for c in self.cards({**data, "special": data.get("special", [])},
                                             "special"))
        for card in base.illuminati + base.groups + base.specials:
            for alias in card.aliases:
                if alias in self.alias_owner:
                    fail_field(self.alias_owner[alias], "aliases",
                               f"{quoted(alias)} is already a short name of {quoted(card.name)}")
        self.check_names(base.illuminati + illuminati, base.groups + groups,
                         base.specials + specials)
        return CardSet(
            illuminati=base.illuminati + illuminati,
            groups=base.groups + groups,
            specials=base.specials + specials,
            options=base.options,
            basic_goal=base.basic_goal,
        )

    def cards(self, data: dict[str, object], section: str) -> list[Fields]:
        found = data.get(section)
        if not isinstance(found, list):
            what = (
                "missing" if found is None else f"a {kind_of(found)}, not a list of [[{section}]]"
            )
            self.fail(f"section [[{section}]] is {what}")
        tables: list[Fields] = []
        for i, raw in enumerate(found):
            label = f"#{i + 1} in [[{section}]]"
            if not isinstance(raw, dict):
                self.fail(f"card {label} is {kind_of(raw)}, not a table")
            if isinstance(raw.get("name"), str) and raw["name"].strip():
                label = quoted(raw["name"])
            known = _CARD_KEYS[section]
            if section != "special":
                known += (*_ABILITY_KEYS, "special")
            fields = Fields(raw, label, "", known)
            fields.text("name")  # a missing or non-text name is reported before anything else
            if not fields.raw["name"]:
                fields.fail("name", "must not be empty")
            fields.check_keys()
            tables.append(fields)
        return tables

    def illuminati(self, card: Fields) -> Illuminati:
        sides = self.sides(card)
        if "in" in sides:
            card.fail("sides", 'an Illuminati card has no incoming arrow, found "in"')
        goal = card.table("goal", _GOAL_KEYS, required=True)
        assert goal is not None
        goal.check_keys()
        kind = goal.word("kind", GOAL_KINDS)
        alignment = goal.word("alignment", ALIGNMENTS) if "alignment" in goal.raw else None
        if (kind == "alignment_count") != (alignment is not None):
            goal.fail(
                "alignment",
                f'needed with kind "alignment_count" and only then (kind {quoted(kind)})',
            )
        abilities = self.abilities(card)
        end_of_turn = card.word("end_of_turn", _END_OF_TURN, "")
        for order, ability in END_OF_TURN_ABILITIES.items():
            if (ability in abilities.special) != (end_of_turn == order):
                card.fail("end_of_turn", f'must be "{order}" with the special ability '
                          f'"{ability}", and only then')
        return Illuminati(
            name=card.text("name"),
            power=card.integer("power", minimum=0),
            transferable=card.integer("transferable", minimum=0),
            income=card.integer("income"),
            abilities=abilities,
            end_of_turn=end_of_turn,
            goal=Goal(
                kind=kind, amount=goal.integer("amount", minimum=0, default=0), alignment=alignment
            ),
            ability_text=card.text("ability", ""),
            goal_text=goal.text("text"),
            sides=sides,
            aliases=self.aliases(card),
        )

    def group(self, card: Fields) -> Group:
        sides = self.sides(card)
        ins = sides.count("in")
        if ins != 1:
            card.fail("sides", f'expected exactly one "in", got {ins}')
        alignments = card.words("alignments", ALIGNMENTS, required=True)
        # Media is switched on per game (option media_alignment) through the `media` flag, so
        # the printed alignments never carry it; filters may still name it.
        if "Media" in alignments:
            card.fail(
                "alignments", 'write "media = true" instead: Media is an option (media_alignment)'
            )
        return Group(
            name=card.text("name"),
            alignments=alignments,
            power=card.integer("power", minimum=0),
            transferable=card.integer("transferable", minimum=0),  # 0/2: aid only, no attack
            resistance=card.integer("resistance", minimum=0),
            income=card.integer("income"),  # may be negative: the Post Office costs 1 MB a turn
            sides=sides,
            abilities=self.abilities(card),
            ability_text=card.text("ability", ""),
            media=card.flag("media", False),
            aliases=self.aliases(card),
        )

    def special(self, card: Fields) -> Special:
        """A special card and its behaviour (pbem.engine.behaviour), checked together: a
        card asked in a window can be played there, one played on a roll's outcome says
        which, and what it is played on is what its effect's code reads."""
        effect = card.word("effect", _EFFECTS)
        timing = card.word("timing", _TIMINGS)
        asked = card.word("asked", _ASKED, "never")
        helps = card.word("helps", _HELPS, "none")
        conditional = card.word("conditional", _CONDITIONS, "")
        targets = card.word("targets", _TARGETS, EFFECT_TARGETS[effect])
        if targets != EFFECT_TARGETS[effect]:
            card.fail("targets", f"effect {quoted(effect)} is played on "
                      f"{quoted(EFFECT_TARGETS[effect])}, not {quoted(targets)}")
        if asked != "never" and timing not in (*ON_ATTACK, "counter"):
            card.fail("asked", f"a card with timing {quoted(timing)} cannot answer an attack; "
                      f'"never" or a timing of {", ".join(ON_ATTACK)} or counter')
        if (conditional != "") != (timing == "after_roll"):
            card.fail("conditional", 'needed with timing "after_roll" ("succeeds" or "fails") '
                      "and only then")
        if conditional and helps != _CONDITION_HELPS[conditional]:
            card.fail("helps", f'a card played "IF {conditional.upper()}" helps the '
                      f"{_CONDITION_HELPS[conditional]}, not {quoted(helps)}")
        return Special(
            name=card.text("name"),
            effect=effect,
            timing=timing,
            text=card.text("text"),
            copies=card.integer("copies", minimum=1, default=1),
            asked=asked,
            helps=helps,
            conditional=conditional,
            targets=targets,
            aliases=self.aliases(card),
        )

    def aliases(self, card: Fields) -> tuple[str, ...]:
        """The short names players write for the card (each once in the whole file)."""
        found = card.value("aliases", list, "a list of short names", [])
        assert isinstance(found, list)
        aliases: list[str] = []
        for i, alias in enumerate(found):
            if not isinstance(alias, str) or not alias.strip():
                card.fail(f"aliases[{i}]", f"expected a short name, got {alias!r}")
            if alias in self.alias_owner:
                card.fail(f"aliases[{i}]", f"{quoted(alias)} is already a short name of "
                          f"{self.alias_owner[alias]}")
            self.alias_owner[alias] = card.card
            aliases.append(alias)
        return tuple(aliases)

    def sides(self, card: Fields) -> tuple[Side, Side, Side, Side]:
        found = card.value("sides", list, "a list of 4 sides (top, right, bottom, left)")
        assert isinstance(found, list)
        if len(found) != 4:
            card.fail("sides", f"expected 4 sides (top, right, bottom, left), got {len(found)}")
        top, right, bottom, left = (
            card.pick(f"sides[{i}]", s if isinstance(s, str) else repr(s), _SIDES)
            for i, s in enumerate(found)
        )
        return (top, right, bottom, left)

    def abilities(self, card: Fields) -> Abilities:
        return Abilities(
            bonuses=tuple(self.bonus(t) for t in card.tables("bonuses", _BONUS_KEYS)),
            defenses=tuple(self.defense(t) for t in card.tables("defenses", _DEFENSE_KEYS)),
            immunities=tuple(self.immunity(t) for t in card.tables("immunities", ("attacker",))),
            counts_as=tuple(self.counts_as(t) for t in card.tables("counts_as", _COUNTS_AS_KEYS)),
            draws=card.integer("draws", minimum=0, default=1),
            attacks_per_turn=card.integer("attacks_per_turn", minimum=1, default=1),
            special=card.words("special", _SPECIAL_ABILITIES),
        )

    def bonus(self, t: Fields) -> AttackBonus:
        t.check_keys()
        amount = t.integer("amount")
        if amount == 0:
            t.fail("amount", "a bonus of 0 does nothing")
        return AttackBonus(
            amount=amount,
            modes=self.modes(t),
            scope="any" if t.word("scope", _SCOPES) == "any" else "direct",
            target=self.target(t, "target"),
        )

    def defense(self, t: Fields) -> DefenseBonus:
        t.check_keys()
        resistance_set = (
            t.integer("resistance_set", minimum=0) if "resistance_set" in t.raw else None
        )
        amount = t.integer("amount", default=0)
        if (amount == 0) == (resistance_set is None):
            t.fail(
                "amount",
                'give either "amount" (added) or "resistance_set" (replaces), not both or neither',
            )
        return DefenseBonus(
            amount=amount,
            resistance_set=resistance_set,
            applies_to="self"
            if t.word("applies_to", _APPLIES_TO, "self") == "self"
            else "structure",
            attacker=self.target(t, "attacker"),
        )

    def immunity(self, t: Fields) -> Immunity:
        t.check_keys()
        attacker = self.target(t, "attacker", required=True)
        if not attacker.names and not attacker.alignments:
            t.fail(
                "attacker", "an immunity against every attacker would make the cards untouchable"
            )
        return Immunity(attacker=attacker)

    def counts_as(self, t: Fields) -> CountsAs:
        t.check_keys()
        return CountsAs(
            alignment=t.word("alignment", ALIGNMENTS),
            modes=self.modes(t),
            target=self.target(t, "target"),
        )

    def modes(self, t: Fields) -> tuple[AttackMode, ...]:
        modes = t.words("modes", ATTACK_MODES, required=True)
        if not modes:
            t.fail("modes", "list at least one of control, neutralize, destroy")
        return modes

    def target(self, t: Fields, key: str, *, required: bool = False) -> TargetFilter:
        found = t.table(key, _FILTER_KEYS, required=required)
        if found is None:
            return TargetFilter()
        found.check_keys()
        listed = found.value("names", list, "a list of group names", [])
        assert isinstance(listed, list)
        names: list[str] = []
        for i, name in enumerate(listed):
            if not isinstance(name, str):
                found.fail(f"names[{i}]", f"expected a group name, got {kind_of(name)} {name!r}")
            self.references.append((t.card, found.path(f"names[{i}]"), name))
            names.append(name)
        return TargetFilter(names=tuple(names), alignments=found.words("alignments", ALIGNMENTS))

    def check_names(
        self,
        illuminati: tuple[Illuminati, ...],
        groups: tuple[Group, ...],
        specials: tuple[Special, ...],
    ) -> None:
        seen: set[str] = set()
        names = [c.name for c in illuminati] + [c.name for c in groups] + [c.name for c in specials]
        for name in names:
            if name in seen:
                fail_field(quoted(name), "name", "another card has the same name")
            seen.add(name)
        group_names = {g.name for g in groups}
        for label, field, name in self.references:
            if name not in group_names:
                close = difflib.get_close_matches(name, sorted(group_names), n=1)
                hint = f"; did you mean {quoted(close[0])}?" if close else ""
                what = "is not a group" if name in seen else "is not a card"
                fail_field(label, field, f"{quoted(name)} {what}{hint}")

    def check_deck(
        self, data: Mapping[str, object], illuminati: int, groups: int, specials: int
    ) -> None:
        deck = data.get("deck")
        if not isinstance(deck, dict):
            self.fail("section [deck] is missing: it says how many cards the file must hold")
        counts = {"illuminati": illuminati, "groups": groups, "special_cards": specials}
        for key in deck:
            if key not in counts:
                self.fail(
                    f"[deck] has an unknown field {quoted(key)}; the fields are {', '.join(counts)}"
                )
        for key, found in counts.items():
            declared = deck.get(key)
            if not isinstance(declared, int) or isinstance(declared, bool):
                self.fail(f"[deck] field {quoted(key)} must be a whole number")
            if declared != found:
                self.fail(f"[deck] says {key} = {declared} but the file holds {found}")

    def options(self, data: Mapping[str, object]) -> tuple[RuleOption, ...]:
        found = data.get("option", [])
        if not isinstance(found, list):
            self.fail("[[option]] must be a list of tables")
        options: list[RuleOption] = []
        for i, raw in enumerate(found):
            if not isinstance(raw, dict):
                self.fail(f"option #{i + 1} is {kind_of(raw)}, not a table")
            name = raw.get("name")
            label = f"option {quoted(name)}" if isinstance(name, str) else f"option #{i + 1}"
            t = Fields(raw, label, "", _OPTION_KEYS)
            t.check_keys()
            default = self.option_value(t, "default", t.raw.get("default"))
            choices = t.value("choices", list, "a list")
            assert isinstance(choices, list)
            picked = tuple(self.option_value(t, f"choices[{j}]", c) for j, c in enumerate(choices))
            if picked and default not in picked:
                t.fail("default", f"{default!r} is not one of the choices")
            if not picked and (isinstance(default, bool) or not isinstance(default, int)):
                t.fail("choices", "an empty list (any whole number) needs a whole-number default")
            option = RuleOption(
                name=t.text("name"), default=default, choices=picked, doc=t.text("doc")
            )
            if any(o.name == option.name for o in options):
                t.fail("name", "another option has the same name")
            options.append(option)
        return tuple(options)

    def option_value(self, t: Fields, key: str, value: object) -> int | bool | str:
        if value is None:
            t.fail(key, "missing")
        if not isinstance(value, int | bool | str):
            t.fail(key, f"expected a whole number, true/false or a text, got {kind_of(value)}")
        return value

    def basic_goal(self, data: Mapping[str, object]) -> tuple[tuple[int, int], ...]:
        table = data.get("basic_goal")
        if not isinstance(table, dict) or not table:
            self.fail("section [basic_goal] is missing: groups to control by number of players")
        goals: list[tuple[int, int]] = []
        for key, value in table.items():
            if not key.isdigit() or int(key) < 1:
                self.fail(f"[basic_goal] key {quoted(key)} must be a number of players")
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                self.fail(f"[basic_goal] {key} players: expected a number of groups, got {value!r}")
            goals.append((int(key), value))
        return tuple(sorted(goals))
