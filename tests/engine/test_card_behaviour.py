"""A special card's behaviour as card data (``asked``, ``helps``, ``conditional``,
``targets`` beside ``timing``), checked as the file is read and asked through
``pbem.engine.behaviour`` (issue 36; docs/cards.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from card_copies import SODS_LAW, reprinted

from pbem.engine import behaviour
from pbem.engine.carddata import load_cardset
from pbem.engine.cards import Special
from pbem.errors import CardDataError

CARDS = load_cardset()


def _by_effect(effect: str) -> Special:
    (card,) = [s for s in CARDS.specials if s.effect == effect]
    return card


def test_the_roll_cards_help_opposite_sides_and_wait_for_the_roll() -> None:
    """Rulebook, "Special Cards": Assassination, "right after the dice are rolled on any
    attack ... the roll becomes a 2" (a success: it helps the attacker, IF FAILS); Murphy's
    Law, "the roll becomes a 12" (a failure: it helps the defender, IF SUCCEEDS). Their
    holders are asked in any attack."""
    assassination, murphy = _by_effect("assassination"), _by_effect("murphys_law")
    assert (assassination.helps, assassination.conditional) == ("attacker", "fails")
    assert (murphy.helps, murphy.conditional) == ("defender", "succeeds")
    assert behaviour.offered(assassination, "attacker", False)
    assert not behaviour.offered(assassination, "defender", False)
    assert behaviour.offered(murphy, "defender", False)
    assert not behaviour.offered(murphy, "attacker", False)
    assert behaviour.offered(murphy, "other", False) and behaviour.offered(
        assassination, "other", False)
    assert behaviour.asked(CARDS, (murphy.name,), defending=False, privileged=False)


def test_the_privilege_cards_are_asked_only_against_a_privilege() -> None:
    """Rulebook, "Privileged Attacks": Deep Agent is played "after privilege is declared",
    Interference "during a privileged attack": another player holding one is asked only when
    the attack is privileged (the defender whenever they are asked)."""
    deep_agent = _by_effect("deep_agent")
    hand = (deep_agent.name,)
    assert not behaviour.asked(CARDS, hand, defending=False, privileged=False)
    assert behaviour.asked(CARDS, hand, defending=False, privileged=True)
    assert behaviour.asked(CARDS, hand, defending=True, privileged=False)
    assert behaviour.offered(deep_agent, "other", True)
    assert not behaviour.offered(deep_agent, "attacker", True)
    assert not behaviour.offered(deep_agent, "other", False)
    assert behaviour.interference_name(CARDS) == _by_effect("interference").name


def test_the_secrets_counter_cancels_what_works_against_its_holder_s_side() -> None:
    """Rulebook, Secrets Man Was Not Meant To Know: "when any other special card is played:
    that card has no effect". A player on the attack cancels what helps the defence, one
    defending what helps the attack; an abolished privilege (None) works for the defence."""
    murphy, assassination = _by_effect("murphys_law"), _by_effect("assassination")
    assert behaviour.cancels_for(murphy, "attack") and not behaviour.cancels_for(murphy,
                                                                                "defense")
    assert behaviour.cancels_for(assassination, "defense")
    assert behaviour.cancels_for(None, "attack") and not behaviour.cancels_for(None, "defense")
    assert behaviour.counter_in(CARDS, ("Slush Fund", behaviour.counter_name(CARDS)))


def test_a_reprint_is_read_with_its_behaviour(tmp_path: Path) -> None:
    """Murphy's Law printed again as Sod's Law: every question the layers ask about it gets
    the original's answer."""
    cards = reprinted(tmp_path)
    original, reprint = cards.special("Murphy's Law"), cards.special("Sod's Law")
    for question in (behaviour.waits_for_roll, behaviour.helps_defender,
                     behaviour.answers_attack, behaviour.counters, behaviour.money):
        assert question(reprint) == question(original)
    for role in ("attacker", "defender", "other"):
        assert behaviour.offered(reprint, role, False) == behaviour.offered(original, role,
                                                                            False)


@pytest.mark.parametrize(("field", "value", "says"), [
    ("helps", '"defence"', 'unknown value "defence"; did you mean "defender"?'),
    ("conditional", '"fails"', 'helps the attacker, not "defender"'),
    ("targets", '"dead_group"', 'effect "murphys_law" is played on "attack", not "dead_group"'),
    ("asked", '"sometimes"', 'unknown value "sometimes"'),
])
def test_a_wrong_behaviour_is_refused_naming_the_card_and_the_field(
        tmp_path: Path, field: str, value: str, says: str) -> None:
    """The card file's checks (docs/cards.md, "What the loader refuses"): a behaviour that
    does not fit the card is refused, the error naming the card and the field."""
    broken = SODS_LAW.replace(f"\n{field} = ", f"\n{field} = {value}\n#", 1)
    with pytest.raises(CardDataError) as caught:
        reprinted(tmp_path, broken)
    # A condition that does not fit the side the card helps is told on "helps".
    where = "helps" if field == "conditional" else field
    assert f'card "Sod\'s Law", field "{where}"' in str(caught.value)
    assert says in str(caught.value)


def test_a_condition_on_a_card_not_played_after_the_roll_is_refused(tmp_path: Path) -> None:
    """IF SUCCEEDS|FAILS PLAY is for a card played "right after the dice are rolled": a
    card played at any time has no conditional form, and one asked in an attack window must
    be playable there."""
    money = SODS_LAW.replace('effect = "murphys_law"', 'effect = "slush_fund"').replace(
        'timing = "after_roll"', 'timing = "any_time"').replace(
        'targets = "attack"', 'targets = "holder"').replace('asked = "any_attack"',
                                                           'asked = "never"')
    with pytest.raises(CardDataError, match='card "Sod\'s Law", field "conditional": needed'):
        reprinted(tmp_path, money)
    asked = money.replace('conditional = "succeeds"\n', "").replace(
        'asked = "never"', 'asked = "any_attack"').replace('helps = "defender"', 'helps = "none"')
    with pytest.raises(CardDataError, match='card "Sod\'s Law", field "asked": a card with '
                                            'timing "any_time" cannot answer an attack'):
        reprinted(tmp_path, asked)
