"""A whole game of mail-bots played through a ``Service``: every mail goes through
``Service.receive`` and comes out of the store's outbox, as it would through the daemon
(the tests' and the simulation's way to play by mail without sockets)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from pbem.bots import Level
from pbem.bots.mailbots import BotSeat, MailBot
from pbem.engine.carddata import CardPack
from pbem.service.chat import set_chat
from pbem.service.observers import observe
from pbem.service.service import Service


@dataclass
class PlayedGame:
    """How a game between mail-bots went."""

    game: str
    outcome: str
    winners: tuple[str, ...]
    turns: int
    mails_in: int
    mails_out: int
    finished_at: datetime
    outbox: list[bytes] = field(default_factory=list)  # every mail the service sent


def play_game(service: Service, game: str, players: Sequence[tuple[str, str]], *,
              start: datetime, seed: str, options: dict[str, Any] | None = None,
              step: timedelta = timedelta(minutes=10), max_steps: int = 20_000,
              keep_mail: bool = False,
              watch: Callable[[Sequence[tuple[str, bytes]]], None] | None = None,
              levels: Sequence[Level] = (), first_lines: Sequence[str] = (),
              observers: Sequence[str] = (), chat: str = "",
              pack: CardPack | None = None) -> PlayedGame:
    """Create and play a game of mail-bots through ``service`` to its end, the clock moved
    by ``step`` per mail (and on to the next deadline when nobody writes).

    ``players`` are (name, address), the bot of ``players[i]`` at ``levels[i]`` (normal when
    not given). Every mail goes through ``service.receive``, one at a
    time; ``watch`` (if given) sees the mails of each step as (recipient, bytes).
    ``first_lines`` (settings, like SET MAIL DIGEST) are mailed by every player first.
    ``observers`` (addresses) observe the game, press to all included; ``chat`` (a
    webhook's URL) is where the game posts its public events (recipient ``chat:<game>``).
    ``pack``: the game master's own cards the game is created with (docs/cards.md).
    """
    service.create_game(game, [(n, a, "") for n, a in players], options=options, seed=seed,
                        pack=pack)
    now = start
    if observers:  # they read the public reports and the press to all
        with service.step(game, now, advance=False) as opened:
            table = opened.table
            table.service = replace(table.service, audience=replace(
                table.service.audience, press=True))
            for address in observers:
                observe(table, address, by_gm=True)
    if chat:
        with service.step(game, now, advance=False) as opened:
            set_chat(opened.table, chat)
    passwords = service.start_game(game, now)
    inbox: list[bytes] = []
    seats = {a.lower(): MailBot(service.cards_of(game), BotSeat(
        game, n, passwords[n], a.lower(), service.config.sender.address,
        levels[i] if i < len(levels) else "normal"), inbox.append)
        for i, (n, a) in enumerate(players)}
    played = PlayedGame(game, "", (), 0, 0, 0, now)
    if first_lines:
        inbox += [_mail(a, service.config.sender.address, i,
                        [f"GAME {game} PLAYER {n} PASSWORD {passwords[n]}", *first_lines, "END"])
                  for i, (n, a) in enumerate(players)]

    def deliver_all(sent: list[tuple[str, bytes]]) -> None:
        played.mails_out += len(sent)
        if keep_mail:
            played.outbox.extend(raw for _, raw in sent)
        if watch is not None and sent:
            watch(sent)
        for address, bot in seats.items():
            bot.receive([raw for to, raw in sent if to == address])

    deliver_all(_drain(service, now))
    for _ in range(max_steps):
        if service.state(game).phase == "over":
            break
        now += step
        if not inbox:
            now = max(now, _next_deadline(service, game, now))
            service.tick(now)
            deliver_all(_drain(service, now))
            continue
        raw = inbox.pop(0)
        played.mails_in += 1
        service.receive(raw, now)
        deliver_all(_drain(service, now))
    state = service.state(game)
    played.outcome, played.winners, played.turns = state.outcome, state.winners, \
        state.turn_number
    played.finished_at = now
    return played


def _mail(sender: str, to: str, number: int, lines: Sequence[str]) -> bytes:
    """A plain order mail from ``sender``."""
    head = [f"From: {sender}", f"To: {to}", "Subject: settings",
            f"Message-ID: <settings-{number}@{sender.partition('@')[2] or 'localhost'}>",
            "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8"]
    return ("\n".join(head) + "\n\n" + "\n".join(lines) + "\n").encode()


def _drain(service: Service, now: datetime) -> list[tuple[str, bytes]]:
    """Every mail waiting in the outbox, marked sent: (recipient, bytes)."""
    with service.store.lock():
        items = service.store.outbox()
        for item in items:
            service.store.mark_sent(item, sent_at=now)
    return [(item.to, item.raw) for item in items]


def _next_deadline(service: Service, game: str, now: datetime) -> datetime:
    """The next moment the game's clock does something: a window's or the orders deadline."""
    record = service.service_record(game)
    moments = [record.window.deadline if record.window else "", record.deadline,
               record.offer_deadline]
    due = [datetime.fromisoformat(m) for m in moments if m]
    return min(due) if due else now
