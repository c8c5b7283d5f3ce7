"""Every override of the game master is an entry of the game's log, written in the same store
commit as the override itself, announced to each player in their own language; a seat
renamed by ``pbem replace --name`` is known by its new name to the order language.

CliRunner against real stores on disk, as in test_cli_gm; mails go in through the store's
inbox and ``pbem process``, as the daemon would take them.
"""

from __future__ import annotations

import email.utils
import shutil
from datetime import datetime
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from gm_cli import LATER, PLAYERS, START, gm_mails, mails, plain, run, snapshot, text_of, to
from stored_games import SEED
from titles import mail_title

from pbem.cli.main import main
from pbem.service import history
from pbem.service.postmaster import POSTMASTER
from pbem.service.service import Service
from pbem.store import Store

PRE = {"resume": [("pause", "g")]}
OVERRIDES = [
    ("pause", ("pause", "g", "--reason", "holidays")),
    ("resume", ("resume", "g")),
    ("extend", ("extend", "g", "--hours", "24")),
    ("announce", ("announce", "g", "Hello all.")),
    ("replace", ("replace", "g", "cy", "--address", "dee@example.org", "--name", "Dee")),
    ("bot", ("bot", "g", "cy", "on")),
    ("rollback", ("rollback", "g", "--to", "0", "--yes", "--reason", "misdeal")),
]


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A started three-player game, and its players' passwords."""
    store = tmp_path_factory.mktemp("started") / "store"
    run(store, "game", "create", "g", *(a for p in PLAYERS for a in ("--player", p)),
        "--seed", SEED, "--orders-hours", "72", now=START)
    out = run(store, "game", "start", "g", "--show-passwords", now=START).output
    passwords = dict(line.strip().split(": ") for line in out.splitlines()
                     if line.startswith("  "))
    return store, passwords


@pytest.fixture
def game(started: tuple[Path, dict[str, str]], tmp_path: Path) -> tuple[Path, dict[str, str]]:
    copy = tmp_path / "store"
    shutil.copytree(started[0], copy)
    return copy, dict(started[1])


def subject(message: Message) -> str:
    """What the mail is about: a game mail's opening line (its Subject is the thread's)."""
    return mail_title(message)


def log(store: Path) -> list[dict[str, Any]]:
    return list(Store(store).log("g"))


def mail_in(store: Path, player: str, password: str, *lines: str, address: str = "",
            now: str = LATER) -> None:
    """A player's mail taken into the store's inbox, then ``pbem process``."""
    when = datetime.fromisoformat(now)
    raw = "\n".join([
        f"From: {player} <{address or player.lower() + '@example.org'}>",
        "To: pbem@localhost", "Subject: orders",
        f"Message-ID: <{player}-{len(mails(store))}-{'-'.join(lines)[:20]}@example.org>",
        f"Date: {email.utils.format_datetime(when)}",
        "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8", "",
        f"GAME g PLAYER {player} PASSWORD {password}", *lines, "END", ""]).encode()
    Service(Store(store)).accept(raw, when)
    run(store, "process", now=now)


def test_create_and_start_are_the_first_entries_of_the_log(
        game: tuple[Path, dict[str, str]]) -> None:
    """The game's log begins with the GM entries of its creation and start (the dice
    commitment in both), before the first turn begins; the meta record keeps no GM event."""
    store, _ = game
    entries = log(store)
    assert [e.get("gm", {}).get("kind") for e in entries[:2]] == ["create", "start"]
    assert all("command" not in e and e["seq"] == 0 for e in entries[:2])
    commitment = snapshot(store)[0].dice.commitment
    assert entries[0]["gm"]["data"] == {"players": ["ann", "bob", "cy"],
                                        "commitment": commitment}
    assert entries[2]["command"]["type"] == "BeginTurn"
    assert "gm_events" not in Store(store).meta("g")


