"""Rule cases: privileged attacks, the Bavarian privilege, abolishing privilege, Interference."""

from __future__ import annotations

import pytest
from factory import (
    BAVARIA,
    GNOMES,
    NETWORK,
    UFOS,
    attack_to_result,
    deal,
    free,
    game,
    money,
    need,
    of_kind,
    place,
    result,
    run,
    special,
    treasury,
)
from support import refuses

from pbem.engine.commands import (
    AbolishPrivilege,
    Attack,
    CallOff,
    Counter,
    Interfere,
    PlaySpecial,
    ResolveSpecial,
    Spend,
)
from pbem.engine.state import GameState

OIL = "Multinational Oil Companies"
SECRETS = "Secrets Man Was Not Meant To Know"


def position(illuminati: str = GNOMES) -> GameState:
    """ann (``illuminati``, 10 MB, Multinational Oil) attacks; bob owns L-4 Society (2 MB);
    cy and dan stand by with 10 MB each."""
    state = game(ann=illuminati, bob=BAVARIA if illuminati != BAVARIA else GNOMES, cy=NETWORK,
                 dan=UFOS)
    state = money(state, "ann", illuminati, 10)
    state = money(state, "cy", NETWORK, 10)
    state = money(state, "dan", UFOS, 10)
    state = place(state, "ann", OIL)
    state = place(state, "bob", "L-4 Society", treasury=2)
    return free(state, "Boy Sprouts")


def privileged(state: GameState, card: str = "Slush Fund") -> GameState:
    state = deal(state, "ann", card)
    state, _ = run(state, Attack("ann", OIL, "L-4 Society", "control", privilege="card",
                                 privilege_card=card))
    return state


def test_discarding_a_special_card_makes_the_attack_privileged() -> None:
    """rulebook-en: "To do this, he must discard any one Special card and call "Privilege!"
    when first declaring the attack." """
    state = privileged(position())
    assert state.attack is not None and state.attack.privileged
    assert state.player("ann").hand == () and state.discards == ("Slush Fund",)


def test_privilege_needs_a_special_card_in_hand() -> None:
    """rulebook-en: "he must discard any one Special card" """
    with refuses("privilege_card_not_held"):
        run(position(), Attack("ann", OIL, "L-4 Society", "control", privilege="card",
                               privilege_card="Slush Fund"))


@pytest.mark.parametrize("side", ["assist", "interfere"])
def test_no_one_interferes_either_way_in_a_privileged_attack(side: str) -> None:
    """rulebook-en: "No one can interfere either for or against a Privileged Attack." """
    with refuses("privileged_interfere"):
        run(privileged(position()), Interfere("cy", 1, side))  # type: ignore[arg-type]


def test_the_defender_still_spends_in_a_privileged_attack() -> None:
    """rulebook-en: "If the defending Group is controlled by another player, the defender may
    counter an attack by spending some of his own money." (privilege stops interference
    only)"""
    state = privileged(position())
    before = need(state)
    state, _ = run(state, Spend("bob", "L-4 Society", 2))
    assert need(state) == before - 4


def test_the_bavarians_buy_privilege_for_five_megabucks() -> None:
    """rulebook-en: "The Bavarian Illuminati have the Special Ability to declare one attack per
    turn Privileged, at the cost of 5 MB payable from their Illuminati treasury." """
    state = position(BAVARIA)
    state, events = run(state, Attack("ann", OIL, "L-4 Society", "control",
                                      privilege="bavarian"))
    assert state.attack is not None and state.attack.privileged
    assert treasury(state, BAVARIA) == 5
    assert of_kind(events, "privilege")[0].data["amount"] == 5


def test_the_bavarian_privilege_is_bought_once_a_turn() -> None:
    """rulebook-en: "declare one attack per turn Privileged" """
    state = position(BAVARIA)
    state, _ = attack_to_result(state, Attack("ann", OIL, "L-4 Society", "control",
                                              privilege="bavarian"), roll=12)
    with refuses("bavarian_once"):
        run(state, Attack("ann", BAVARIA, "Boy Sprouts", "control", privilege="bavarian"))


