"""House rule ``require_dkim`` (issue 44, point 1): orders are taken only from mail whose
From domain's DKIM signature passed, by the word of the trusted mail server, besides the
password."""

from __future__ import annotations

from datetime import UTC, datetime

from pbem.service.service import Service, ServiceConfig
from pbem.store.memory import MemoryStore

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
ID = "mx.pbem.test"


def _orders(n: int, password: str, results: str) -> bytes:
    head = f"Authentication-Results: {ID}; {results}\r\n" if results else ""
    return (f"{head}From: Alice <alice@example.org>\r\nTo: pbem@localhost\r\n"
            f"Subject: orders\r\nMessage-ID: <o{n}@example.org>\r\n\r\n"
            f"GAME g PLAYER Alice PASSWORD {password}\r\nSTATUS\r\nEND\r\n").encode()


def _answered(store: MemoryStore, n: int) -> list[str]:
    """The games whose mail answers order mail ``n`` (postmaster: a refusal)."""
    return [item.game_id for item in store.outbox()
            if f"In-Reply-To: <o{n}@example.org>".encode() in item.raw]


def test_orders_need_an_aligned_dkim_pass_when_the_game_says_so() -> None:
    store = MemoryStore()
    service = Service(store, ServiceConfig(trusted_authserv_id=ID, password_cost=10,
                                           passwords=lambda game, player: "pw"))
    service.create_game("g", [("Alice", "alice@example.org", ""),
                              ("Bob", "bob@example.org", ""),
                              ("Carol", "carol@example.org", "")],
                        options={"require_dkim": True}, seed="0" * 64)
    service.start_game("g", T0)
    service.receive(_orders(1, "pw", ""), T0)  # no verdict
    service.receive(_orders(2, "pw", "spf=pass; dmarc=pass"), T0)  # DMARC by SPF only
    service.receive(_orders(3, "pw", "dkim=pass header.d=example.org; dmarc=pass"), T0)
    service.receive(_orders(4, "wrong", "dkim=pass header.d=example.org"), T0)
    assert _answered(store, 1) == ["pbem-postmaster"]  # refused: not authenticated
    assert _answered(store, 2) == ["pbem-postmaster"]  # refused (the hourly short word)
    assert set(_answered(store, 3)) == {"g"}  # carried out
    assert "g" not in _answered(store, 4)  # a wrong password is still one
    assert service.service_record("g").house.require_dkim
