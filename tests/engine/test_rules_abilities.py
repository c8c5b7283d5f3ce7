"""Rule cases: the Illuminati's abilities and every group ability in the card data."""

from __future__ import annotations

from dataclasses import replace

import pytest
from factory import (
    ASSASSINS,
    BAVARIA,
    BERMUDA,
    CARDS,
    CTHULHU,
    DISCORDIA,
    GNOMES,
    LEFT,
    NETWORK,
    RIGHT,
    UP,
    attack_to_result,
    free,
    game,
    master_of,
    money,
    money_balances,
    place,
    run,
    term,
    terms,
    treasury,
)
from support import refuses

from pbem.engine.cards import ATTACK_MODES, AttackBonus, Group, Illuminati
from pbem.engine.commands import (
    Attack,
    DropGroup,
    EndPowers,
    EndTurn,
    MoveGroup,
    TransferMoney,
    UseLasers,
)
from pbem.engine.state import GameState
from pbem.errors import IllegalCommandError

OIL = "Multinational Oil Companies"  # power 6, no alignment, three outgoing arrows


def base(illuminati: str = GNOMES, other: str = BAVARIA) -> GameState:
    state = game(ann=illuminati, bob=other)
    state = money(state, "ann", illuminati, 10)
    return place(state, "ann", OIL, arrow=UP)


# --- group abilities, every one in the data ------------------------------------------------


def bonus_cases() -> list[tuple[str, int, AttackBonus, str]]:
    """(card, index, bonus, mode) for every attack bonus of every card, in every mode."""
    out: list[tuple[str, int, AttackBonus, str]] = []
    cards: list[Group | Illuminati] = [*CARDS.illuminati, *CARDS.groups]
    for card in cards:
        for i, bonus in enumerate(card.abilities.bonuses):
            out.extend((card.name, i, bonus, mode) for mode in bonus.modes)
    return out


def matching_target(holder: str, bonus: AttackBonus, mode: str) -> str:
    """A group the bonus applies to, able to be attacked this way, other than the cards
    already in play."""
    taken = {holder, OIL}
    candidates = bonus.target.names or tuple(
        g.name for g in CARDS.groups
        if not bonus.target.alignments or set(g.alignments) & set(bonus.target.alignments)
    )
    for name in candidates:
        group = CARDS.group(name)
        if name not in taken and (mode != "destroy" or group.power > 0):
            return name
    raise AssertionError(f"no target for {holder}'s bonus {bonus}")


BONUSES = bonus_cases()


@pytest.mark.parametrize(("holder", "index", "bonus", "mode"), BONUSES,
                         ids=[f"{h}-{i}-{m}" for h, i, _, m in BONUSES])
def test_every_attack_bonus_in_the_data_applies(holder: str, index: int, bonus: AttackBonus,
                                                 mode: str) -> None:
    """rulebook-en: "Any attempt by that player to do that thing, regardless of which Group
    tries it, will receive the indicated bonus." (rulebook-en: "Other abilities apply only to
    the card itself.")"""
    is_illuminati = isinstance(CARDS.card(holder), Illuminati)
    state = base(holder if is_illuminati else GNOMES)
    if not is_illuminati:
        state = place(state, "ann", holder, arrow=RIGHT)
    target = matching_target(holder, bonus, mode)
    state = place(state, "bob", target) if mode == "neutralize" else free(state, target)
    attacker = holder if bonus.scope == "direct" else OIL
    announced, _ = run(state, Attack("ann", attacker, target, mode))  # type: ignore[arg-type]
    assert ("ability", holder, bonus.amount) in terms(announced)
    if bonus.scope == "direct":
        # "If you try to take over a Criminal Group with another card, the fact that you hold
        # the Mafia makes no difference."
        other, _ = run(state, Attack("ann", OIL, target, mode))  # type: ignore[arg-type]
        assert ("ability", holder, bonus.amount) not in terms(other)


def test_a_direct_bonus_helps_only_the_card_itself() -> None:
    """rulebook-en: "If you try to take over a Criminal Group with another card, the fact that
    you hold the Mafia makes no difference." """
    state = free(place(base(), "ann", "The Mafia", arrow=RIGHT), "Junk Mail")
    state, _ = run(state, Attack("ann", OIL, "Junk Mail", "control"))
    assert term(state, "ability") == 0


def test_an_any_attempt_bonus_is_not_given_to_other_targets() -> None:
    """rulebook-en: "For instance, if you control the Cycle Gangs, any attempt you make to
    destroy another Group with any of your Groups will get a 2 bonus." (to destroy only)"""
    state = free(place(base(), "ann", "Cycle Gangs", arrow=RIGHT), "Nuclear Power Companies")
    control, _ = run(state, Attack("ann", OIL, "Nuclear Power Companies", "control"))
    assert term(control, "ability") == 0
    destroy, _ = run(state, Attack("ann", OIL, "Nuclear Power Companies", "destroy"))
    assert term(destroy, "ability") == 2


