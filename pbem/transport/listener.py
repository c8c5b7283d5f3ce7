"""Embedded SMTP listener: takes mail over SMTP and answers 250 only once it is stored.

Built on aiosmtpd. The listener knows nothing of games: every accepted mail goes to a
``deliver(raw, envelope_from, rcpt_tos)`` callable that must store it durably before it
returns. Replies:

- ``250`` after ``deliver`` returned;
- ``451`` (try again later) when ``deliver`` raised, so the sending server keeps the mail;
- ``452`` (try again later) when ``deliver`` raised :class:`TryLater`: the store has no room
  now (its disk is full or failing);
- ``554`` when ``deliver`` raised :class:`~pbem.transport.imap.UnprocessableMail` (retrying
  cannot help, so the sender should bounce it rather than retry for days);
- ``552`` when the mail is larger than ``max_bytes`` (checked while DATA streams in, by
  aiosmtpd, and again on the whole message);
- ``550`` at RCPT for an address ``accept_recipient`` refuses;
- ``450`` at RCPT for an address ``held_recipient`` holds (a game moving to another daemon:
  the sending server keeps its mail until the route to the new one is in place).

The null reverse-path (``MAIL FROM:<>``, used by bounces) reaches ``deliver`` as the empty
string ``""``: aiosmtpd reports it as ``"<>"``, which looks like an address and is not one.

``deliver`` runs on a single worker thread, never on the event loop, so a slow disk does
not stall other SMTP sessions, and two mails are never stored at the same time.

aiosmtpd's DEBUG lines are a transcript of each session, every line of every mail (and a
login's) among them: they never reach a log (``no_transcript``), so a daemon run at DEBUG
keeps no password of a start line in its log.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import ssl
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import TracebackType
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from pbem.errors import ConfigError
from pbem.transport.imap import UnprocessableMail

log = logging.getLogger(__name__)


def no_transcript(record: logging.LogRecord) -> bool:
    """Tell whether a library's log record may be kept: not one of its DEBUG lines, which
    copy what goes over the wire (mail, logins)."""
    return record.levelno > logging.DEBUG


# aiosmtpd's own logger ("mail.log"): its DEBUG lines hold each DATA line of each mail.
logging.getLogger("mail.log").addFilter(no_transcript)

Deliver = Callable[[bytes, str, list[str]], None]

NULL_SENDER = ""


def server_tls(cert: Path, key: Path) -> ssl.SSLContext:
    """Give the TLS context of a listener offering STARTTLS with ``cert`` (PEM, the chain
    after it) and its ``key``; ConfigError naming the files if they cannot be used."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as error:
        raise ConfigError(f"cannot use the TLS certificate {cert} with the key {key} "
                          f"({error})", suggestion="Give the PEM files of a certificate and "
                          "its private key, readable by the daemon's user.") from error
    return context


class TryLater(Exception):
    """Raised by ``deliver``: the mail cannot be stored now, but can later (no room)."""


