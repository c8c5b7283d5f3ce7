"""`pbem game create` refuses what the mail and the orders could not carry: a player name
that an order could not name, ids and names equal but for case, addresses no mail can
reach. Each refusal names the input and what to do, before anything is stored."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pbem.cli.gm import cli
from pbem.store import Store

NOW = "2024-05-01T12:00:00+00:00"


def create(store: Path, game: str, *players: str) -> Result:
    args = ["game", "create", game, *(a for p in players for a in ("--player", p)),
            "--store", str(store), "--now", NOW]
    return CliRunner().invoke(cli, args, catch_exceptions=False)


@pytest.mark.parametrize(("name", "says"), [
    ("END", "reads as a word or number of the orders"),
    ("all", "reads as a word or number of the orders"),
    ("Me", "reads as a word or number of the orders"),
    ("<b>Bob</b>", "no markup"),
    ("Bob\x07", "no markup"),
    ("Bo\u200bb", "invisible characters"),
    ("Ann", "already named"),  # ann is the other player: names are read without case
    ("x" * 33, "1 to 32 characters"),
])
def test_a_name_no_order_could_name_is_refused(tmp_path: Path, name: str, says: str) -> None:
    result = create(tmp_path / "s", "g", "ann=ann@example.org", f"{name}=b@example.org")
    assert result.exit_code != 0 and says in result.output
    assert not (tmp_path / "s").exists() or "g" not in Store(tmp_path / "s").games()


def test_a_plain_name_with_accents_and_punctuation_is_taken(tmp_path: Path) -> None:
    result = create(tmp_path / "s", "g", "ann=ann@example.org", "Zoë O'Neil=z@example.org")
    assert result.exit_code == 0, result.output


def test_a_game_id_equal_but_for_case_is_refused(tmp_path: Path) -> None:
    assert create(tmp_path / "s", "Illu1", "ann=a@example.org", "bob=b@example.org"
                  ).exit_code == 0
    result = create(tmp_path / "s", "illu1", "ann=a@example.org", "bob=b@example.org")
    assert result.exit_code != 0 and "'Illu1'" in result.output
    games = Store(tmp_path / "s").games()
    assert "Illu1" in games and "illu1" not in games


def test_an_address_in_another_script_is_kept_in_the_form_mail_servers_take(
        tmp_path: Path) -> None:
    """A domain with accents is stored in its IDNA form (xn--...), which every SMTP server
    takes; a local part that is not ASCII (which needs SMTPUTF8) is refused at create, not
    by a traceback at start."""
    assert create(tmp_path / "s", "g", "ann=ann@exämple.org", "bob=b@example.org"
                  ).exit_code == 0
    result = CliRunner().invoke(cli, ["game", "start", "g", "--store", str(tmp_path / "s"),
                                      "--now", NOW], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert any(item.to == "ann@xn--exmple-cua.org" for item in Store(tmp_path / "s").outbox())
    refused = create(tmp_path / "t", "g", "ann=änn@example.org", "bob=b@example.org")
    assert refused.exit_code != 0 and "not a mail address" in refused.output


def test_two_stores_with_a_game_of_the_same_id_send_different_message_ids(
        tmp_path: Path) -> None:
    """Clients take two mails with one Message-ID for one mail: two stores (two daemons, or
    a game made again) each with a game illu1 never send the same Message-ID."""
    ids = []
    for store in (tmp_path / "one", tmp_path / "two"):
        assert create(store, "illu1", "ann=a@example.org", "bob=b@example.org").exit_code == 0
        started = CliRunner().invoke(cli, ["game", "start", "illu1", "--store", str(store),
                                           "--now", NOW], catch_exceptions=False)
        assert started.exit_code == 0, started.output
        ids.append({item.message_id for item in Store(store).outbox()})
    assert ids[0] and ids[1] and not ids[0] & ids[1]
