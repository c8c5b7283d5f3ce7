"""Every card renamed in a copy of the card data, and the game plays the same (issue 36): no
layer knows a card by its name, only by its data (docs/cards.md)."""

from __future__ import annotations

from pathlib import Path

from card_copies import renamed

from pbem.bots.simulate import play_game
from pbem.engine import behaviour
from pbem.engine.carddata import load_cardset


def test_a_bot_game_with_every_card_renamed_plays_as_with_the_printed_names(
        tmp_path: Path) -> None:
    """Seeded bot games (the bots play special cards: money, the roll's cards, Secrets, the
    Senate, Bribery) give the same game with every card renamed: the same number of
    commands and turns, the same outcome, the same winners' goals under the new names, and
    no broken invariant."""
    cards, names = renamed(tmp_path)
    assert not set(names) & set(cards.names())
    for index in range(3):
        printed = play_game(load_cardset(), index, 4, 36, turn_cap=60)
        other = play_game(cards, index, 4, 36, turn_cap=60)
        assert other.violations == [] and printed.violations == []
        assert (other.outcome, other.turns, other.commands) == (
            printed.outcome, printed.turns, printed.commands)
        assert other.goals == tuple(names.get(g, g) for g in printed.goals)
        assert other.seats == tuple((p, names[i], level) for p, i, level in printed.seats)


def test_renamed_special_cards_keep_their_behaviour(tmp_path: Path) -> None:
    """The behaviour each special card's data gives survives the renaming, card for card."""
    cards, names = renamed(tmp_path)
    printed = load_cardset()
    for card in printed.specials:
        again = cards.special(names[card.name])
        assert (again.effect, again.timing, again.asked, again.helps, again.conditional,
                again.targets) == (card.effect, card.timing, card.asked, card.helps,
                                   card.conditional, card.targets)
    assert behaviour.counter_name(cards) == names[behaviour.counter_name(printed)]
    assert behaviour.interference_name(cards) == names[behaviour.interference_name(printed)]
