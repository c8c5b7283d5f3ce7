"""The answers tell the truth (issue 43, point 9): what the game mails after a mail's orders
are taken into account never offers an order the rules then refuse, and a Bermuda Triangle
or Gnomes player is told how to use their end-of-turn power."""

from __future__ import annotations

from typing import Any

import pytest
from factory import BAVARIA, BERMUDA, CARDS, GNOMES, NETWORK, deal, free, game, money, place
from tables import NOW, mail, table

from pbem.engine.commands import CallOff, EndPowers, EndTurn, GiveCard, GiveMoney, PlaySpecial
from pbem.engine.state import GameState
from pbem.errors import PbemError
from pbem.orders.model import KINDS, Odds
from pbem.orders.parse import parse_orders
from pbem.reports import mails as reports
from pbem.reports.forms import actions_left
from pbem.reports.position import position
from pbem.service.dispatch import ANSWER, CARRY_OUT, carry_out
from pbem.service.notices import AttackOutcome
from pbem.service.waiting import CHECKS, NOT_DECIDABLE


def gnomes_first() -> GameState:
    state = game(ann=GNOMES, bob=BAVARIA, cat=NETWORK)
    state = free(state, "Hackers", "Flat Earthers")
    state = place(state, "ann", "Boy Sprouts", treasury=2)
    for name, card in (("ann", GNOMES), ("bob", BAVARIA), ("cat", NETWORK)):
        state = money(state, name, card, 10)
    return state


