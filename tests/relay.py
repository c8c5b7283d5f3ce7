"""A recipient-routing SMTP relay on loopback: the stand-in for Postfix with
``transport_maps`` in front of several pbem daemons (deploy/SCALING.md).

It takes a mail (250 once it is queued, as Postfix does), then delivers each recipient's
copy to the port its address routes to, the routes looked up at each try as Postfix looks
its transport map up. A recipient routed nowhere (``None``: Postfix's ``retry:`` transport)
or answered 4xx, or a daemon not listening, stays queued and is tried again; 5xx bounces
(kept in ``bounced``).
"""

from __future__ import annotations

import smtplib
import threading
from dataclasses import dataclass
from typing import Any

from aiosmtpd.controller import Controller
from servers import free_port


@dataclass
class Queued:
    """One recipient's copy of a mail waiting in the relay's queue."""

    sender: str
    recipient: str
    raw: bytes
    tries: int = 0


class RoutingRelay:
    """``routes``: address (lower case) -> port of a daemon on 127.0.0.1, or None to hold
    its mail; ``default`` for any other address. ``delivered`` lists (recipient, port, raw)
    of every copy a daemon took."""

    def __init__(self, routes: dict[str, int | None], default: int | None = None) -> None:
        self._routes = dict(routes)
        self._default = default
        self._lock = threading.Lock()
        self._queue: list[Queued] = []
        self.delivered: list[tuple[str, int, bytes]] = []
        self.bounced: list[tuple[Queued, str]] = []
        self.deferrals = 0  # tries answered 4xx or not answered at all
        self._stop = threading.Event()
        self._worker = threading.Thread(target=self._deliver_loop, name="relay", daemon=True)
        self.port = free_port()
        self._controller = Controller(self, hostname="127.0.0.1", port=self.port)

    def route(self, address: str, port: int | None) -> None:
        """Change where ``address``'s mail goes (``postmap`` and ``postfix reload``)."""
        with self._lock:
            self._routes[address.lower()] = port

    def queued(self) -> int:
        with self._lock:
            return len(self._queue)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        raw = bytes(envelope.original_content or b"")
        with self._lock:
            self._queue += [Queued(envelope.mail_from, rcpt, raw) for rcpt in envelope.rcpt_tos]
        return "250 OK queued"

    def start(self) -> RoutingRelay:
        self._controller.start()
        self._worker.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._worker.join(10)
        self._controller.stop()

    def _deliver_loop(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                waiting = list(self._queue)
            for item in waiting:
                if self._try(item):
                    with self._lock:
                        self._queue.remove(item)
            self._stop.wait(0.05)

    def _try(self, item: Queued) -> bool:
        """Try to hand one copy on; give whether it left the queue."""
        with self._lock:
            port = self._routes.get(item.recipient.lower(), self._default)
        if port is None:
            return False
        item.tries += 1
        try:
            with smtplib.SMTP("127.0.0.1", port, local_hostname="relay", timeout=30) as smtp:
                smtp.sendmail(item.sender, [item.recipient], item.raw)
        except smtplib.SMTPRecipientsRefused as error:
            code, message = error.recipients[item.recipient]
            return self._refused(item, code, message.decode(errors="replace"))
        except smtplib.SMTPResponseException as error:
            return self._refused(item, error.smtp_code,
                                 error.smtp_error.decode(errors="replace"))
        except OSError:  # not listening (a daemon restarting): try again later
            self.deferrals += 1
            return False
        with self._lock:
            self.delivered.append((item.recipient, port, item.raw))
        return True

    def _refused(self, item: Queued, code: int, message: str) -> bool:
        if 400 <= code < 500:
            self.deferrals += 1
            return False
        with self._lock:
            self.bounced.append((item, f"{code} {message}"))
        return True

