"""`pbem mailbox`: a Maildir read with nothing but pbem (issue 43.10: the demo's players'
mail, on a machine with no mail client)."""

from __future__ import annotations

import mailbox
from pathlib import Path

from click.testing import CliRunner

from pbem.cli.main import main as pbem_main


def write(box: mailbox.Maildir, subject: str, date: str, text: str,
          game: str | None = None) -> None:
    head = ["From: pbem@localhost", "To: ann@example.org", f"Subject: {subject}",
            f"Date: {date}", "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8"]
    if game:
        head.append(f"X-Pbem-Game: {game}")
    box.add(("\n".join(head) + "\n\n" + text).encode())


def test_a_maildir_is_listed_oldest_first_and_a_mail_read(tmp_path: Path) -> None:
    box = mailbox.Maildir(tmp_path / "ann", create=True)
    write(box, "[g1] Illuminati: Ann", "Tue, 01 Dec 2026 10:00:00 +0000",
          "[g1] Turn 2: Ann's move\n\nYour report.\n", game="g1")
    write(box, "[g1] Illuminati: Ann", "Mon, 30 Nov 2026 10:00:00 +0000",
          "[g1] Welcome to the game, Ann\n\nYour password.\n", game="g1")
    write(box, "Your mail could not be read", "Wed, 02 Dec 2026 10:00:00 +0000", "Sorry.\n")

    def run(*args: str, code: int = 0) -> str:
        result = CliRunner().invoke(pbem_main, ["mailbox", *args])
        assert result.exit_code == code, result.output
        return result.output

    listed = run(str(tmp_path / "ann")).splitlines()
    # A game's mails share their thread's subject: the line opening the text says more.
    assert [line.split("  ")[-1] for line in listed] == [
        "[g1] Welcome to the game, Ann", "[g1] Turn 2: Ann's move",
        "Your mail could not be read"]
    assert "Your password." in run(str(tmp_path / "ann"), "1")
    assert run(str(tmp_path / "ann"), "last").endswith("Sorry.\n")
    assert "give a number from 1 to 3" in run(str(tmp_path / "ann"), "4", code=2)
    assert "is not a Maildir" in run(str(tmp_path), code=1)
