"""Fewer mails, nothing missed (issue 38 point 3; docs/service.md "Fewer mails"): each kind
of mail folded away, and what it told found in the next mail its reader gets.

Played by mail through the service as players do; each mail sent is paired with the notice
it was rendered from and the news it was given (``Told``), and the tests assert on those
typed facts (events, the order lines as written), never on words. The words themselves, in
English and French, are in the golden transcripts (tests/transcripts/mail_folding.txt).
"""

from __future__ import annotations

import email
import email.policy
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from transcripts.harness import Mailroom

import pbem.service.outgoing as outgoing
from pbem.engine import events as ev
from pbem.service.notices import (
    Ack,
    AttackOutcome,
    Notice,
    PressRelay,
    ResponseRequest,
    TurnReport,
)

PLAYERS = [("Alice", ""), ("Bob", ""), ("Carol", "")]  # the seed makes Carol play first
ATTACK = "ATTACK Bavarian CONTROL Feminists SPEND 1 UPTO 3"


@dataclass(frozen=True)
class Told:
    """One mail sent: to whom, the notice it was rendered from, the news it was given."""

    to: str
    notice: Notice
    news: tuple[ev.Event, ...]

    @property
    def events(self) -> tuple[ev.Event, ...]:
        """The events the mail tells: its news (a report's, or what it carries), and an
        attack result's own."""
        own = tuple(self.notice.events) if isinstance(self.notice, AttackOutcome) else ()
        return self.news + own if self.carries_news else own

    @property
    def carries_news(self) -> bool:
        return self.notice.tells_news or self.notice.untold is not None

    @property
    def orders(self) -> list[str]:
        """The order lines (as written) of the order mails it says were accepted."""
        return [order for _, order, _ in self.notice.folded]


class Spy:
    def __init__(self) -> None:
        self.told: list[Told] = []
        self.mark = 0

    def step(self) -> list[Told]:
        """The mails sent since the last call."""
        new, self.mark = self.told[self.mark:], len(self.told)
        return new

    def to(self, player: str, told: Sequence[Told]) -> list[Told]:
        return [t for t in told if t.to == f"{player.lower()}@example.org"]


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> Iterator[Spy]:
    seen = Spy()
    render = outgoing.render_notice

    def spied(*args: Any, **kwargs: Any) -> Any:
        to, name, rendered = render(*args, **kwargs)
        seen.told.append(Told(to, args[3], tuple(kwargs["news"])))
        return to, name, rendered

    monkeypatch.setattr(outgoing, "render_notice", spied)
    yield seen


@pytest.fixture
def room(tmp_path: Path) -> Mailroom:
    return Mailroom(tmp_path)


def results_of(told: Told) -> list[ev.AttackResult]:
    return [e for e in told.events if isinstance(e, ev.AttackResult)]


def test_an_answer_accepted_is_said_in_the_attack_result(room: Mailroom, spy: Spy) -> None:
    """A one-line answer accepted gets no acknowledgement of its own: the attack's result,
    in the same step, carries it."""
    room.new_game("illu", PLAYERS)
    room.at(minutes=5)
    room.orders("Carol", ATTACK)
    asked = spy.step()
    assert {t.to for t in asked if isinstance(t.notice, ResponseRequest)} == {
        "alice@example.org", "bob@example.org"}
    room.orders("Alice", "NO RESPONSE")
    assert spy.step() == []  # Bob has still to answer: no mail at all
    room.orders("Bob", "INTERFERE 1")
    (bob,) = spy.to("Bob", spy.step())
    assert isinstance(bob.notice, AttackOutcome) and results_of(bob)
    assert bob.orders == ["INTERFERE 1"]  # the answer accepted, in the result
    assert not [t for t in spy.told if isinstance(t.notice, Ack) and t.to != "carol@example.org"]
    room.check("mail_folding_answer")


def test_an_answer_refused_is_answered_at_once(room: Mailroom, spy: Spy) -> None:
    room.new_game("illu", PLAYERS)
    room.at(minutes=5)
    room.orders("Carol", ATTACK)
    spy.step()
    room.orders("Alice", "INTERFERE 500")  # more than she has
    (alice,) = spy.to("Alice", spy.step())
    assert isinstance(alice.notice, Ack)
    assert [r.accepted for r in alice.notice.results] == [False]