@pytest.mark.parametrize(("kind", "args"), OVERRIDES, ids=[k for k, _ in OVERRIDES])
def test_every_override_is_a_log_entry_and_the_log_still_replays(
        game: tuple[Path, dict[str, str]], kind: str, args: tuple[str, ...]) -> None:
    """The override is a GM entry of its own kind (no command: replay skips it) at the step
    it was done, shown in the GM's history; ``replay --check`` and ``verify`` still pass."""
    store, _ = game
    for pre in PRE.get(kind, []):
        run(store, *pre)
    before = len(log(store))
    run(store, *args)
    after = log(store)
    found = [n for n, e in enumerate(after) if e.get("gm", {}).get("kind") == kind
             and (n >= before or kind == "rollback")]
    assert len(found) == 1 and "command" not in after[found[0]]
    entry, previous = after[found[0]], after[found[0] - 1]
    assert entry["seq"] == previous["seq"]  # a GM entry keeps the step number before it
    assert entry["events"][0]["kind"] == "gm"
    assert "gives the snapshot exactly" in run(store, "replay", "g", "--check").output
    assert "matches the seed" in run(store, "verify", "g", "--running").output
    assert "  GM  " in run(store, "history", "g").output
    assert "gm_events" not in Store(store).meta("g")


@pytest.mark.parametrize(("kind", "args"), OVERRIDES, ids=[k for k, _ in OVERRIDES])
def test_an_override_and_its_entry_are_one_commit(
        game: tuple[Path, dict[str, str]], kind: str, args: tuple[str, ...],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The first write an override makes holds its GM entry, the snapshot it changed and the
    announcements: a crash cannot keep one without the other. A rollback cuts the log in
    that same write (no separate truncation)."""
    store, _ = game
    for pre in PRE.get(kind, []):
        run(store, *pre)
    commits: list[dict[str, Any]] = []
    real = Store.commit

    def spy(self: Store, game_id: str, **kwargs: Any) -> None:
        commits.append(kwargs)
        real(self, game_id, **kwargs)

    def no_truncation(self: Store, *args: Any) -> None:
        raise AssertionError("the log was cut in a write of its own")

    monkeypatch.setattr(Store, "commit", spy)
    monkeypatch.setattr(Store, "truncate_log", no_truncation)
    run(store, *args)
    first = commits[0]
    assert [e["gm"]["kind"] for e in first["log_entries"] if "gm" in e] == [kind]
    assert first["snapshot"] is not None
    assert any(Store(store).outbox()), "the announcements were queued"
    assert (first["cut_to"] is not None) == (kind == "rollback")


def test_a_rollback_that_crashes_at_its_commit_leaves_the_game_as_it_was(
        game: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch) -> None:
    store, _ = game
    run(store, "process", now="2024-05-05T12:00:00+00:00")  # two more steps
    entries, state = log(store), snapshot(store)

    class Crash(BaseException):
        """The process dies at the commit point."""

    def crash(self: Store, game_id: str, **kwargs: Any) -> None:
        raise Crash

    monkeypatch.setattr(Store, "commit", crash)
    with pytest.raises(Crash):
        run(store, "rollback", "g", "--to", "1", "--yes")
    monkeypatch.undo()
    assert log(store) == entries and snapshot(store) == state


def test_a_rollback_keeps_the_earlier_overrides_and_logs_itself(
        game: tuple[Path, dict[str, str]]) -> None:
    """Overrides before the step gone back to stay in place; those after it are cut, and
    the rollback's entry names them; a pause cut off still counts for ``resume``."""
    store, _ = game
    run(store, "announce", "g", "Before.")
    run(store, "process", now="2024-05-05T12:00:00+00:00")  # steps 2 and 3
    run(store, "pause", "g", now="2024-05-05T13:00:00+00:00")
    run(store, "rollback", "g", "--to", "1", "--yes", now="2024-05-05T14:00:00+00:00")
    kinds = [e["gm"]["kind"] for e in log(store) if "gm" in e]
    assert kinds == ["create", "start", "announce", "rollback"]
    undone = log(store)[-1]["gm"]["data"]["undone"]
    assert undone == [{"kind": "pause", "at": "2024-05-05T13:00:00+00:00"}]
    result = run(store, "resume", "g", now="2024-05-05T15:00:00+00:00")
    assert "moved 2 h later" in result.output


def test_a_rollback_keeps_a_later_deadline_given_before(
        game: tuple[Path, dict[str, str]]) -> None:
    """Going back a step gives a full orders period from now, but never takes back time
    the game master gave: an extension made before the rollback still holds."""
    store, _ = game
    run(store, "process", now="2024-05-05T12:00:00+00:00")  # the first deadline passed
    run(store, "extend", "g", "--hours", "240", now="2024-05-05T12:30:00+00:00")
    extended = snapshot(store)[1].deadline
    assert extended.startswith("2024-05-18")
    run(store, "rollback", "g", "--to", "1", "--yes", now="2024-05-05T14:00:00+00:00")
    assert snapshot(store)[1].deadline == extended
    run(store, "rollback", "g", "--to", "0", "--yes", now="2024-05-20T09:00:00+00:00")
    assert snapshot(store)[1].deadline.startswith("2024-05-23T09:00")  # 72 h from then


def test_a_renamed_seat_plays_under_its_new_name_only(
        game: tuple[Path, dict[str, str]]) -> None:
    """After ``pbem replace cy --name Dee`` the order language knows Dee: a mail signed Dee
    is accepted, one signed cy is refused; other players' orders name Dee, not cy."""
    store, passwords = game
    out = run(store, "replace", "g", "cy", "--address", "dee@example.org", "--name", "Dee",
              "--show-password").output
    password = out.split("password: ")[1].strip()
    mail_in(store, "Dee", password, "STANDING LIST", address="dee@example.org")
    ack = [subject(m) for m in mails(store) if to(m) == "dee@example.org"
           and "Orders" in subject(m)]
    assert ack == ["[g] Orders received: 1 accepted, 0 refused (Dee)"]
    before = (len(mails(store)), log(store))
    mail_in(store, "cy", password, "STANDING LIST", address="dee@example.org")
    assert log(store) == before[1]  # no such player: nothing accepted, and the sender told
    assert len(mails(store)) == before[0] + 1
    refusal = plain(text_of(mails(store)[-1]))
    assert to(mails(store)[-1]) == "dee@example.org" and "'cy'" in refusal, refusal
    mail_in(store, "ann", passwords["ann"], "PRESS TO Dee", "Welcome aboard.", "END PRESS")
    assert any("Welcome aboard." in text_of(m) for m in mails(store)
               if to(m) == "dee@example.org" and "ann" in plain(text_of(m)))
    mail_in(store, "ann", passwords["ann"], "PRESS TO cy", "Hello?", "END PRESS")
    answer = [subject(m) for m in mails(store) if to(m) == "ann@example.org"
              and "Orders" in subject(m)]
    assert "0 accepted" in answer[-1]


@pytest.mark.parametrize("name", ["bob", "BOB", "The Mafia", "to", "9lives", "", "a@b"])
def test_a_seat_is_not_renamed_to_a_name_in_use_or_unreadable(
        game: tuple[Path, dict[str, str]], name: str) -> None:
    store, _ = game
    before = log(store)
    result = run(store, "replace", "g", "cy", "--address", "dee@example.org", "--name", name,
                 code=1 if name else 0)
    if name:
        assert "Error:" in result.output and "name" in result.output
        assert log(store) == before
    else:  # no name: the seat keeps its own
        assert snapshot(store)[0].player("cy")


def test_a_french_player_is_told_in_french(game: tuple[Path, dict[str, str]]) -> None:
    """Announcements and the history by mail are put in each reader's language: ann asked
    for French, bob did not."""
    store, passwords = game
    mail_in(store, "ann", passwords["ann"], "SET LANGUAGE FR")
    run(store, "pause", "g", "--reason", "vacances")
    run(store, "edit", "money", "g", "Gnomes", "40", "--reason", "erreur")
    french = [plain(text_of(m)) for m in mails(store) if to(m) == "ann@example.org"
              and "Message du maître du jeu" in subject(m)]
    english = [plain(text_of(m)) for m in gm_mails(store) if to(m) == "bob@example.org"]
    assert len(french) == len(english) == 2
    assert "Le maître du jeu de g écrit à ann" in french[0]
    assert "Le maître du jeu a mis la partie en pause" in french[0]
    assert "Motif : vacances" in french[0]
    # The Gnomes are bob's: ann learns that their money changed, not the amount.
    assert "Le maître du jeu a modifié la trésorerie de The Gnomes of Zurich" in french[1]
    assert "The game master paused the game" in english[0] and "Reason: vacances" in english[0]
    mail_in(store, "ann", passwords["ann"], "HISTORY")
    history = next(plain(text_of(m)) for m in mails(store) if to(m) == "ann@example.org"
                   and "Historique" in subject(m))
    assert "Le maître du jeu a mis la partie en pause" in history


def test_orders_sent_while_the_game_is_paused_are_answered_so(
        game: tuple[Path, dict[str, str]]) -> None:
    """docs/service.md: the game master "can also pause a game (deadlines stop)"; what a
    player sends meanwhile is acknowledged, and the answer says the game is paused and that
    what waits goes on once it is resumed."""
    store, passwords = game
    mail_in(store, "ann", passwords["ann"], "STANDING LIST")
    running = plain(text_of(mails(store)[-2]))
    assert "Orders received" in subject(mails(store)[-2]) and "paused" not in running
    run(store, "pause", "g", now=LATER)
    mail_in(store, "ann", passwords["ann"], "STANDING LIST")
    (ack,) = [m for m in mails(store)[-2:] if "Orders received" in subject(m)]
    assert "The game master has paused the game" in plain(text_of(ack))


def drop(store: Path, *args: str) -> None:
    """``pbem outbox drop ARGS --yes`` (``pbem outbox`` is no GM command of test_cli_gm's)."""
    result = CliRunner().invoke(main, ["outbox", "drop", *args, "--yes", "--store", str(store),
                                       "--now", LATER, "--wait", "5"], catch_exceptions=False)
    assert result.exit_code == 0, result.output


def test_a_dropped_mail_is_logged_for_the_game_master_alone(
        game: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch) -> None:
    """``pbem outbox drop`` is an override like any other: a GM entry of the game's log, in
    the same write that forgets the mail. Where a mail went and what it said are its
    recipient's business: the game master's history shows the entry, no player's view does
    (their history, their HISTORY reply, the archive's timeline)."""
    store, passwords = game
    welcome = next(i.outbox_id for i in Store(store).outbox() if i.to == "bob@example.org")
    commits: list[dict[str, Any]] = []
    real = Store.commit

    def spy(self: Store, game_id: str, **kwargs: Any) -> None:
        commits.append(kwargs)
        real(self, game_id, **kwargs)

    monkeypatch.setattr(Store, "commit", spy)
    drop(store, welcome, "--reason", "bounced twice")
    monkeypatch.undo()
    (write,) = commits
    assert list(write["drop"]) == [welcome]
    (entry,) = [e for e in write["log_entries"] if "gm" in e]
    assert entry["gm"] == {"kind": "drop_mail", "gm_only": True, "data": {
        "mail": welcome, "seat": "bob", "address": "bob@example.org",
        "reason": "bounced twice"}}
    assert entry["events"] == [] and log(store)[-1] == entry
    assert welcome not in [i.outbox_id for i in Store(store).outbox()]
    assert "gives the snapshot exactly" in run(store, "replay", "g", "--check").output

    told = (f"The game master dropped mail {welcome} for good, unsent, for bob (to "
            "bob@example.org). Reason: bounced twice.")
    assert told in plain(run(store, "history", "g").output)
    assert welcome not in run(store, "history", "g", "--player", "bob").output
    record = history.read_game(Store(store), "g")
    cards = Service(Store(store)).cards
    assert not [i for s in history.timeline(cards, record) for i in s.items
                if i.gm_event is not None and i.gm_event.gm_only]
    mail_in(store, "bob", passwords["bob"], "HISTORY")
    reply = next(plain(text_of(m)) for m in mails(store) if to(m) == "bob@example.org"
                 and "History" in subject(m))
    assert "created the game" in reply and welcome not in reply and "dropped" not in reply


def test_mail_of_no_game_dropped_is_logged_in_the_postmasters_record(
        game: tuple[Path, dict[str, str]]) -> None:
    """A reply to a stranger (queued in the postmaster's record, no game's) dropped: the
    record's log keeps which, to whom and why, in the write that forgets it."""
    store, _ = game
    raw = "\n".join([
        "From: Eve <eve@example.org>", "To: pbem@localhost", "Subject: hello",
        "Message-ID: <eve-1@example.org>", "Date: Sun, 05 May 2024 12:00:00 +0000",
        "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8", "",
        "GAME nowhere PLAYER eve PASSWORD x", "STATUS", "END", ""]).encode()
    Service(Store(store)).accept(raw, datetime.fromisoformat(LATER))
    run(store, "process")
    (reply,) = [i for i in Store(store).outbox() if i.to == "eve@example.org"]
    assert reply.game_id == POSTMASTER
    drop(store, reply.outbox_id, "--reason", "spam")
    assert list(Store(store).log(POSTMASTER))[-1] == {
        "dropped": reply.outbox_id, "to": "eve@example.org", "reason": "spam"}
    assert [i for i in Store(store).outbox() if i.to == "eve@example.org"] == []
