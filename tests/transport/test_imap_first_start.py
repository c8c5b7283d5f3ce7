"""Issue 44, point 4 (its last sentence): on its first start on a folder, the IMAP intake
files the mail already there unanswered and says how many; later mail is delivered.

An IMAP server that keeps its folder in memory, answering the few commands the intake
sends (the Dovecot tests, tests/daemon/test_hostile_earlier_mail.py, run it end to end).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pbem.transport import imap
from pbem.transport.imap import ImapConfig, ImapIntake, JsonFileCursor


class _Folder:
    """An IMAP session on one folder: UIDs, their mails, their flags, moves."""

    def __init__(self, mails: list[bytes]) -> None:
        self.mails = dict(enumerate(mails, start=1))
        self.flags: dict[int, set[bytes]] = {uid: set() for uid in self.mails}
        self.moved: dict[str, list[int]] = {}
        self.next_uid = len(mails) + 1  # UIDs only grow

    def select_folder(self, folder: str) -> dict[bytes, Any]:
        return {b"UIDVALIDITY": 7}

    def search(self, criteria: list[str]) -> list[int]:
        return list(self.mails)

    def fetch(self, uids: list[int], what: list[bytes]) -> dict[int, dict[bytes, Any]]:
        return {uid: {b"BODY[]": self.mails[uid], b"FLAGS": (), b"INTERNALDATE": None}
                for uid in uids if uid in self.mails}

    def folder_exists(self, folder: str) -> bool:
        return True

    def has_capability(self, name: str) -> bool:
        return name == "MOVE"  # no NAMESPACE: the separator comes from LIST

    def list_folders(self, directory: str = "", pattern: str = "*") -> list[Any]:
        if not pattern:  # LIST "" "": the hierarchy's separator
            return [((b"\\Noselect",), b"/", "")]
        return [((), b"/", pattern)]  # every folder asked for is there and takes mail

    def folder_status(self, folder: str, what: list[bytes]) -> dict[bytes, int]:
        return {b"UIDVALIDITY": 1, b"UIDNEXT": len(self.moved.get(folder, ())) + 1}

    def move(self, uids: list[int], folder: str) -> None:
        self.moved.setdefault(folder, []).extend(uids)
        for uid in uids:
            del self.mails[uid]

    def add(self, raw: bytes) -> None:
        self.mails[self.next_uid] = raw
        self.next_uid += 1


@pytest.fixture
def folder(monkeypatch: pytest.MonkeyPatch) -> _Folder:
    """The folder every session the intake opens is on (empty at first)."""
    session = _Folder([])
    monkeypatch.setattr(imap, "open_session", lambda config: (session, None))
    return session


def _intake(tmp_path: Path, folder: _Folder, answer: bool, told: list[int],
            delivered: list[bytes]) -> ImapIntake:
    config = ImapConfig(host="imap.test", port=993, username="u", password="p",
                        answer_earlier_mail=answer)
    return ImapIntake(config, delivered.append, JsonFileCursor(tmp_path / "cursor.json"),
                      earlier=told.append)


@pytest.mark.parametrize("answer", [False, True])
def test_the_first_start_files_earlier_mail_unless_asked_to_answer_it(
        tmp_path: Path, folder: _Folder, answer: bool) -> None:
    for n in range(5):
        folder.add(b"Subject: old %d\r\n\r\nLIST\r\n" % n)
    told: list[int] = []
    delivered: list[bytes] = []
    intake = _intake(tmp_path, folder, answer, told, delivered)
    assert intake.fetch_new() == (5 if answer else 0)
    assert folder.moved == {"pbem-done": [1, 2, 3, 4, 5]}
    assert (told, len(delivered)) == (([], 5) if answer else ([5], 0))
    folder.add(b"Subject: new\r\n\r\nLIST\r\n")
    assert intake.fetch_new() == 1
    assert delivered[-1] == b"Subject: new\r\n\r\nLIST\r\n"
    # A restart keeps its position: nothing is filed unanswered again.
    folder.add(b"Subject: newer\r\n\r\nLIST\r\n")
    again = _intake(tmp_path, folder, answer, told, delivered)
    assert again.fetch_new() == 1 and told == ([] if answer else [5])


def test_a_first_start_on_an_empty_folder_tells_nobody(
        tmp_path: Path, folder: _Folder) -> None:
    told: list[int] = []
    delivered: list[bytes] = []
    intake = _intake(tmp_path, folder, False, told, delivered)
    assert intake.fetch_new() == 0 and told == []
    folder.add(b"Subject: first\r\n\r\nLIST\r\n")
    assert intake.fetch_new() == 1 and len(delivered) == 1