def test_only_the_bavarians_buy_privilege() -> None:
    """rulebook-en: "The Bavarian Illuminati have the Special Ability to declare one attack per
    turn Privileged" """
    with refuses("bavarian_only"):
        run(position(), Attack("ann", OIL, "L-4 Society", "control", privilege="bavarian"))


def test_the_bavarian_privilege_is_paid_when_the_attack_is_announced() -> None:
    """rulebook-en: "If that player wishes to use his Special Ability, he must declare the
    Privilege and pay the 5 MB when he first announces the attack." (so the attack is
    committed: rulebook-en: "Once he actually takes money from his treasury and puts it in the
    bank, the attack is committed.")"""
    state = money(position(BAVARIA), "ann", BAVARIA, 4)
    with refuses("money_short", have=4):
        run(state, Attack("ann", OIL, "L-4 Society", "control", privilege="bavarian"))
    state = money(state, "ann", BAVARIA, 5)
    state, _ = run(state, Attack("ann", OIL, "L-4 Society", "control", privilege="bavarian"))
    with refuses("money_committed"):
        run(state, CallOff("ann"))


def test_a_card_privileged_attack_can_be_called_off_but_the_card_is_gone() -> None:
    """rulebook-en: "After a player announces an attack, he can change his mind and call it off
    - until he puts some money down." """
    state, _ = run(privileged(position()), CallOff("ann"))
    assert state.attack is None and state.discards == ("Slush Fund",)


def test_two_special_cards_abolish_someone_elses_privilege() -> None:
    """rulebook-en: "Any two special cards may be discarded together, by the same person, to
    abolish someone else's privilege." """
    state = deal(privileged(position()), "cy", "Deep Agent", "Murphy's Law")
    state, events = special(state, AbolishPrivilege("cy", ("Deep Agent", "Murphy's Law")))
    assert state.attack is not None and not state.attack.privileged
    assert state.player("cy").hand == ()
    assert of_kind(events, "privilege_abolished")[0].data["cards"] == ("Deep Agent",
                                                                       "Murphy's Law")
    state, _ = run(state, Interfere("cy", 3, "interfere"))  # interference is open again
    assert treasury(state, NETWORK) == 7


def test_abolishing_takes_two_cards_held_by_one_player() -> None:
    """rulebook-en: "Any two special cards may be discarded together, by the same person" """
    state = deal(deal(privileged(position()), "cy", "Deep Agent"), "bob", "Murphy's Law")
    with refuses("abolish_two_cards"):
        run(state, AbolishPrivilege("cy", ("Deep Agent",)))
    with refuses("not_held_by"):
        run(state, AbolishPrivilege("cy", ("Deep Agent", "Murphy's Law")))


def test_the_attacker_cannot_abolish_his_own_privilege() -> None:
    """rulebook-en: "to abolish someone else's privilege" """
    state = deal(privileged(position()), "ann", "Deep Agent", "Murphy's Law")
    with refuses("abolish_own"):
        run(state, AbolishPrivilege("ann", ("Deep Agent", "Murphy's Law")))


def test_deep_agent_abolishes_privilege_for_good() -> None:
    """rulebook-en: "Privilege may be abolished by use of the Special card Deep Agent, or by
    discarding two Special cards (see p. 8). If the Privilege is abolished, it cannot be
    reinstated on that attack." """
    state = deal(privileged(position()), "bob", "Deep Agent")
    state = deal(state, "cy", "Murphy's Law", "Slush Fund")
    state, _ = special(state, PlaySpecial("bob", "Deep Agent"))
    assert state.attack is not None and state.attack.privilege_abolished
    assert not state.attack.privileged
    with refuses("not_privileged"):
        run(state, AbolishPrivilege("cy", ("Murphy's Law", "Slush Fund")))


