"""Every timing docs/service.md documents has a command-line setting in `pbem game create`
and `pbem game open` (issue 43, point 9): the orders and response periods, the reminders'
lead, the miss limit, early closing of a window and orders from the registered address only.
Each is stored in the game (a sign-up game's from its lobby record at the start) and shown by
`pbem game show`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pbem.cli.gm import cli
from pbem.service.model import Timing
from pbem.service.service import Service
from pbem.store import Store

NOW = "2024-05-01T12:00:00+00:00"
PLAYERS = ("--player", "ann=ann@example.org", "--player", "bob=bob@example.org")


def pbem(store: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, [*args, "--store", str(store), "--now", NOW, "--wait", "5"],
                              catch_exceptions=False)


# (the options given, the Timing they make, words `pbem game show` says of it)
CASES = [
    (("--orders-hours", "48"), replace(Timing(), orders_hours=48), "orders 48 h"),
    (("--response-hours", "6"), replace(Timing(), response_hours=6),
     "answers to an attack 6 h"),
    (("--reminder-hours", "6", "--reminder-hours", "1.5"), replace(Timing(), reminders=(6, 1.5)),
     "reminders 6 and 1.5 h before a deadline"),
    (("--reminder-hours", "0"), replace(Timing(), reminders=()), "no reminders"),
    (("--miss-limit", "4"), replace(Timing(), miss_limit=4),
     "told after 4 missed deadlines in a row"),
    (("--no-early-close",), replace(Timing(), close_early=False),
     "a response window waits for its deadline"),
    (("--any-address",), replace(Timing(), require_registered_address=False),
     "orders from any address"),
]


def shown(store: Path, game: str) -> str:
    result = pbem(store, "game", "show", game)
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_the_defaults_are_the_documented_ones(tmp_path: Path) -> None:
    assert pbem(tmp_path, "game", "create", "g", *PLAYERS).exit_code == 0
    assert Service(Store(tmp_path)).service_record("g").timing == Timing()
    text = shown(tmp_path, "g")
    assert ("Deadlines: orders 72 h, answers to an attack 24 h; reminders 12 h before a "
            "deadline; the game master is told after 2 missed deadlines in a row; a response "
            "window closes once everyone asked has answered; orders only from the address "
            "registered.") in text


@pytest.mark.parametrize(("args", "timing", "words"), CASES)
def test_game_create_sets_each_timing(tmp_path: Path, args: tuple[str, ...], timing: Timing,
                                      words: str) -> None:
    created = pbem(tmp_path, "game", "create", "g", *PLAYERS, *args)
    assert created.exit_code == 0, created.output
    assert Service(Store(tmp_path)).service_record("g").timing == timing
    assert words in shown(tmp_path, "g")


@pytest.mark.parametrize(("args", "timing", "words"), CASES)
def test_game_open_keeps_each_timing_for_the_game_it_starts(
        tmp_path: Path, args: tuple[str, ...], timing: Timing, words: str) -> None:
    opened = pbem(tmp_path, "game", "open", "g", "--seats", "2", *args)
    assert opened.exit_code == 0, opened.output
    for name in ("Ann", "Bob"):
        address = f"{name.lower()}@example.org"
        raw = (f"From: {address}\r\nTo: pbem@localhost\r\nSubject: join\r\n"
               f"Message-ID: <j-{name}@example.org>\r\n\r\nJOIN g AS {name}\r\n")
        Store(tmp_path).receive(raw.encode(), message_id=f"<j-{name}@example.org>",
                                received_at=NOW, sender=address)
    assert pbem(tmp_path, "process").exit_code == 0
    record = Service(Store(tmp_path)).service_record("g")
    assert record.started and record.timing == timing
    assert words in shown(tmp_path, "g")


def test_a_game_open_to_any_address_takes_orders_from_another(tmp_path: Path) -> None:
    """--any-address takes effect: a mail with the right password from an address that is
    not the seat's is carried out, where the default refuses it."""
    for game, more in (("strict", ()), ("open", ("--any-address",))):
        assert pbem(tmp_path, "game", "create", game, *PLAYERS, "--seed", "5e" * 32,
                    *more).exit_code == 0
        started = pbem(tmp_path, "game", "start", game, "--show-passwords")
        passwords = dict(line.strip().split(": ") for line in started.output.splitlines()
                         if line.startswith("  "))
        service = Service(Store(tmp_path))
        player = service.state(game).active_player.name
        raw = (f"From: elsewhere@example.net\r\nTo: pbem@localhost\r\nSubject: orders\r\n"
               f"Message-ID: <o-{game}@example.net>\r\n\r\nGAME {game} PLAYER {player} "
               f"PASSWORD {passwords[player]}\r\nPASS\r\n")
        Store(tmp_path).receive(raw.encode(), message_id=f"<o-{game}@example.net>",
                                received_at=NOW, sender="elsewhere@example.net")
        assert pbem(tmp_path, "process").exit_code == 0
        turn = Service(Store(tmp_path)).state(game).turn_number
        assert turn == (2 if more else 1), game
