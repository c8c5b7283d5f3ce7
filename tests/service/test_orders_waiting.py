"""Orders waiting behind an attack: what no attack can change is checked when the mail is
read; an answer abolishing privilege is checked at once too. docs/service.md states the
flow."""

from __future__ import annotations

from factory import deal, place
from tables import mail, position, table

from pbem.reports.mails import OrderResult


def notes(results: list[OrderResult]) -> dict[str, tuple[bool, str]]:
    return {r.text: (r.accepted, r.note) for r in results}


def test_orders_behind_an_attack_are_refused_at_once_when_no_attack_can_help() -> None:
    """A card not held, a group neither held nor under attack (to give, transfer money to or
    drop), a power the player's groups and Illuminati lack: refused when the mail is read. A
    group the attack may bring is given (or paid) later, if it comes."""
    t = table(deal(position(), "ann", "Deep Agent"))
    results = notes(mail(t, "ann", "ATTACK Bavarian CONTROL Hackers",
                         "PLAY Swiss Bank Account",
                         "GIVE Boy Sprouts TO cat",
                         "GIVE Hackers TO cat",
                         "LASERS ADD Weird ON Flat Earthers",
                         "RECYCLE",
                         "END POWERS",
                         "TRANSFER 1 FROM Bavarian TO Boy Sprouts",
                         "TRANSFER 1 FROM Bavarian TO Hackers",
                         "DROP Boy Sprouts"))
    assert results["ATTACK Bavarian CONTROL Hackers"][0]
    assert results["PLAY Swiss Bank Account"] == (False, "you do not hold Swiss Bank Account")
    assert results["GIVE Boy Sprouts TO cat"] == (
        False, "Boy Sprouts is not in ann's power structure")
    assert results["GIVE Hackers TO cat"][0]
    assert results["LASERS ADD Weird ON Flat Earthers"] == (
        False, "ann cannot use the Orbital Mind Control Lasers now")
    assert results["RECYCLE"] == (False, "ann cannot use the Recyclers now")
    assert results["END POWERS"] == (
        False, "The Bavarian Illuminati have no end-of-turn power")
    assert results["TRANSFER 1 FROM Bavarian TO Boy Sprouts"] == (
        False, "Boy Sprouts is not in ann's power structure")
    assert results["DROP Boy Sprouts"] == (False, "Boy Sprouts is not in ann's power structure")
    assert [q.text for q in t.service.queue] == ["GIVE Hackers TO cat",
                                                 "TRANSFER 1 FROM Bavarian TO Hackers"]


def test_abolishing_privilege_needs_a_privileged_attack_and_the_cards() -> None:
    """rulebook-en: "Privilege may be abolished by use of the Special card Deep Agent, or by
    discarding two Special cards (see p. 8)." An attack that is not privileged has none to
    abolish, and cards not held cannot be discarded."""
    t = table(place(deal(position(), "ann", "Slush Fund"), "ann", "The Mafia", treasury=4))
    mail(t, "ann", "ATTACK Bavarian CONTROL Hackers")
    (no,) = mail(t, "bob", "ABOLISH PRIVILEGE WITH Slush Fund, Bribery")
    assert not no.accepted and no.note == "this attack is not privileged"
    t = table(place(deal(position(), "ann", "Slush Fund"), "ann", "The Mafia", treasury=4))
    assert all(r.accepted for r in mail(
        t, "ann", "ATTACK The Mafia CONTROL Boy Sprouts PRIVILEGE Slush Fund"))
    (no,) = mail(t, "bob", "ABOLISH PRIVILEGE WITH Slush Fund, Bribery")
    assert not no.accepted and no.note == "bob does not hold Slush Fund"


def test_a_move_written_after_end_turn_is_refused_when_the_mail_is_read() -> None:
    """The turn ends at END TURN: a move written after it, which waited behind the attack
    and was then dropped without a word, is refused at once with the reason; press and
    queries after it are still answered."""
    t = table(position())
    results = notes(mail(t, "ann", "ATTACK Bavarian CONTROL Hackers", "END TURN",
                         "GIVE 1 MB TO cat", "STATUS"))
    assert results["END TURN"][0]
    assert results["GIVE 1 MB TO cat"] == (
        False, "it comes after your END TURN or PASS (line 3), where your turn ends")
    assert results["STATUS"][0]
    mail(t, "ann", "SET LANGUAGE FR")
    french = notes(mail(t, "ann", "END TURN", "GIVE 1 MB TO cat"))
    assert french["GIVE 1 MB TO cat"][1].startswith("il vient après votre END TURN")
