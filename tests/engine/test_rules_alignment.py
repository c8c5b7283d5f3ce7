"""Rule cases: alignments for control and destruction, Fanatics, Criminals, the Media option."""

from __future__ import annotations

import pytest
from factory import BAVARIA, CARDS, GNOMES, free, game, money, need, place, run, term, terms

from pbem.engine.abilities import alignment_modifier, alignments, is_opposite
from pbem.engine.commands import Attack
from pbem.engine.state import GameState, Options


def attack(attacker: str, target: str, mode: str, options: Options | None = None) -> GameState:
    """ann's ``attacker`` announcing an attack on the uncontrolled ``target``."""
    state = game(options=options, ann=BAVARIA, bob=GNOMES)
    state = money(state, "ann", BAVARIA, 10)
    state = free(place(state, "ann", attacker), target)
    state, _ = run(state, Attack("ann", attacker, target, mode))  # type: ignore[arg-type]
    return state


@pytest.mark.parametrize(("a", "b"), [("Government", "Communist"), ("Liberal", "Conservative"),
                                      ("Peaceful", "Violent"), ("Straight", "Weird")])
def test_the_opposite_pairs(a: str, b: str) -> None:
    """summary-en: "Government is the opposite of Communist. Liberal is the opposite of
    Conservative. Peaceful is the opposite of Violent. Straight is the opposite of Weird." """
    assert is_opposite(a, b) and is_opposite(b, a)
    assert not is_opposite(a, a)


def test_criminal_has_no_opposite() -> None:
    """summary-en: "Criminal has no opposite alignment." """
    others = ["Government", "Communist", "Liberal", "Conservative", "Peaceful", "Violent",
              "Straight", "Weird", "Criminal", "Fanatic", "Media"]
    assert not any(is_opposite("Criminal", o) or is_opposite(o, "Criminal") for o in others)


def test_fanatic_is_the_opposite_of_fanatic_when_controlling() -> None:
    """summary-en: "Fanatic is the opposite of Fanatic." """
    state = attack("Moonies", "Libertarians", "control")  # Peaceful/Fanatic vs Fanatic
    assert term(state, "opposite_alignment") == -4
    assert term(state, "identical_alignment") == 0


def test_fanatics_destroy_each_other_more_easily() -> None:
    """rules-fr: "Rappel : tous les fanatiques sont opposés" """
    state = attack("Moonies", "Libertarians", "destroy")
    assert term(state, "opposite_alignment") == 4
    assert need(state) == 2 - 1 + 4


def test_destroying_adds_four_for_each_opposite_alignment() -> None:
    """rulebook-en: "2. Groups with different philosophies destroy each other more easily. An
    Attack to Destroy gets a 4 bonus for every opposite alignment, and a -4 for every identical
    alignment." """
    state = attack("Militia", "Moonies", "destroy")  # Violent/Conservative vs Peaceful/Fanatic
    assert term(state, "opposite_alignment") == 4
    state = attack("Militia", "KKK", "destroy")  # Violent/Conservative vs Conservative/Violent
    assert term(state, "identical_alignment") == -8
    assert need(state) == 2 - 2 - 8


def test_neutralizing_counts_alignments_as_control_does() -> None:
    """summary-en: "Attack to Neutralize. Same as above, except that attacker receives a +6
    bonus." """
    state = game(ann=BAVARIA, bob=GNOMES)
    state = place(place(state, "ann", "Militia"), "bob", "KKK")
    state, _ = run(state, Attack("ann", "Militia", "KKK", "neutralize"))
    assert term(state, "identical_alignment") == 8 and term(state, "neutralize") == 6


def test_a_group_with_several_alignments_counts_each_pair() -> None:
    """rulebook-en: "If the Groups have any identical alignments, add 4 to the attacker's
    effective Power for each identical alignment. If they have any opposite alignments,
    subtract 4 for each." """
    # Liberal/Straight against Conservative/Straight/Fanatic: Straight same, Liberal opposed.
    assert alignment_modifier(("Liberal", "Straight"), ("Conservative", "Straight", "Fanatic"),
                              "control") == (1, 1)
    state = attack("Triliberal Commission", "Moral Minority", "control")
    assert term(state, "identical_alignment") == 4 and term(state, "opposite_alignment") == -4


def test_groups_without_alignment_get_neither_bonus() -> None:
    """rulebook-en: "The alignments of the attacking and defending Groups are also important." """
    state = attack("Multinational Oil Companies", "KGB", "control")
    assert [kind for kind, _, _ in terms(state)] == ["power", "resistance"]


def test_there_is_no_media_alignment_by_default() -> None:
    """rules-fr: "Média : pas d'alignement opposé." (a French addition, off by default)"""
    state = game(ann=BAVARIA)
    assert "Media" not in alignments(CARDS, state, "Big Media")
    state = attack("Big Media", "Empty Vee", "control")
    assert term(state, "identical_alignment") == 0


def test_with_the_french_option_media_groups_attract_each_other() -> None:
    """rules-fr: "les médias n'ont pas d'opposés et rapportent 4 points lors d'une attaque pour
    contrôler ou pour détruire un autre média." """
    media = Options(media_alignment=True)
    assert "Media" in alignments(CARDS, game(options=media, ann=BAVARIA), "Big Media")
    control = attack("Big Media", "Empty Vee", "control", media)
    assert term(control, "identical_alignment") == 4
    destroy = attack("Big Media", "Empty Vee", "destroy", media)
    assert term(destroy, "media_alignment") == 4 and term(destroy, "identical_alignment") == 0


def test_media_has_no_opposite() -> None:
    """rules-fr: "Média : pas d'alignement opposé." """
    media = Options(media_alignment=True)
    state = attack("Big Media", "Boy Sprouts", "control", media)  # Liberal/Straight/Media
    assert term(state, "opposite_alignment") == 0
    assert term(state, "identical_alignment") == 4  # Straight only