def test_an_any_attempt_bonus_comes_and_goes_with_its_group() -> None:
    """rulebook-en: "This ability comes to you as soon as you take over the Cycle Gangs, and is
    lost as soon as you lose them." """
    state = free(base(), "Cycle Gangs", "Nuclear Power Companies")
    state = money(state, "ann", GNOMES, 10)
    state, _ = attack_to_result(state, Attack("ann", OIL, "Cycle Gangs", "control"))
    assert master_of(state, "Cycle Gangs") == OIL
    gained, _ = run(state, Attack("ann", GNOMES, "Nuclear Power Companies", "destroy"))
    assert ("ability", "Cycle Gangs", 2) in terms(gained)
    lost, _ = run(state, DropGroup("ann", "Cycle Gangs"),
                  Attack("ann", GNOMES, "Nuclear Power Companies", "destroy"))
    assert term(lost, "ability") == 0


def test_a_group_without_outgoing_arrows_still_gives_a_bonus_to_control() -> None:
    """rulebook-en: "A Group may give a bonus on "any attempt to control," even if it has no
    outgoing arrows." """
    assert CARDS.group("Science Fiction Fans").sides.count("out") == 0
    state = free(place(base(), "ann", "Science Fiction Fans", arrow=RIGHT), "L-4 Society")
    state, _ = run(state, Attack("ann", OIL, "L-4 Society", "control"))
    assert ("ability", "Science Fiction Fans", 2) in terms(state)


@pytest.mark.parametrize(("attacker", "resistance"),
                         [("CFL-AIO", 10), ("Orbital Mind Control Lasers", 10),
                          ("L-4 Society", 10), (OIL, 3)])
def test_the_gun_lobby_resists_liberal_communist_and_weird_groups_at_ten(
        attacker: str, resistance: int) -> None:
    """groups.csv: "resistance 10 instead of 3 against attacks by Liberal, Communist or Weird
    groups" """
    state = free(base(), "Gun Lobby")
    if attacker != OIL:
        state = place(state, "ann", attacker, arrow=RIGHT)
    state, _ = run(state, Attack("ann", attacker, "Gun Lobby", "control"))
    assert term(state, "resistance") == -resistance


def test_the_survivalists_add_two_to_every_other_group_of_their_structure() -> None:
    """groups.csv: "+2 resistance to every other group of the same power structure" """
    state = place(place(base(), "bob", "Survivalists"), "bob", "L-4 Society")
    other, _ = run(state, Attack("ann", OIL, "L-4 Society", "control"))
    assert ("defense_ability", "Survivalists", -2) in terms(other)
    itself, _ = run(state, Attack("ann", OIL, "Survivalists", "control"))
    assert term(itself, "defense_ability") == 0


def test_the_chinese_campaign_donors_count_as_government_against_government() -> None:
    """groups.csv: "counts as Government when it attacks to control a Government group" (in
    addition to being Communist: the two pairs cancel out)"""
    state = free(place(base(), "ann", "Chinese Campaign Donors", arrow=RIGHT), "Post Office",
                 "F.B.I.")
    state, _ = run(state, Attack("ann", "Chinese Campaign Donors", "Post Office", "control"))
    assert term(state, "identical_alignment") == 4
    assert term(state, "opposite_alignment") == -4


def test_the_chinese_campaign_donors_are_only_communist_when_destroying() -> None:
    """groups.csv: "counts as Government when it attacks to control a Government group" """
    state = free(place(base(), "ann", "Chinese Campaign Donors", arrow=RIGHT), "Post Office")
    state, _ = run(state, Attack("ann", "Chinese Campaign Donors", "Post Office", "destroy"))
    assert term(state, "identical_alignment") == 0
    assert term(state, "opposite_alignment") == 4


# --- the Orbital Mind Control Lasers ----------------------------------------------------------


def with_lasers() -> GameState:
    state = place(base(), "ann", "Orbital Mind Control Lasers", arrow=RIGHT)
    return free(place(state, "ann", "International Communist Conspiracy", arrow=LEFT),
                "F.B.I.", "L-4 Society")


def test_the_lasers_change_an_alignment_for_the_attack() -> None:
    """rulebook-en: "Example: A Weird, Communist Group is trying to control a Straight,
    Government Group. Two sets of opposite alignments subtract 8 from the attacking power on
    this attack." (the Lasers make the Communist Conspiracy Weird too)"""
    state, _ = run(with_lasers(), UseLasers("ann", "International Communist Conspiracy",
                                            "add", "Weird"))
    state, _ = run(state, Attack("ann", "International Communist Conspiracy", "F.B.I.",
                                 "control"))
    assert term(state, "opposite_alignment") == -8