def test_a_result_that_does_not_touch_the_reader_comes_in_the_next_mail(
        room: Mailroom, spy: Spy) -> None:
    """Alice answered NO RESPONSE: the result touches Carol (attacker) and Bob (who spent),
    not her. Her next mail, press from Bob, carries her answer and the attack's result (in
    French, her language)."""
    room.new_game("illu", PLAYERS)
    room.orders("Alice", "SET LANGUAGE FR")
    room.at(minutes=5)
    room.orders("Carol", ATTACK)
    room.orders("Alice", "NO RESPONSE")
    spy.step()
    room.orders("Bob", "INTERFERE 1")
    settled = spy.step()
    assert spy.to("Alice", settled) == []
    assert {t.to for t in settled} == {"carol@example.org", "bob@example.org"}
    (result,) = {e for t in settled for e in results_of(t)}
    room.orders("Bob", "PRESS TO Alice", "Hello.", "END PRESS")
    (alice,) = spy.to("Alice", spy.step())
    assert isinstance(alice.notice, PressRelay)
    assert alice.orders == ["NO RESPONSE"]
    assert results_of(alice) == [result]
    assert room.record().seat("Alice").untold is None  # told once
    room.orders("Bob", "PRESS TO Alice", "Again.", "END PRESS")
    (again,) = spy.to("Alice", spy.step())
    assert again.notice.untold is None and again.orders == []
    room.check("mail_folding_next_mail")


def test_a_result_followed_by_a_report_is_told_by_the_report(
        room: Mailroom, spy: Spy) -> None:
    """The last attack of a turn, settled at once (nobody may answer), and the next turn's
    report in one step: one mail each, the report, whose news hold the result."""
    room.new_game("illu", PLAYERS)
    room.orders("Alice", "STANDING NEVER INTERFERE")
    room.orders("Bob", "STANDING NEVER INTERFERE")
    room.at(minutes=5)
    spy.step()
    room.orders("Carol", ATTACK, "END TURN")
    told = spy.step()
    assert not [t for t in told if isinstance(t.notice, AttackOutcome)]
    for player in ("Alice", "Bob", "Carol"):
        report = next(t for t in spy.to(player, told) if isinstance(t.notice, TurnReport))
        (result,) = results_of(report)
        assert result.target == "Feminists"


def test_digest_folds_the_reports_of_other_moves_into_the_next_mail(
        room: Mailroom, spy: Spy) -> None:
    """On DIGEST, Bob's turn beginning is no mail to Alice: her next mail, a request to
    answer Bob's attack, tells it (and Alice's own end of turn, folded with it)."""
    room.new_game("illu", PLAYERS)
    room.orders("Alice", "SET MAIL DIGEST")
    room.at(minutes=5)
    spy.step()
    room.orders("Carol", "END TURN")
    (alice,) = spy.to("Alice", spy.step())  # her move: the report comes
    assert isinstance(alice.notice, TurnReport)
    room.orders("Alice", "END TURN")
    told = spy.step()
    assert spy.to("Alice", told) == []  # Bob's move: not hers
    assert any(isinstance(t.notice, TurnReport) for t in spy.to("Bob", told))
    bob = room.state().player("Bob")
    target = room.state().uncontrolled[0]
    room.orders("Bob", f'ATTACK "{bob.illuminati}" CONTROL "{target}" SPEND 1')
    told = spy.step()
    (alice,) = spy.to("Alice", told)
    assert isinstance(alice.notice, ResponseRequest)
    assert alice.orders == ["END TURN"]
    begun = [e for e in alice.events if isinstance(e, ev.TurnBegins)]
    assert [e.player for e in begun] == ["Bob"]
    room.check("mail_folding_digest")


def test_digest_answers_kept_go_in_the_next_mail_of_any_kind(
        room: Mailroom, spy: Spy) -> None:
    """What DIGEST leaves unanswered comes in the next mail, not only the next report: here
    the answer to a mail with a line refused."""
    room.new_game("illu", PLAYERS)
    room.orders("Alice", "SET MAIL DIGEST")
    room.at(minutes=5)
    spy.step()
    room.orders("Alice", "PRESS TO Bob", "Shall we?", "END PRESS")
    assert spy.to("Alice", spy.step()) == []
    room.orders("Alice", "GIVE 100 MB TO Carol")
    (alice,) = spy.to("Alice", spy.step())
    assert isinstance(alice.notice, Ack)
    assert alice.orders == ["PRESS TO Bob"]
    assert [r.accepted for r in alice.notice.results] == [False]


