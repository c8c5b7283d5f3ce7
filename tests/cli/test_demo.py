"""`pbem demo`: a whole game on the embedded default, bots playing over real SMTP."""

from __future__ import annotations

import email
import email.policy
import mailbox
from pathlib import Path

from english_left import english_left
from titles import mail_title

from pbem.cli.demo import run_demo
from pbem.service.postmaster import POSTMASTER
from pbem.store import Store


def test_the_demo_plays_a_game_to_its_end_by_real_mail(tmp_path: Path) -> None:
    """Four bots mail their orders to the daemon's SMTP listener and read their Maildirs; the
    game ends in a victory (a short one: 5 groups to win) and the archive is built."""
    lines: list[str] = []
    result = run_demo(tmp_path / "demo", port=0, seed="5e" * 32, victory_groups=5,
                      echo=lines.append)
    assert result.outcome == "victory" and result.winners
    assert result.archive.is_file()
    assert (result.archive.parent / "games" / "demo" / "index.html").is_file()
    folders = sorted(p.name for p in result.maildirs.iterdir() if not p.name.startswith("."))
    assert folders == ["adam@players.example", "eve@players.example",
                       "mallory@players.example", "trent@players.example"]
    box = mailbox.Maildir(result.maildirs / "adam@players.example", create=False)
    subjects = [mail_title(email.message_from_bytes(box.get_bytes(k))) for k in box.iterkeys()]
    assert any("Welcome" in s for s in subjects)
    assert any("over" in s.lower() or "won" in s.lower() for s in subjects), subjects[-3:]
    assert lines[0].startswith("Game 'demo' started")
    # No bot mail went unanswered (the flood limit, an unknown game, a broken mail): the
    # postmaster's log has an entry for each mail it took.
    store = Store(tmp_path / "demo" / "store")
    strays = [(e["answer"], store.raw_mail(e["mail_id"])[:600]) for e in store.log(POSTMASTER)]
    assert strays == [], (strays, store.meta(POSTMASTER))


def test_the_demo_plays_in_german(tmp_path: Path) -> None:
    """Issue 42: "a whole German demo game plays (pbem demo --language de)": the bots read
    German mail as they read English (the JSON view), and the players' mail is German from
    the welcome on."""
    result = run_demo(tmp_path / "demo", port=0, seed="5e" * 32, victory_groups=5,
                      lang="de", echo=lambda line: None)
    assert result.outcome == "victory" and result.winners
    box = mailbox.Maildir(result.maildirs / "adam@players.example", create=False)
    subjects = [mail_title(email.message_from_bytes(box.get_bytes(k))) for k in box.iterkeys()]
    assert any("Willkommen in der Partie" in s for s in subjects), subjects[:3]
    assert not any("Welcome" in s for s in subjects)
    # Every mail every player read, and every page of the archive, holds no English of ours.
    left: dict[str, list[str]] = {}
    read = 0
    for folder in result.maildirs.iterdir():
        if folder.name.startswith("."):
            continue
        for raw in mailbox.Maildir(folder, create=False).itervalues():
            mail = email.message_from_bytes(raw.as_bytes(), policy=email.policy.default)
            for part in mail.walk():
                if part.get_content_type() in ("text/plain", "text/html"):
                    text = str(part.get_content())
                    found = english_left(text, "de", is_html=part.get_content_subtype() == "html")
                    found += english_left(mail_title(mail), "de")
                    if found:
                        left[f"{folder.name} {mail_title(mail)}"] = found
                    read += 1
    pages = sorted(result.archive.parent.rglob("*.html"))
    for page in pages:
        if found := english_left(page.read_text(encoding="utf-8"), "de", is_html=True):
            left[str(page.relative_to(result.archive.parent))] = found
    assert read > 100 and len(pages) > 5
    assert left == {}