@pytest.mark.parametrize(("change", "alignment", "after"),
                         [("add", "Criminal", ("Liberal", "Criminal")),
                          ("remove", "Liberal", ()),
                          ("reverse", "Liberal", ("Conservative",))])
def test_the_lasers_add_remove_or_reverse_one_alignment(change: str, alignment: str,
                                                        after: tuple[str, ...]) -> None:
    """groups.csv: "once on the owner's turn: add, remove or reverse one alignment of any one
    other group; lasts until end of that turn" """
    state = free(with_lasers(), "Feminists")
    state, events = run(state, UseLasers("ann", "Feminists", change,  # type: ignore[arg-type]
                                         alignment))  # type: ignore[arg-type]
    assert events[0].data["now"] == after
    assert state.turn.alignment_changes == (("Feminists", after),)
    state, _ = run(state, EndTurn("ann"))
    assert state.turn.alignment_changes == ()


@pytest.mark.parametrize(("group", "alignment", "key"),
                         [("Goldfish Fanciers", "Fanatic", "alignment_own_opposite"),
                          ("Loan Sharks", "Criminal", "alignment_no_opposite")])
def test_the_lasers_cannot_reverse_an_alignment_without_an_opposite(group: str,
                                                                    alignment: str,
                                                                    key: str) -> None:
    """groups.csv: "add, remove or reverse one alignment"; summary-en: "Criminal has no
    opposite alignment." summary-en: "Fanatic is the opposite of Fanatic." Reversing
    Criminal changes nothing for want of an opposite; reversing Fanatic gives Fanatic again.
    Each is refused for what it is (in the summary's words: Fanatic has an opposite, itself),
    and the Lasers stay unused."""
    state = free(with_lasers(), group)
    with pytest.raises(IllegalCommandError) as refused:
        run(state, UseLasers("ann", group, "reverse", alignment))  # type: ignore[arg-type]
    assert refused.value.key == key
    assert group not in str(refused.value)
    assert not state.turn.lasers_used
    state, _ = run(state, UseLasers("ann", group, "remove", alignment))  # type: ignore[arg-type]
    assert state.turn.lasers_used


def test_the_lasers_cannot_add_media_without_the_media_option() -> None:
    """rules-fr: "Il existe 9 alignements politiques" (Media the ninth) is the French
    option; the English rules have eight and no Media. Without the option
    ``LASERS ADD Media`` names no alignment of the game: it is refused before the Lasers'
    one use of the turn is spent; with the option it works."""
    state = free(with_lasers(), "Feminists")
    with pytest.raises(IllegalCommandError) as refused:
        run(state, UseLasers("ann", "Feminists", "add", "Media"))
    assert refused.value.key == "alignment_not_in_game"
    assert refused.value.words["alignment"] == "Media"
    state, _ = run(state, UseLasers("ann", "Feminists", "add", "Weird"))
    assert state.turn.lasers_used
    media = replace(state, options=replace(state.options, media_alignment=True),
                    turn=replace(state.turn, lasers_used=False, alignment_changes=()))
    media, _ = run(media, UseLasers("ann", "Feminists", "add", "Media"))
    assert "Media" in dict(media.turn.alignment_changes)["Feminists"]


def test_the_lasers_work_once_a_turn_and_not_on_themselves() -> None:
    """groups.csv: "once on the owner's turn: add, remove or reverse one alignment of any one
    other group" """
    with refuses("lasers_target"):
        run(with_lasers(), UseLasers("ann", "Orbital Mind Control Lasers", "add", "Weird"))
    state, _ = run(with_lasers(), UseLasers("ann", "F.B.I.", "remove", "Straight"))
    with refuses("lasers_unusable", player="ann"):
        run(state, UseLasers("ann", "F.B.I.", "add", "Weird"))


# --- the Illuminati ------------------------------------------------------------------------


def test_the_discordians_get_four_on_any_attempt_to_control_a_weird_group() -> None:
    """illuminati.csv: "+4 on any attempt to control a Weird group" """
    state = free(base(DISCORDIA), "L-4 Society")
    state, _ = run(state, Attack("ann", OIL, "L-4 Society", "control"))
    assert ("ability", DISCORDIA, 4) in terms(state)


