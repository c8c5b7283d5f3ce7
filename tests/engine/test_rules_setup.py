"""Rule cases: setting up a game (Illuminati, starting money, uncontrolled groups, order)."""

from __future__ import annotations

from collections import Counter

import pytest
from factory import CARDS, GNOMES, NETWORK, UFOS

from pbem.engine.cards import Special
from pbem.engine.dice import Dice, shuffled
from pbem.engine.setup import Setup, StartingSeat, new_game, victory_groups, with_options
from pbem.engine.state import Options
from pbem.errors import IllegalCommandError

SEED = "a1" * 16


def setup(*seats: StartingSeat, seed: str = SEED) -> Setup:
    return Setup(game="g", seats=seats, seed=seed)


def test_each_player_starts_with_one_illuminati_and_its_money() -> None:
    """rules-fr: "Chacun pioche une carte Illuminati et le place, face visible devant lui.
    - Placez les ressources indiquées (MB) sur la carte." """
    state, _ = new_game(CARDS, setup(StartingSeat("ann"), StartingSeat("bob"), StartingSeat("cy")))
    dealt = [p.illuminati for p in state.players]
    assert len(set(dealt)) == 3
    for p in state.players:
        assert [s.card for s in p.structure] == [p.illuminati]
        assert p.treasury == CARDS.illuminati_card(p.illuminati).income
    assert state.money_issued == state.money_in_play


def test_a_chosen_illuminati_is_kept() -> None:
    """summary-en: "after players choose their Illuminati" """
    state, _ = new_game(CARDS, setup(StartingSeat("ann", GNOMES), StartingSeat("bob", NETWORK)))
    assert {p.name: p.illuminati for p in state.players} == {"ann": GNOMES, "bob": NETWORK}


def test_two_players_cannot_hold_the_same_illuminati() -> None:
    """rules-fr: "Chacun pioche une carte Illuminati" (each Illuminati card exists once)."""
    with pytest.raises(IllegalCommandError, match="same Illuminati"):
        new_game(CARDS, setup(StartingSeat("ann", GNOMES), StartingSeat("bob", GNOMES)))


def test_four_uncontrolled_groups_are_dealt_face_up() -> None:
    """rules-fr: "Piochez 4 cartes et placez-les, face visible, sur la table. Ce sont les
    groupes non contrôlés." """
    state, events = new_game(CARDS, setup(StartingSeat("ann"), StartingSeat("bob")))
    assert len(state.uncontrolled) == 4
    assert all(not isinstance(CARDS.card(c), Special) for c in state.uncontrolled)
    every = Counter((*state.deck, *state.uncontrolled))
    expected = Counter([g.name for g in CARDS.groups]
                       + [s.name for s in CARDS.specials for _ in range(s.copies)])
    assert every == expected
    assert [e.data["groups"] for e in events if e.kind == "uncontrolled"] == [state.uncontrolled]


def test_a_special_card_dealt_at_setup_goes_under_the_pile() -> None:
    """rules-fr: "Si vous avez tiré une carte spéciale, remettez-la sous la pile et tirez-en
    une autre." """
    chosen = (StartingSeat("ann", GNOMES), StartingSeat("bob", NETWORK))
    free = [i.name for i in CARDS.illuminati if i.name not in (GNOMES, NETWORK)]
    deck_cards = [g.name for g in CARDS.groups]
    deck_cards += [s.name for s in CARDS.specials for _ in range(s.copies)]
    specials = {s.name for s in CARDS.specials}
    for n in range(200):
        seed = f"{n:064x}"
        _, dice = shuffled(free, Dice(seed))
        order, _ = shuffled(deck_cards, dice)
        if order[0] in specials and order[1] not in specials:
            break
    else:
        pytest.fail("no seed puts a special card on top of the shuffled deck")
    state, _ = new_game(CARDS, setup(*chosen, seed=seed))
    dealt = [c for c in order if c not in specials][:4]
    passed = [c for c in order[: order.index(dealt[-1])] if c in specials]
    assert list(state.uncontrolled) == dealt
    assert list(state.deck[-len(passed) :]) == passed


