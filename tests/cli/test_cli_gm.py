"""The game master's commands, run with click's CliRunner against real stores on disk.

Each test copies a store holding a started three-player game (made once per module) and
drives it with the commands, then checks the store: the log, the snapshot, the mails
queued, and that the log still replays to the snapshot.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from gm_cli import (
    LATER,
    PAST_DEADLINE,
    START,
    assert_replays,
    gm_mails,
    mails,
    plain,
    run,
    snapshot,
    text_of,
    to,
)
from stored_games import SEED, edit_stored_log, simulated_store
from titles import mail_title

from pbem.cli.gm import GM_COMMANDS, cli
from pbem.store import Store


@pytest.fixture
def store(gm_store: Path) -> Path:
    return gm_store  # conftest's: a copy of the started game g

# --- every command has help --------------------------------------------------------------------


def all_commands() -> Iterator[tuple[str, ...]]:
    for command in GM_COMMANDS:
        yield (command.name or "",)
        if isinstance(command, click.Group):
            for name in command.commands:
                yield (command.name or "", name)


@pytest.mark.parametrize("path", list(all_commands()), ids=" ".join)
def test_every_command_has_help(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(cli, [*path, "--help"])
    assert result.exit_code == 0 and "Usage:" in result.output
    assert len(result.output.split("\n")) > 3


# --- creating, starting, listing, showing ------------------------------------------------------


def test_create_and_start_a_game(tmp_path: Path) -> None:
    store = tmp_path / "s"
    made = run(store, "game", "create", "one", "--player", "ann=Ann@Example.org",
               "--player", "bob=bob@example.org:UFOs", "--option", "network_goal=25",
               "--option", "media_alignment=yes", "--response-hours", "12", now=START)
    assert "Created game one for ann, bob." in made.output
    state, service = snapshot(store, "one")
    assert state.options.network_goal == 25 and state.options.media_alignment
    assert state.player("bob").illuminati == "The UFOs"
    assert service.seats[0].address == "ann@example.org" and not service.started
    assert service.timing.response_hours == 12
    assert state.dice.commitment in made.output
    assert mails(store) == []  # nothing is mailed before the start
    started = run(store, "game", "start", "one", now=START)
    assert "welcome mails queued for ann, bob" in started.output
    assert "password" not in started.output.lower()
    welcomes = [m for m in mails(store) if "Welcome" in mail_title(m)]
    assert sorted(to(m) for m in welcomes) == ["ann@example.org", "bob@example.org"]
    assert state.dice.commitment[:32] in text_of(welcomes[0])
    again = run(store, "game", "start", "one", now=START, code=1)
    assert "already started" in again.output


@pytest.mark.parametrize(("lang", "welcome", "password"), [
    ("fr", "Bienvenue dans la partie", "VOTRE MOT DE PASSE"),
    ("de", "Willkommen in der Partie", "Ihr Passwort"),  # issue 42's third language
])
def test_a_game_created_in_a_language_welcomes_its_players_in_it(
        tmp_path: Path, lang: str, welcome: str, password: str) -> None:
    """The first mail (the welcome, with the password) comes before any SET LANGUAGE: the
    game master chooses its language at the creation; a player may still choose another."""
    store = tmp_path / "s"
    run(store, "game", "create", lang, "--language", lang, "--player", "ann=a@example.org",
        "--player", "bob=b@example.org", now=START)
    assert {seat.lang for seat in snapshot(store, lang)[1].seats} == {lang}
    run(store, "game", "start", lang, now=START)
    subjects = [mail_title(m) for m in mails(store)]
    assert len([s for s in subjects if welcome in s]) == 2
    assert not [s for s in subjects if "Welcome" in s]
    assert password in text_of(next(m for m in mails(store) if to(m) == "a@example.org"))


def test_start_shows_passwords_only_when_asked(tmp_path: Path) -> None:
    store = tmp_path / "s"
    run(store, "game", "create", "two", "--player", "ann=a@example.org", "--player",
        "bob=b@example.org", now=START)
    result = run(store, "game", "start", "two", "--show-passwords", now=START)
    lines = [line.split(": ") for line in result.output.splitlines() if line.startswith("  ")]
    assert [name.strip() for name, _ in lines] == ["ann", "bob"]
    ann_mail = next(m for m in mails(store) if to(m) == "a@example.org")
    assert lines[0][1] in text_of(ann_mail)


@pytest.mark.parametrize(("args", "message"), [
    (("--player", "ann"), "is not NAME=ADDRESS"),
    (("--player", "ann=a@x.org:Nobody Here"), "Unknown Illuminati name"),
    (("--player", "ann=a@x.org", "--option", "victory=3"), "The options are"),
    (("--player", "ann=a@x.org", "--option", "media_alignment=maybe"), "yes or no"),
    (("--player", "ann=a@x.org", "--seed", "xyz"), "hex digits"),
])
def test_create_explains_a_bad_argument(tmp_path: Path, args: tuple[str, ...],
                                        message: str) -> None:
    result = run(tmp_path / "s", "game", "create", "bad", "--player", "zed=z@x.org", *args,
                 code=2)
    assert message in result.output


def test_create_refuses_a_rule_breaking_game(tmp_path: Path) -> None:
    result = run(tmp_path / "s", "game", "create", "bad", "--player", "ann=a@x.org", code=1)
    assert "needs 2 to 8 players" in result.output


def test_commands_on_a_missing_store_say_what_to_do(tmp_path: Path) -> None:
    result = run(tmp_path / "nothing", "games", code=1)
    assert "There is no game store at" in result.output and "--store" in result.output


def test_a_busy_store_ends_with_exit_code_3(store: Path) -> None:
    other = Store(store)  # another process's hold, as the daemon's would be
    with other.lock():
        result = CliRunner().invoke(cli, ["games", "--store", str(store), "--wait", "0.2"])
    assert result.exit_code == 3 and "in use by process" in result.output


def test_games_lists_every_game(store: Path) -> None:
    result = run(store, "games")
    header, row = result.output.splitlines()
    assert header.split()[:4] == ["GAME", "STATUS", "TURN", "STEP"]
    state, _ = snapshot(store)
    assert row.startswith("g ") and f"{state.active_player.name} to play" in row
    assert "2024-05-04T12:00" in row  # the orders deadline


def test_show_gives_the_game_master_everything(store: Path) -> None:
    state, _ = snapshot(store)
    result = run(store, "game", "show", "g")
    out = plain(result.output)
    assert SEED in out and "ann <ann@example.org>" in out
    for p in state.players:
        assert f"{p.name} ({p.illuminati})" in out
        assert f"treasury {p.treasury} MB" in out  # every treasury, not "?"
    assert "Draw pile: " in out and state.deck[0] in out
    data = json.loads(run(store, "game", "show", "g", "--json").output)
    assert data["state"]["seq"] == state.seq and "password_hash" not in json.dumps(data)


# --- running ------------------------------------------------------------------------------------


def test_preview_shows_the_missed_deadline_and_commits_nothing(store: Path) -> None:
    before = Store(store).log_length("g")
    quiet = run(store, "preview", "g")
    assert "nothing would happen" in quiet.output and "orders are due by" in quiet.output
    state, _ = snapshot(store)
    active = state.active_player.name
    due = run(store, "preview", "g", now=PAST_DEADLINE)
    assert f"log step 2: Pass by {active}." in due.output
    assert "mail turn_report to" in due.output and "Nothing was committed." in due.output
    assert Store(store).log_length("g") == before and snapshot(store)[0] == state


def test_process_runs_the_deadlines(store: Path) -> None:
    state, _ = snapshot(store)
    before = len(mails(store))
    result = run(store, "process", now=PAST_DEADLINE)
    assert "0 mails processed." in result.output and "g: 2 steps logged." in result.output
    after, service = snapshot(store)
    assert after.active_player.name != state.active_player.name
    assert service.seat(state.active_player.name).misses == 1
    assert len(mails(store)) == before + 3  # everyone's turn report
    assert_replays(store)


# --- overrides of the game: logged commands -----------------------------------------------------


def test_edit_money_is_logged_announced_and_replays(store: Path) -> None:
    result = run(store, "edit", "money", "g", "gnomes", "40", "--reason", "lost mail")
    assert "set the money on The Gnomes of Zurich (bob's Illuminati) to 40 MB (lost mail)" in plain(
        result.output)
    state, _ = snapshot(store)
    assert state.player("bob").treasury == 40
    log = list(Store(store).log("g"))
    assert log[-1]["command"] == {"type": "GmSetMoney", "player": "gm",
                                  "card": "The Gnomes of Zurich", "amount": 40,
                                  "reason": "lost mail"}
    told = {to(m): plain(text_of(m)) for m in gm_mails(store)}
    assert len(told) == 3 and "40 MB (lost mail)" in told["bob@example.org"]  # bob's group
    assert_replays(store)


def test_edit_move_puts_a_card_in_a_hand_and_replays(store: Path) -> None:
    state, _ = snapshot(store)
    card = next(c for c in state.deck if c in ("Bribery", "Deep Agent", "Murphy's Law",
                                               "Assassination", "Interference"))
    run(store, "edit", "move", "g", card, "hand:CY", "--reason", "misdeal")
    after, _ = snapshot(store)
    assert card in after.player("cy").hand and len(after.deck) == len(state.deck) - 1
    assert_replays(store)
    refused = run(store, "edit", "move", "g", "KGB", "hand:cy", "--reason", "x", code=1)
    assert "Only special cards go to a hand." in refused.output
    unknown = run(store, "edit", "move", "g", "KGB", "attic", "--reason", "x", code=1)
    assert "Unknown place 'attic'" in unknown.output
    assert "--reason" in run(store, "edit", "money", "g", "KGB", "1", code=2).output


def test_rollback_cuts_the_log_rebuilds_the_snapshot_and_tells_everyone(store: Path) -> None:
    run(store, "process", now=PAST_DEADLINE)  # steps 2 (pass) and 3 (the next turn)
    run(store, "edit", "money", "g", "Bavarian", "30", "--reason", "typo",
        now=PAST_DEADLINE)  # step 4
    assert Store(store).log_length("g") == 6  # create, start, steps 1 to 4
    result = run(store, "rollback", "g", "--to", "3", "--yes", "--reason", "wrong sum",
                 now=PAST_DEADLINE)
    assert "back at step 3: 1 log entry undone" in result.output
    state, service = snapshot(store)
    log = list(Store(store).log("g"))
    assert state.seq == 3 and len(log) == 6  # step 4 cut, the rollback logged instead
    assert log[-1]["gm"]["kind"] == "rollback" and log[-1]["seq"] == 3
    assert state.player("ann").treasury != 30
    assert service.deadline.startswith("2024-05-08T12:00")  # a fresh orders deadline
    assert_replays(store)
    told = [text_of(m) for m in gm_mails(store)]
    # Players are told in turns and players (issue 18.13), not in the log's step numbers.
    said = "took the game back to an earlier point of turn 2 (ann's turn)"
    assert any(said in " ".join(t.split()) and "wrong sum" in t for t in told)
    assert not any("step 3" in t for t in told)
    history = run(store, "history", "g").output
    assert said in " ".join(history.split())
    # A later step gets the number the undone one had.
    run(store, "edit", "money", "g", "Bavarian", "31", "--reason", "right sum",
        now=PAST_DEADLINE)
    assert list(Store(store).log("g"))[-1]["seq"] == 4
    assert_replays(store)


def test_rollback_asks_first_and_refuses_impossible_steps(store: Path) -> None:
    aborted = run(store, "rollback", "g", "--to", "0", stdin="n\n", code=1)
    assert "Aborted" in aborted.output and Store(store).log_length("g") == 3
    too_far = run(store, "rollback", "g", "--to", "1", "--yes", code=1)
    assert "it can go back to a step from 0 to 0" in too_far.output


def test_rollback_refuses_the_middle_of_an_attack(tmp_path: Path) -> None:
    run(tmp_path, "game", "create", "a", "--player", "ann=a@example.org", "--player",
        "bob=b@example.org", "--seed", SEED, now=START)
    run(tmp_path, "game", "start", "a", now=START)
    run(tmp_path, "bot", "a", snapshot(tmp_path, "a")[0].active_player.name, "on",
        now=START)
    run(tmp_path, "process", now=START)  # the bot attacks; the game is still running
    log = list(Store(tmp_path).log("a"))
    attack = next(e["seq"] for e in log
                  if any(x["kind"] == "attack" for x in e["events"]))
    result = run(tmp_path, "rollback", "a", "--to", str(attack), "--yes", code=1)
    assert f"Step {attack} is in the middle of an attack" in result.output
    assert f"special card. Go back to step {attack - 1}" in result.output  # no later one yet


def test_remove_takes_the_player_out_and_the_next_turn_begins(store: Path) -> None:
    state, _ = snapshot(store)
    active = state.active_player.name
    result = run(store, "remove", "g", active, "--yes", "--reason", "vanished")
    assert f"The game master removed {active} from the game (vanished)" in result.output
    after, _ = snapshot(store)
    assert after.player(active).status == "removed" and after.active_player.name != active
    assert after.turn_number == 2
    told = [m for m in gm_mails(store)]
    assert {to(m) for m in told} == {f"{p.name}@example.org" for p in state.players}
    assert "removed " + active in text_of(told[0]) and "vanished" in text_of(told[0])
    assert_replays(store)
    again = run(store, "remove", "g", active, "--yes", code=1)
    assert "no longer playing" in again.output


# --- overrides of the service's record -----------------------------------------------------


def test_replace_gives_the_seat_a_new_address_password_and_name(store: Path) -> None:
    result = run(store, "replace", "g", "cy", "--address", "Dee@Example.org", "--name", "Dee",
                 "--show-password")
    password = result.output.split("password: ")[1].strip()
    state, service = snapshot(store)
    assert service.seat("Dee").address == "dee@example.org"
    assert "cy" not in [s.name for s in service.seats]
    assert state.player("Dee").illuminati == "The Network"
    welcome = next(m for m in mails(store)
                   if to(m) == "dee@example.org" and "Welcome" in mail_title(m))
    assert password in text_of(welcome)
    told = {to(m): plain(text_of(m)) for m in gm_mails(store)}
    assert "cy is called Dee from now on." in told["ann@example.org"]
    assert "A new player now plays cy's seat, under the name Dee." in told["ann@example.org"]
    assert "dee@example.org" not in told["ann@example.org"]  # no address to the others
    assert_replays(store)
    assert "before cy@example.org" in run(store, "history", "g").output.replace("\n      ", " ")
    assert "before" not in run(store, "history", "g", "--player", "ann").output
    bad = run(store, "replace", "g", "cy", "--address", "nowhere", code=2)
    assert "This is not a mail address ('nowhere')" in plain(bad.output)


@pytest.mark.parametrize("address", [".gus@localhost", "gus@", "Gus <gus@localhost>",
                                     "gus@local host"])
def test_replace_refuses_an_address_mail_cannot_be_written_to(store: Path,
                                                               address: str) -> None:
    """QA: `pbem replace g3 gus --address ".gus@localhost"` ended in a traceback when the
    welcome was composed; the address is refused when given, named, and nothing changes."""
    before = snapshot(store)
    bad = run(store, "replace", "g", "ann", "--address", address, code=2)
    assert f"This is not a mail address ({address!r})" in plain(bad.output)
    assert "Traceback" not in bad.output
    assert snapshot(store) == before


def test_replace_refuses_an_address_the_maildir_sender_cannot_deliver_to(store: Path) -> None:
    """QA: `--address "gus/x@localhost"` was taken, but the Maildir sender (the configuration
    has no [smtp]) cannot make a folder of it: refused, saying why."""
    bad = run(store, "replace", "g", "ann", "--address", "gus/x@localhost", code=2)
    assert "this address cannot name a folder" in plain(bad.output)
    assert "'gus/x@localhost'" in bad.output


def test_create_checks_each_address_as_replace_does(tmp_path: Path) -> None:
    """Every address that enters meets the same check: `pbem game create` too."""
    bad = run(tmp_path, "game", "create", "h", "--player", "ann=.ann@example.org",
              "--player", "bob=bob@example.org", "--player", "cy=cy/x@example.org", code=2)
    assert "This is not a mail address ('.ann@example.org')" in plain(bad.output)
    assert not (tmp_path / "games" / "h").exists()


def test_bot_on_plays_the_seat_and_off_gives_it_back(store: Path) -> None:
    state, _ = snapshot(store)
    active = state.active_player.name
    result = run(store, "bot", "g", active, "on")
    assert f"A bot plays {active} now." in result.output
    after, service = snapshot(store)
    assert service.seat(active).bot
    # One step: the bot is shown the game, its answer waits in the inbox (issue 43, point 6)
    assert after.seq == state.seq and len(Store(store).inbox()) == 1
    run(store, "process")  # as the daemon would, woken by the command
    after, service = snapshot(store)
    assert after.seq > state.seq  # the bot acted, through the mail intake
    assert any("A bot now plays" in text_of(m) for m in gm_mails(store))
    run(store, "bot", "g", active, "off")
    _, service = snapshot(store)
    assert not service.seat(active).bot
    assert_replays(store)


def test_pause_stops_the_deadlines_and_resume_moves_them(store: Path) -> None:
    _, service = snapshot(store)
    run(store, "pause", "g", "--reason", "holidays", now="2024-05-02T12:00:00+00:00")
    assert snapshot(store)[1].paused
    assert "already paused" in run(store, "pause", "g", code=1).output
    before = Store(store).log_length("g")
    run(store, "process", now=PAST_DEADLINE)
    assert Store(store).log_length("g") == before  # no deadline ran while paused
    result = run(store, "resume", "g", now="2024-05-04T12:00:00+00:00")
    assert "moved 48 h later" in result.output
    _, resumed = snapshot(store)
    assert not resumed.paused and resumed.deadline.startswith("2024-05-06T12:00")
    assert service.deadline.startswith("2024-05-04T12:00")
    told = [text_of(m) for m in gm_mails(store)]
    assert any("paused the game" in t and "holidays" in t for t in told)
    assert "not paused" in run(store, "resume", "g", code=1).output


def test_extend_moves_the_orders_deadline(store: Path) -> None:
    result = run(store, "extend", "g", "--hours", "24", "--reason", "travel")
    assert "now 2024-05-05 12:00 UTC" in result.output
    _, service = snapshot(store)
    assert service.deadline.startswith("2024-05-05T12:00")
    extended = Store(store).log_length("g")
    run(store, "process", now="2024-05-04T13:00:00+00:00")
    assert Store(store).log_length("g") == extended  # the old deadline passed: nothing happened
    assert any("extended the orders deadline by 24 hours" in text_of(m)
               for m in gm_mails(store))
    assert run(store, "extend", "g", "--hours", "0", code=2).exit_code == 2


def test_announce_mails_every_player(store: Path) -> None:
    result = run(store, "announce", "g", "Play nice.\nSee you at the con.")
    assert "queued for 3 players" in result.output
    told = gm_mails(store)
    assert len(told) == 3 and "See you at the con." in text_of(told[0])
    run(store, "announce", "g", "-", stdin="From standard input.\n")
    assert "From standard input." in text_of(gm_mails(store)[-1])
    assert "empty" in run(store, "announce", "g", "  ", code=1).output


def test_overrides_of_a_finished_game_are_refused(tmp_path: Path) -> None:
    simulated_store(tmp_path)
    assert "the game is over" in run(tmp_path, "pause", "sim", code=1).output.lower()
    assert "over" in run(tmp_path, "extend", "sim", "--hours", "2", code=1).output


# --- histories -------------------------------------------------------------------------------


def test_history_for_the_game_master_and_for_one_player(tmp_path: Path) -> None:
    simulated_store(tmp_path)
    full = run(tmp_path, "history", "sim").output
    assert "as the game master sees it" in full and "SETTING UP" in full
    mine = run(tmp_path, "history", "sim", "--player", "P2").output
    assert "as p2 may see it" in mine and len(mine) < len(full)
    wrong = run(tmp_path, "history", "sim", "--player", "zed", code=2)
    assert "Unknown player name ('zed')" in wrong.output


def test_export_writes_the_whole_game_as_json(store: Path, tmp_path: Path) -> None:
    out = tmp_path / "g.json"
    result = run(store, "export", "g", "-o", str(out))
    assert "3 log entries" in result.output  # create, start and the first turn begun
    data = json.loads(out.read_text())
    assert data["game"] == "g" and data["setup"]["seed"] == SEED
    assert "password_hash" not in out.read_text()
    assert json.loads(run(store, "export", "g").output) == data


def test_replay_check_catches_a_snapshot_that_drifted(store: Path) -> None:
    assert_replays(store)
    rebuilt = run(store, "replay", "g", "--to", "0").output
    assert "rebuilt to step 0: turn 0" in rebuilt
    replayed = json.loads(run(store, "replay", "g", "--json").output)
    assert replayed["seq"] == 1
    hot = store / "games" / "g" / "hot.json"
    data = json.loads(hot.read_text())
    record = data["game"]["1"]
    record["snapshot"]["state"]["players"][0]["structure"][0]["treasury"] += 5
    hot.write_text(json.dumps(data))
    result = run(store, "replay", "g", "--check", code=1)
    assert "state.players[0].structure[0].treasury: the log gives" in result.output
    assert run(store, "replay", "g", "--check", "--to", "1", code=2).exit_code == 2


def test_verify_refuses_a_running_game_unless_asked(store: Path) -> None:
    refused = run(store, "verify", "g", code=1)
    assert "not over: its seed is still secret" in refused.output
    result = run(store, "verify", "g", "--running")
    assert "matches the seed" in result.output and SEED in result.output


def test_verify_catches_a_tampered_roll(tmp_path: Path) -> None:
    simulated_store(tmp_path)
    honest = run(tmp_path, "verify", "sim")
    assert "Every roll and shuffle matches the seed" in honest.output
    edit_stored_log(tmp_path, "sim", lambda d: d.update(dice=[6, 6] if d["dice"] != [6, 6]
                                                        else [5, 6]))
    result = run(tmp_path, "verify", "sim", code=1)
    assert "PROBLEM: Step" in result.output and "but the seed gives" in result.output


def test_archive_build_writes_the_site(store: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    result = run(store, "archive", "build", str(site))
    assert "(1 game)" in result.output
    assert (site / "index.html").is_file() and (site / "games" / "g" / "index.html").is_file()
    assert (site / "games" / "g" / "turn-1.html").is_file()


def test_a_game_played_to_the_end_by_bot_seats_verifies_and_archives(tmp_path: Path) -> None:
    """Bot seats play through the service's own mail intake (``pbem bot``) to the turn cap;
    then the finished game replays, verifies and goes into the archive in full."""
    store = tmp_path / "s"
    run(store, "game", "create", "bots", "--player", "ann=a@example.org", "--player",
        "bob=b@example.org", "--option", "max_turns=3", "--seed", SEED, now=START)
    run(store, "game", "start", "bots", now=START)
    run(store, "bot", "bots", "ann", "on", now=START)
    run(store, "bot", "bots", "bob", "on", now=START)
    run(store, "process", now=LATER)
    state, _ = snapshot(store, "bots")
    assert state.phase == "over" and state.outcome == "turn cap"
    assert "over: turn cap" in run(store, "games").output
    assert_replays(store, "bots")
    assert "matches the seed" in run(store, "verify", "bots").output
    run(store, "archive", "build", str(tmp_path / "site"))
    page = (tmp_path / "site" / "games" / "bots" / "index.html").read_text(encoding="utf-8")
    assert "Money (MB)" in page and SEED in page  # over: everything is shown


def test_time_must_be_iso(store: Path) -> None:
    result = CliRunner().invoke(cli, ["games", "--store", str(store), "--now", "tomorrow"])
    assert result.exit_code == 2 and "ISO 8601" in result.output


def test_the_store_may_come_from_the_environment(store: Path) -> None:
    result = CliRunner().invoke(cli, ["games"], env={"PBEM_STORE": str(store)})
    assert result.exit_code == 0 and result.output.startswith("GAME")


def test_when_the_clock_is_not_given_it_is_now(store: Path) -> None:
    result = CliRunner().invoke(cli, ["preview", "g", "--store", str(store)])
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    assert result.exit_code == 0 and today in result.output


def test_end_gives_the_game_its_winner_and_every_player_the_last_mail(store: Path) -> None:
    """For what the rules do not end (a player left alone, players agreeing to stop): the
    game master ends the game, with winners still in it or none, and the reason."""
    bad = run(store, "end", "g", "--winner", "dee", "--reason", "x", "--yes", code=1)
    assert "dee" in bad.output
    result = run(store, "end", "g", "--winner", "Ann", "--reason", "bob and cy conceded",
                 "--yes")
    assert ("The game master ended the game (bob and cy conceded): victory for ann."
            in result.output)
    state, _ = snapshot(store)
    assert (state.phase, state.outcome, state.winners) == ("over", "game master", ("ann",))
    last = {to(m): plain(text_of(m)) for m in mails(store) if "Game over" in mail_title(m)}
    assert set(last) == {"ann@example.org", "bob@example.org", "cy@example.org"}
    assert "victory for ann. The game master ended it." in last["bob@example.org"]
    assert "(bob and cy conceded)" in last["bob@example.org"]
    assert "The secret seed of this game was" in last["bob@example.org"]
    assert_replays(store)
    again = run(store, "end", "g", "--reason", "twice", "--yes", code=1)
    assert "The game is over." in again.output


def test_bot_levels_are_kept_with_the_seat_logged_and_changed(store: Path) -> None:
    """`pbem bot GAME SEAT on --level strong`: the seat keeps its level, the players are
    told it, the log's GM entry holds it; `on` with another level changes it, the same level
    again is refused, and `off` forgets it."""
    state, _ = snapshot(store)
    seat = state.players[-1].name  # not the active one: the level alone is tested here
    result = run(store, "bot", "g", seat, "on", "--level", "strong")
    assert f"A bot plays {seat} now. Level: strong." in result.output
    _, service = snapshot(store)
    assert service.seat(seat).bot and service.seat(seat).bot_level == "strong"
    assert any(f"A bot now plays {seat}'s seat (level: strong)." in text_of(m)
               for m in gm_mails(store))
    entries = [e for e in Store(store).log("g") if e.get("gm", {}).get("kind") == "bot"]
    assert entries and entries[-1]["gm"]["data"] == {"seat": seat, "on": True,
                                                      "level": "strong"}
    run(store, "bot", "g", seat, "on", "--level", "easy")
    assert snapshot(store)[1].seat(seat).bot_level == "easy"
    refused = run(store, "bot", "g", seat, "on", "--level", "easy", code=1)
    assert f"A bot plays {seat} already" in refused.output
    assert "--level" in refused.output
    run(store, "bot", "g", seat, "off")
    after = snapshot(store)[1].seat(seat)
    assert not after.bot and after.bot_level == "normal"
    assert_replays(store)
