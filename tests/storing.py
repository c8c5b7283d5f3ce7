"""Helpers of the store's tests: numbered mails in and out, and numbered steps."""

from __future__ import annotations

from typing import Any

from pbem.store import GameStore, OutboxItem


def mail(n: int, game: str = "g1", when: str = "2024-05-01T10:00:00") -> OutboxItem:
    """Give outbox item number n of a game."""
    return OutboxItem(f"{game}-o{n}", game, f"p{n}@example.org", f"<o{n}@pbem>",
                      f"Subject: {n}\r\n\r\nbody {n}\r\n".encode(), when)


def receive(store: GameStore, n: int) -> str:
    """Give the mail id of newly received mail number n."""
    mail_id = store.receive(f"mail {n}".encode(), message_id=f"<m{n}@example.org>",
                            received_at="2024-05-01T09:00:00")
    assert mail_id is not None
    return mail_id


def step(store: GameStore, n: int, game: str = "g1", **kwargs: Any) -> None:
    """Commit step n: one entry {"n": n} and a snapshot naming it."""
    store.commit(game, log_entries=[{"n": n}], snapshot={"last": n}, **kwargs)
