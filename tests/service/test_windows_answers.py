"""Answers in a response window, refused at once when they cannot be carried out, and the
window's bookkeeping: standing answers count, a call-off is told. docs/service.md states
the flow; the rulebook's "Spending Money To Defend" the money.
"""

from __future__ import annotations

from factory import CARDS, deal, in_round, of_kind, place
from tables import mail, position, refused, table

from pbem.orders.parse import parse_orders
from pbem.reports import mails as reports
from pbem.service.dispatch import advance, carry_out


def test_a_defence_from_a_group_without_the_money_is_refused_at_once() -> None:
    """Rulebook, "Spending Money To Defend": "the defender may counter an attack by spending
    some of his own money. Resistance to that attack will increase by two for each MB spent
    from the defending Group's treasury, and by one for each MB spent from his Illuminati
    treasury. Other Groups cannot participate." Boy Sprouts hold 2 MB: 3 cannot come from
    them, and the refusal says what can."""
    t = table(position())
    mail(t, "ann", "ATTACK Bavarian NEUTRALIZE Boy Sprouts")
    no = refused(mail(t, "bob", "DEFEND 3 FROM Boy Sprouts"))
    assert "Boy Sprouts has only 2 MB, not 3" in no.note
    assert "DEFEND 3 FROM The Gnomes of Zurich (10 MB there)" in no.suggestion
    no = refused(mail(t, "bob", "DEFEND 1 FROM Hackers"))
    assert "money to defend comes only from Boy Sprouts or The Gnomes of Zurich" in no.note
    no = refused(mail(t, "bob", "DEFEND 13"))
    assert "have only 12 MB between them" in no.note and no.suggestion == "DEFEND 12"
    assert t.service.window is not None
    assert all(r.accepted for r in mail(t, "bob", "DEFEND 2 FROM Boy Sprouts"))
    mail(t, "cat", "NO RESPONSE")
    assert t.service.window is None
    (spent,) = of_kind(t.events, "spend")
    assert spent.data["source"] == "Boy Sprouts" and spent.data["amount"] == 2


def test_the_services_refusals_are_in_the_players_language() -> None:
    """README: every mail's text is in English and French; the service's own refusals of an
    answer come from templates/_refusals.txt.j2 and its translations (the order words stay
    English)."""
    t = table(position())
    mail(t, "bob", "SET LANGUAGE FR")
    mail(t, "ann", "ATTACK Bavarian NEUTRALIZE Boy Sprouts")
    no = refused(mail(t, "bob", "DEFEND 3 FROM Boy Sprouts"))
    assert "Boy Sprouts n'a que 2\xa0MB, pas 3" in no.note
    assert no.suggestion.startswith("DEFEND 3 FROM The Gnomes of Zurich (10\xa0MB là)")
    not_now = refused(mail(t, "bob", "PASS"))
    assert "c'est le tour d'ann, pas le vôtre" in not_now.note
    assert not_now.suggestion == "envoyez ces ordres quand votre tour commencera"


def test_interference_beyond_the_illuminati_treasury_is_refused_at_once() -> None:
    """Rulebook, "Interference": another player "announces who he will help, and then
    contributes money from his Illuminati treasury only"; cat's Network holds 10 MB."""
    t = table(position())
    mail(t, "ann", "ATTACK Bavarian NEUTRALIZE Boy Sprouts")
    no = refused(mail(t, "cat", "INTERFERE 11"))
    assert "your Illuminati treasury has only 10 MB, not 11" in no.note
    assert no.suggestion.startswith("INTERFERE 10")
    assert "ASSIST 10" in refused(mail(t, "cat", "ASSIST 12")).suggestion
    assert all(r.accepted for r in mail(t, "cat", "INTERFERE 10"))


def test_interfering_in_a_privileged_attack_is_told_it_needs_interference() -> None:
    """Rulebook, "Interference": "No one can interfere either for or against a Privileged
    Attack" (the card Interference lets its player do it, and a privilege abolished is
    gone): INTERFERE alone is acknowledged with that said, not silently left out at the
    roll; after PLAY Interference it counts, and the note is not given."""
    t = table(deal(position(), "cat", "Interference"))
    mail(t, "ann", "ATTACK Bavarian NEUTRALIZE Boy Sprouts PRIVILEGE BAVARIAN")
    (alone,) = mail(t, "cat", "INTERFERE 3")
    assert alone.accepted and (
        "The attack is privileged: this counts at the roll only if you play Interference"
        in alone.note)
    played = mail(t, "cat", "PLAY Interference\nINTERFERE 3")
    assert all(r.accepted and "privileged" not in r.note for r in played)
    mail(t, "bob", "NO RESPONSE")
    assert t.service.window is None
    (spent,) = [e for e in of_kind(t.events, "spend") if e.data["player"] == "cat"]
    assert spent.data["amount"] == 3 and spent.data["side"] == "interfere"


