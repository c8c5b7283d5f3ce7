"""Every door leads somewhere (issue 43.10): a mail to the server, not to a game, that asks
for help or begins with one of the server's orders and does not read gets the lobby's help
(the orders anyone may mail, and how), with what was wrong and the order's right form:
never the refusal of an order mail, which speaks of a password a newcomer does not have.
Played by mail through the real ``Service``, as ``test_signup_by_mail.py`` is."""

from __future__ import annotations

from pathlib import Path

import pytest
from transcripts.harness import SEED, Mailroom

from pbem.errors import OrderSyntaxError
from pbem.orders.signup import lobby_order
from pbem.reports.observing import lobby_mail
from pbem.service.signup import LOBBY, Opening, replay

SERVER_ORDERS = ("HELP", "LIST", "JOIN <", "OBSERVE <", "UNOBSERVE <", "TAKEOVER <")


@pytest.fixture
def room(tmp_path: Path) -> Mailroom:
    return Mailroom(tmp_path)


def lobby_help(text: str) -> bool:
    """The mail is the lobby's help: every order to the server, no password asked for."""
    return all(order in text for order in SERVER_ORDERS) and "PASSWORD <password> STEP" \
        not in text and "No orders could be read" not in text


@pytest.mark.parametrize("body", ["HELP\n", "help\n", "Help!\n", "help me, how do I play?\n",
                                  "\n> quoted\nHELP\nthe rest is not read\n"])
def test_help_to_the_server_gets_the_lobby_s_help(room: Mailroom, body: str) -> None:
    out = room.mail("Dan", body)
    assert [m.to for m in out] == ["dan@example.org"]
    assert lobby_help(out[0].text)
    assert "not understood" not in out[0].text
    assert list(room.store.log(LOBBY))[-1]["kind"] == "help"


@pytest.mark.parametrize(("line", "key"), [
    ("JOIN", "join_no_game"),
    ("JOIN AS Dan", "join_no_game"),
    ("JOIN illu", "join_no_as"),
    ("JOIN illu Dan", "join_no_as"),
    ("JOIN illu AS", "join_no_name"),
    ("JOIN illu AS PREFER UFOs", "join_no_name"),
    ("JOIN illu AS Dan PREFER", "join_no_prefer"),
])
def test_a_malformed_join_names_its_problem_and_the_right_form(room: Mailroom, line: str,
                                                             key: str) -> None:
    with pytest.raises(OrderSyntaxError) as caught:
        lobby_order(line + "\n")
    assert caught.value.key == key
    assert caught.value.words["usage"].startswith("JOIN <game> AS <name>")
    room.override("open_game", Opening(seats=3, seed=SEED), game="illu")
    out = room.mail("Dan", line + "\n")
    assert [m.to for m in out] == ["dan@example.org"]
    assert lobby_help(out[0].text)
    said = " ".join(out[0].text.split())
    assert "not understood" in said
    assert "Write it as: JOIN <game> AS <name> [PREFER <Illuminati>, ...]" in said
    assert room.service.lobby.open_games()["illu"]["players"] == []
    assert replay(room.store.log(LOBBY)) == room.service.lobby.meta()


def test_a_malformed_join_is_told_what_it_lacks(room: Mailroom) -> None:
    out = room.mail("Dan", "JOIN illu\n")
    assert "this JOIN has no AS" in " ".join(out[0].text.split())
    out = room.mail("Eve", "JOIN\n")
    assert "JOIN names no game" in " ".join(out[0].text.split())


def test_help_is_answered_in_the_language_of_a_known_player(room: Mailroom) -> None:
    room.override("open_game", Opening(seats=2, lang="fr", seed=SEED), game="jeu")
    room.mail("Ann", "JOIN jeu AS Ann\n")
    room.mail("Ben", "JOIN jeu AS Ben\n")  # the game starts: Ann plays in French
    out = room.mail("Ann", "HELP\n", subject="aide")
    assert out[0].subject == "Comment écrire au serveur de jeu"
    out = room.mail("Ann", "JOIN jeu\n", subject="encore")
    assert "ce JOIN n'a pas de AS" in " ".join(out[0].text.split())


def test_help_reads_as_an_order_to_the_server() -> None:
    from pbem.orders.signup import AskHelp

    assert lobby_order("HELP\n") == AskHelp()
    assert lobby_order("  help please\n") == AskHelp()
    assert lobby_order("Helpful hints:\nGAME x\n") is None


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("message", ["", "no"])
def test_the_lobby_s_help_is_worded_in_each_language(lang: str, message: str) -> None:
    rendered = lobby_mail("lobby_help", lang, None, game="", message=message,
                          suggestion="yes")
    assert rendered.subject and "<pre>" not in rendered.html and "<p>" in rendered.html
    assert all(order in rendered.text for order in SERVER_ORDERS)
    english = lobby_mail("lobby_help", "en", None, game="", message=message, suggestion="yes")
    assert (rendered.text == english.text) == (lang == "en")
