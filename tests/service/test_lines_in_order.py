"""Issue 18, turn flow: the lines of a mail run in the order written (18.2), an UPTO says
what it can draw on (18.4), and a player answering the last mail the game sent them is not
refused as stale (18.5)."""

from __future__ import annotations

from factory import GNOMES, place, rig
from tables import mail, position, table

from pbem.engine.commands import GiveMoney, Spend
from pbem.reports import mails as reports
from pbem.service.notices import OddsReply


def test_a_gift_written_after_an_attack_waits_behind_its_upto() -> None:
    """rulebook-en, Actions: "Each action must be completed before beginning another." A
    GIVE written after an ATTACK waits, like a TRANSFER, until the attack is settled: the
    attack's UPTO is spent before the gift leaves the treasury, not after."""
    t = table(rig(position(), 12))
    results = mail(t, "ann", "ATTACK Bavarian CONTROL Hackers SPEND 1 UPTO 9",
                   "GIVE 5 MB TO cat")
    assert all(r.accepted for r in results)
    gift = next(r for r in results if r.text == "GIVE 5 MB TO cat")
    assert "waits for the attack before it" in gift.note
    assert t.state.player("cat").treasury == 10  # not given yet
    assert [q.text for q in t.service.queue] == ["GIVE 5 MB TO cat"]
    mail(t, "bob", "NO RESPONSE")
    mail(t, "cat", "NO RESPONSE")
    commands = [e["command"]["type"] for e in t.entries]
    spends = [i for i, c in enumerate(commands) if c == Spend.__name__]
    gifts = [i for i, c in enumerate(commands) if c == GiveMoney.__name__]
    assert spends and gifts and max(spends) < gifts[0], commands
    assert t.state.player("cat").treasury == 15


def test_a_gift_by_a_player_not_waiting_on_anything_goes_at_once() -> None:
    """rulebook-en, Free Actions: "Giving away a Special card or money – this may be done at
    any time, not just during your turn." bob, answering ann's attack, gives at once."""
    t = table(rig(position(), 12))
    mail(t, "ann", "ATTACK Bavarian CONTROL Hackers")
    (gift,) = mail(t, "bob", "GIVE 2 MB TO cat")
    assert gift.accepted and "waits" not in gift.note
    assert t.state.player("cat").treasury == 12


def test_odds_after_an_attack_are_answered_against_the_position_it_leaves() -> None:
    """rulebook-en: "No individual Group (except the UFOs) may attack twice in a turn." The
    ODDS written after the Bavarians' attack waits for it; once it is settled it is answered
    in a mail of its own, against the position after the attack: the Bavarians have
    attacked, so that attack cannot be made."""
    t = table(rig(position(), 12))
    results = mail(t, "ann", "ATTACK Bavarian CONTROL Hackers",
                   "ODDS Bavarian CONTROL Flat Earthers")
    odds = results[1]
    assert odds.accepted and "answer comes in a mail of its own" in odds.note
    assert not odds.detail
    assert not [n for n in t.notices if isinstance(n, OddsReply)]
    mail(t, "bob", "NO RESPONSE")
    mail(t, "cat", "NO RESPONSE")
    (reply,) = [n for n in t.notices if isinstance(n, OddsReply)]
    assert reply.to == "ann" and reply.order.endswith("CONTROL Flat Earthers")
    assert "already" in reply.reason and "attack" in reply.reason, reply.reason


def test_odds_answered_at_once_show_their_breakdown() -> None:
    """docs/orders.md: ODDS "answers with the roll the attack would need and how it is made
    up". rulebook-en: "subtract the defending Group's Resistance from the attacking Group's
    Power"; "Each MB spent [...] adds one point of Power to that attack"."""
    t = table(position())
    (odds,) = mail(t, "ann", "ODDS Bavarian CONTROL Hackers SPEND 2")
    assert odds.accepted
    lines = odds.detail.splitlines()
    assert any("power of The Bavarian Illuminati" in line for line in lines), lines
    assert any("resistance of Hackers" in line for line in lines), lines
    assert any("+2" in line and "money spent to attack" in line for line in lines), lines
    assert "or less to succeed" in lines[-1]
    need = int(lines[-1].split()[0])
    assert f"roll of {min(need, 10)} or less" in odds.note


