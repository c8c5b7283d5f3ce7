"""The game master's commands where QA found them wanting: renamed seats in the archive and
in a rollback, bot seats before the start, finished games, no-op commands, typos."""

from __future__ import annotations

from pathlib import Path

import pytest
from gm_cli import (
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
from stored_games import simulated_store

from pbem.store import Store


@pytest.fixture
def store(gm_store: Path) -> Path:
    return gm_store  # conftest's: a copy of the started game g


# --- a renamed seat ----------------------------------------------------------------------------


def test_the_archive_charts_a_renamed_seat_under_its_new_name(store: Path,
                                                                tmp_path: Path) -> None:
    """A seat renamed by ``replace --name`` keeps its line in the charts, under the new
    name, though the turns before the rename knew it by the old one."""
    run(store, "process", now=PAST_DEADLINE)  # a turn before the rename
    run(store, "replace", "g", "ann", "--address", "anna@example.org", "--name", "anna",
        now=PAST_DEADLINE)
    site = tmp_path / "site"
    result = run(store, "archive", "build", str(site), now=PAST_DEADLINE)
    assert "(1 game)" in result.output
    page = (site / "games" / "g" / "index.html").read_text(encoding="utf-8")
    assert 'data-player="anna"' in page and 'data-player="ann"' not in page


def test_a_rollback_past_a_rename_gives_the_seat_its_old_name_back(store: Path) -> None:
    """The rename (``GmRenamePlayer``) is cut off with the steps after it: the seat is
    called by its old name again, and whoever plays it now goes on playing it."""
    run(store, "process", now=PAST_DEADLINE)  # steps 2 and 3
    run(store, "replace", "g", "ann", "--address", "anna@example.org", "--name", "anna",
        now=PAST_DEADLINE)  # step 4: the rename
    result = run(store, "rollback", "g", "--to", "3", "--yes", now=PAST_DEADLINE)
    assert "back at step 3" in result.output
    state, service = snapshot(store)
    assert {p.name for p in state.players} == {s.name for s in service.seats}
    assert service.seat("ann").address == "anna@example.org"
    assert_replays(store)
    told = [m for m in gm_mails(store) if "took the game back" in text_of(m)]
    assert "anna@example.org" in {to(m) for m in told}
    assert "took the game back" in run(store, "history", "g").output


# --- bot seats ---------------------------------------------------------------------------------


def test_bot_pause_and_remove_wait_for_the_start(tmp_path: Path) -> None:
    """The start gives every seat its password and starts the deadlines: a bot set before
    it would mail with a password the start replaced (and the game would wait for the
    deadline), a pause would have no deadline to stop, and a removal would leave a seat
    counted among "the number of players at the beginning of the game" (rule book, Winning
    the Game) that never played, or a single player. All are refused, with what to do."""
    run(tmp_path, "game", "create", "b", "--player", "ann=a@example.org", "--player",
        "bob=b@example.org", now=START)
    bot = run(tmp_path, "bot", "b", "ann", "on", now=START, code=1)
    assert "has not started" in bot.output and "pbem game start" in bot.output
    assert "has not started" in run(tmp_path, "pause", "b", now=START, code=1).output
    remove = run(tmp_path, "remove", "b", "bob", "--yes", now=START, code=1)
    assert "has not started" in remove.output and "pbem replace" in remove.output
    assert snapshot(tmp_path, "b")[0].player("bob").status != "left"
    edit = run(tmp_path, "edit", "money", "b", "Gnomes", "3", "--reason", "x", now=START,
               code=1)
    assert "has not started" in edit.output and "dealt at the start" in edit.output
    back = run(tmp_path, "rollback", "b", "--to", "0", "--yes", now=START, code=1)
    assert "has not moved yet" in back.output
    _, service = snapshot(tmp_path, "b")
    assert not service.seat("ann").bot and not service.paused
    assert mails(tmp_path) == []


def test_bot_refuses_what_changes_nothing(store: Path) -> None:
    """``bot off`` for a seat no bot plays, or ``bot on`` twice, is refused: nothing is
    logged and no player is told of a change that did not happen."""
    length = Store(store).log_length("g")
    off = run(store, "bot", "g", "bob", "off", code=1)
    assert "No bot plays bob." in off.output
    assert Store(store).log_length("g") == length and gm_mails(store) == []
    run(store, "bot", "g", "bob", "on")
    told = len(gm_mails(store))
    length = Store(store).log_length("g")
    assert "A bot plays bob already." in run(store, "bot", "g", "bob", "on", code=1).output
    assert Store(store).log_length("g") == length and len(gm_mails(store)) == told


# --- a finished game -------------------------------------------------------------------------


def test_a_finished_game_can_be_neither_edited_nor_rolled_back(tmp_path: Path) -> None:
    """The end-of-game mail reveals the seed, so every roll the game would make from any
    step on is known: a finished game stays finished, as its players last saw it."""
    simulated_store(tmp_path)
    length = Store(tmp_path).log_length("sim")
    money = run(tmp_path, "edit", "money", "sim", "Bavarian", "30", "--reason", "x", code=1)
    assert "The game is over" in money.output
    move = run(tmp_path, "edit", "move", "sim", "Gnomes", "dead", "--reason", "x", code=1)
    assert "The game is over" in move.output
    back = run(tmp_path, "rollback", "sim", "--to", "3", "--yes", code=1)
    assert "The game is over and its seed is public" in back.output
    assert Store(tmp_path).log_length("sim") == length
    assert snapshot(tmp_path, "sim")[0].phase == "over"


# --- step numbers, names, paths ------------------------------------------------------------------


def test_replay_to_takes_the_step_numbers_history_and_rollback_use(store: Path) -> None:
    """``replay --to N`` rebuilds the game at step N of ``pbem history``, though the log
    also holds GM entries (the creation, the start) that are no step."""
    run(store, "process", now=PAST_DEADLINE)  # steps 2 and 3
    assert "g rebuilt to step 2:" in run(store, "replay", "g", "--to", "2").output
    assert "g rebuilt to step 3:" in run(store, "replay", "g", "--to", "3").output
    beyond = run(store, "replay", "g", "--to", "9", code=1)
    assert "The game is at step 3" in beyond.output


def test_export_to_a_folder_that_does_not_exist_says_so(store: Path, tmp_path: Path) -> None:
    result = run(store, "export", "g", "-o", str(tmp_path / "nowhere" / "g.json"), code=1)
    assert "Cannot write" in result.output and "folder that exists" in result.output
    assert "Traceback" not in result.output


def test_a_game_is_named_in_any_case_and_a_typo_gets_a_suggestion(store: Path) -> None:
    """Mail names a game letter case aside (docs/service.md); so do the GM's commands, and
    a name that is no game's gets the ids that come close."""
    run(store, "game", "create", "g1", "--player", "ann=a@example.org", "--player",
        "bob=b@example.org")
    assert "Game g1" in run(store, "game", "show", "G1").output
    typo = run(store, "history", "gl", code=1)
    assert "There is no game 'gl' in this store. Did you mean g or g1?" in typo.output
    far = run(store, "pause", "elsewhere", code=1)
    assert "See `pbem games`." in far.output


def test_resume_gives_the_new_deadline(store: Path) -> None:
    """The GM and the resume's log entry (which the players' mail renders) hold the deadline
    as it runs now, moved by the pause, as ``extend`` gives it."""
    run(store, "pause", "g", now="2024-05-03T12:00:00+00:00")
    result = run(store, "resume", "g", now="2024-05-04T12:00:00+00:00")
    assert "moved 24 h later: the deadline is now 2024-05-05 12:00 UTC." in result.output
    entry = list(Store(store).log("g"))[-1]["gm"]
    assert entry["kind"] == "resume" and entry["data"]["deadline_utc"] == "2024-05-05 12:00"
    # The players are told the deadline itself, not how far it moved.
    told = [" ".join(text_of(m).split()) for m in gm_mails(store)]
    assert any("resumed the game; the orders deadline is now 2024-05-05 12:00 UTC." in t
               for t in told), told


def test_an_address_given_to_two_seats_is_pointed_out(store: Path, tmp_path: Path) -> None:
    """Allowed (each mail names its player), but most often a typo that sends a player's
    password to someone else: create and replace say so."""
    created = run(tmp_path / "other", "game", "create", "d", "--player", "a=x@example.org",
                  "--player", "b=X@example.org", now=START)
    assert "Note: a and b share the address x@example.org" in created.output
    alone = run(store, "replace", "g", "ann", "--address", "ann2@example.org")
    assert "Note:" not in alone.output
    replaced = run(store, "replace", "g", "cy", "--address", "bob@example.org")
    assert "share the address bob@example.org" in replaced.output


# --- pbem end ------------------------------------------------------------------------------------


def test_end_asks_about_each_winner_once(store: Path) -> None:
    """A seat given twice as --winner (in any case) wins once: the question says so."""
    result = run(store, "end", "g", "--winner", "ann", "--winner", "ANN", "--reason", "x",
                 stdin="n\n", code=1)
    assert "End g now, won by ann?" in result.output
    result = run(store, "end", "g", "--winner", "ann", "--winner", "bob", "--reason", "x",
                 stdin="n\n", code=1)
    assert "End g now, won by ann and bob?" in result.output
    assert snapshot(store)[0].phase != "over"


def test_a_seat_refused_as_a_winner_keeps_its_own_spelling(store: Path) -> None:
    """The refusal begins with the seat's name as it is spelled ("cy", not "Cy")."""
    run(store, "remove", "g", "cy", "--yes", "--reason", "vanished")
    result = run(store, "end", "g", "--winner", "cy", "--reason", "x", "--yes", code=1)
    assert "cy is not a player still in the game" in result.output
    assert "Cy is" not in result.output
    again = run(store, "remove", "g", "cy", "--yes", code=1)
    assert "cy is no longer playing" in again.output


def test_the_archive_says_the_game_master_ended_the_game_and_why(store: Path,
                                                                  tmp_path: Path) -> None:
    """The index and the game's page of a game ended by ``pbem end`` say so, with the
    reason; the removed player's special cards are out of play in its final structures."""
    run(store, "edit", "move", "g", "Market Manipulation", "hand:cy", "--reason", "a test")
    run(store, "remove", "g", "cy", "--yes", "--reason", "vanished")
    run(store, "end", "g", "--winner", "ann", "--reason", "bob conceded", "--yes")
    site = tmp_path / "site"
    run(store, "archive", "build", str(site))
    index = plain((site / "index.html").read_text(encoding="utf-8"))
    assert "ann (the game master ended the game: bob conceded)" in index
    assert "cy (The Network, removed by the game master)" in index
    page = plain((site / "games" / "g" / "index.html").read_text(encoding="utf-8"))
    assert "victory for ann. The game master ended the game (bob conceded)." in page
    assert "1 special card out of play" in page and "Market Manipulation" in page