def test_end_powers_after_an_attack_leaves_no_action_and_suggests_no_attack(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """rulebook-en, The Gnomes of Zurich: "may move money freely at the end of the turn";
    docs/orders.md: "END POWERS: no more actions". An attack and END POWERS in one mail: once
    the attack is settled and END POWERS run, the attacker's mail counts no action left and
    its order form offers no attack (which the rules would refuse: actions_after_end_powers)
    and no regular action at all."""
    t = table(gnomes_first())
    results = mail(t, "ann", "ATTACK Gnomes CONTROL Hackers", "END POWERS")
    assert all(r.accepted for r in results)
    mail(t, "bob", "NO RESPONSE")
    mail(t, "cat", "NO RESPONSE")
    assert t.service.window is None and t.state.turn.end_powers
    assert t.state.active_player.name == "ann" and t.state.turn.actions == 1
    seen = position(t.cards, t.state, "ann")
    assert actions_left(seen.v) == 0
    assert not any(line.startswith("ATTACK") for line in seen.facts["form"].examples)
    goes_on = reports.turn_goes_on(t.cards, t.state, "ann", now=NOW, deadline=NOW)
    assert goes_on is not None
    assert not any(line.startswith("ATTACK") for line in goes_on.form.examples)
    # The attack result mail to ann, rendered as the service does: its values.
    (notice,) = [n for n in t.notices if isinstance(n, AttackOutcome) and n.to == "ann"]
    told: dict[str, Any] = {}
    real = reports.mail

    def spy(name: str, *args: Any, **values: Any) -> Any:
        told.update(values)
        return real(name, *args, **values)

    monkeypatch.setattr(reports, "mail", spy)
    before = t.state  # the attack's own position is not kept by the table: the latest is
    reports.attack_result(t.cards, before, "ann", list(notice.events), now=NOW,
                          deadline=NOW, latest=t.state)
    assert told["goes_on"] and told["actions_left"] == 0 and told["end_powers"]
    assert not any(line.startswith("ATTACK") for line in told["form"].examples)


@pytest.mark.parametrize(("illuminati", "order", "word"), [
    (GNOMES, "transfer", "TRANSFER"), (BERMUDA, "move", "MOVE")])
def test_an_end_of_turn_power_is_told_to_its_holder_only(
        illuminati: str, order: str, word: str) -> None:
    """rulebook-en, The Bermuda Triangle: "may reorganize its power structure freely at the
    end of its turn"; The Gnomes of Zurich: "may move money freely between its groups at the
    end of its turn". The holder's order form shows END POWERS and the order the power makes
    free (the card data's ``end_of_turn``), in both languages; the other players' forms do
    not, and once END POWERS is written the form says the power is in use."""
    state = game(ann=illuminati, bob=BAVARIA)
    state = place(state, "ann", "Boy Sprouts", treasury=2)
    state = place(state, "ann", "Hackers")
    seen = position(CARDS, state, "ann")
    form = seen.facts["form"]
    assert form.end_of_turn == order and not form.powers_used
    assert "END POWERS" in form.examples
    (free,) = [e for e in form.examples if e.startswith(word)]
    assert form.examples.index("END POWERS") < form.examples.index(free)
    for lang in ("en", "fr"):
        text = reports.turn_report(CARDS, state, "ann", [], now=NOW, deadline=NOW,
                                   lang=lang).text
        assert "END POWERS" in text.split("GAME test")[-2]  # the words above the form
    other = game(bob=BAVARIA, ann=illuminati)
    assert position(CARDS, other, "bob").facts["form"].end_of_turn == ""
    assert "END POWERS" not in position(CARDS, other, "bob").facts["form"].examples
    t = table(state)
    done = mail(t, "ann", "END POWERS", free)
    assert all(r.accepted for r in done), done  # as suggested
    assert t.state.turn.actions == 0 and t.state.seq > state.seq + 1
    used = position(CARDS, t.state, "ann").facts["form"]
    assert used.powers_used and "END POWERS" not in used.examples
    assert not any(e.startswith("ATTACK") for e in used.examples)


# --- no OK to an order that can never run -------------------------------------------------

def gnomes_with_a_group() -> GameState:
    """ann (the Gnomes, to act) holds Flat Earthers and Deep Agent; bob (Bavarians) holds
    Boy Sprouts; Hackers is free; everyone has 10 MB."""
    state = game(ann=GNOMES, bob=BAVARIA, cat=NETWORK)
    state = free(state, "Hackers")
    state = place(state, "ann", "Flat Earthers", treasury=2)
    state = place(state, "bob", "Boy Sprouts", treasury=2)
    for name, card in (("ann", GNOMES), ("bob", BAVARIA), ("cat", NETWORK)):
        state = money(state, name, card, 10)
    return deal(state, "ann", "Deep Agent")


OPEN = "ATTACK Gnomes CONTROL Hackers"  # spend nothing: it may still be called off
COMMITTED = "ATTACK Gnomes CONTROL Hackers SPEND 1"
OFFER = "GIVE Flat Earthers TO cat"  # waits for cat's answer

# (the lines before, the line that can never run, the key it is refused with at once), one
# row or more for each kind of order that may wait (waiting.CHECKS).
NEVER_RUNS = [
    ((OPEN, "END POWERS"), "ATTACK Flat Earthers CONTROL Boy Sprouts",
     "actions_after_end_powers"),
    ((COMMITTED,), "ATTACK Gnomes DESTROY Boy Sprouts", "attacker_used"),
    ((OPEN,), "ATTACK Flat Earthers DESTROY Boy Sprouts", "target_powerless"),
    ((OPEN,), "ATTACK Boy Sprouts CONTROL Hackers", "not_in_structure"),
    ((OPEN,), "PLAY Swiss Bank Account", "not_held"),
    ((OPEN,), "GIVE Boy Sprouts TO cat", "not_in_structure"),
    ((OPEN, "END POWERS"), "GIVE Flat Earthers TO cat", "actions_after_end_powers"),
    ((OPEN,), "TRANSFER 1 FROM Gnomes TO Boy Sprouts", "not_in_structure"),
    ((OPEN, "END POWERS"), "MOVE Flat Earthers TO Hackers LEFT", "actions_after_end_powers"),
    ((OPEN,), "DROP Boy Sprouts", "not_in_structure"),
    ((OPEN,), "LASERS ADD Weird ON Hackers", "lasers_unusable"),
    ((OPEN,), "RECYCLE", "recyclers_unusable"),
    ((OPEN,), "PASS", "pass_late"),
    ((OFFER,), "CALL OFF", "no_attack"),
    ((OPEN,), "GIVE Swiss Bank Account TO cat", "not_held_by"),
    ((OPEN,), "GIVE 1 MB TO ann", "gift_to_self"),
]
# Rows that may run: acknowledged as waiting, and said to be checked when they come up.
MAY_RUN = [
    ((OPEN,), "TRANSFER 1 FROM Gnomes TO Hackers"),  # the attack may bring Hackers
    ((OPEN,), "ATTACK Flat Earthers CONTROL Boy Sprouts"),  # the first may be called off
    ((OPEN, "END POWERS"), "TRANSFER 1 FROM Flat Earthers TO Hackers"),  # the Gnomes' power
    ((OPEN,), "END POWERS"),
    ((OFFER,), "END TURN"),
    ((OPEN,), "GIVE 1 MB TO cat"),
]


def refusal_key(t: Any, line: str) -> str:
    """The key the order ``line`` of ann is refused with as the mail is read, or ""."""
    parsed = parse_orders(f"GAME test PLAYER ann PASSWORD x\n{line}\nEND", CARDS,
                          tuple(p.name for p in t.state.players))
    assert not parsed.errors, parsed.errors
    (located,) = parsed.orders
    try:
        carry_out(t, "ann", located)
    except PbemError as error:
        return str(error.key)
    return ""


@pytest.mark.parametrize(("before", "line", "key"), NEVER_RUNS)
def test_an_order_that_can_never_run_is_refused_when_the_mail_is_read(
        before: tuple[str, ...], line: str, key: str) -> None:
    """rulebook-en, "Each action must be completed before beginning another": an order
    written behind an attack (or a group offer) waits for it, but what no answer to it can
    change is refused at once with its key, not acknowledged and then refused."""
    t = table(gnomes_with_a_group())
    assert all(r.accepted for r in mail(t, "ann", *before))
    assert t.service.window is not None or t.state.offer is not None
    assert refusal_key(t, line) == key


@pytest.mark.parametrize(("before", "line"), MAY_RUN)
def test_an_order_that_may_run_waits_and_says_it_is_checked_then(
        before: tuple[str, ...], line: str) -> None:
    """What may run when its turn comes is acknowledged as waiting, with the note that
    says it is checked then (key "queued")."""
    t = table(gnomes_with_a_group())
    mail(t, "ann", *before)
    waiting = len(t.service.queue)
    parsed = parse_orders(f"GAME test PLAYER ann PASSWORD x\n{line}\nEND", CARDS,
                          tuple(p.name for p in t.state.players))
    (located,) = parsed.orders
    note, values = carry_out(t, "ann", located)
    assert note == "queued" and values["behind"] in ("attack", "offer")
    assert len(t.service.queue) == waiting + 1


def test_every_kind_of_order_that_may_wait_is_checked_or_said_undecidable() -> None:
    """Each kind of order in pbem.orders.model is carried out (or refused) at once, or may
    wait; each that may wait has its check in waiting.CHECKS or is listed as one nothing
    can refuse for sure before it comes up (waiting.NOT_DECIDABLE), and each check has a
    row above that it refuses."""
    may_wait = {GiveMoney, GiveCard, CallOff, PlaySpecial, Odds}
    # CARRY_OUT has every order: those it hands to the active player's routine may wait
    the_active_s = {k for k, f in CARRY_OUT.items() if f is CARRY_OUT[EndTurn]}
    at_once = (set(CARRY_OUT) - the_active_s - may_wait) | set(ANSWER) - {PlaySpecial}
    for kind in KINDS:
        assert (kind in at_once) != (kind in set(CHECKS) | set(NOT_DECIDABLE)), kind
    names = tuple(p.name for p in gnomes_with_a_group().players)
    refused_kinds = {type(parse_orders(f"GAME test PLAYER ann PASSWORD x\n{line}\nEND",
                                       CARDS, names).orders[0].order)
                     for _, line, _ in NEVER_RUNS}
    assert refused_kinds == set(CHECKS) - {EndPowers}  # END POWERS: in the test above


@pytest.mark.parametrize("line", ["ASSIST 1", "INTERFERE 1"])
def test_the_defender_s_interference_is_refused_when_the_mail_is_read(line: str) -> None:
    """rulebook-en, Interference: "A player may interfere in an attack, either by helping
    the attacker or by opposing him"; the defender spends to defend, and the engine refuses
    a side's own interference (sides_spend) when the money is put in: the defender's line
    is refused at once, not acknowledged and refused at the roll."""
    t = table(gnomes_with_a_group())
    mail(t, "ann", "ATTACK Gnomes CONTROL Boy Sprouts")
    parsed = parse_orders(f"GAME test PLAYER bob PASSWORD x\n{line}\nEND", CARDS,
                          tuple(p.name for p in t.state.players))
    with pytest.raises(PbemError) as refusal:
        carry_out(t, "bob", parsed.orders[0])
    assert refusal.value.key == "sides_spend"
