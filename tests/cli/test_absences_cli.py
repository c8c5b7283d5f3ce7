"""`pbem game create --option` takes the house rules (press, absences), and `pbem absences`
shows the players' absences and cancels them, through the real store."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from click.testing import CliRunner, Result

from pbem.cli.gm import cli
from pbem.service.service import Service
from pbem.store import Store

NOW = "2026-11-29T12:00:00+00:00"


def run(store: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, [*args, "--store", str(store), "--now", NOW],
                              catch_exceptions=False)


def test_house_rules_and_absences_from_the_command_line(tmp_path: Path) -> None:
    store = tmp_path / "s"
    bad = run(store, "game", "create", "g", "--player", "ann=ann@example.org",
              "--player", "bob=bob@example.org", "--option", "press=loud")
    assert bad.exit_code == 2 and "press is white, grey or none" in bad.output
    made = run(store, "game", "create", "g", "--player", "ann=ann@example.org",
               "--player", "bob=bob@example.org", "--option", "press=grey",
               "--option", "stand_in=pass", "--option", "absence_days=3")
    assert made.exit_code == 0, made.output
    started = run(store, "game", "start", "g", "--show-passwords")
    password = next(line.split(": ")[1] for line in started.output.splitlines()
                    if line.strip().startswith("ann:"))
    service = Service(Store(store))
    record = service.service_record("g")
    assert (record.house.press, record.house.stand_in, record.house.absence_days) == (
        "grey", "pass", 3)
    mail = ("From: ann@example.org\nTo: pbem@localhost\nSubject: away\n"
            "Message-ID: <a1@example.org>\n\n"
            f"GAME g PLAYER ann PASSWORD {password}\nSET ABSENCE 2026-12-01 TO 2026-12-02\n"
            "SET ABSENCE 2026-12-10\nEND\n")
    service.receive(mail.encode(), datetime.fromisoformat(NOW))
    listed = run(store, "absences", "g")
    assert "ann 1: 2026-12-01 00:00 to 2026-12-03 00:00 UTC" in listed.output
    assert "ann 2: 2026-12-10 00:00 to 2026-12-11 00:00 UTC" in listed.output
    cancelled = run(store, "absences", "g", "--cancel", "ann", "--number", "1")
    assert "Cancelled 1 absence of ann" in cancelled.output
    assert "ann 1: 2026-12-10 00:00" in cancelled.output
    assert "ann 2" not in cancelled.output


def test_game_show_tells_the_house_rules_and_each_seat_s_absences(tmp_path: Path) -> None:
    store = tmp_path / "s"
    run(store, "game", "create", "g", "--player", "ann=ann@example.org",
        "--player", "bob=bob@example.org", "--option", "press_in_attack=no")
    started = run(store, "game", "start", "g", "--show-passwords")
    password = next(line.split(": ")[1] for line in started.output.splitlines()
                    if line.strip().startswith("bob:"))
    mail = ("From: bob@example.org\nTo: pbem@localhost\nSubject: away\n"
            "Message-ID: <b1@example.org>\n\n"
            f"GAME g PLAYER bob PASSWORD {password}\nSET ABSENCE 2026-12-01\n"
            "SET MAIL DIGEST\nEND\n")
    Service(Store(store)).receive(mail.encode(), datetime.fromisoformat(NOW))
    shown = " ".join(run(store, "game", "show", "g").output.split())
    assert ("House rules: press white, none while an attack waits; absences of at most 14 "
            "days each, 28 per player; stand-in while away: wait.") in shown
    assert "; mail DIGEST." in shown
    assert "away: 1. 2026-12-01 00:00 to 2026-12-02 00:00 UTC" in shown