def test_the_odds_mail_shows_the_breakdown_in_both_languages() -> None:
    """The mail of an ODDS that waited: its line, the breakdown (rulebook-en: "subtract the
    defending Group's Resistance from the attacking Group's Power") and the chance."""
    reply = OddsReply("ann", "ODDS Mafia CONTROL Hackers", need=7, chance=58,
                      terms=(("power", "The Mafia", 7), ("resistance", "Hackers", -0)))
    for lang, words in (("en", "58% chance"), ("fr", "58 % de chances")):
        rendered = reports.mail("odds", lang, None, html=True, game="g", player="ann",
                                data=reply)
        assert "ODDS Mafia CONTROL Hackers" in rendered.text
        assert words in rendered.text and "The Mafia" in rendered.text
        assert "The Mafia" in (rendered.html or "")


def test_a_defence_upto_goes_on_from_the_illuminati_when_its_group_runs_dry() -> None:
    """rulebook-en, Spending Money To Defend: the defender spends "from the defending
    Group's treasury [...] and [...] from his Illuminati treasury. Other Groups cannot
    participate." DEFEND 1 FROM Boy Sprouts UPTO 8: once Boy Sprouts' 2 MB are spent the
    UPTO goes on from the Gnomes' treasury, and the answer says so when the line is read."""
    t = table(rig(position(), 12))
    mail(t, "ann", "ATTACK Bavarian CONTROL Boy Sprouts SPEND 10")
    mail(t, "cat", "NO RESPONSE")
    (defend,) = mail(t, "bob", "DEFEND 1 FROM Boy Sprouts UPTO 8")
    assert defend.accepted
    assert ("Its UPTO draws on Boy Sprouts (2 MB now), then on The Gnomes of Zurich "
            "(10 MB now), in that order." in defend.note), defend.note
    assert t.service.window is None  # settled
    spent = [(e.data["source"], e.data["amount"]) for e in t.events
             if e.kind == "spend" and e.data.get("player") == "bob"]
    assert ("Boy Sprouts", 1) in spent and any(s == GNOMES for s, _ in spent), spent
    assert t.state.player("bob").treasury < 10


def test_an_attack_upto_goes_on_from_the_illuminati_when_its_group_runs_dry() -> None:
    """rulebook-en, Spending Money To Attack: "Attacking money may be spent from both the
    attacking Group's treasury and the Illuminati treasury." SPEND 1 FROM The Mafia UPTO 9:
    when the Mafia's 1 MB is spent and cat interferes, the UPTO answers from the
    Bavarians' treasury; the answer to the attack line says it will, and that only 10 MB are
    there beyond the SPEND."""
    t = table(rig(place(position(), "ann", "The Mafia", treasury=1), 12))
    (attack,) = mail(t, "ann", "ATTACK Mafia CONTROL Hackers SPEND 1 FROM Mafia UPTO 12")
    assert attack.accepted
    assert ("Its UPTO draws on The Mafia (1 MB now), then on The Bavarian Illuminati "
            "(10 MB now), in that order: 10 MB beyond the money put in at once, less than "
            "the 12 of the UPTO." in attack.note), attack.note
    mail(t, "bob", "NO RESPONSE")
    mail(t, "cat", "INTERFERE 3")
    assert t.service.window is None
    assert t.state.player("ann").treasury < 10


def test_an_answer_with_the_number_of_the_last_report_counts() -> None:
    """Issue 18.5: bob answers ann's attack with the TURN of the last report he had, from
    before the attack was announced. No attack was settled since: the only attack his
    DEFEND can answer is this one, and it counts. (rulebook-en, Spending Money To Defend:
    "the defender may counter an attack by spending some of his own money".)"""
    t = table(rig(position(), 12))
    report_seq = t.state.seq
    mail(t, "ann", "ATTACK Bavarian CONTROL Boy Sprouts SPEND 10")
    window = t.service.window
    assert window is not None and window.seq > report_seq
    (defend,) = mail(t, "bob", "DEFEND 1 FROM Boy Sprouts", turn=report_seq)
    assert defend.accepted and not defend.stale, defend.note


def test_an_answer_from_before_an_attack_settled_since_is_stale() -> None:
    """The change since matters: an attack settled after bob wrote, so his answer may have
    been meant for it, and is refused as stale (docs/service.md, Stale orders)."""
    t = table(rig(place(position(), "ann", "C.I.A."), 12))
    report_seq = t.state.seq
    mail(t, "ann", "ATTACK Bavarian CONTROL Hackers", "ATTACK CIA CONTROL Boy Sprouts")
    mail(t, "bob", "NO RESPONSE")
    mail(t, "cat", "NO RESPONSE")
    assert t.service.window is not None and t.state.attack is not None
    assert t.state.attack.target == "Boy Sprouts"
    (defend,) = mail(t, "bob", "DEFEND 1", turn=report_seq)
    assert not defend.accepted and defend.stale
