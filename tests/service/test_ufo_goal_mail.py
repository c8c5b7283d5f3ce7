"""The UFOs choose their secret goal by mail (issue 18.6): the welcome says how and until
when, GOAL chooses it, and the UFOs who stay silent are told the goal dealt at random
stands. The card (reference/illuminati.csv, The UFOs): "secretly chooses one of the other
seven special goals at game start"."""

from __future__ import annotations

import pytest
from factory import BAVARIA, CARDS, GNOMES, NETWORK, UFOS, game, update
from tables import NOW, mail, table

from pbem.reports import mails as reports
from pbem.service.notices import GoalDealt


@pytest.mark.parametrize(("lang", "words"), [
    ("en", ("GOAL", "at the beginning of the game, before the first orders of the game",
            "the goal of The Gnomes")),
    ("fr", ("GOAL", "au début de la partie, avant que les premiers ordres",
            "celui de The Gnomes of Zurich")),
])
def test_the_welcome_tells_the_ufos_how_and_until_when_to_choose(
        lang: str, words: tuple[str, ...]) -> None:
    """The welcome of the UFOs: choose by mail with GOAL, at the beginning of the game (before
    its first orders are carried out); until then the goal dealt at random stands (named).
    Others get no such words."""
    state = update(game(ann=BAVARIA, bob=UFOS), "bob", secret_goal=GNOMES)
    mine = reports.welcome(CARDS, state, "bob", password="pw", now=NOW, lang=lang, html=True)
    text = " ".join(mine.text.split())
    for word in words:
        assert word in text, (word, text)
    assert "GOAL" in (mine.html or "")
    other = reports.welcome(CARDS, state, "ann", password="pw", now=NOW, lang=lang)
    assert "GOAL " not in other.text.replace("GOALS", "")


def test_the_ufos_choose_by_mail_before_their_first_turn() -> None:
    """GOAL The Network in bob's mail, while ann plays her first turn: his goal now."""
    t = table(update(game(ann=BAVARIA, bob=UFOS), "bob", secret_goal=GNOMES))
    (chosen,) = mail(t, "bob", "GOAL Network")
    assert chosen.accepted and "goal of The Network" in chosen.note
    assert t.state.player("bob").secret_goal == NETWORK
    assert t.state.player("bob").goal_chosen
    mail(t, "ann", "PASS")
    mail(t, "bob", "PASS")
    assert not [n for n in t.notices if isinstance(n, GoalDealt)]


def test_silent_ufos_are_told_the_goal_dealt_at_random_stands() -> None:
    """bob says nothing of his goal and ann plays the game's first orders: the beginning of
    the game is over (illuminati.csv: "secretly chooses one of the other seven special goals
    at game start"), so the goal dealt at random is his, and he is told so, once; a GOAL
    after that, even before his own first turn, is refused."""
    t = table(update(game(ann=BAVARIA, bob=UFOS), "bob", secret_goal=GNOMES))
    assert not [n for n in t.notices if isinstance(n, GoalDealt)]  # still open
    mail(t, "ann", "PASS")
    assert t.state.active_player.name == "bob"
    told = [n for n in t.notices if isinstance(n, GoalDealt)]
    assert [(n.to, n.goal) for n in told] == [("bob", GNOMES)]
    (late,) = mail(t, "bob", "GOAL Network")
    assert not late.accepted and "Gnomes" in late.note
    assert len([n for n in t.notices if isinstance(n, GoalDealt)]) == 1
    for lang in ("en", "fr"):
        rendered = reports.mail("goal_dealt", lang, None, html=True, game="g", player="bob",
                                data=told[0])
        assert GNOMES in " ".join(rendered.text.split()) and GNOMES in rendered.subject
