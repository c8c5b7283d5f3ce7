"""A mail whose processing breaks (a bug, not a player's mistake) must not block the inbox."""

from __future__ import annotations

import email
import email.message
import email.policy
from datetime import UTC, datetime

import pytest

from pbem.service import service as service_module
from pbem.service.postmaster import POSTMASTER
from pbem.service.service import Service, ServiceConfig
from pbem.service.settings import MailIdentity
from pbem.store.memory import MemoryStore

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def raw(mid: str, body: str) -> bytes:
    return (f"From: Ann <ann@example.org>\r\nTo: pbem@localhost\r\nSubject: x\r\n"
            f"Message-ID: <{mid}@example.org>\r\n\r\n{body}\r\n").encode()


def test_a_broken_mail_is_set_aside_and_later_mail_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The failing mail is marked done with its error recorded and the GM told; the next
    mail in the inbox is still answered."""
    config = ServiceConfig(sender=MailIdentity(gm_address="gm@example.org"))
    service = Service(MemoryStore(), config)
    real = service_module.parse_mail

    def breaks_on_poison(data: bytes, **kw: int):  # type: ignore[no-untyped-def]
        if b"poison" in data:
            raise RuntimeError("simulated bug")
        return real(data, **kw)

    monkeypatch.setattr(service_module, "parse_mail", breaks_on_poison)
    service.accept(raw("p1", "poison"), NOW)
    service.accept(raw("ok1", "GAME nosuchgame PLAYER ann PASSWORD x\nPASS\nEND"), NOW)
    assert service.process(NOW) == 2
    with service.store.lock():
        assert service.store.inbox() == []
        failed = service.store.meta(POSTMASTER)["failed"]
        sent = [email.message_from_bytes(item.raw) for item in service.store.outbox()]
    assert [f["error"] for f in failed] == ["RuntimeError: simulated bug"]
    # Ann is told her first mail did nothing, then (the second answer of the hour) that
    # more such mails get no answer; the GM is told of the mail that broke.
    recipients = sorted(str(m["To"]) for m in sent)
    assert recipients == ["ann@example.org", "ann@example.org", "gm@example.org"]


def test_the_game_master_is_told_in_their_own_language_and_time_zone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A game master who set gm_language and gm_timezone ([mail] in the configuration) gets
    the failed-mail notice in that language, with the moment it broke in UTC and their zone."""
    config = ServiceConfig(sender=MailIdentity(gm_address="gm@example.org", gm_lang="fr",
                                         gm_tz="Europe/Paris"))
    service = Service(MemoryStore(), config)

    def breaks(data: bytes, **kw: int):  # type: ignore[no-untyped-def]
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(service_module, "parse_mail", breaks)
    service.accept(raw("p1", "poison"), NOW)
    service.process(NOW)
    with service.store.lock():
        (item,) = [i for i in service.store.outbox() if i.to == "gm@example.org"]
    notice = email.message_from_bytes(item.raw, policy=email.policy.default)
    assert isinstance(notice, email.message.EmailMessage)
    assert str(notice["Subject"]) == "Un mail n'a pas pu être traité"
    text = " ".join(str(notice.get_body(("plain",)).get_content()).split())  # type: ignore[union-attr]
    assert "a échoué le 2026-11-29 12:00 UTC (2026-11-29 13:00 Europe/Paris) sur une" in text
