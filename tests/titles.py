"""What a mail is about, as its reader sees it: for a game's mail, whose Subject is the
thread's (docs/service.md, Threads), the line that opens its text; for any other mail its
Subject."""

from __future__ import annotations

import email.policy
from email.message import Message

THREAD_MARK = "] Illuminati: "  # in "[<game>] Illuminati: <reader>"


def mail_title(message: Message) -> str:
    """The mail's title: the opening line of a game mail's text, else its Subject."""
    subject = " ".join(str(message["Subject"] or "").split())
    if THREAD_MARK not in subject or message["X-Pbem-Game"] is None:
        return subject
    return text_of_plain(message).split("\n", 1)[0].strip()


def text_of_plain(message: Message) -> str:
    """The plain text part, line ends as a reader sees them."""
    if not isinstance(message, email.message.EmailMessage):
        message = email.message_from_bytes(message.as_bytes(), policy=email.policy.default)
    assert isinstance(message, email.message.EmailMessage)
    body = message.get_body(("plain",))
    return "" if body is None else str(body.get_content()).replace("\r\n", "\n")
