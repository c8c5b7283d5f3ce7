"""Card values: the Illuminati, groups and special cards, and their abilities as data.

The card set itself is data (``games/illuminati/cards.toml``); ``pbem.engine.carddata``
reads and validates it into these values. Abilities are small declarative records the
attack and turn code interpret; only a few truly unique abilities name code (``special``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, TypeVar, get_args

Alignment = Literal[
    "Government",
    "Communist",
    "Liberal",
    "Conservative",
    "Peaceful",
    "Violent",
    "Straight",
    "Weird",
    "Criminal",
    "Fanatic",
    "Media",
]
ALIGNMENTS: tuple[Alignment, ...] = (
    "Government",
    "Communist",
    "Liberal",
    "Conservative",
    "Peaceful",
    "Violent",
    "Straight",
    "Weird",
    "Criminal",
    "Fanatic",
    "Media",
)

Side = Literal["in", "out", "-"]
AttackMode = Literal["control", "neutralize", "destroy"]
ATTACK_MODES: tuple[AttackMode, ...] = ("control", "neutralize", "destroy")


@dataclass(frozen=True)
class TargetFilter:
    """Which groups an ability applies to; an empty filter matches every group.

    A group matches when its name is in ``names`` or it has one of ``alignments``
    (either list may be empty; both empty matches all).
    """

    names: tuple[str, ...] = ()
    alignments: tuple[Alignment, ...] = ()

    def matches(self, name: str, alignments: tuple[str, ...]) -> bool:
        """True when the group named ``name`` with ``alignments`` is covered."""
        if not self.names and not self.alignments:
            return True
        return name in self.names or any(a in self.alignments for a in alignments)


@dataclass(frozen=True)
class AttackBonus:
    """A bonus to the attacker's power.

    ``scope`` "any": any attempt by the card's owner, whichever of their groups attacks
    ("+2 on any attempt to destroy"). ``scope`` "direct": only when this very card is the
    attacking group ("+3 when it directly attacks to control a Criminal group").
    """

    amount: int
    modes: tuple[AttackMode, ...]
    scope: Literal["any", "direct"]
    target: TargetFilter = TargetFilter()


@dataclass(frozen=True)
class DefenseBonus:
    """Extra resistance.

    ``applies_to`` "self": this card only; "structure": every *other* group of the same
    power structure (Survivalists). ``resistance_set`` replaces the printed resistance
    instead of adding (Gun Lobby: 10 instead of 3); ``attacker`` limits it to attacks by
    matching groups.
    """

    amount: int = 0
    resistance_set: int | None = None
    applies_to: Literal["self", "structure"] = "self"
    attacker: TargetFilter = TargetFilter()


@dataclass(frozen=True)
class Immunity:
    """The owner's groups cannot be attacked by groups matching ``attacker``."""

    attacker: TargetFilter


@dataclass(frozen=True)
class CountsAs:
    """The card counts as having ``alignment`` when it attacks with ``modes`` a ``target``."""

    alignment: Alignment
    modes: tuple[AttackMode, ...]
    target: TargetFilter


SpecialAbility = Literal[
    "irs",  # taxes every other player 2 MB on the owner's income phase
    "orbital_mind_control_lasers",  # change one alignment of one group for the turn
    "federal_reserve",  # its transfers may go to any group of the structure
    "recyclers",  # pay 5 MB to draw an extra card
    "post_office",  # costs 1 MB a turn
    "bavarian_privilege",  # one privileged attack a turn for 5 MB
    "bermuda_reorganize",  # free reorganization at the end of the turn
    "gnomes_money",  # free money moves between its groups at the end of the turn
]

# The order an Illuminati's end-of-turn power makes free once its player writes END POWERS
# (docs/orders.md): MOVE for a free reorganization, TRANSFER for free money moves; "" for
# Illuminati without one. The card data says it (``end_of_turn``), so the reports can tell
# the player how to use the power without naming a card.
EndOfTurnOrder = Literal["", "move", "transfer"]
# The ability each end-of-turn order goes with: the card data must give both or neither.
END_OF_TURN_ABILITIES: dict[EndOfTurnOrder, SpecialAbility] = {
    "move": "bermuda_reorganize", "transfer": "gnomes_money"}


