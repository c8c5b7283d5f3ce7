"""`pbem demo` a second time in the same folder (issue 18.16): it needs no other folder nor
a new flag, its count of mails is the game's own, and it ends saying what to do next, in
commands that run as printed (issue 43.10)."""

from __future__ import annotations

import email
import mailbox
import os
import shlex
import signal
import subprocess
import urllib.parse
from pathlib import Path

from click.testing import CliRunner

from pbem.cli.demo import run_demo
from pbem.cli.gm import cli
from pbem.store import Store


def test_a_second_demo_in_the_same_folder_plays_its_own_game(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    # An earlier demo's game (as far as the folder can tell: a game called demo).
    created = CliRunner().invoke(cli, [
        "game", "create", "demo", "--player", "ann=ann@players.example",
        "--player", "bob=bob@players.example", "--store", str(folder / "store")])
    assert created.exit_code == 0, created.output
    lines: list[str] = []
    result = run_demo(folder, port=0, seed="5e" * 32, victory_groups=5, echo=lines.append)
    assert result.game == "demo-2" and result.outcome == "victory"
    assert lines[0].startswith("Game 'demo-2' started")
    assert {"demo", "demo-2"} <= set(Store(folder / "store").games())
    # The count is the game's mails in the players' Maildirs, not every file there (the
    # sender keeps a delivery marker per mail beside them).
    mails = 0
    for box_path in result.maildirs.iterdir():
        if box_path.name.startswith("."):
            continue
        box = mailbox.Maildir(box_path, create=False)
        mails += sum(1 for key in box.iterkeys()
                     if email.message_from_bytes(box.get_bytes(key))["X-Pbem-Game"] == "demo-2")
    assert result.mails_sent == mails > 0
    files = sum(1 for p in result.maildirs.rglob("*") if p.is_file())
    assert files > mails
    # What next: the archive to open, a mailbox to read, a seat to take.
    said = "\n".join(lines)
    assert "What next:" in said
    assert result.archive.as_uri() in said
    assert "--keep-running" in said
    run_what_next(lines, tmp_path)


def run_what_next(lines: list[str], tmp_path: Path) -> None:
    """Each command the demo's "What next" prints runs as printed, from another folder, on
    a machine with no mail client and no pbem on the PATH (issue 43.10): the archive's URI
    names a file, the mailbox commands list and read a player's mail, and the seat to take
    starts a demo that waits for its human player (stopped once it said so; on any free
    port, so as not to clash with another test's listener)."""
    steps = lines[lines.index("What next:") + 1:]
    commands = [line.split(": ", 1)[1] for line in steps if line.startswith("- ")]
    assert len(commands) == 4 and not any("mutt" in c for c in commands)
    uri, listing, last, seat = commands
    assert Path(urllib.parse.unquote(urllib.parse.urlparse(uri).path)).is_file()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PATH": "/usr/bin:/bin"}
    listed = subprocess.run(shlex.split(listing), cwd=elsewhere, env=env, capture_output=True,
                            text=True, timeout=120, check=False)
    assert listed.returncode == 0, listed.stderr
    assert "Welcome to the game" in listed.stdout
    read = subprocess.run(shlex.split(last), cwd=elsewhere, env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert read.returncode == 0, read.stderr
    assert read.stdout.startswith("From: ") and "Subject: " in read.stdout
    seated = subprocess.Popen([*shlex.split(seat), "--port", "0"], cwd=elsewhere, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              start_new_session=True)
    said = []
    try:
        assert seated.stdout is not None
        for line in seated.stdout:
            said.append(line)
            if line.startswith("Mail to you is delivered"):
                break
    finally:
        os.killpg(seated.pid, signal.SIGTERM)
        seated.wait(30)
    assert said and said[-1].startswith("Mail to you is delivered"), "".join(said)
    assert "mutt" not in said[-1]
