"""Posting to a game's chat webhook (Discord, Slack, Matrix, ntfy ... any URL the apprise
library knows): the optional extra ``pbem[chat]``, imported only when a post goes or a
webhook is set.

``ChatPoster`` is a sender (``send(to, raw, envelope_from=...)``) as the outbox uses one: the
item's bytes are a composed mail, whose subject becomes the post's title and whose text
part its body. ``url_of`` gives the webhook of a recipient (``chat:<game>``) as it stands
when the post goes: None when the game posts nowhere any more (the post is dropped). A
webhook that fails raises ``RecipientDeferred``: the outbox retries that game's posts on
their own schedule, and no mail waits behind them (docs/service.md, "Chat").
"""

from __future__ import annotations

import email
import email.policy
import logging
from collections.abc import Callable
from email.message import EmailMessage
from typing import Any

from pbem.errors import ConfigError
from pbem.transport.sender import RecipientDeferred

log = logging.getLogger(__name__)

INSTALL = "pip install 'pbem[chat]'"
"""What the game master runs to post to chats (the ``apprise`` library)."""

TIMEOUT = 30.0
"""Seconds to connect, and to wait for the webhook's answer, before a post is retried (the
posts have a thread of their own: no mail waits meanwhile)."""


QUIET = ("apprise", "urllib3.connectionpool")
"""Loggers whose debug lines would name a webhook's token: kept at INFO and above."""


def available() -> bool:
    """Whether apprise is installed (and importable)."""
    try:
        import apprise  # noqa: F401
    except ImportError:
        return False
    return True


def check_url(url: str) -> None:
    """Raise ConfigError unless apprise is installed and knows ``url``'s service."""
    if not available():
        raise ConfigError("Posting to a chat needs the apprise library.",
                          suggestion=f"Install it: {INSTALL}")
    import apprise

    if apprise.Apprise.instantiate(url) is None:
        raise ConfigError(f"Not a chat webhook apprise knows: {url.partition('://')[0]}://…",
                          suggestion="See https://github.com/caronc/apprise/wiki for the "
                                     "URL of each service (discord://, slack://, ntfy:// ...).")


def post_of(raw: bytes) -> tuple[str, str]:
    """(title, body) of a chat post queued as a composed mail."""
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    part = message.get_body(("plain",))
    body = part.get_content() if part is not None else ""
    return str(message.get("Subject", "")), str(body).strip()


class ChatPoster:
    """Posts chat items of the outbox to their game's webhook."""

    def __init__(self, url_of: Callable[[str], str | None], timeout: float = TIMEOUT) -> None:
        self._url_of = url_of
        self._timeout = timeout

    def send(self, to: str, raw: bytes, *, envelope_from: str = "") -> None:
        url = self._url_of(to)
        if not url:
            log.info("chat post to %s dropped: the game posts to no chat now", to)
            return
        title, body = post_of(raw)
        try:
            import apprise
        except ImportError as error:
            raise RecipientDeferred(f"the chat post needs apprise ({INSTALL})") from error
        # The debug lines of apprise and of urllib3's connection pool name the whole URL or
        # its path, the webhook's token with it: the daemon's log never holds them, whatever
        # its level (set once apprise is imported: its import sets its logger's level).
        for name in QUIET:
            logging.getLogger(name).setLevel(logging.INFO)
        # Posted from the caller's thread (one at a time, no deadline of apprise's own), not
        # from apprise's pool of worker threads: the interpreter's end waits for those, so a
        # daemon told to stop waited out the webhook's timeout. The outbox posts from a
        # daemon thread, which holds up no end.
        asset = apprise.AppriseAsset(async_mode=False, service_timeout=0)
        poster = apprise.Apprise(asset=asset)
        service: Any = apprise.Apprise.instantiate(url, asset=asset)
        if service is None:
            raise RecipientDeferred(f"{to}: not a chat webhook apprise knows")
        # One attempt, with our timeouts: the outbox spaces the retries.
        service.socket_connect_timeout = service.socket_read_timeout = self._timeout
        # A post longer than the service takes (Discord: 2,000 characters) goes in several,
        # rather than be refused at every retry; unless the URL says how (``overflow=``).
        if "overflow=" not in url:
            service.overflow_mode = apprise.OverflowMode.SPLIT
        poster.add(service)
        if not poster.notify(body=body, title=title):
            raise RecipientDeferred(f"{to}: the chat webhook did not take the post")