@dataclass(frozen=True)
class Abilities:
    """Every ability one card has, as data."""

    bonuses: tuple[AttackBonus, ...] = ()
    defenses: tuple[DefenseBonus, ...] = ()
    immunities: tuple[Immunity, ...] = ()
    counts_as: tuple[CountsAs, ...] = ()
    draws: int = 1  # cards drawn at the start of the owner's turn (The Network: 2)
    attacks_per_turn: int = 1  # attacks (or aids) this card may take part in (UFOs: 2)
    special: tuple[SpecialAbility, ...] = ()


GoalKind = Literal[
    "total_power",  # control groups whose total power >= amount (Illuminati included)
    "every_alignment",  # control at least one group of each alignment
    "alignment_count",  # control `amount` groups of `alignment`
    "treasury",  # hold `amount` MB in the whole structure
    "total_transferable",  # total transferable power >= amount
    "destroyed",  # destroy `amount` groups
    "secret_choice",  # the UFOs: one of the other goals, chosen in secret
]
# Every kind a card's goal may have: ``pbem.engine.cardreader`` refuses any other as the card
# data is read.
GOAL_KINDS: tuple[GoalKind, ...] = get_args(GoalKind)

_T = TypeVar("_T")


def by_goal_kind(table: dict[GoalKind, _T]) -> Mapping[GoalKind, _T]:
    """A dispatch table from goal kind, checked whole as it is built: a goal kind added to
    ``GoalKind`` without its entry fails as the module holding the table is imported, not
    in the middle of a game."""
    missing = [kind for kind in GOAL_KINDS if kind not in table]
    if missing:
        raise TypeError(f"no entry for the goal kinds {missing}")
    return MappingProxyType(table)


@dataclass(frozen=True)
class Goal:
    """A special goal as data; ``amount`` may be overridden by a game option."""

    kind: GoalKind
    amount: int = 0
    alignment: Alignment | None = None


@dataclass(frozen=True)
class Illuminati:
    name: str
    power: int
    transferable: int
    income: int
    abilities: Abilities
    goal: Goal
    ability_text: str
    goal_text: str
    # All Illuminati have an outgoing arrow on each side and cannot be attacked.
    sides: tuple[Side, Side, Side, Side] = ("out", "out", "out", "out")
    end_of_turn: EndOfTurnOrder = ""  # the order its end-of-turn power makes free, if any
    aliases: tuple[str, ...] = ()  # short names players write for it ("Bavarians")

    @property
    def kind(self) -> Literal["illuminati"]:
        return "illuminati"


@dataclass(frozen=True)
class Group:
    name: str
    alignments: tuple[Alignment, ...]
    power: int
    transferable: int
    resistance: int
    income: int
    sides: tuple[Side, Side, Side, Side]  # top, right, bottom, left as printed
    abilities: Abilities = field(default_factory=Abilities)
    ability_text: str = ""
    media: bool = False  # has the Media alignment when the French "media_alignment" option is on
    aliases: tuple[str, ...] = ()  # short names players write for it ("CIA", "UN")

    @property
    def kind(self) -> Literal["group"]:
        return "group"


SpecialEffect = Literal[
    "assassination",
    "bribery",
    "computer_espionage",
    "deep_agent",
    "interference",
    "market_manipulation",
    "media_campaign",
    "murphys_law",
    "secrets_man_was_not_meant_to_know",
    "senate_investigating_committee",
    "slush_fund",
    "swiss_bank_account",
    "whispering_campaign",
    "white_collar_crime",
]

SpecialTiming = Literal[
    "after_roll",  # right after the dice of any attack
    "own_action",  # on the holder's turn, as a regular action
    "any_time",
    "after_privilege",  # once privilege is declared on an attack
    "privileged_attack",  # during a privileged attack
    "own_income",  # during the holder's income phase
    "counter",  # when another special card is played
    "turn_start",  # at the beginning of another player's turn
]


