"""The bytes of mail done are kept a bounded time and size (deploy/BACKUPS.md): a stranger
mailing a store full cannot fill the disk for good, and what the log and the seen index need
(each mail's record) stays, so a mail sent again is still known as received."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from pbem.errors import StoreError
from pbem.store import Store
from pbem.store import inbox as inbox_files


def receive_done(store: Store, n: int) -> str:
    raw = (f"From: s{n}@example.org\r\nMessage-ID: <m{n}@example.org>\r\n\r\n" + "x" * 4000
           ).encode()
    mail_id = store.receive(raw, message_id=f"<m{n}@example.org>",
                            received_at="2024-05-01T10:00:00+00:00",
                            sender=f"s{n}@example.org")
    assert mail_id is not None
    with store.lock():
        store.inbox_done(mail_id)
    return mail_id


def test_old_mail_loses_its_bytes_not_its_record(tmp_path: Path) -> None:
    store = Store(tmp_path)
    old, new = receive_done(store, 1), receive_done(store, 2)
    files = sorted((tmp_path / "mail").glob("*.mails"),
                   key=lambda path: b"<m1@example.org>" not in path.read_bytes())
    assert len(files) == 2  # the old mail's first
    long_ago = time.time() - inbox_files.MAIL_KEPT_SECONDS - 60
    os.utime(files[0], (long_ago, long_ago))
    with store.lock():
        assert store.age_out_mail() == 1
    assert files[0].stat().st_size < 1000 < files[1].stat().st_size
    with pytest.raises(StoreError, match="were dropped"):
        Store(tmp_path).raw_mail(old)
    assert b"x" * 4000 in Store(tmp_path).raw_mail(new)
    again = Store(tmp_path)  # still seen: a copy sent again is not a new mail
    assert again.seen("<m1@example.org>", "s1@example.org")
    assert again.receive(b"From: s1@example.org\r\n\r\nagain", message_id="<m1@example.org>",
                         received_at="2024-06-01T10:00:00+00:00",
                         sender="s1@example.org") is None


def test_done_mail_is_bounded_in_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inbox_files, "MAIL_KEPT_BYTES", 20_000)
    store = Store(tmp_path)
    for n in range(10):
        receive_done(store, n)
    with store.lock():
        store.age_out_mail()
    total = sum(p.stat().st_size for p in (tmp_path / "mail").glob("*.mails"))
    assert total <= 20_000 + 10 * 1000  # what is kept, and the records of the rest