def test_digest_tells_the_attacker_a_result_when_their_turn_waits(
        room: Mailroom, spy: Spy) -> None:
    """On DIGEST, the result of Carol's attack, with the group it wins offered to Bob behind
    it, is no mail: her turn waits for Bob, not for her. Bob's answer, which gives her turn
    back to her, carries the result."""
    room.new_game("illu", PLAYERS)
    room.orders("Carol", "SET MAIL DIGEST")
    room.at(minutes=5)
    room.orders("Carol", ATTACK, "GIVE Feminists TO Bob")
    spy.step()
    room.orders("Alice", "NO RESPONSE")
    room.orders("Bob", "NO RESPONSE")
    told = spy.step()
    assert room.state().offer is not None  # the attack won, the group offered
    assert spy.to("Carol", told) == []
    (result,) = {e for t in told for e in results_of(t)}
    room.orders("Bob", "DECLINE")
    (carol,) = spy.to("Carol", spy.step())
    assert results_of(carol) == [result]


def test_an_answer_with_something_to_add_is_answered_at_once(
        room: Mailroom, spy: Spy) -> None:
    """A DEFEND whose UPTO the defender's treasuries cannot cover is acknowledged at once,
    with what they hold: the defender may want to change it before the dice."""
    room.new_game("illu", PLAYERS)
    room.orders("Alice", "STANDING NEVER INTERFERE")
    room.orders("Bob", "STANDING NEVER INTERFERE")
    room.at(minutes=5)
    room.orders("Carol", ATTACK, "END TURN")  # Carol now holds Feminists
    room.orders("Bob", "STANDING CLEAR ALL")
    room.at(minutes=5)
    room.orders("Alice", "ATTACK Network NEUTRALIZE Feminists SPEND 1")
    spy.step()
    room.orders("Carol", "DEFEND 1 UPTO 500")
    (carol,) = spy.to("Carol", spy.step())
    assert isinstance(carol.notice, Ack)
    assert [(r.accepted, r.quiet) for r in carol.notice.results] == [(True, False)]
    room.orders("Carol", "DEFEND 1")  # covered: it waits for the result
    assert spy.to("Carol", spy.step()) == []
    assert [o for _, o, _ in room.record().seat("Carol").folded] == ["DEFEND 1"]


def refs(mail: Any) -> str:
    """The References header of a mail sent."""
    return str(email.message_from_bytes(mail.raw, policy=email.policy.default)["References"])


def test_the_mail_that_carries_an_answer_refers_to_it(room: Mailroom) -> None:
    """Nothing folded away is left unanswered: the mail that carries an accepted answer
    names the order mail in its References (a mail client threads it, and a player or a
    test can see every mail answered), here an answer folded into the attack's result and
    one folded into the next mail, a press relay."""
    room.new_game("illu", PLAYERS)
    room.at(minutes=5)
    room.orders("Carol", ATTACK)
    assert room.orders("Alice", "NO RESPONSE", message_id="<alice-answer@example.org>") == []
    out = room.orders("Bob", "INTERFERE 1", message_id="<bob-answer@example.org>")
    assert [m for m in out if m.to == "bob@example.org"
            and "<bob-answer@example.org>" in refs(m)]
    assert not [m for m in out if "<alice-answer@example.org>" in refs(m)]
    relay = room.orders("Bob", "PRESS TO Alice", "Hello.", "END PRESS")
    (alice,) = [m for m in relay if m.to == "alice@example.org"]
    assert "<alice-answer@example.org>" in refs(alice)
    assert room.record().seat("Alice").folded_mails == ()
    again = room.orders("Bob", "PRESS TO Alice", "Again.", "END PRESS")
    assert not [m for m in again if "<alice-answer@example.org>" in refs(m)]


def test_the_seat_passed_mail_carries_the_answers_folded_away(room: Mailroom,
                                                               spy: Spy) -> None:
    """Alice's NO RESPONSE, accepted and its answer folded away, then her seat taken over
    by a newcomer (``pbem seat offer``, TAKEOVER) before another mail of hers went: the
    mail that tells her the seat has passed carries that answer (the order line, and the
    order mail in its References), where it was lost with the seat's folded answers.
    Found by a long club season (tests/daemon/test_club_events.py)."""
    room.new_game("illu", PLAYERS)
    room.at(minutes=5)
    room.orders("Carol", ATTACK)
    assert room.orders("Alice", "NO RESPONSE", message_id="<alice-answer@example.org>") == []
    assert room.record().seat("Alice").folded_mails == ("alice-answer@example.org",)
    room.override("offer_seat", "Alice", reason="Alice moves away")
    spy.step()
    out = room.mail("Zoe", "TAKEOVER illu Alice\n")
    (passed,) = [t for t in spy.step() if t.to == "alice@example.org"]
    assert passed.orders == ["NO RESPONSE"]
    (mail,) = [m for m in out if m.to == "alice@example.org"]
    assert "<alice-answer@example.org>" in refs(mail)