# Whether the holder of a card is asked to answer an attack (a response window opens to
# them for it): in any attack, only in a privileged one, or never for this card.
SpecialAsked = Literal["never", "any_attack", "privileged_attack"]
# Which side of an attack the card works for, as the Secrets counter and the answer forms
# judge it: "none" for a card that has nothing to do with an attack.
SpecialHelps = Literal["none", "attacker", "defender", "either"]
# The conditional form its holder writes for it (``IF SUCCEEDS|FAILS PLAY <card>``): a card
# played after the roll waits for the roll's outcome; "" for any other card.
SpecialCondition = Literal["", "succeeds", "fails"]
# What the card is played on: the words ``PLAY <card>`` takes after the name follow from it.
SpecialTarget = Literal[
    "attack",  # the attack under way (its roll, its privilege)
    "played_special",  # the special card just played
    "active_player",  # the player whose turn begins
    "holder",  # the holder's own money or income
    "holder_money",  # money moved between the holder's groups, a bonus put on one
    "uncontrolled_group",  # ON <uncontrolled group> [AT <card> <side>]
    "attacked_group",  # ON <group> WITH <attacking group>: a regular attack
    "dead_group",  # ON <dead group>
    "player_or_group",  # ON <player or group>
]


@dataclass(frozen=True)
class Special:
    """A special card: what it does (``effect`` names the engine's code) and its behaviour
    as data, which every layer reads through ``pbem.engine.behaviour``."""

    name: str
    effect: SpecialEffect
    timing: SpecialTiming
    text: str
    copies: int = 1
    asked: SpecialAsked = "never"
    helps: SpecialHelps = "none"
    conditional: SpecialCondition = ""
    targets: SpecialTarget = "holder"
    aliases: tuple[str, ...] = ()  # short names players write for it ("Murphy")

    @property
    def kind(self) -> Literal["special"]:
        return "special"


Card = Illuminati | Group | Special


@dataclass(frozen=True)
class RuleOption:
    """One rule variant with its documented default."""

    name: str
    default: int | bool | str
    choices: tuple[int | bool | str, ...]
    doc: str


@dataclass(frozen=True)
class CardSet:
    """The whole game's cards, by name, and its rule options."""

    illuminati: tuple[Illuminati, ...]
    groups: tuple[Group, ...]
    specials: tuple[Special, ...]
    options: tuple[RuleOption, ...]
    # victory: number of groups (Illuminati included) by number of players at the start
    basic_goal: tuple[tuple[int, int], ...]

    def __post_init__(self) -> None:
        # Lookups by name are the engine's hottest path: index once, at construction.
        cards: list[Card] = [*self.illuminati, *self.groups, *self.specials]
        object.__setattr__(self, "_index", {c.name: c for c in cards})
        none = Abilities()
        facts = {
            c.name: (c.power, c.transferable, c.abilities)
            if isinstance(c, Group | Illuminati) else (0, 0, none)
            for c in cards
        }
        object.__setattr__(self, "_facts", facts)
        object.__setattr__(self, "_aliases", {a: c.name for c in cards for a in c.aliases})
        # Hashed as a cache key (name lookups per order mail): the fields' hash, once.
        object.__setattr__(self, "_hash", hash((self.illuminati, self.groups, self.specials,
                                                self.options, self.basic_goal)))

    def __hash__(self) -> int:
        value: int = self.__dict__["_hash"]
        return value

    def facts(self, name: str) -> tuple[int, int, Abilities]:
        """(power, transferable power, abilities) of a card; zeros for special cards."""
        facts: dict[str, tuple[int, int, Abilities]] = self.__dict__["_facts"]
        return facts[name]

    def aliases(self) -> dict[str, str]:
        """The short names the card data gives, each to the name of its card."""
        aliases: dict[str, str] = self.__dict__["_aliases"]
        return aliases

    def card(self, name: str) -> Card:
        """The card with this exact name; KeyError if there is none."""
        index: dict[str, Card] = self.__dict__["_index"]
        return index[name]

    def group(self, name: str) -> Group:
        card = self.card(name)
        if not isinstance(card, Group):
            raise KeyError(name)
        return card

    def illuminati_card(self, name: str) -> Illuminati:
        card = self.card(name)
        if not isinstance(card, Illuminati):
            raise KeyError(name)
        return card

    def special(self, name: str) -> Special:
        card = self.card(name)
        if not isinstance(card, Special):
            raise KeyError(name)
        return card

    def names(self) -> tuple[str, ...]:
        index: dict[str, Card] = self.__dict__["_index"]
        return tuple(index)

    def __contains__(self, name: object) -> bool:
        return name in self.__dict__["_index"]
