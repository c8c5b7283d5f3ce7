"""DKIM checked by the embedded listener itself (issue 44, point 1; ``[listener]
check_dkim``, dkimpy): mail signed with the test's own keys, DNS answered from the test (no
network), through the daemon's real SMTP listener."""

from __future__ import annotations

import base64
import smtplib
from pathlib import Path

import pytest

dkim = pytest.importorskip("dkim")

from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import rsa  # noqa: E402
from daemon_game import GameDaemon  # noqa: E402
from servers import wait_until  # noqa: E402

from pbem.service.postmaster import POSTMASTER  # noqa: E402
from pbem.store import Store  # noqa: E402
from pbem.transport import dkimcheck  # noqa: E402

ID = "listener.pbem.test"


def _key() -> tuple[bytes, bytes]:
    """A private key (PEM) and its DNS TXT record."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    private = key.private_bytes(serialization.Encoding.PEM,
                                serialization.PrivateFormat.TraditionalOpenSSL,
                                serialization.NoEncryption())
    public = key.public_key().public_bytes(serialization.Encoding.DER,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
    return private, b"v=DKIM1; k=rsa; p=" + base64.b64encode(public)


def _signed(raw: bytes, private: bytes) -> bytes:
    signature = dkim.sign(raw, b"s1", b"example.org", private,
                          include_headers=[b"from", b"to", b"subject", b"message-id"])
    return bytes(signature) + raw


def _settled(store: Store) -> bool:
    with store.lock():
        return not store.inbox() and not store.outbox()


def _replies(game: GameDaemon, address: str) -> list[str]:
    return [str(m["In-Reply-To"]) for m in game.mails().get(address, []) if m["In-Reply-To"]]


def test_the_listener_checks_dkim_and_a_forged_signature_is_set_aside(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Alice's order mail signed with example.org's key: verified, answered. One signed
    with another key (a forger's), even carrying a pass header of the trusted id written
    by the sender: dkim=fail for the From's domain, set aside unanswered. An unsigned mail
    has no verdict and is read as before."""
    private, record = _key()
    forger, _ = _key()
    asked: list[bytes] = []

    def resolve(name: bytes, timeout: int = 5) -> bytes | None:
        asked.append(name)
        return record if name == b"s1._domainkey.example.org." else None

    monkeypatch.setattr(dkimcheck, "RESOLVE", resolve)
    game = GameDaemon(tmp_path, f'trusted_authserv_id = "{ID}"\n', listener="check_dkim = true\n")
    store = Store(game.config.store)
    good = _signed(game.orders(1, "Alice", "STANDING LIST"), private)
    claimed = f"Authentication-Results: {ID}; dkim=pass header.d=example.org\r\n".encode()
    bad = claimed + _signed(game.orders(2, "Alice", "STANDING LIST"), forger)
    with game.listening() as port, smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        smtp.sendmail("alice@example.org", ["pbem@localhost"], bad)
        smtp.sendmail("alice@example.org", ["pbem@localhost"], good)
        smtp.sendmail("bob@example.org", ["pbem@localhost"], game.orders(3, "Bob", "STATUS"))
        assert wait_until(lambda: _settled(store) and len(_replies(game, "alice@example.org"))
                          >= 1 and _replies(game, "bob@example.org"), timeout=60)
    assert _replies(game, "alice@example.org") == ["<order-1@example.org>"]
    assert "<order-3@example.org>" in _replies(game, "bob@example.org")
    assert b"s1._domainkey.example.org." in asked
    with store.lock():
        forged = [e for e in store.log(POSTMASTER) if "forged" in e]
    assert [e["forged"] for e in forged] == ["fail (dkim=fail)"]


def test_check_dkim_needs_a_trusted_id(tmp_path: Path) -> None:
    from pbem.errors import ConfigError

    with pytest.raises(ConfigError, match="trusted_authserv_id"):
        GameDaemon(tmp_path, listener="check_dkim = true\n")
