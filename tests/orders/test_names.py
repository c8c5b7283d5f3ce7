"""Matching typed names to card and player names."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import refuses

from pbem.engine.carddata import load_cardset
from pbem.errors import AmbiguousNameError, UnknownNameError
from pbem.orders.names import NameMatcher, card_matcher, match_name, normalize_name

CARDS = load_cardset()
MATCHER = card_matcher(CARDS)
NAMES = CARDS.names()
CARD_ALIASES = CARDS.aliases()  # the short names the card data gives


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # exact, blind to case, punctuation and a leading "the"
        ("CIA", "C.I.A."),
        ("c.i.a.", "C.I.A."),
        ("murphys law", "Murphy's Law"),
        ("MURPHY’S LAW", "Murphy's Law"),
        ("mafia", "The Mafia"),
        ("The Mafia", "The Mafia"),
        ("l4 society", "L-4 Society"),
        ("parent teacher agglomeration", "Parent/Teacher Agglomeration"),
        ("  new   york ", "New York"),
        # unique beginning
        ("tobacco and liquor", "Tobacco & Liquor Companies"),
        ("tobacco & liq", "Tobacco & Liquor Companies"),
        ("Bavarian", "The Bavarian Illuminati"),
        ("gnomes", "The Gnomes of Zurich"),
        ("evil gen", "Evil Geniuses for a Better Tomorrow"),
        # beginnings of words, in order
        ("fed res", "Federal Reserve"),
        ("tobacco liquor", "Tobacco & Liquor Companies"),
        ("mind lasers", "Orbital Mind Control Lasers"),
        ("int com consp", "International Communist Conspiracy"),
        # aliases
        ("OMCL", "Orbital Mind Control Lasers"),
        ("SMOF", "S.M.O.F."),
        ("IRS", "I.R.S."),
        ("FBI", "F.B.I."),
        ("KGB", "KGB"),
        ("UN", "The United Nations"),
        ("PTA", "Parent/Teacher Agglomeration"),
        ("SLA", "Semiconscious Liberation Army"),
        ("ICC", "International Communist Conspiracy"),
        ("Commies", "International Communist Conspiracy"),
        ("Bavarians", "The Bavarian Illuminati"),
        ("Gnomes", "The Gnomes of Zurich"),
        ("Cthulhu", "The Servants of Cthulhu"),
        ("Discordians", "The Discordian Society"),
        ("UFO", "The UFOs"),
        ("Network", "The Network"),
        ("Assassins", "The Society of Assassins"),
        ("Bermuda", "The Bermuda Triangle"),
        ("Secrets", "Secrets Man Was Not Meant To Know"),
        ("Murphy", "Murphy's Law"),
        ("Swiss Bank", "Swiss Bank Account"),
        ("Deep Agent", "Deep Agent"),
        ("Senate", "Senate Investigating Committee"),
    ],
)
def test_card_names_are_matched_the_way_players_write_them(query: str, expected: str) -> None:
    assert MATCHER.match(query) == expected
    assert match_name(query, NAMES, aliases=CARD_ALIASES) == expected


def test_every_alias_of_the_card_data_names_a_card_of_the_shipped_set() -> None:
    for alias, name in CARD_ALIASES.items():
        assert name in NAMES, alias
        assert MATCHER.match(alias) == name


def test_an_alias_beats_a_beginning_shared_by_two_names() -> None:
    """ "un" begins Underground Newspapers and The United Nations; the alias decides."""
    with pytest.raises(AmbiguousNameError):
        match_name("un", NAMES)  # no aliases given
    assert MATCHER.match("un") == "The United Nations"


def test_an_alias_for_a_card_not_in_the_list_is_ignored() -> None:
    with pytest.raises(UnknownNameError):
        match_name("OMCL", ["Texas", "New York"], aliases=CARD_ALIASES)


def test_a_misspelt_name_gets_did_you_mean() -> None:
    with pytest.raises(UnknownNameError) as caught:
        MATCHER.match("Cthulu")
    assert caught.value.suggestion == "did you mean: The Servants of Cthulhu?"
    assert caught.value.text == "Cthulu"
    assert "unknown card name" in str(caught.value)


def test_did_you_mean_lists_several_close_names() -> None:
    with pytest.raises(UnknownNameError) as caught:
        MATCHER.match("Tabloid Gamess")
    assert caught.value.suggestion is not None
    assert caught.value.suggestion.startswith("did you mean: ")
    assert "Tabloids" in caught.value.suggestion


def test_a_name_like_nothing_says_so() -> None:
    with pytest.raises(UnknownNameError) as caught:
        MATCHER.match("xyzzy plugh")
    assert caught.value.suggestion == "no card is named like that."


def test_an_empty_name_is_unknown() -> None:
    with refuses("no_name_given", UnknownNameError, what="card"):
        MATCHER.match(" ... ")


def test_a_beginning_shared_by_two_names_is_ambiguous() -> None:
    with pytest.raises(AmbiguousNameError) as caught:
        MATCHER.match("phone")
    assert caught.value.suggestion == "say which: Phone Phreaks or The Phone Company."


def test_a_long_ambiguity_is_cut_short() -> None:
    with pytest.raises(AmbiguousNameError) as caught:
        MATCHER.match("s")
    assert caught.value.suggestion is not None
    assert caught.value.suggestion.endswith("more.")


def test_a_whole_name_beats_a_longer_name_it_begins() -> None:
    assert match_name("al", ["Alice", "Al"], what="player") == "Al"
    assert match_name("ali", ["Alice", "Al"], what="player") == "Alice"


def test_player_names_are_matched_the_same_way() -> None:
    players = ["Zoë Müller", "Zachary", "Anne-Marie O'Neil"]
    assert match_name("zoe muller", players, what="player") == "Zoë Müller"
    assert match_name("anne marie", players, what="player") == "Anne-Marie O'Neil"
    assert match_name("oneil", players, what="player") == "Anne-Marie O'Neil"
    with refuses("ambiguous_name", AmbiguousNameError, what="player"):
        match_name("z", players, what="player")
    with refuses("unknown_name", UnknownNameError, what="player") as caught:
        match_name("bob", players, what="player")
    assert caught.value.suggestion == "no player is named like that."


def test_two_names_that_read_the_same_are_ambiguous() -> None:
    with pytest.raises(AmbiguousNameError):
        match_name("cia", ["C.I.A.", "CIA"])


def test_normalize_name() -> None:
    assert normalize_name("The Tobacco & Liquor Companies") == "tobacco and liquor companies"
    assert normalize_name("C.I.A.") == "cia"
    assert normalize_name("The") == "the"


@given(st.sampled_from(NAMES))
def test_any_card_name_written_exactly_matches_itself(name: str) -> None:
    assert MATCHER.match(name) == name


@given(st.sampled_from(NAMES), st.data())
def test_case_and_dots_and_apostrophes_do_not_matter(name: str, data: st.DataObject) -> None:
    mangled = ""
    for char in name:
        upper = data.draw(st.booleans())
        mangled += char.upper() if upper else char.lower()
        mangled += data.draw(st.sampled_from(["", "", ".", "'"]))
    assert MATCHER.match(mangled) == name


_names = st.text(alphabet=st.characters(categories=("L", "N", "P", "Zs")), max_size=20)


@given(st.lists(_names, min_size=1, max_size=8))
def test_any_player_name_written_exactly_matches_itself(names: list[str]) -> None:
    keys = [normalize_name(n).replace(" ", "") for n in names]
    # Names with nothing to compare, or that read the same, cannot be told apart.
    readable = [n for n, k in zip(names, keys, strict=True) if k and keys.count(k) == 1]
    matcher = NameMatcher(readable, what="player")
    for name in readable:
        assert matcher.match(name) == name


def test_the_short_names_are_card_data() -> None:
    """The short names live with their cards (``aliases`` in the card data): 29 of them,
    two for the International Communist Conspiracy."""
    assert len(CARD_ALIASES) == 29
    assert CARDS.card("International Communist Conspiracy").aliases == ("Commies", "ICC")
