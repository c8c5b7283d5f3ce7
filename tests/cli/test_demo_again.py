"""`pbem demo` a second time in the same folder (issue 18.16): it needs no other folder nor
a new flag, its count of mails is the game's own, and it ends saying what to do next."""

from __future__ import annotations

import email
import mailbox
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
    assert "mutt -f" in said and "--keep-running" in said
