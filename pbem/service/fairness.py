"""Fair shares of the processing between games and senders (issue 44, point 4): one game or
one sender cannot delay another game's answer by more than a round, whatever it sends.

The inbox is processed in rounds of at most ``BATCH`` mails (``Service.process``). Taken in
arrival order, a flood of thousands of mails (forged, or a runaway program) would hold up
every mail that came after it until the whole flood was processed. Instead the waiting mails
are taken round robin:

- between *queues*: one per game of the store named by a mail's start line, and one for all
  mail that names no game of the store (the lobby's words, unknown games, junk, mail whose
  start line cannot be found without decoding it all). A queue not served for longest goes
  first, so a game's mail waits at most one mail of each other busy queue;
- inside the queue of mail that names no game, between senders (the address the mail says
  it is from, letter case aside), again the one not served for longest first, each
  sender's own mail in arrival order. A game's own queue stays in arrival order: a game's
  mails are applied in the order they reached the mail server (docs/service.md), whoever
  sent them.

Who was served when is kept across rounds (a round that stops early, by time, does not
start the turn over at the queue with the oldest mail). A mail's queue is found once, from
its bytes (``mail_queue``); both tables forget mail and queues no longer waiting, so they
stay as small as the inbox.

What this does not do: mail naming a game (forged or not) shares that game's queue with its
players' own mail, in arrival order, so a flood naming a game delays that game's answers
(not another game's); the trusted mail server's verdict sets forged mail aside before it
is read (``pbem.mail.authresults``), and wrong passwords past ``pbem.service.gate``'s
allowance cost no password check. Mail forged under ever new addresses that names no game
shares the no-game queue in arrival order (each address one turn).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from contextlib import suppress
from dataclasses import dataclass

from pbem.errors import MailFormatError, StoreError
from pbem.mail.inbound import START_LINE, parse_mail

NO_GAME = ""
"""The queue of mail that names no game of the store."""

_START = re.compile(rb"^[ \t]*game[ \t]+([^\s]+)", re.I | re.M)
_BODY_SEEN = 64 * 1024  # bytes of a body searched for its start line as they are
# A body that may hold its start line only once decoded (base64, quoted-printable, HTML).
_ENCODED = re.compile(rb"base64|quoted-printable|text/html", re.I)


def mail_queue(raw: bytes, game_named: Callable[[str], str | None],
               max_bytes: int) -> str:
    """Give the game of the store a mail's start line names (its id), or ``NO_GAME``.

    The body's bytes are searched as they are first (what nearly every order mail is);
    only a body that may hold its start line encoded is read in full (``parse_mail``)."""
    _, _, body = raw.partition(b"\r\n\r\n")
    if not body:
        _, _, body = raw.partition(b"\n\n")
    found = _START.search(body, 0, _BODY_SEEN)
    name = found.group(1).decode("latin-1") if found else ""
    if not name and _ENCODED.search(raw, 0, _BODY_SEEN):
        with suppress(MailFormatError, ValueError, LookupError):
            text = parse_mail(raw, max_bytes=max_bytes).text
            line = START_LINE.search(text)
            if line is not None:
                name = line.group(0).split()[1]
    if not name:
        return NO_GAME
    return game_named(name) or NO_GAME


@dataclass(frozen=True)
class Waiting:
    """A mail waiting in the inbox, as the fair order sees it."""

    mail_id: str
    queue: str  # the game it names, or NO_GAME
    sender: str  # case-folded


class FairOrder:
    """The order the waiting mails are taken in (see the module's words)."""

    def __init__(self) -> None:
        self._served = 0  # a clock counting the mails taken
        self._queues: dict[str, int] = {}  # queue -> when last served
        self._senders: dict[tuple[str, str], int] = {}  # (queue, sender) -> when last served
        self._known: dict[str, Waiting] = {}  # by mail id, its queue found once

    def waiting(self, mail_id: str, sender: str, find: Callable[[str], str]) -> Waiting:
        """Give a waiting mail as the fair order sees it; its queue is found by ``find``
        the first time it is asked for (a mail whose bytes cannot be read goes to
        ``NO_GAME``: its handling meets the trouble)."""
        known = self._known.get(mail_id)
        if known is None:
            try:
                queue = find(mail_id)
            except (OSError, StoreError):
                queue = NO_GAME
            known = self._known[mail_id] = Waiting(mail_id, queue, sender.casefold())
        return known

    def order(self, waiting: Sequence[Waiting], most: int) -> list[Waiting]:
        """Give up to ``most`` of the ``waiting`` mails (in arrival order), in the order they
        are to be taken: round robin between queues, and between senders inside a queue."""
        # queue -> sender -> that sender's mails in arrival order (dicts keep first arrival)
        queues: dict[str, dict[str, list[Waiting]]] = {}
        for item in waiting:
            sender = item.sender if item.queue == NO_GAME else ""  # a game's: in arrival order
            queues.setdefault(item.queue, {}).setdefault(sender, []).append(item)
        # Each queue's senders in turn, the one served longest ago first; then the queues.
        turns = {queue: _round_robin([senders[s] for s in self._by_turn(queue, senders)],
                                     most)
                 for queue, senders in queues.items()}
        ordered = sorted(turns, key=lambda q: self._queues.get(q, -1))
        return _round_robin([turns[q] for q in ordered], most)

    def _by_turn(self, queue: str, senders: Iterable[str]) -> list[str]:
        """The senders of a queue, the one served longest ago first (then by arrival)."""
        return sorted(senders, key=lambda sender: self._senders.get((queue, sender), -1))

    def served(self, items: Iterable[Waiting]) -> None:
        """Note that these mails were taken, in this order."""
        for item in items:
            self._served += 1
            self._queues[item.queue] = self._served
            if item.queue == NO_GAME:
                self._senders[(item.queue, item.sender)] = self._served

    def forget(self, waiting: Sequence[Waiting]) -> None:
        """Forget the mails and queues no longer ``waiting`` (once the tables outgrow
        them): every mail waiting is given."""
        if len(self._known) > 2 * len(waiting) + 100:
            ids = {item.mail_id for item in waiting}
            self._known = {m: q for m, q in self._known.items() if m in ids}
        if len(self._senders) > 2 * len(waiting) + 100:
            queues = {item.queue for item in waiting}
            senders = {(item.queue, item.sender) for item in waiting}
            self._queues = {q: t for q, t in self._queues.items() if q in queues}
            self._senders = {k: t for k, t in self._senders.items() if k in senders}


def _round_robin(lists: Sequence[Sequence[Waiting]], most: int) -> list[Waiting]:
    """Up to ``most`` mails: the first of each list in turn, then the second of each..."""
    taken: list[Waiting] = []
    depth = 0
    while lists and len(taken) < most:
        taken += [mails[depth] for mails in lists][:most - len(taken)]
        depth += 1
        lists = [mails for mails in lists if depth < len(mails)]
    return taken
