"""Card facts in play: alignments (with the Lasers' changes), power, abilities held."""

from __future__ import annotations

from collections.abc import Iterator

from pbem.engine.cards import (
    Abilities,
    Alignment,
    AttackMode,
    CardSet,
    Group,
)
from pbem.engine.state import GameState, Player

OPPOSITES: dict[str, str] = {
    "Government": "Communist",
    "Communist": "Government",
    "Liberal": "Conservative",
    "Conservative": "Liberal",
    "Peaceful": "Violent",
    "Violent": "Peaceful",
    "Straight": "Weird",
    "Weird": "Straight",
    "Fanatic": "Fanatic",  # "Fanatic is the opposite of Fanatic"; Criminal and Media have none
}


def is_opposite(a: str, b: str) -> bool:
    return OPPOSITES.get(a) == b


def alignments(cards: CardSet, state: GameState, card: str) -> tuple[Alignment, ...]:
    """A card's alignments now: printed, Media by option, then this turn's Lasers changes."""
    printed = cards.card(card)
    if not isinstance(printed, Group):
        return ()
    current: tuple[Alignment, ...] = printed.alignments
    if state.options.media_alignment and printed.media and "Media" not in current:
        current = (*current, "Media")
    for group, changed in state.turn.alignment_changes:
        if group == card:
            current = changed
    return current


def power(cards: CardSet, card: str) -> int:
    return cards.facts(card)[0]


def transferable(cards: CardSet, card: str) -> int:
    return cards.facts(card)[1]


def abilities(cards: CardSet, card: str) -> Abilities:
    return cards.facts(card)[2]


def held(cards: CardSet, player: Player) -> Iterator[tuple[str, Abilities]]:
    """Every card of the player's structure with its abilities."""
    for slot in player.structure:
        yield slot.card, abilities(cards, slot.card)


def has_special(cards: CardSet, player: Player, name: str) -> str | None:
    """The card of the player's structure that has the unique ability ``name``, if any."""
    for card, ab in held(cards, player):
        if name in ab.special:
            return card
    return None


def attacks_allowed(cards: CardSet, card: str) -> int:
    """How many attacks a card may take part in each turn (the UFOs' Illuminati: two)."""
    return abilities(cards, card).attacks_per_turn


def attack_bonuses(
    cards: CardSet,
    state: GameState,
    player: Player,
    attacker: str,
    target: str,
    mode: AttackMode,
) -> list[tuple[str, int]]:
    """(source card, bonus) for every ability that helps this attack."""
    target_alignments = alignments(cards, state, target)
    out: list[tuple[str, int]] = []
    for card, ab in held(cards, player):
        for bonus in ab.bonuses:
            if mode not in bonus.modes:
                continue
            if bonus.scope == "direct" and card != attacker:
                continue
            if bonus.target.matches(target, target_alignments):
                out.append((card, bonus.amount))
    return out


def attacking_alignments(
    cards: CardSet, state: GameState, attacker: str, target: str, mode: AttackMode
) -> tuple[Alignment, ...]:
    """The attacker's alignments for this attack, "counts as" abilities included.

    A "counts as" alignment is added to the printed ones, not put in their place: the Chinese
    Campaign Donors (Communist) attacking a Government group count as Government too, so the
    identical and the opposite pair cancel out (docs/rules-coverage.md, choices).
    """
    own = alignments(cards, state, attacker)
    target_alignments = alignments(cards, state, target)
    extra = [
        c.alignment
        for c in abilities(cards, attacker).counts_as
        if mode in c.modes and c.target.matches(target, target_alignments)
        and c.alignment not in own
    ]
    return (*own, *extra)


def alignment_modifier(
    attacking: tuple[str, ...], defending: tuple[str, ...], mode: AttackMode
) -> tuple[int, int]:
    """(identical, opposite) alignment pair counts between attacker and target.

    Fanatic against Fanatic is an opposite pair, never an identical one.
    """
    identical = sum(1 for a in attacking if a in defending and a != "Fanatic")
    opposite = sum(1 for a in attacking for b in defending if is_opposite(a, b))
    return identical, opposite


def resistance_bonus(
    cards: CardSet, state: GameState, owner: Player | None, attacker: str, target: str
) -> tuple[int | None, list[tuple[str, int]]]:
    """A replaced resistance (Gun Lobby) and extra resistance (Survivalists) for a target."""
    attacker_alignments = alignments(cards, state, attacker)
    replaced: int | None = None
    extra: list[tuple[str, int]] = []
    for d in abilities(cards, target).defenses:
        if d.applies_to != "self":
            continue
        if not d.attacker.matches(attacker, attacker_alignments):
            continue
        if d.resistance_set is not None:
            replaced = d.resistance_set
        if d.amount:
            extra.append((target, d.amount))
    if owner is not None:
        for card, ab in held(cards, owner):
            if card == target:
                continue
            for d in ab.defenses:
                if d.applies_to == "structure" and d.attacker.matches(
                    attacker, attacker_alignments
                ):
                    extra.append((card, d.amount))
    return replaced, extra


def immune(cards: CardSet, state: GameState, owner: Player | None, attacker: str,
           attacker_alignments: tuple[Alignment, ...] | None = None) -> str | None:
    """The card that makes the owner's groups immune to this attacker, if any.

    ``attacker_alignments``: the attacker's alignments in this attack ("counts as" included,
    ``attacking_alignments``); its own alignments when not given."""
    if owner is None:
        return None
    if attacker_alignments is None:
        attacker_alignments = alignments(cards, state, attacker)
    for card, ab in held(cards, owner):
        for imm in ab.immunities:
            if imm.attacker.matches(attacker, attacker_alignments) and imm.attacker != (
                imm.attacker.__class__()
            ):
                return card
    return None