def test_deep_agent_is_played_only_on_a_privileged_attack() -> None:
    """specials.csv: "Deep Agent,1,after privilege is declared on an attack" """
    state = deal(position(), "bob", "Deep Agent")
    state, _ = run(state, Attack("ann", OIL, "L-4 Society", "control"))
    with refuses("privileged_only"):
        run(state, PlaySpecial("bob", "Deep Agent"))


def test_the_interference_card_lets_its_holder_alone_interfere() -> None:
    """specials.csv: "the holder may interfere in that privileged attack; no one else may" """
    state = deal(privileged(position()), "cy", "Interference")
    state, _ = special(state, PlaySpecial("cy", "Interference"))
    state, _ = run(state, Interfere("cy", 4, "assist"))
    assert treasury(state, NETWORK) == 6
    assert state.attack is not None and state.attack.privileged
    with refuses("privileged_interfere"):
        run(state, Interfere("dan", 1, "interfere"))


def test_secrets_cancels_one_abolishing_card_and_the_other_is_lost() -> None:
    """rulebook-en: "If Secrets Man Was Not Meant To Know is used to cancel one of those cards,
    the other one is lost unless the player can replace it!" """
    state = deal(privileged(position()), "cy", "Deep Agent", "Murphy's Law")
    state = deal(state, "ann", SECRETS)
    state, events = run(state, AbolishPrivilege("cy", ("Deep Agent", "Murphy's Law")),
                        Counter("ann", SECRETS))
    assert state.attack is not None and state.attack.privileged
    assert state.player("cy").hand == ()
    assert set(state.discards) >= {SECRETS, "Deep Agent", "Murphy's Law"}
    assert of_kind(events, "special_cancelled")[0].data["lost"] == "Murphy's Law"


def test_a_replacement_card_completes_the_abolishing_pair() -> None:
    """rulebook-en: "the other one is lost unless the player can replace it!" """
    state = deal(privileged(position()), "cy", "Deep Agent", "Murphy's Law", "Slush Fund")
    state = deal(state, "ann", SECRETS)
    state, _ = run(state, AbolishPrivilege("cy", ("Deep Agent", "Murphy's Law")),
                   Counter("ann", SECRETS))
    state, _ = run(state, AbolishPrivilege("cy", ("Slush Fund",)), ResolveSpecial())
    assert state.attack is not None and not state.attack.privileged
    assert state.player("cy").hand == ()
    with refuses("not_privileged"):
        run(state, AbolishPrivilege("cy", ("Slush Fund",)))


def test_a_single_card_abolishes_nothing_without_a_cancelled_partner() -> None:
    """rulebook-en: "Any two special cards may be discarded together, by the same person, to
    abolish someone else's privilege." """
    state = deal(privileged(position()), "bob", "Deep Agent", "Murphy's Law")
    state = deal(state, "cy", "Slush Fund", "Swiss Bank Account")
    state = deal(state, "ann", SECRETS)
    state, _ = run(state, AbolishPrivilege("cy", ("Slush Fund", "Swiss Bank Account")),
                   Counter("ann", SECRETS))
    with refuses("abolish_two_cards"):
        run(state, AbolishPrivilege("bob", ("Deep Agent",)))  # bob lost nothing to Secrets


def test_a_privileged_attack_rolls_as_any_other() -> None:
    """rulebook-en: "An attacker may prevent Interference by declaring an attack
    "Privileged." """
    state = deal(position(), "ann", "Slush Fund")
    state, events = attack_to_result(state, Attack("ann", OIL, "Boy Sprouts", "control",
                                                   privilege="card",
                                                   privilege_card="Slush Fund"), roll=3)
    assert result(events).data["need"] == 3 and result(events).data["success"] is True
    assert state.owner("Boy Sprouts").name == "ann"  # type: ignore[union-attr]
