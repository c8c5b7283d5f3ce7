"""The embedded SMTP listener against smtplib on loopback."""

from __future__ import annotations

import asyncio
import smtplib
import socket
import threading
from collections.abc import Iterator

import pytest

from pbem.errors import ConfigError
from pbem.transport.imap import UnprocessableMail
from pbem.transport.listener import SmtpListener

GAME = "game@pbem.test"


def mail(subject: str = "orders", body: str = "attack Gnomes") -> bytes:
    return (
        f"From: alice@example.org\r\nTo: {GAME}\r\nSubject: {subject}\r\n"
        f"Message-ID: <{subject}@example.org>\r\n\r\n{body}\r\n"
    ).encode()


class Store:
    """A deliver callable that keeps what it is given, optionally blocking or failing."""

    def __init__(self) -> None:
        self.mails: list[tuple[bytes, str, list[str]]] = []
        self.threads: set[str] = set()
        self.release: threading.Event | None = None
        self.entered = threading.Event()
        self.fail_with: Exception | None = None

    def __call__(self, raw: bytes, envelope_from: str, rcpt_tos: list[str]) -> None:
        self.threads.add(threading.current_thread().name)
        self.entered.set()
        if self.release is not None:
            assert self.release.wait(10)
        if self.fail_with is not None:
            raise self.fail_with
        self.mails.append((raw, envelope_from, rcpt_tos))


@pytest.fixture
def store() -> Store:
    return Store()


@pytest.fixture
def listener(store: Store) -> Iterator[SmtpListener]:
    with SmtpListener(
        store, port=0, max_bytes=4096, accept_recipient=lambda address: address == GAME
    ) as running:
        yield running


def client(listener: SmtpListener) -> smtplib.SMTP:
    return smtplib.SMTP("127.0.0.1", listener.port, local_hostname="test", timeout=10)


def test_port_zero_binds_a_real_port_and_stop_frees_it(store: Store) -> None:
    with SmtpListener(store, port=0) as running:
        port = running.port
        assert port != 0
        with client(running) as smtp:
            assert smtp.noop()[0] == 250
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=2)


def test_a_port_in_use_is_a_clear_error(store: Store) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ConfigError, match=f"cannot listen for SMTP on 127.0.0.1:{port}"):
            SmtpListener(store, port=port).start()


def test_answers_250_only_after_deliver_returned(listener: SmtpListener, store: Store) -> None:
    store.release = threading.Event()
    outcome: list[object] = []

    def send() -> None:
        with client(listener) as smtp:
            outcome.append(smtp.sendmail("alice@example.org", [GAME], mail()))

    sender = threading.Thread(target=send)
    sender.start()
    assert store.entered.wait(5), "deliver was never called"
    sender.join(0.5)
    assert sender.is_alive(), "the client got its answer while deliver was still storing"
    assert outcome == []
    store.release.set()
    sender.join(5)
    assert outcome == [{}]  # sendmail gives the refused recipients: none
    assert [m[0] for m in store.mails] == [mail()]


def test_deliver_does_not_hold_up_other_sessions(listener: SmtpListener, store: Store) -> None:
    store.release = threading.Event()
    sender = threading.Thread(
        target=lambda: client(listener).sendmail("alice@example.org", [GAME], mail())
    )
    sender.start()
    try:
        assert store.entered.wait(5)
        with client(listener) as other:
            assert other.ehlo()[0] == 250
    finally:
        store.release.set()
        sender.join(5)
    assert store.threads and all(name.startswith("smtp-deliver") for name in store.threads)


def test_answers_451_when_deliver_raises(listener: SmtpListener, store: Store) -> None:
    store.fail_with = OSError("disk full")
    with client(listener) as smtp, pytest.raises(smtplib.SMTPDataError) as refused:
        smtp.sendmail("alice@example.org", [GAME], mail())
    assert refused.value.smtp_code == 451
    assert store.mails == []


def test_answers_554_for_mail_that_can_never_be_processed(
    listener: SmtpListener, store: Store
) -> None:
    store.fail_with = UnprocessableMail("not a mail we understand")
    with client(listener) as smtp, pytest.raises(smtplib.SMTPDataError) as refused:
        smtp.sendmail("alice@example.org", [GAME], mail())
    assert refused.value.smtp_code == 554


def raw_transaction(listener: SmtpListener, data: bytes) -> tuple[int, bytes]:
    """Send MAIL, RCPT, DATA without the SIZE hint smtplib would add, give DATA's answer."""
    with client(listener) as smtp:
        smtp.ehlo()
        assert smtp.mail("alice@example.org")[0] == 250
        assert smtp.rcpt(GAME)[0] == 250
        return smtp.data(data)


def test_answers_552_to_an_oversized_mail_at_data(listener: SmtpListener, store: Store) -> None:
    header = b"Subject: big\r\n\r\n"
    line = b"x" * 98 + b"\r\n"
    body = line * ((4096 - len(header)) // len(line))
    fits = header + body + b"y" * (4096 - len(header) - len(body) - 2) + b"\r\n"
    assert len(fits) == 4096
    assert raw_transaction(listener, fits)[0] == 250
    code, _ = raw_transaction(listener, fits[:-2] + b"xx\r\n")
    assert code == 552
    assert [m[0] for m in store.mails] == [fits]


def test_answers_552_when_the_declared_size_is_too_big(listener: SmtpListener) -> None:
    with client(listener) as smtp, pytest.raises(smtplib.SMTPSenderRefused) as refused:
        smtp.sendmail("alice@example.org", [GAME], b"Subject: big\r\n\r\n" + b"x" * 5000)
    assert refused.value.smtp_code == 552


def test_answers_550_to_an_unknown_recipient(listener: SmtpListener, store: Store) -> None:
    with client(listener) as smtp:
        smtp.ehlo()
        smtp.mail("alice@example.org")
        assert smtp.rcpt("nobody@pbem.test")[0] == 550
        assert smtp.rcpt(GAME)[0] == 250
        assert smtp.data(mail())[0] == 250
    assert store.mails == [(mail(), "alice@example.org", [GAME])]


def test_takes_many_mails_on_one_session_in_order(listener: SmtpListener, store: Store) -> None:
    sent = [mail(subject=f"turn{i}") for i in range(40)]
    with client(listener) as smtp:
        for raw in sent:
            smtp.sendmail("alice@example.org", [GAME], raw)
    assert [m[0] for m in store.mails] == sent


def test_null_sender_reaches_deliver_as_empty_string(listener: SmtpListener, store: Store) -> None:
    with client(listener) as smtp:
        smtp.sendmail("<>", [GAME], mail(subject="bounce"))
    assert store.mails[0][1] == ""


def test_serves_inside_a_running_event_loop(store: Store) -> None:
    listener = SmtpListener(store, port=0)

    async def scenario() -> None:
        server = await listener.serve()
        try:
            await asyncio.to_thread(
                lambda: client(listener).sendmail("alice@example.org", [GAME], mail())
            )
        finally:
            server.close()
            await server.wait_closed()

    try:
        asyncio.run(scenario())
    finally:
        listener.stop()
    assert [m[0] for m in store.mails] == [mail()]


def test_answers_451_at_rcpt_when_the_recipient_lookup_fails(store: Store) -> None:
    def broken_lookup(address: str) -> bool:
        raise OSError("index unreadable")

    with (
        SmtpListener(store, port=0, accept_recipient=broken_lookup) as running,
        client(running) as smtp,
    ):
        smtp.ehlo()
        smtp.mail("alice@example.org")
        assert smtp.rcpt(GAME)[0] == 451
    assert store.mails == []