def test_computer_espionage_tells_the_player_what_it_revealed_and_no_one_else() -> None:
    """Computer Espionage (reference/specials.csv): "any time, see the money on one group
    or see all special cards of one player": the player learns it at once, with the
    acknowledgement of the order (note key "seen"); the event stays theirs alone."""
    t = table(deal(position(), "cat", "Computer Espionage"))
    parsed = parse_orders("GAME test PLAYER cat PASSWORD x\nPLAY Computer Espionage ON "
                          "Boy Sprouts\nEND", CARDS, ("ann", "bob", "cat"))
    key, values = carry_out(t, "cat", parsed.orders[0])
    (seen,) = values["events"]  # type: ignore[misc]
    assert key == "seen" and seen.kind == "espionage" and seen.visible_to == ("cat",)
    assert seen.data["looked_at"] == "Boy Sprouts" and seen.data["treasury"] == 2
    # ... and the acknowledgement's line says it.
    t = table(deal(position(), "cat", "Computer Espionage"))
    (said,) = mail(t, "cat", "PLAY Computer Espionage ON Boy Sprouts")
    assert said.accepted and "Boy Sprouts has 2 MB" in " ".join(said.note.split()), said.note


def test_a_standing_order_given_while_asked_answers_the_open_window() -> None:
    """docs/service.md: "The window closes as soon as everyone asked has answered or holds a
    standing answer" - a standing answer given while the window is open counts too."""
    t = table(position())
    mail(t, "ann", "ATTACK Bavarian NEUTRALIZE Boy Sprouts")
    window = t.service.window
    assert window is not None and window.asked == ("bob", "cat")
    assert all(r.accepted for r in mail(t, "cat", "STANDING NEVER INTERFERE"))
    window = t.service.window
    assert window is not None and window.answered("cat") and not window.answered("bob")
    mail(t, "bob", "STANDING DEFEND ANY UPTO 1")
    assert t.service.window is None and of_kind(t.events, "attack_result")
    (spent,) = of_kind(t.events, "spend")
    assert spent.data["player"] == "bob" and spent.data["amount"] == 1


def test_the_players_asked_are_told_when_the_attack_is_called_off() -> None:
    """docs/service.md: "CALL OFF from the attacker takes the attack back while no money has
    been committed": those asked to answer learn it at once, and a late answer is not told
    that the attack was settled."""
    t = table(position())
    mail(t, "ann", "ATTACK Bavarian NEUTRALIZE Boy Sprouts")
    mail(t, "ann", "CALL OFF")
    told = [n for n in t.notices if n.kind == "called_off"]
    assert [n.to for n in told] == ["bob", "cat"]
    assert told[0].data == {"attacker": "ann", "target": "Boy Sprouts"}
    english = reports.mail("called_off", "en", None, game="g", player="bob", data=told[0].data)
    assert english.subject == "[g] ann called off the attack on Boy Sprouts (bob)"
    assert "It needs no answer from you any more" in " ".join(english.text.split())
    french = reports.mail("called_off", "fr", None, game="g", player="bob", data=told[0].data)
    assert "ann a annulé l'attaque contre Boy Sprouts" in french.subject
    no = refused(mail(t, "bob", "DEFEND 1"))
    assert "no attack is waiting" in no.note.lower()
    assert "called off" in no.suggestion


def test_an_eliminated_player_gets_a_mail_of_their_own_saying_so() -> None:
    """Rulebook, "Eliminating a Player": "A player is eliminated if, at any time after his
    third turn, he controls no Groups except his Illuminati. His money goes to the bank."
    The player is told so plainly, in their language, not only in someone else's report."""
    state = place(place(position(), "ann", "KGB"), "cat", "Yuppies")
    t = table(in_round(state, 4))
    mail(t, "ann", "DROP KGB")
    assert t.state.player("ann").status == "eliminated"
    (told,) = [n for n in t.notices if n.kind == "eliminated"]
    assert told.to == "ann"
    english = reports.mail("eliminated", "en", None, game="g", player="ann", data=told.data)
    text = " ".join(english.text.split())
    assert english.subject == "[g] You are eliminated (ann)"
    assert "You are eliminated from g, ann" in text and "no more orders to give" in text
    french = reports.mail("eliminated", "fr", None, game="g", player="ann", data=told.data)
    assert "Vous êtes hors jeu dans g, ann" in " ".join(french.text.split())
    advance(t)  # told once
    assert len([n for n in t.notices if n.kind == "eliminated"]) == 1
