"""An attack's money put in at once, refused when its sources cannot pay: at once, or when
an attack waiting behind another is carried out. Rulebook, "Spending Money To Attack"."""

from __future__ import annotations

from factory import BAVARIA, CARDS, place, treasury
from tables import mail, position, refused, table

from pbem.reports.mails import order_failed
from pbem.service.model import parse_iso


def test_an_attack_spending_more_than_its_treasuries_hold_is_refused_at_once() -> None:
    """rulebook-en: "Attacking money may be spent from both the attacking Group's treasury
    and the Illuminati treasury." ann's Bavarians hold 10 MB: 99 cannot be spent, and the
    suggestion spends what there is."""
    t = table(position())
    no = refused(mail(t, "ann", "ATTACK Bavarian CONTROL Hackers SPEND 99"))
    assert "The Bavarian Illuminati has only 10 MB, not 99" in no.note
    assert no.suggestion == "ATTACK The Bavarian Illuminati CONTROL Hackers SPEND 10"
    assert t.state.attack is None and t.service.window is None
    assert treasury(t.state, BAVARIA) == 10


def test_an_attack_by_a_puppet_counts_its_treasury_and_the_illuminati() -> None:
    """rulebook-en: "Other Groups in the Power Structure cannot spend money to aid the
    attack." The Mafia (4 MB) and the Bavarians (10 MB) pay together, in French too."""
    t = table(place(position(), "ann", "The Mafia", treasury=4))
    mail(t, "ann", "SET LANGUAGE FR")
    no = refused(mail(t, "ann", "ATTACK The Mafia CONTROL Hackers SPEND 15"))
    assert "The Mafia et The Bavarian Illuminati n'ont que 14\xa0MB à eux deux, pas 15" in no.note
    assert no.suggestion == "ATTACK The Mafia CONTROL Hackers SPEND 14"
    no = refused(mail(t, "ann", "ATTACK The Mafia CONTROL Hackers SPEND 5 FROM The Mafia"))
    assert "The Mafia n'a que 4\xa0MB, pas 5" in no.note
    assert no.suggestion == "ATTACK The Mafia CONTROL Hackers SPEND 4 FROM The Mafia"
    assert all(r.accepted for r in mail(t, "ann", "ATTACK The Mafia CONTROL Hackers SPEND 14"))


def test_an_attack_waiting_behind_another_is_refused_when_its_money_is_gone() -> None:
    """rulebook-en: "Attacking money may be spent from both the attacking Group's treasury
    and the Illuminati treasury." The second attack waits; when its turn comes the first
    has spent 8 of the Bavarians' 10 MB, and the refusal mail quotes it with the same
    words."""
    t = table(place(position(), "ann", "The Mafia", treasury=4))
    results = mail(t, "ann", "ATTACK Bavarian CONTROL Hackers SPEND 8",
                   "ATTACK The Mafia CONTROL Flat Earthers SPEND 7")
    assert all(r.accepted for r in results), results
    mail(t, "bob", "NO RESPONSE")
    mail(t, "cat", "NO RESPONSE")
    (failed,) = [n for n in t.notices if n.kind == "order_failed"]
    assert failed.to == "ann"
    assert "The Mafia and The Bavarian Illuminati have only 6 MB between them, not 7" in str(
        failed.data["reason"])
    assert failed.data["order"] == "ATTACK The Mafia CONTROL Flat Earthers SPEND 7"
    assert treasury(t.state, "The Mafia") == 4


def test_a_refused_waiting_line_stops_the_lines_after_it_and_keeps_the_turn_open() -> None:
    """rulebook-en: "Attacking money may be spent from both the attacking Group's treasury
    and the Illuminati treasury." The second attack, waiting, finds the money gone and is
    refused; the END TURN written after it counted on it, so it does not run: the turn
    stays open, and the mail says which lines did not run, with the deadline and a fresh
    order form (issue 18: 8 of one player's 14 turns were lost this way)."""
    t = table(place(position(), "ann", "The Mafia", treasury=4))
    results = mail(t, "ann", "ATTACK Bavarian CONTROL Hackers SPEND 8",
                   "ATTACK The Mafia CONTROL Flat Earthers SPEND 7", "END TURN")
    assert all(r.accepted for r in results), results
    mail(t, "bob", "NO RESPONSE")
    mail(t, "cat", "NO RESPONSE")
    (failed,) = [n for n in t.notices if n.kind == "order_failed"]
    assert failed.data["skipped"] == [(4, "END TURN")]
    assert t.state.active_player.name == "ann" and t.state.phase == "actions"
    assert t.service.queue == ()
    for lang, words in (("en", ("did not run either", "Line 4: END TURN",
                                "Your turn goes on")),
                        ("fr", ("n'ont pas été exécutées", "Ligne 4 : END TURN",
                                "Votre tour continue"))):
        text = order_failed(CARDS, t.state, "ann", failed.data, now=t.now,
                            deadline=parse_iso(t.service.deadline), lang=lang, html=True)
        plain = " ".join(text.text.split())
        assert all(w in plain for w in words), plain
        assert "GAME test PLAYER ann" in text.text  # the order form
        assert "END TURN" in (text.html or "")
