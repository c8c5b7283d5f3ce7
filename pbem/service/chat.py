"""A game's chat webhook: where the group talks, the game posts its public events.

The game master names a webhook (``pbem game chat GAME URL``: Discord, Slack, Matrix, ntfy
... any URL the apprise library knows) or takes it away (``--off``). The URL is kept in the
game's service record (``Audience.chat``) and nowhere else: it holds the webhook's token, so
the log's GM entry (``GmChat``) names only its scheme, and the game master's views show it
masked (``masked``). From then on each turn report (``Table.report``) also queues a
``ChatPost``: the public facts in short, as an observer may read them. The daemon hands
such an outbox item (recipient ``chat:<game>``) to the chat poster, not to the mail server
(``pbem.daemon.outbox``). See docs/service.md, "Chat".
"""

from __future__ import annotations

from dataclasses import replace

from pbem.service.entries import GmChat
from pbem.service.table import Table


def scheme(url: str) -> str:
    """The webhook's service, as its URL names it (``discord``, ``ntfy`` ...)."""
    return url.partition("://")[0].lower() if "://" in url else ""


def masked(url: str) -> str:
    """The webhook as the game master's views show it: its scheme, never its token."""
    return f"{scheme(url)}://…" if url else ""


def set_chat(table: Table, url: str, lang: str = "en") -> bool:
    """The game posts to ``url`` from now on ("" : to no chat); gives whether it changed."""
    audience = table.service.audience
    if url == audience.chat and (not url or lang == audience.chat_lang):
        return False
    table.service = replace(table.service, audience=replace(
        audience, chat=url, chat_lang=lang if url else "en"))
    table.record(GmChat(on=bool(url), service=scheme(url or audience.chat)))
    return True
