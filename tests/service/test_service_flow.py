"""Rules of the turn flow by mail, one case each, on positions built with tests/factory.py.

Each test builds a position, hands a ``Table`` the lines of one mail at a time (as the
service does after authentication) and checks what the flow did. docs/service.md states
each rule.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from factory import (
    CARDS,
    deal,
    of_kind,
    place,
    rig,
)
from tables import NOW, commands, mail, position, table

from pbem.orders.parse import parse_orders
from pbem.reports.mails import press_relay
from pbem.service.auth import check_password, hash_password
from pbem.service.deadlines import tick
from pbem.service.dispatch import advance
from pbem.service.model import Timing


def test_the_attacker_may_add_an_after_roll_card_on_the_next_line() -> None:
    """"IF FAILS PLAY Assassination" right after the ATTACK line waits for the roll."""
    state = rig(deal(position(), "ann", "Assassination"), 12)
    t = table(state)
    results = mail(t, "ann", "ATTACK Bavarian CONTROL Hackers", "IF FAILS PLAY Assassination")
    assert all(r.accepted for r in results), results
    assert t.service.window is not None and t.service.window.attacker is not None
    assert t.service.window.attacker.reactions
    mail(t, "bob", "NO RESPONSE")
    mail(t, "cat", "NO RESPONSE")
    assert t.service.window is None
    assert "Hackers" in t.state.player("ann").groups  # the 12 became a 2
    assert "Assassination" in t.state.discards


def test_counter_cancels_only_a_card_against_the_answering_side() -> None:
    """Secrets is spent only on COUNTER, and only against a card hurting the counterer."""
    state = rig(deal(deal(position(), "ann", "Assassination"), "bob",
                     "Secrets Man Was Not Meant To Know"), 12)
    t = table(state)
    mail(t, "ann", "ATTACK Bavarian NEUTRALIZE Boy Sprouts", "IF FAILS PLAY Assassination")
    mail(t, "cat", "NO RESPONSE")
    mail(t, "bob", "DEFEND 1", "COUNTER")
    assert t.service.window is None
    cancelled = of_kind(t.events, "special_cancelled")
    assert len(cancelled) == 1 and cancelled[0].data["card"] == "Assassination"
    assert "Boy Sprouts" in t.state.player("bob").groups


def test_secrets_is_not_spent_without_counter() -> None:
    state = rig(deal(deal(position(), "ann", "Assassination"), "bob",
                     "Secrets Man Was Not Meant To Know"), 12)
    t = table(state)
    mail(t, "ann", "ATTACK Bavarian NEUTRALIZE Boy Sprouts", "IF FAILS PLAY Assassination")
    mail(t, "cat", "NO RESPONSE")
    mail(t, "bob", "DEFEND 1")
    assert not of_kind(t.events, "special_cancelled")
    assert "Secrets Man Was Not Meant To Know" in t.state.player("bob").hand


def test_the_senate_is_cancelled_for_its_victim_holding_secrets() -> None:
    state = deal(deal(position(), "bob", "Senate Investigating Committee"), "ann",
                 "Secrets Man Was Not Meant To Know")
    state = replace(state, phase="turn_start")
    t = table(state)
    t.service = replace(t.service, standing=(("bob", _standing("bob", "IF ann STARTS TURN "
                                                                       "PLAY Senate")),))
    advance(t)
    assert of_kind(t.events, "special_cancelled")
    assert t.state.phase == "actions" and t.state.active_player.name == "ann"


def _standing(player: str, text: str) -> object:
    parsed = parse_orders(f"GAME test PLAYER {player} PASSWORD x\nSTANDING {text}\nEND", CARDS,
                          ("ann", "bob", "cat"))
    return parsed.orders[0].order


def test_an_answer_for_an_earlier_attack_is_stale() -> None:
    """Two attacks in one turn: an answer written for the first is refused in the second's
    window, and the writer gets the current report."""
    t = table(rig(place(position(), "ann", "C.I.A."), 2))
    mail(t, "ann", "ATTACK Bavarian CONTROL Hackers", "ATTACK CIA CONTROL Flat Earthers")
    first = t.service.window
    assert first is not None
    mail(t, "bob", "NO RESPONSE", turn=first.seq)
    mail(t, "cat", "NO RESPONSE", turn=first.seq)
    second = t.service.window
    assert second is not None and second.seq > first.seq
    t.notices.clear()
    results = mail(t, "bob", "ASSIST 1", turn=first.seq)
    assert not results[0].accepted and f"Written for STEP {first.seq}" in results[0].note
    assert [n.kind for n in t.notices] == ["status"]
    t.notices.clear()
    mail(t, "bob", "STATUS", "ASSIST 1", turn=first.seq)  # asked for, and owed: one report
    assert [n.kind for n in t.notices] == ["status"]
    assert mail(t, "bob", "ASSIST 1", turn=second.seq)[0].accepted


def test_answer_lines_of_one_mail_all_count_before_the_window_closes() -> None:
    state = rig(deal(position(), "bob", "Murphy's Law"), 2)
    t = table(state)
    mail(t, "ann", "ATTACK Bavarian NEUTRALIZE Boy Sprouts SPEND 2")
    mail(t, "cat", "NO RESPONSE")
    results = mail(t, "bob", "DEFEND 1", "IF SUCCEEDS PLAY Murphy's Law")
    assert all(r.accepted for r in results)
    assert "Murphy's Law" in t.state.discards  # the success became a failure
    assert "Boy Sprouts" in t.state.player("bob").groups


def test_a_group_offer_waits_for_the_receiver() -> None:
    """GIVE <group> TO <player>: the receiver is told, the giver's next orders wait; silence
    until the response deadline declines."""
    state = place(position(), "ann", "Hackers")
    t = table(state, response_hours=24)
    results = mail(t, "ann", "GIVE Hackers TO cat", "TRANSFER 1 FROM Bavarian TO Hackers")
    assert all(r.accepted for r in results)
    assert "(It waits" in results[1].note
    assert [(n.kind, n.to) for n in t.notices] == [("turn_report", "cat")]
    assert t.state.offer is not None and t.service.queue
    t.now = NOW + timedelta(hours=25)
    tick(t)
    advance(t)
    assert t.state.offer is None and "Hackers" in t.state.player("ann").groups
    assert not t.service.queue  # the transfer went on


def test_call_off_closes_the_window() -> None:
    t = table(position())
    mail(t, "ann", "ATTACK Bavarian CONTROL Hackers")
    assert t.service.window is not None
    assert mail(t, "ann", "CALL OFF")[0].accepted
    assert t.service.window is None and t.state.attack is None


def test_abolishing_privilege_resolves_the_pair() -> None:
    state = deal(deal(position(), "ann", "Bribery"), "cat", "Slush Fund", "Swiss Bank Account")
    t = table(rig(state, 12))
    mail(t, "ann", "ATTACK Bavarian CONTROL Hackers PRIVILEGE Bribery")
    window = t.service.window
    assert window is not None and "cat" in window.asked
    mail(t, "bob", "NO RESPONSE")
    mail(t, "cat", "ABOLISH PRIVILEGE WITH Slush Fund, Swiss Bank Account", "INTERFERE 2")
    assert t.service.window is None and t.state.special is None
    spent = [c for c in commands(t) if type(c).__name__ == "Interfere"]
    assert spent and spent[0].player == "cat"  # allowed once the privilege was gone


def test_whispering_campaign_opens_a_window() -> None:
    state = deal(position(), "ann", "Whispering Campaign")
    t = table(state)
    results = mail(t, "ann", "PLAY Whispering Campaign ON Boy Sprouts WITH Bavarian")
    assert results[0].accepted, results
    assert t.state.attack is not None and t.service.window is not None
    assert "bob" in t.service.window.asked


def test_reminders_go_once_and_only_to_a_silent_player() -> None:
    t = table(position(), orders_hours=48, reminders=(12, 2))
    t.now = NOW + timedelta(hours=47)  # both reminder times passed: one mail
    tick(t)
    assert [(n.kind, n.to) for n in t.notices] == [("reminder", "ann")]
    assert t.service.reminded == (12.0, 2.0)
    t.notices.clear()
    tick(t)
    assert t.notices == []


def test_no_reminder_and_no_miss_for_a_player_who_acted() -> None:
    t = table(rig(position(), 2), orders_hours=48, reminders=(12,))
    mail(t, "ann", "ATTACK Bavarian CONTROL Hackers")
    mail(t, "bob", "NO RESPONSE")
    mail(t, "cat", "NO RESPONSE")
    t.notices.clear()
    t.now = NOW + timedelta(hours=40)
    tick(t)
    assert t.notices == []
    t.now = NOW + timedelta(hours=48)
    tick(t)
    assert t.service.seat("ann").misses == 0
    assert [type(c).__name__ for c in commands(t)][-1] == "EndTurn"


def test_timing_hours_read_back_as_written() -> None:
    from pbem.engine.codec import from_json, to_json

    timing = Timing(orders_hours=48, response_hours=24, reminders=(12, 2))
    assert from_json(Timing, to_json(timing)) == timing


def test_password_hashes_carry_their_cost_and_old_ones_still_check() -> None:
    strong = hash_password("raven-lodge-fnord-42")
    assert strong.startswith("scrypt$14$")
    assert check_password("raven-lodge-fnord-42", strong)
    cheap = hash_password("raven-lodge-fnord-42", cost=4)
    assert check_password("raven-lodge-fnord-42", cheap)
    assert not check_password("raven-lodge-fnord-43", cheap)
    old = "scrypt$" + strong.split("$", 2)[2]  # the first form: salt and hash only
    assert check_password("raven-lodge-fnord-42", old)
    assert not check_password("x", "scrypt$99$zz$00") and not check_password("x", "md5$a$b")


def test_press_to_some_players_tells_each_who_else_received_it() -> None:
    """Press to several players names the others to each of them, so that nobody takes a
    message to three for a secret between two; press to one says it went to them alone."""
    t = table(position())
    mail(t, "ann", "PRESS TO bob, cat", "Shall we?", "END PRESS")
    mail(t, "ann", "PRESS TO bob", "Just you.", "END PRESS")
    sent = [(n.to, n.data["others"]) for n in t.notices if n.kind == "press"]
    assert sent == [("bob", ("cat",)), ("cat", ("bob",)), ("bob", ())]
    for others, lang, says in (((), "en", "Sent to you alone."),
                               (("cat",), "en", "Also sent to cat."),
                               (("cat",), "fr", "Envoyé aussi à cat.")):
        text = press_relay("test", "bob", "ann", "hi", to_all=False, others=others,
                           lang=lang).text
        assert says in text
