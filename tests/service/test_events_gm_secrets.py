"""The game master's edits keep the players' secrets: a card moved to or from a hand is named
only to that hand's owner(s), money set on a group only to the group's owner; the others
learn that something changed. The game master still sees everything.

README ("Players never see another player's secrets"); rules: special cards are held
secretly, and a player's treasuries are his own (Computer Espionage exists to peek at them).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gm_cli import gm_mails, plain, run, snapshot, text_of, to


@pytest.fixture
def store(gm_store: Path) -> Path:
    return gm_store  # conftest's: a copy of the started game g


SPECIALS = ("Bribery", "Deep Agent", "Murphy's Law", "Assassination", "Interference",
            "Slush Fund", "Senate Investigating Committee", "White Collar Crime")


def told(path: Path) -> dict[str, str]:
    """The text of the last GM mail each player got, by address."""
    return {to(m): plain(text_of(m)) for m in gm_mails(path)}


def test_a_card_put_in_a_hand_is_named_only_to_its_new_owner(store: Path,
                                                             tmp_path: Path) -> None:
    state, _ = snapshot(store)
    card = next(c for c in state.deck if c in SPECIALS)
    gm = run(store, "edit", "move", "g", card, "hand:cy", "--reason", "misdeal").output
    assert card in plain(gm)  # the game master sees it all
    mail = told(store)
    assert card in mail["cy@example.org"]
    for other in ("ann@example.org", "bob@example.org"):
        assert card not in mail[other]
        assert "gave cy a special card from the draw pile (misdeal)" in mail[other]
    assert card not in run(store, "history", "g", "--player", "ann").output
    assert card in run(store, "history", "g", "--player", "cy").output
    assert card in run(store, "history", "g").output
    site = tmp_path / "site"
    run(store, "archive", "build", str(site))
    pages = " ".join(p.read_text(encoding="utf-8") for p in (site / "games" / "g").iterdir())
    assert "gave cy a special card" in pages
    assert card not in pages


def test_a_card_taken_from_a_hand_is_named_to_the_old_and_new_owners_only(
        store: Path) -> None:
    state, _ = snapshot(store)
    card = next(c for c in state.deck if c in SPECIALS and state.deck.count(c) == 1)
    run(store, "edit", "move", "g", card, "hand:cy", "--reason", "misdeal")
    run(store, "edit", "move", "g", card, "hand:bob", "--reason", "swap")
    mail = told(store)
    assert card in mail["cy@example.org"] and card in mail["bob@example.org"]
    assert card not in mail["ann@example.org"]
    assert "took a special card from cy and gave it to bob (swap)" in mail["ann@example.org"]
    run(store, "edit", "move", "g", card, "discards", "--reason", "cleanup")
    assert "took a special card from bob and put it in the discards" in plain(
        run(store, "history", "g", "--player", "ann").output)


def test_money_set_on_a_group_is_told_only_to_its_owner(store: Path) -> None:
    run(store, "edit", "money", "g", "gnomes", "40", "--reason", "lost mail")
    mail = told(store)
    assert "40 MB" in mail["bob@example.org"]
    for other in ("ann@example.org", "cy@example.org"):
        assert "40 MB" not in mail[other]
        assert "changed the money on The Gnomes of Zurich (bob's Illuminati) (lost mail)" in \
            mail[other]
    assert "40 MB" not in plain(run(store, "history", "g", "--player", "ann").output)
    assert "40 MB" in plain(run(store, "history", "g", "--player", "bob").output)


def test_a_card_put_in_the_draw_pile_is_not_named_where_it_lies(store: Path) -> None:
    """The draw pile's order is secret (rulebook: cards are drawn from a shuffled deck): a
    card the game master puts in it is named to no player, who learn only that a card went
    in; one moved from the pile to a public place is named."""
    state, _ = snapshot(store)
    card = state.uncontrolled[0]
    gm = run(store, "edit", "move", "g", card, "deck", "--reason", "reshuffle").output
    assert card in plain(gm)
    for text in told(store).values():
        assert card not in text
        assert "put a card from the uncontrolled area in the draw pile (reshuffle)" in text
    run(store, "edit", "move", "g", card, "uncontrolled", "--reason", "back")
    assert all(card in text for text in told(store).values())


def test_a_money_edit_logged_before_owners_were_recorded_still_reads() -> None:
    """A gm_money event of an older log has no "player": history and reports still render it
    (StrictUndefined would otherwise stop them)."""
    from pbem.engine.events import event_of
    from pbem.reports.templating import template

    for lang in ("en", "fr"):
        module = template("_events.txt.j2", lang).module
        text = module.event(event_of("gm_money", {"card": "The Mafia", "amount": 3,  # type: ignore[attr-defined]
                                               "reason": ""}))
        assert "The Mafia" in text and "(" not in text


def test_a_money_edit_names_an_illuminati_card_as_one_and_a_group_as_one() -> None:
    """rulebook-en: "When cash is transferred, it must come from an Illuminati card and go to
    another one. Other Groups cannot give their money to another player": an Illuminati
    card is not a group, so money the game master sets on one is not said to be on the
    owner's group, to the owner (the amount) or to the others (that it changed), in English
    and French; an older log's event, which does not say the kind, names the structure."""
    from factory import BAVARIA, game, place
    from factory import run as play

    from pbem.engine.commands import GmSetMoney
    from pbem.engine.events import event_of
    from pbem.reports.templating import template

    position = place(game(ann=BAVARIA), "ann", "The Mafia", treasury=3)
    said = {("en", BAVARIA): "(ann's Illuminati)", ("en", "The Mafia"): "(ann's group)",
            ("fr", BAVARIA): "(Illuminati d'ann)", ("fr", "The Mafia"): "(groupe d'ann)"}
    for (lang, card), whose in said.items():
        module = template("_events.txt.j2", lang).module
        _, events = play(position, GmSetMoney("gm", card, 10, "lost mail"))
        texts = [module.event(e) for e in events]  # type: ignore[attr-defined]
        assert [e.kind for e in events] == ["gm_money", "gm_money_count"]
        assert all(f"{card} {whose}" in t for t in texts), texts
        old = event_of("gm_money", {"card": card, "player": "ann", "amount": 3, "reason": ""})
        structure = {"en": "in ann's power structure",
                     "fr": "dans la structure de pouvoir d'ann"}[lang]
        assert f"({structure})" in module.event(old)  # type: ignore[attr-defined]