def _bound_socket(host: str, port: int) -> socket.socket:
    """Give a listening TCP socket on host:port (port 0 = any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
        sock.setblocking(False)
    except OSError as error:
        sock.close()
        raise ConfigError(
            f"cannot listen for SMTP on {host}:{port} ({error.strerror or error})",
            suggestion="Choose another address or port, or stop the program using it.",
        ) from error
    return sock


class _Handler:
    """aiosmtpd hooks: recipient check at RCPT, size check and storage at DATA."""

    def __init__(
        self,
        deliver: Deliver,
        max_bytes: int,
        accept_recipient: Callable[[str], bool],
        worker: Callable[[], ThreadPoolExecutor],
        held_recipient: Callable[[str], bool],
    ) -> None:
        self._deliver = deliver
        self._max_bytes = max_bytes
        self._accept_recipient = accept_recipient
        self._held_recipient = held_recipient
        self._worker = worker

    async def handle_RCPT(
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        address: str,
        rcpt_options: list[str],
    ) -> str:
        try:
            known = self._accept_recipient(address)
            held = known and self._held_recipient(address)
        except Exception:
            log.exception("could not look up recipient %r; asked the sender to retry", address)
            return "451 4.3.0 Could not check the recipient, try again later"
        if not known:
            return "550 5.1.1 No such mailbox here"
        if held:
            return "450 4.2.1 This mailbox is moving, try again later"
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content
        if not isinstance(raw, bytes):
            raw = bytes(raw or b"")
        if len(raw) > self._max_bytes:
            # aiosmtpd counts the dot-stuffed lines; this counts the message itself.
            return "552 5.3.4 Message too big"
        mail_from = envelope.mail_from or ""
        if mail_from == "<>":
            mail_from = NULL_SENDER
        rcpt_tos = list(envelope.rcpt_tos)
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(self._worker(), self._deliver, raw, mail_from, rcpt_tos)
        except UnprocessableMail as error:
            log.warning("refused mail from %r for good: %s", mail_from, error)
            return "554 5.6.0 Message cannot be processed here"
        except TryLater as error:
            log.info("refused mail from %r for now: %s", mail_from, error)
            return "452 4.3.1 Insufficient system storage, try again later"
        except Exception:
            log.exception("could not store mail from %r; asked the sender to retry", mail_from)
            return "451 4.3.0 Could not store the message, try again later"
        return "250 OK stored"


class _BoundController(Controller):
    """aiosmtpd Controller serving a socket bound beforehand, so port 0 works.

    The stock Controller connects to its own ``port`` to check it started; with port 0 that
    would be port 0. Binding first gives the real port before the server starts.
    """

    def __init__(self, handler: _Handler, sock: socket.socket, **smtp_kwargs: Any) -> None:
        self._sock = sock
        host, port = sock.getsockname()[:2]
        super().__init__(handler, hostname=host, port=port, **smtp_kwargs)

    def _create_server(self) -> Awaitable[asyncio.AbstractServer]:
        return self.loop.create_server(self._factory_invoker, sock=self._sock)


class SmtpListener:
    """An SMTP server on ``host:port`` handing every accepted mail to ``deliver``.

    Use ``start()``/``stop()`` or ``with SmtpListener(...) as listener:``; ``port`` is the
    port actually bound (give ``port=0`` for any free one). ``serve()`` runs the same
    server inside an asyncio loop you already have instead of a thread of its own.
    ``accept_recipient`` and ``held_recipient`` run on the event loop: keep them quick
    lookups.
    """

    def __init__(
        self,
        deliver: Deliver,
        *,
        host: str = "127.0.0.1",
        port: int = 2525,
        max_bytes: int = 256 * 1024,
        accept_recipient: Callable[[str], bool] = lambda address: True,
        held_recipient: Callable[[str], bool] = lambda address: False,
        server_name: str | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self._host = host
        self._tls = tls
        self._requested_port = port
        self._max_bytes = max_bytes
        # aiosmtpd would look the name up on every connection; once is enough.
        self._server_name = server_name or socket.getfqdn()
        self._executor: ThreadPoolExecutor | None = None
        self._handler = _Handler(deliver, max_bytes, accept_recipient, self._worker,
                                 held_recipient)
        self._controller: _BoundController | None = None
        self._bound_port: int | None = None

    @property
    def port(self) -> int:
        """Give the port the listener is bound to (the requested one before it started)."""
        return self._bound_port if self._bound_port is not None else self._requested_port

    def _worker(self) -> ThreadPoolExecutor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="smtp-deliver")
        return self._executor

    def _smtp_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "data_size_limit": self._max_bytes,
            # aiosmtpd decodes to str unless told not to; the store wants the bytes as sent.
            "decode_data": False,
        }
        if self._tls is not None:  # offered, not required: senders without TLS still get in
            kwargs.update(tls_context=self._tls, require_starttls=False)
        return kwargs

    def start(self) -> None:
        """Bind and serve on a thread of its own; returns once the server answers."""
        if self._controller is not None:
            return
        sock = _bound_socket(self._host, self._requested_port)
        self._bound_port = sock.getsockname()[1]
        controller = _BoundController(
            self._handler, sock, server_hostname=self._server_name, **self._smtp_kwargs()
        )
        try:
            controller.start()
        except BaseException:
            sock.close()
            self._bound_port = None
            raise
        self._controller = controller
        log.info("SMTP listener on %s:%d", self._host, self.port)

    def stop(self) -> None:
        """Stop serving; waits for a delivery in progress so no mail is half stored."""
        controller, self._controller = self._controller, None
        if controller is not None:
            controller.stop()
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)
        self._bound_port = None

    async def serve(self) -> asyncio.AbstractServer:
        """Give a server running in the current event loop (close it with ``close()``).

        For a daemon that already runs an asyncio loop; ``deliver`` still runs on the
        listener's worker thread. Call ``stop()`` after closing the server to end that
        thread.
        """
        sock = _bound_socket(self._host, self._requested_port)
        self._bound_port = sock.getsockname()[1]
        kwargs = self._smtp_kwargs()
        kwargs.update(hostname=self._server_name, enable_SMTPUTF8=True)
        loop = asyncio.get_running_loop()
        return await loop.create_server(lambda: SMTP(self._handler, **kwargs), sock=sock)

    def __enter__(self) -> SmtpListener:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
