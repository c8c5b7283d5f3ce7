"""What a special card does in the game's flow, read from its card data: the one place the
service, the reports, the order language and the bots ask about a special card.

A card's behaviour is data (``games/illuminati/cards.toml``, fields ``timing``, ``asked``,
``helps``, ``conditional``, ``targets``; docs/cards.md): a reprint under another name, a
renamed card or a house card built from a known ``effect`` behaves as its data says, with
no card name written in code. ``pbem.engine.cardreader`` checks the fields against
``EFFECT_TARGETS`` and the rules below as the file is read.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pbem.engine.cards import CardSet, Special, SpecialEffect, SpecialTarget, SpecialTiming

Role = Literal["attacker", "defender", "other"]

# What the code of each effect is played on (``PlaySpecial``'s fields it reads): a card's
# ``targets`` must be its effect's.
EFFECT_TARGETS: dict[SpecialEffect, SpecialTarget] = {
    "assassination": "attack",
    "murphys_law": "attack",
    "deep_agent": "attack",
    "interference": "attack",
    "secrets_man_was_not_meant_to_know": "played_special",
    "senate_investigating_committee": "active_player",
    "market_manipulation": "holder",
    "slush_fund": "holder",
    "swiss_bank_account": "holder",
    "white_collar_crime": "holder_money",
    "bribery": "uncontrolled_group",
    "whispering_campaign": "attacked_group",
    "media_campaign": "dead_group",
    "computer_espionage": "player_or_group",
}
# The MB each effect that pays out puts in the holder's Illuminati treasury.
MONEY: dict[SpecialEffect, int] = {"slush_fund": 15, "swiss_bank_account": 25}
# When a card may answer an attack under way, or be played as a turn starts.
ON_ATTACK: tuple[SpecialTiming, ...] = ("after_privilege", "privileged_attack", "after_roll")
ON_TURN_START: tuple[SpecialTiming, ...] = ("turn_start", "own_income")


def timing_rank(card: Special) -> int:
    """Where the card comes in a list of cards by timing: an attack's cards in the order
    they may be played (privilege, then the roll), then a turn's start."""
    order = (*ON_ATTACK, *ON_TURN_START)
    return order.index(card.timing) if card.timing in order else len(order)


def special(cards: CardSet, name: str) -> Special | None:
    """The special card named ``name``, or None for any other name."""
    if name not in cards:
        return None
    card = cards.card(name)
    return card if isinstance(card, Special) else None


def held(cards: CardSet, hand: Iterable[str]) -> list[Special]:
    """The special cards of ``hand``, in its order."""
    return [s for s in (special(cards, name) for name in hand) if s is not None]


def counters(card: Special) -> bool:
    """True for a card whose only use is to cancel another just played (Secrets)."""
    return card.timing == "counter"


def counter_in(cards: CardSet, hand: Iterable[str]) -> str:
    """The name of a card of ``hand`` that cancels another just played, or ""."""
    return next((s.name for s in held(cards, hand) if counters(s)), "")


def counter_name(cards: CardSet) -> str:
    """The name of a card of the set that cancels another just played, or ""."""
    return next((s.name for s in cards.specials if counters(s)), "")


def waits_for_roll(card: Special) -> bool:
    """True for a card played right after the dice (``IF SUCCEEDS|FAILS PLAY`` it)."""
    return card.timing == "after_roll"


def answers_attack(card: Special) -> bool:
    """True for a card that may be played on an attack under way."""
    return card.timing in ON_ATTACK


def at_turn_start(card: Special) -> bool:
    """True for a card played as a turn begins (a standing ``STARTS TURN`` order)."""
    return card.timing in ON_TURN_START


def on_own_turn(card: Special) -> bool:
    """True for a card played as the holder's own turn begins (not another's)."""
    return card.timing == "own_income"


def regular_action(card: Special) -> bool:
    """True for a card whose playing is one of the holder's two actions."""
    return card.timing == "own_action"


def takes_a_turn(card: Special) -> bool:
    """True for a card that costs the player whose turn begins that turn (the Senate)."""
    return card.targets == "active_player"


def lets_interfere(card: Special) -> bool:
    """True for a card that lets its holder interfere in a privileged attack."""
    return card.timing == "privileged_attack"


def against_privilege(card: Special) -> bool:
    """True for a card that undoes a privilege's shutting out (Deep Agent, Interference)."""
    return card.asked == "privileged_attack"


def interference_name(cards: CardSet) -> str:
    """The name of a card of the set that lets its holder interfere in a privileged
    attack, or ""."""
    return next((s.name for s in cards.specials if lets_interfere(s)), "")


def money(card: Special) -> int:
    """The MB the card pays its holder when played (0 for a card that pays none)."""
    return MONEY.get(card.effect, 0)


def asked(cards: CardSet, hand: Iterable[str], *, defending: bool, privileged: bool) -> bool:
    """Whether the holder of ``hand`` is asked to answer an attack for a card they hold.

    The defender is asked for any card asked in a window; another player for a card asked
    in any attack, or, when the attack is privileged, for one asked in a privileged attack.
    """
    for card in held(cards, hand):
        if card.asked == "any_attack":
            return True
        if card.asked == "privileged_attack" and (defending or privileged):
            return True
    return False


def offered(card: Special, role: Role, privileged: bool) -> bool:
    """Whether the answer form offers ``card`` to a player of ``role`` in an attack: a card
    asked in any attack when it can help that player's side (another player may help
    either), one asked in a privileged attack when the attack is and the player is not its
    attacker. A card that only cancels another is answered with COUNTER instead."""
    if counters(card) or card.asked == "never":
        return False
    if card.asked == "privileged_attack":
        return privileged and role != "attacker"
    return role == "other" or card.helps in (role, "either")


def cancels_for(card: Special | None, side: str) -> bool:
    """Whether a player on ``side`` ("attack", "defense" or "" for none) of an attack
    cancels ``card`` just played (None: a privilege abolished, which works for the defence)."""
    helps = "defender" if card is None else card.helps
    if side == "attack":
        return helps == "defender"
    if side == "defense":
        return helps == "attacker"
    return True


def helps_attacker(card: Special) -> bool:
    """True for a card that makes an attack succeed (Assassination)."""
    return card.helps == "attacker"


def helps_defender(card: Special) -> bool:
    """True for a card that makes an attack fail (Murphy's Law)."""
    return card.helps == "defender"


def takes_uncontrolled(card: Special) -> bool:
    """True for a card that takes an uncontrolled group without a roll (Bribery)."""
    return card.targets == "uncontrolled_group"


def moves_holders_money(card: Special) -> bool:
    """True for a card that moves the holder's money and adds to it (White Collar Crime)."""
    return card.targets == "holder_money"