def test_discordian_groups_are_immune_to_government_and_straight_attackers() -> None:
    """illuminati.csv: "its groups are immune to attacks by Government or Straight groups" """
    state = game(ann=GNOMES, bob=DISCORDIA)
    state = place(place(state, "ann", "Pentagon"), "ann", "Tobacco & Liquor Companies")
    state = place(state, "bob", "L-4 Society")
    for attacker in ("Pentagon", "Tobacco & Liquor Companies"):  # Government; Straight
        for mode in ATTACK_MODES:
            with refuses("immune"):
                run(state, Attack("ann", attacker, "L-4 Society", mode))
    state, _ = run(state, Attack("ann", GNOMES, "L-4 Society", "control"))
    assert state.attack is not None


def test_the_discordian_immunity_does_not_cover_uncontrolled_groups() -> None:
    """illuminati.csv: "its groups are immune to attacks by Government or Straight groups" """
    state = free(place(game(ann=GNOMES, bob=DISCORDIA), "ann", "Pentagon"), "L-4 Society")
    state, _ = run(state, Attack("ann", "Pentagon", "L-4 Society", "control"))
    assert state.attack is not None


def test_the_chinese_campaign_donors_count_as_government_against_the_discordians() -> None:
    """groups.csv: "counts as Government when it attacks to control a Government group";
    illuminati.csv: "its groups are immune to attacks by Government or Straight groups".
    Counting as Government in that attack, they are a Government attacker for every rule of
    it, the Discordians' immunity included; destroying, they are only Communist."""
    state = game(ann=GNOMES, bob=DISCORDIA)
    state = place(money(state, "ann", GNOMES, 10), "ann", "Chinese Campaign Donors")
    state = place(state, "bob", "Post Office")
    with pytest.raises(IllegalCommandError) as refused:
        run(state, Attack("ann", "Chinese Campaign Donors", "Post Office", "control"))
    assert refused.value.key == "immune"
    state, _ = run(state, Attack("ann", "Chinese Campaign Donors", "Post Office", "destroy"))
    assert state.attack is not None


def test_the_servants_of_cthulhu_get_two_on_any_attempt_to_destroy() -> None:
    """illuminati.csv: "+2 on any attempt to destroy (any group)" """
    state = free(base(CTHULHU), "Nuclear Power Companies")
    state, _ = run(state, Attack("ann", OIL, "Nuclear Power Companies", "destroy"))
    assert ("ability", CTHULHU, 2) in terms(state)


def test_the_assassins_get_four_on_any_attempt_to_neutralize() -> None:
    """illuminati.csv: "+4 on any attempt to neutralize (any group)" """
    state = place(base(ASSASSINS), "bob", "Nuclear Power Companies")
    state, _ = run(state, Attack("ann", OIL, "Nuclear Power Companies", "neutralize"))
    assert ("ability", ASSASSINS, 4) in terms(state)


def test_the_gnomes_move_money_freely_at_the_end_of_their_turn() -> None:
    """illuminati.csv: "may move money freely between its groups at the end of its turn" """
    state = place(place(base(GNOMES), "ann", "Yuppies", master=OIL), "ann", "KGB", arrow=LEFT)
    state, _ = run(state, EndPowers("ann"))
    moves = [TransferMoney("ann", GNOMES, "Yuppies", 3), TransferMoney("ann", "Yuppies", "KGB", 1),
             TransferMoney("ann", GNOMES, "KGB", 2)]
    state, _ = run(state, *moves)
    assert (treasury(state, GNOMES), treasury(state, "Yuppies"), treasury(state, "KGB")) \
        == (5, 2, 3)
    assert state.turn.actions == 0 and state.turn.free_transfers == 0
    assert money_balances(state)


def test_no_actions_after_the_end_of_turn_powers() -> None:
    """summary-en: "- Take special-power actions." (the last step of the turn)"""
    state = free(base(GNOMES), "L-4 Society")
    state, _ = run(state, EndPowers("ann"))
    with refuses("actions_after_end_powers"):
        run(state, Attack("ann", OIL, "L-4 Society", "control"))


def test_only_the_gnomes_and_bermuda_have_end_of_turn_powers() -> None:
    """illuminati.csv: "may reorganize its power structure freely at the end of its turn" """
    with refuses("no_end_powers"):
        run(base(NETWORK), EndPowers("ann"))


def test_the_bermuda_triangle_reorganizes_freely_at_the_end_of_its_turn() -> None:
    """illuminati.csv: "may reorganize its power structure freely at the end of its turn" """
    state = place(place(base(BERMUDA), "ann", "Yuppies", master=OIL), "ann", "KGB", arrow=LEFT)
    state, _ = run(state, EndPowers("ann"), MoveGroup("ann", "Yuppies", BERMUDA, RIGHT),
                   MoveGroup("ann", "KGB", "Yuppies", UP),
                   MoveGroup("ann", OIL, BERMUDA, LEFT))
    assert master_of(state, "Yuppies") == BERMUDA and master_of(state, "KGB") == "Yuppies"
    assert state.turn.actions == 0