def test_the_highest_roll_plays_first() -> None:
    """rules-fr: "À tour de rôle, chacun lance les dés. - Celui qui obtient le meilleur score
    commence." """
    names = ["ann", "bob", "cy"]
    for n in range(20):
        state, events = new_game(CARDS, setup(*(StartingSeat(x) for x in names), seed=f"{n:064x}"))
        (order,) = [e for e in events if e.kind == "turn_order"]
        rolls = list(order.data["rolls"])
        # Everyone rolls; the tied best roll again, until one is best.
        contenders = list(names)
        while len(contenders) > 1:
            round_, rolls = rolls[: len(contenders)], rolls[len(contenders) :]
            assert [name for name, _ in round_] == contenders
            best = max(score for _, score in round_)
            contenders = [name for name, score in round_ if score == best]
        assert rolls == []
        first = contenders[0]
        # The best roll starts; play then goes round the seats in their order.
        i = names.index(first)
        assert [p.name for p in state.players] == names[i:] + names[:i]
        assert state.active == 0 and state.phase == "turn_start"


def test_the_ufos_choose_one_of_the_seven_other_goals_in_secret() -> None:
    """summary-en: "the UFO player picks one of the seven special victory conditions listed
    above. He writes it down, keeping it a secret from the other players." """
    state, events = new_game(CARDS, setup(StartingSeat("ann", UFOS, secret_goal=GNOMES),
                                          StartingSeat("bob")))
    assert state.player("ann").secret_goal == GNOMES
    (secret,) = [e for e in events if e.kind == "secret_goal"]
    assert secret.visible_to == ("ann",)
    dealt, _ = new_game(CARDS, setup(StartingSeat("ann", UFOS), StartingSeat("bob")))
    goal = dealt.player("ann").secret_goal
    assert goal in {i.name for i in CARDS.illuminati} - {UFOS}


def test_the_ufos_cannot_choose_their_own_goal() -> None:
    """summary-en: "picks one of the seven special victory conditions listed above" """
    with pytest.raises(IllegalCommandError, match="not a goal"):
        new_game(CARDS, setup(StartingSeat("ann", UFOS, secret_goal=UFOS), StartingSeat("bob")))


@pytest.mark.parametrize(("players", "groups"),
                         [(2, 13), (3, 13), (4, 12), (5, 10), (6, 9), (7, 8), (8, 8)])
def test_the_basic_goal_depends_on_the_number_of_players(players: int, groups: int) -> None:
    """summary-en: "Groups to be controlled, including Illuminati ... 4 players ... 12 ...
    5 players ... 10 ... 6 players ... 9 ... 7 or 8 players ... 8" """
    assert victory_groups(CARDS, players) == groups
    seats = tuple(StartingSeat(f"p{i}") for i in range(players))
    resolved = with_options(CARDS, setup(*seats))
    assert resolved.options.victory_groups == groups


def test_the_basic_goal_can_be_set_at_the_start() -> None:
    """endgame-en: "Set the number at the beginning of the game; the more groups, the longer
    the game." """
    resolved = with_options(CARDS, setup(StartingSeat("a"), StartingSeat("b")), victory_groups=10)
    assert resolved.options.victory_groups == 10


@pytest.mark.parametrize("count", [1, 9])
def test_a_game_has_two_to_eight_players(count: int) -> None:
    """summary-en: "2 or 3 players (not recommended)... 7 or 8 players" """
    seats = tuple(StartingSeat(f"p{i}") for i in range(count))
    with pytest.raises(IllegalCommandError, match="2 to 8 players"):
        new_game(CARDS, setup(*seats))


def test_options_default_to_the_english_rulebook() -> None:
    """rules-fr: "Si le nombre de groupes non contrôlés devait tomber en dessous de 3" (an
    option; the English rules have no refill, no Media alignment and The Network at 20)."""
    options = Options()
    assert options.uncontrolled_refill == 0
    assert options.media_alignment is False
    assert options.network_goal == 20
