"""The game service: mail in, turns played, mail out, every step committed once.

``receive(raw, now)`` and ``tick(now)`` are the whole interface the mail transports and the
daemon need; time is always passed in. Many games share one mailbox: each mail is routed by
the game its start line names. The turn flow players see is described in docs/service.md.

Every change to a game is a step (``pbem.service.steps``): ``step(game_id, now)`` loads the
game under the store's lock, and commits it once, advanced and sealed, when its body ends,
or writes nothing should the body raise. The deadline tick and the game master's overrides
(``pbem.service.gm``) go through it; a round of mail seals each mail as a step of the same
kind and writes a game's steps of the round together.
"""

from __future__ import annotations

import difflib
import hmac
import logging
import secrets
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from pbem.engine.carddata import CardPack, load_cardset
from pbem.engine.cards import CardSet
from pbem.engine.codec import from_json, to_json
from pbem.engine.commands import WithdrawOffer
from pbem.engine.rules import replay
from pbem.engine.setup import Setup, StartingSeat, new_game, with_options
from pbem.engine.state import GameState
from pbem.errors import (
    IllegalCommandError,
    MailFormatError,
    OrderSyntaxError,
    StoreError,
    disk_trouble,
)
from pbem.mail.authresults import NONE, Verdict, read_verdict
from pbem.mail.inbound import (
    START_LINE,
    InboundMail,
    header_summary,
    mask_passwords,
    parse_mail,
    receipt,
)
from pbem.orders.format import format_orders
from pbem.orders.model import Header
from pbem.orders.parse import StartLine, parse_header, parse_orders, read_start
from pbem.orders.player_names import check_player_name
from pbem.orders.signup import (
    AskHelp,
    Join,
    ListGames,
    LobbyOrder,
    Observe,
    Takeover,
    Unobserve,
    lobby_order,
)
from pbem.reports.mails import Problem
from pbem.reports.position import position
from pbem.reports.refusals import worded
from pbem.service import bot_seats, digest, resent
from pbem.service.auth import COST, check_password, hash_password, new_key, new_password
from pbem.service.deadlines import next_due, still_quiet, tick
from pbem.service.directory import Directory, seat_at
from pbem.service.entries import commands
from pbem.service.fairness import FairOrder, Waiting, mail_queue
from pbem.service.gate import Gate
from pbem.service.model import GameService, Seat, Timing, house_rules, iso
from pbem.service.notice_mails import welcome_settings
from pbem.service.notices import Ack, AlreadyDone, Letter, Welcome
from pbem.service.observers import observe, unobserve
from pbem.service.order_mail import carry_out_mail
from pbem.service.outgoing import addressed_mails
from pbem.service.packs import game_cards, pack_record
from pbem.service.postmaster import POSTMASTER, REPLY_INTERVAL, Postmaster
from pbem.service.records import player_records
from pbem.service.settings import STRANGER_REPLIES, MailIdentity
from pbem.service.signup import LOBBY, Lobby
from pbem.service.steps import Step
from pbem.service.table import Table
from pbem.service.takeover import former_holder, offered_seat, seat_gone, take_over
from pbem.store import GameStore

log = logging.getLogger(__name__)

__all__ = ["LOBBY", "NOT_GAMES", "POSTMASTER", "REPLY_INTERVAL", "Service", "ServiceConfig"]

NOT_GAMES = (POSTMASTER, LOBBY)  # the store's records that are no game

MAX_ROUNDS = 10_000  # inbox rounds in one process(): bots answering bots end long before
BATCH = 50  # mails taken in one round, whose steps are committed together per game
SWEEP_SECONDS = 3600.0  # a deadline tick checks every game's stamp this often (see tick)


@dataclass(frozen=True)
class ServiceConfig:
    sender: MailIdentity = field(default_factory=MailIdentity)
    max_mail_bytes: int = 256 * 1024
    # Per sender; more are dropped unread (a seated player's orders never are), the sender
    # told once an hour, the game master told of dropped orders.
    mails_per_hour: int = 60
    stranger_replies: int = STRANGER_REPLIES  # an hour, in all, to no player's address
    # The authserv-id of the mail server whose Authentication-Results header is believed
    # (pbem.mail.authresults); "": none is, no sender is known to be authentic or forged.
    trusted_authserv_id: str = ""
    password_cost: int = COST  # log2 of scrypt's N for new password hashes
    # (game, player) -> a new password; None: random words. Tests pin it for golden mails.
    passwords: Callable[[str, str], str] | None = None


class Service:
    """All games of one store."""

    def __init__(self, store: GameStore, config: ServiceConfig | None = None,
                 cards: CardSet | None = None) -> None:
        self.store = store
        self.config = config or ServiceConfig()
        self.cards = cards or load_cardset()
        self.gate = Gate(self.config.stranger_replies)
        self.postmaster = Postmaster(store, self.config.sender, self.config.mails_per_hour,
                                     gate=self.gate)
        self.directory = Directory(store, skip=POSTMASTER)
        self.lobby = Lobby(store, self.config.sender, self,
                           records=lambda: player_records(store, NOT_GAMES),
                           gate=self.gate)
        self._verify_key = secrets.token_bytes(32)
        self._verified: dict[str, bytes] = {}  # password hash -> HMAC of the password
        self._recovered = False  # the store was recovered and no pass broke off since
        self._bot_mail: set[str] = set()  # Message-IDs of mail the bot seats wrote
        self._journal: tuple[int, int] | None = None  # where tick read the journal of changes
        self._next_sweep = 0.0  # monotonic time of tick's next look at every game's stamp
        # Mails left waiting in this pass: their game's (or the postmaster's) record cannot
        # be read or written. Never the mail's fault: they stay in the inbox.
        self._held: set[str] = set()
        self._damage_logged: set[str] = set()
        self._fair = FairOrder()  # the order waiting mails are taken in
        with store.lock():
            self.postmaster.ensure()

    # --- games ----------------------------------------------------------------------------

    def games(self) -> list[str]:
        return [g for g in self.store.games() if g not in NOT_GAMES]

    def create_game(self, game_id: str, players: Sequence[tuple[str, str, str]], *,
                    options: dict[str, Any] | None = None, timing: Timing | None = None,
                    seed: str | None = None, now: datetime | None = None,
                    note: Callable[[Table], object] | None = None, lang: str = "en",
                    pack: CardPack | None = None) -> None:
        """A new game: players as (name, address, Illuminati or ""); nothing is mailed yet.
        ``note(table)`` (at ``now``) may log GM entries in the same write. ``lang``: the
        language of every player's mail until they choose another (SET LANGUAGE). ``pack``:
        the game master's own cards, kept in the game's setup (pbem.service.packs)."""
        if game_id in NOT_GAMES:
            raise StoreError("That game id is reserved.", text=game_id)
        twin = next((g for g in self.store.games() if g.casefold() == game_id.casefold()), None)
        if twin is not None:
            raise StoreError(f"A game with this id exists already, written {twin!r}: players "
                             "write game ids without regard to case.", text=game_id,
                             suggestion="Choose another id.")
        names: list[str] = []
        for name, _, _ in players:
            names.append(check_player_name(name, names))
        seats = tuple(StartingSeat(name, illuminati) for name, _, illuminati in players)
        house, options = house_rules(options or {})
        kept: dict[str, Any] = {} if pack is None else {"cards": pack_record(pack)}
        cards = game_cards(self.cards, kept)  # a pack is checked before anything is written
        setup = with_options(cards, Setup(game_id, seats, seed or secrets.token_hex(32)),
                             **options)
        state, _ = new_game(cards, setup)  # validates names, Illuminati and options
        service = GameService(
            seats=tuple(Seat(name, address.lower(), lang=lang) for name, address, _ in players),
            timing=timing or Timing(), house=house)
        entries: list[dict[str, Any]] = []
        if note is not None:
            assert now is not None, "a note is logged at a time"
            table = Table(cards, state, service, now, 0)
            note(table)
            entries = table.entries
        with self.store.lock():
            self.store.create_game(game_id, {"setup": to_json(setup), "service": to_json(service),
                                             **kept},
                                   snapshot=self._snapshot(state, service), log_entries=entries)

    def start_game(self, game_id: str, now: datetime,
                   note: Callable[[Table], object] | None = None) -> dict[str, str]:
        """Passwords made and mailed with the welcome; the first turn begins. Gives the
        passwords (for the GM's eyes only: the store keeps their hashes). ``note(table)``
        may log GM entries first, in the same write."""
        with self.step(game_id, now, advance=False) as step:
            table = step.table
            if table.service.started:
                raise StoreError("The game has already started.", text=game_id)
            if note is not None:
                note(table)
            passwords = {s.name: self._new_password(game_id, s.name)
                         for s in table.service.seats}
            seats = tuple(replace(s, password_hash=self.hash_password(passwords[s.name]))
                          for s in table.service.seats)
            table.service = replace(table.service, seats=seats, started=True)
            step.advance()
            # The welcome comes first, but shows the first turn begun and its deadline.
            for seat in seats:
                table.notify(Welcome(seat.name, passwords[seat.name],
                                     welcome_settings(table.service.timing, table.service.house)))
        return passwords

    def set_bot(self, game_id: str, player: str, on: bool, now: datetime,
                note: Callable[[Table], object] | None = None, level: str = "normal") -> None:
        """A bot plays the seat from now on (``on``) at ``level``, or its player again (a new
        password is mailed to the seat's address). One step: if the game waits for the seat,
        the bot is shown where it stands and its answer goes to the inbox, which the daemon
        processes (a command never plays the game on: in a game of bots that would be the
        whole game, the store's lock held throughout). ``note(table)`` may log GM entries and
        notices in the same write."""
        with self.step(game_id, now, advance=False) as step:
            table = step.table
            table.service.seat(player)  # KeyError names an unknown seat
            if on and not table.state.player(player).playing:
                raise IllegalCommandError(f"{player} is no longer playing")
            # The GM's bot stays after an absence it began in (no away_hash kept).
            seats = tuple(replace(s, bot=on, misses=0, bot_level=level if on else "normal",
                                  away_hash="" if on else s.away_hash)
                          if s.name == player else s for s in table.service.seats)
            table.service = replace(table.service, seats=seats)
            if note is not None:
                note(table)

    def state(self, game_id: str) -> GameState:
        state, _ = self._load(game_id)
        return state

    def service_record(self, game_id: str) -> GameService:
        _, service = self._load(game_id)
        return service

    def _new_password(self, game_id: str, player: str) -> str:
        maker = self.config.passwords
        return maker(game_id, player) if maker is not None else new_password()

    def _new_key(self, game_id: str, player: str) -> str:
        """A bot seat's one-time key: 128 random bits (the test's maker, if one is set)."""
        return (self._new_password(game_id, player) if self.config.passwords is not None
                else new_key())

    def new_password(self, game_id: str, player: str) -> tuple[str, str]:
        """Give a new password for a seat of the game (for its player's eyes only) and the
        hash the store keeps of it."""
        password = self._new_password(game_id, player)
        return password, self.hash_password(password)

    def hash_password(self, password: str) -> str:
        """Give the hash the store keeps of ``password`` (scrypt, at the configured cost)."""
        return hash_password(password, cost=self.config.password_cost)

    # --- mail -----------------------------------------------------------------------------

    def accept(self, raw: bytes, now: datetime) -> str | None:
        """Keep a mail durably before the mail server is told it arrived; None if seen."""
        return self.accept_many([raw], now)[0]

    def accept_many(self, raws: Sequence[bytes], now: datetime) -> list[str | None]:
        """``accept`` for several mails, made durable together (fewer disk flushes). Takes
        only the inbox's lock: mail comes in while a step is processed."""
        return self.store.receive_many([receipt(raw) for raw in raws], received_at=now)

    def receive(self, raw: bytes, now: datetime) -> None:
        """Take one mail in and process everything waiting."""
        self.accept(raw, now)
        self.process(now)

    def process(self, now: datetime, after_round: Callable[[], None] | None = None,
                round_seconds: float | None = None,
                stopping: Callable[[], bool] | None = None) -> int:
        """Process every mail waiting in the inbox (the bot seats' answers included); gives
        how many. ``after_round`` is called after each round is committed (the daemon wakes
        its sending loop, so answers leave while later rounds are processed).
        ``round_seconds``: a round takes no more of its mails once it has run this long
        (measured on the machine's clock, not ``now``), so that the answers of the first
        leave without waiting for the last; the rest go in the next round. ``stopping``:
        once it gives True no round begins (a daemon told to stop does not play on a game of
        bots to its end); what is left waits in the inbox.

        Mails are taken in rounds of at most ``BATCH``, players' mail first, then the bot
        seats', each in fair shares between the games (round robin; a game's mail in
        arrival order: ``pbem.service.fairness``): each mail is its own step (its own step
        number, log entries and answers, as if processed alone), but a round's steps of
        one game are committed together, and only then are its mails taken off the inbox. A
        crash before that commit redoes the round; nothing of it was written.

        The store's lock is taken for one round at a time (unless the caller holds it): bots
        answering bots may play a whole game in one call, and a command of the game master
        gets its turn between two rounds.
        """
        done = 0
        with self.store.lock():
            # recover() walks the whole store (~0.2 s with 1,000 games): it is for a start,
            # so it runs on the first pass and after a pass that broke off, not every time.
            if not self._recovered:
                self.store.recover()
            self._recovered = False
            self._held = set()
        for _ in range(MAX_ROUNDS):
            if stopping is not None and stopping():
                break
            with self.store.lock():
                # Players' mail before the bot seats': a player waits for an answer, while
                # bots answering bots in busy games can fill round after round. A bot's
                # mail cannot be an answer to a player's waiting one (nothing was answered
                # yet), so no game sees an order it could not. Each in fair shares between
                # games and senders (pbem.service.fairness), a sender's in arrival order.
                items = self._fair_round()
                if not items:
                    break
                began = time.monotonic()
                taken = self._round([item.mail_id for item in items], now, round_seconds)
                self._fair.served(items[:len(taken)])
                applied = [mail_id for mail_id in taken if mail_id not in self._held]
                self.store.inbox_done(*applied)
                for mail_id in applied:  # kept, but without the passwords they carried
                    self.store.mask_mail(mail_id, mask_passwords)
                log.debug("a round of %d mail(s) committed in %.2f s", len(taken),
                          time.monotonic() - began)
                done += len(applied)
                if after_round is not None:
                    after_round()
        self._recovered = True
        return done

    def _fair_round(self) -> list[Waiting]:
        """Give the mails of the next round, at most ``BATCH``, in the order to take them
        (held lock required)."""
        players: list[Waiting] = []
        bots: list[Waiting] = []
        for item in self.store.inbox():
            if item.mail_id in self._held:
                continue
            waiting = self._fair.waiting(item.mail_id, item.sender, self._queue_of)
            (bots if item.message_id in self._bot_mail else players).append(waiting)
        self._fair.forget(players + bots)
        taken = self._fair.order(players, BATCH)
        taken += self._fair.order(bots, BATCH - len(taken)) if len(taken) < BATCH else []
        for mail in taken:
            log.debug("mail %s taken: queue %r, sender %r", mail.mail_id,
                      mail.queue or "(no game)", mail.sender)
        return taken

    def _queue_of(self, mail_id: str) -> str:
        """Give the fair order's queue of a waiting mail: the game it names, if any."""
        return mail_queue(self.store.raw_mail(mail_id), self.store.game_named,
                          self.config.max_mail_bytes)

    def tick(self, now: datetime, then_process: bool = True) -> None:
        """Deadlines and reminders in every game; bot seats taken or given back; then, with
        ``then_process``, the mail that made (a bot seat's answer) processed. The daemon
        processes it itself, in its own rounds (``Daemon.process``).

        Only the games that may have something due are loaded: the store's due index keeps,
        for each game looked at before, its stamp then and the moment it is next due (see
        ``deadlines.next_due``). A game committed since the last tick (the store's journal
        of games changed says which) whose stamp has changed, or one that is due, is looked
        at; the others are left alone without a look at their files, so a tick over 10,000
        quiet games takes a few milliseconds. The first tick, and one every
        ``SWEEP_SECONDS``, checks every game's stamp instead (a change the journal lost in a
        crash, a store written by an older version).
        """
        with self.store.lock():
            marks = self.store.due_index()
            changed, self._journal = self.store.changed_games(self._journal)
            if time.monotonic() >= self._next_sweep:
                changed = None
                self._next_sweep = time.monotonic() + SWEEP_SECONDS
            kept: dict[str, Any] = {}
            for game_id in self.games():
                mark = marks.get(game_id)
                if changed is not None and game_id not in changed and still_quiet(
                        mark, None, now):
                    kept[game_id] = mark
                    continue
                stamp = self.store.game_stamp(game_id)
                if stamp is not None and still_quiet(mark, stamp, now):
                    kept[game_id] = mark
                    continue
                try:
                    changed_now, due = self._tick_game(game_id, now)
                except Exception as error:  # one game's trouble must not stop the others'
                    if disk_trouble(error):  # everyone's: the pass stops, to try again
                        raise
                    log.exception("the deadlines of game %s failed; the other games go on",
                                  game_id, extra={"game": game_id})
                    continue
                if stamp is not None and not changed_now:
                    kept[game_id] = {"stamp": stamp, "checked": iso(now),
                                     "due": None if due is None else iso(due)}
            if kept != marks:
                self.store.set_due_index(kept)
            self.lobby.tick(now)
            self.postmaster.tell_failures(now)
        if then_process and self.store.inbox():  # round by round, each under the lock
            self.process(now)

    def _tick_game(self, game_id: str, now: datetime) -> tuple[bool, datetime | None]:
        """Tick one game; give whether that changed it, and if not, when it is next due."""
        with self.step(game_id, now) as step:
            table = step.table
            state, service = table.state, table.service
            if state.phase == "over" or not service.started:
                step.discard()
                return False, None
            tick(table)
            step.advance()
            if table.entries or table.notices or table.service != service or any(
                    s.bot != bool(s.bot_keys) or bool(s.bot_password)
                    for s in service.seats):
                return True, None
            step.discard()
            return False, next_due(state, service, now)

    def _round(self, mail_ids: Sequence[str], now: datetime,
               seconds: float | None = None) -> list[str]:
        """Handle mails, then write each game's steps; give the mails taken (the first ones,
        as many as ``seconds`` allow). Should a write fail, its mails are handled again one
        at a time, so only a mail that breaks is set aside.

        A disk failing as a whole (``disk_trouble``: out of space, read-only) is raised: the
        pass stops and every mail not committed stays waiting, for the next pass to apply
        once the disk mends (``recover`` takes off those whose step did commit)."""
        steps: dict[str, Step] = {}
        taken: list[str] = []
        began = time.monotonic()
        for mail_id in mail_ids:
            if taken and seconds is not None and time.monotonic() - began >= seconds:
                break
            taken.append(mail_id)
            try:
                self._handle(mail_id, now, steps)
            except Exception as error:  # a bug must not block every later mail
                self._failed(mail_id, now, error)
            finally:  # the verdict was this mail's: nothing later answers by it
                self.gate.hear(Verdict())
        for game_steps in steps.values():
            if not game_steps.mail_ids:
                continue
            try:
                self._write(game_steps, now)
            except Exception as error:
                if len(taken) == 1:
                    self._failed(taken[0], now, error)
                    continue
                if disk_trouble(error):
                    raise
                log.exception("the steps of %d mails could not be written; one at a time now",
                              len(game_steps.mail_ids))
                for mail_id in game_steps.mail_ids:
                    self._round([mail_id], now)
        return taken

    def _failed(self, mail_id: str, now: datetime, error: Exception) -> None:
        """A mail's processing raised: the disk's failure is raised on; a store file that
        cannot be read or written (``OSError``, ``StoreError``) leaves the mail waiting, and
        the game master is told once; anything else (a bug) sets the mail aside."""
        if disk_trouble(error):
            raise error
        if isinstance(error, (OSError, StoreError)):
            self._hold(mail_id, now, error)
            return
        log.exception("mail %s could not be processed", mail_id, extra={"message_id": mail_id})
        try:  # its sender is told, if that much of it reads
            sender, message_id, synthetic = header_summary(self.store.raw_mail(mail_id))
            reader = self._reader(sender, "failed", now)
        except Exception:
            log.exception("the sender of mail %s could not be read: not told", mail_id)
            sender, message_id, synthetic, reader = "", "", True, None
        try:
            self.postmaster.failed(mail_id, now, f"{type(error).__name__}: {error}",
                                   to=sender, reply_to=None if synthetic else message_id,
                                   reader=reader)
        except Exception as failure:  # the postmaster's own record is at fault
            if disk_trouble(failure):
                raise
            self._hold(mail_id, now, failure)

    def _hold(self, mail_id: str, now: datetime, error: Exception) -> None:
        """Leave a mail waiting in the inbox: a store file it needs is damaged. The game
        master hears of each damage once (by mail when the postmaster's record can be
        written, in the log always)."""
        self._held.add(mail_id)
        problem = str(error)
        try:
            told = self.postmaster.damaged(problem, now)
        except Exception as failure:
            if disk_trouble(failure):
                raise
            told = problem not in self._damage_logged
        if told:
            self._damage_logged.add(problem)
            log.error("mail %s waits: %s (see `pbem doctor`)", mail_id, problem,
                      extra={"message_id": mail_id})

    # --- one mail -------------------------------------------------------------------------

    def _handle(self, mail_id: str, now: datetime, steps: dict[str, Step]) -> None:
        raw = self.store.raw_mail(mail_id)
        self.gate.hear(Verdict())
        try:
            mail = parse_mail(raw, max_bytes=self.config.max_mail_bytes)
        except MailFormatError as error:
            sender, message_id, synthetic = header_summary(raw)
            if self._forged(mail_id, raw, sender, now):
                return
            reader = self._reader(sender, "unreadable", now)
            message, suggestion = worded(error, reader.lang if reader else "en",
                                         self.config.sender.site_dir)
            too_big = error.key == "too_big"  # the game master hears of it too
            self.postmaster.reply(mail_id, sender, "unreadable", now, message=message,
                                  suggestion=suggestion,
                                  reply_to=None if synthetic else message_id, reader=reader,
                                  tell_gm=("mail_too_big", {
                                      "sender": sender, "size_kib": error.words["size"],
                                      "limit_kib": error.words["limit"]})
                                  if too_big else None)
            return
        ours = mail.message_id in self._bot_mail  # a bot seat's: never a flood
        self._bot_mail.discard(mail.message_id)
        if mail.automatic or not mail.sender:
            self.postmaster.note(mail_id, now, f"automatic mail ({mail.automatic})"
                                 if mail.automatic else "no sender address could be read")
            return
        if not ours and self._forged(mail_id, raw, mail.sender, now, mail):
            return
        # Mail of an authenticated sender counts apart from mail that only says it is
        # theirs: a flood under a player's From cannot spend the player's own limit.
        flood_key = mail.sender if self.gate.verdict.authenticated else f"?{mail.sender}"
        if not ours and self.postmaster.flooding(flood_key, now):
            if not self._seated(mail, now):
                self._flooded(mail_id, mail, now)
                return
            # The limit is for strangers and runaway programs: a seated player's orders
            # are read however many they send.
            log.info("mail %s from %r is past the limit of %d mails an hour from one "
                     "address, but it is a seated player's order mail: read", mail_id,
                     mail.sender, self.config.mails_per_hour)
        try:
            # A mail with a start line is an order mail, whatever its first line says.
            order = None if START_LINE.search(mail.text) else lobby_order(mail.text)
        except OrderSyntaxError as error:
            # A mail to the server, not to a game: the lobby's help, with what was wrong.
            lang = self._lobby_lang(mail.sender)
            message, suggestion = worded(error, lang, self.config.sender.site_dir)
            self.lobby.help(mail_id, mail.sender, lang, now, mail.reply_to, message=message,
                            suggestion=suggestion)
            return
        if order is not None:
            self._lobby_mail(mail_id, mail, order, now, steps)
            return
        try:
            start = read_start(mail.text, self.cards)
        except OrderSyntaxError as error:
            self._unreadable(mail_id, mail, error, now,
                             self._reader(mail.sender, "unreadable", now))
            return
        game_id = self.store.game_named(start.header.game)
        if game_id is None or game_id in NOT_GAMES:
            self._unknown_game(mail_id, mail, start.header.game, now)
            return
        game_steps = self._game_step(game_id, mail_id, now, steps)
        if game_steps is None:
            return
        log.info("mail %s: orders of %s in game %s", mail_id, start.header.player, game_id,
                 extra={"game": game_id, "seat": start.header.player,
                        "message_id": mail.message_id})
        with game_steps.undone_on_error():
            self._carry_out(game_steps, mail_id, mail, start, now)

    def _flooded(self, mail_id: str, mail: InboundMail, now: datetime) -> None:
        """Drop a mail past the hourly limit of its address, unread, saying so: in the log
        (whether it carried orders), to its sender (once an hour), and, when it carried
        orders, to the game master (grouped: at most one notice every half hour)."""
        orders = bool(START_LINE.search(mail.text))
        game = ""
        if orders:
            with suppress(OrderSyntaxError):
                game = parse_header(mail.text, self.cards).game
        log.warning("mail %s from %r is not read: more than %d mails in an hour from this "
                    "address%s", mail_id, mail.sender, self.config.mails_per_hour,
                    f"; the orders it carries for game {game or '?'} were not read"
                    if orders else "")
        key = mail.sender if self.gate.verdict.authenticated else f"?{mail.sender}"
        self.postmaster.reply(mail_id, mail.sender, "flooding", now,
                              until=self.postmaster.read_again_at(key),
                              reply_to=mail.reply_to,
                              reader=self._reader(mail.sender, "flooding", now, mail),
                              flooded=game if orders else None)

    def _forged(self, mail_id: str, raw: bytes, sender: str, now: datetime,
                mail: InboundMail | None = None) -> bool:
        """Read the trusted mail server's verdict on the mail (``Gate.verdict`` from then
        on); when it says the From is forged, set the mail aside unread and unanswered
        (counted against no one's limits) and give True."""
        verdict = read_verdict(raw, self.config.trusted_authserv_id, sender)
        self.gate.hear(verdict)
        if not verdict.forged:
            if verdict.value != NONE:
                log.info("mail %s from %r: the trusted mail server says %s", mail_id, sender,
                         verdict)
            return False
        game = self._game_of(mail) or ""
        self.postmaster.forged(mail_id, sender, verdict, now, game)
        return True

    def _seated(self, mail: InboundMail, now: datetime) -> bool:
        """True when a mail past the flood limit is a seated player's order mail: its start
        line names a started game where the sender's address is a seat's (the address the
        game registered), or it carries the password of the seat it names. The password is
        checked in full (scrypt, ~0.2 s) at most once an hour per address past the limit
        (``Postmaster.may_try_password``): a flood of wrong passwords costs no more."""
        if not START_LINE.search(mail.text):
            return False
        try:
            header = parse_header(mail.text, self.cards)
        except OrderSyntaxError:
            return False
        game_id = self.store.game_named(header.game)
        if game_id is None or game_id in NOT_GAMES:
            return False
        try:
            service = self.service_record(game_id)
        except (OSError, StoreError):
            return True  # the game's record is damaged: its mail waits, as any other would
        if not service.started:
            return False
        if any(s.address == mail.sender for s in service.seats):
            return True
        seat = next((s for s in service.seats
                     if s.name.casefold() == header.player.casefold()), None)
        if seat is None or not header.password:
            return False
        hashes = [h for h in (seat.password_hash, seat.away_hash) if h]
        if any(self._password_known(header.password, h) for h in hashes):
            return True
        if not self.postmaster.may_try_password(mail.sender, now):
            return False
        return any(self._password_ok(header.password, h) for h in hashes)

    def _password_known(self, password: str, stored: str) -> bool:
        """True when ``password`` was checked against the stored hash before and matched
        (no scrypt: the remembered HMAC only)."""
        known = self._verified.get(stored)
        tag = hmac.new(self._verify_key, password.encode(), "sha256").digest()
        return known is not None and hmac.compare_digest(known, tag)

    def _unknown_game(self, mail_id: str, mail: InboundMail, game: str, now: datetime) -> None:
        """Answer a mail naming no game of the store (the postmaster's once an hour)."""
        close = difflib.get_close_matches(game, self.games(), n=3)
        self.postmaster.reply(mail_id, mail.sender, "unknown_game", now, game=game,
                              games=close, reply_to=mail.reply_to,
                              reader=self._reader(mail.sender, "unknown_game", now))

    def _game_step(self, game_id: str, mail_id: str, now: datetime,
                   steps: dict[str, Step]) -> Step | None:
        """The round's step of ``game_id`` for the mail; None if the mail was applied."""
        if game_id not in steps:
            steps[game_id] = self._open(game_id, now)
        return None if self.store.applied_mails(game_id, [mail_id]) else steps[game_id]

    def _carry_out(self, step: Step, mail_id: str, mail: InboundMail, start: StartLine,
                   now: datetime) -> None:
        """One order mail of a game: authenticated, carried out and acknowledged, as a step."""
        table, game_id = step.table, step.table.state.game
        names = tuple(s.name for s in table.service.seats)
        sent = _LinesToCopy(table.cards, table.state, next(
            (n for n in names if n.casefold() == start.header.player.casefold()), None))
        try:
            parsed = parse_orders(mail.text, table.cards, names, start, sent)
        except OrderSyntaxError as error:  # e.g. a player's name the game does not know
            self._unreadable(mail_id, mail, error, now,
                             self._reader(mail.sender, "unreadable", now, table=table),
                             game_id)
            return
        seat = next((s for s in table.service.seats
                     if s.name.casefold() == parsed.header.player.casefold()), None)
        refused = ("no seat" if seat is None
                   else self._refusal(table.service, seat, parsed.header, mail, now))
        if seat is None or refused:
            gone = former_holder(table.service, mail.sender, parsed.header.player)
            if gone is not None:  # they played a seat that passed on: told so, not refused
                seat_gone(table, gone, mail.sender, mail.reply_to)
                self._seal(step, now, mail_id)
                return
            tries = self.gate.tries_key(game_id, seat.name, mail.sender) if seat else ""
            tell = refused == "password" and self.gate.wrong(tries, now)
            self.postmaster.reply(mail_id, mail.sender, "auth_failed", now, game=game_id,
                                  mail_game=game_id, reply_to=mail.reply_to,
                                  reader=self._reader(mail.sender, "auth_failed", now,
                                                      table=table),
                                  alert=("passwords_tried", {
                                      "seat_game": game_id, "seat": seat.name,
                                      "count": self.gate.wrong_count(tries, now),
                                      "sender": mail.sender,
                                      "authenticated": self.gate.verdict.authenticated})
                                  if tell and seat is not None else None)
            return
        key = resent.digest(table, seat.name, parsed)
        earlier = resent.done_before(table, seat.name, key) if key else None
        if earlier is not None:  # a copy of a mail carried out: nothing is done again
            table.notify(AlreadyDone(seat.name, earlier.at, table.state.seq, mail.reply_to))
            self._seal(step, now, mail_id)
            return
        turn_seq = table.service.turn_seq
        results, warnings = carry_out_mail(table, seat, parsed,
                                           site_dir=self.config.sender.site_dir)
        if key:
            resent.remember(table, seat.name, key, turn_seq, now)
        mine = table.service.queue and table.state.active_player.name == seat.name
        pending = format_orders(replace(parsed.header, password="******"),
                                [q.order for q in table.service.queue]) if mine else ""
        done = {r.line for r in results if r.accepted}
        # The turn-goes-on block, unless another mail of this step to the writer (a STATUS
        # report, an attack's result) gives the form already.
        withdrew = (any(isinstance(o.order, WithdrawOffer) and o.line in done
                        for o in parsed.orders)
                    and not any(n.to == seat.name for n in table.notices))
        if withdrew or digest.answered(table, seat.name, parsed, results, warnings, pending,
                                                  mail.reply_to):
            table.notify(Ack(seat.name, results, warnings, pending, withdrew, mail.reply_to))
        self._seal(step, now, mail_id)

    def _lobby_mail(self, mail_id: str, mail: InboundMail, order: LobbyOrder, now: datetime,
                    steps: dict[str, Step]) -> None:
        """A mail to the server from anyone, without a password (``pbem.orders.signup``):
        LIST and JOIN go to the lobby (``pbem.service.signup``); OBSERVE, UNOBSERVE and
        TAKEOVER are a step of their game, answered to the sender's address."""
        known = self.directory.seat_of(mail.sender)
        lang = known.lang if known is not None else ""  # "": the game's (sign-up) or English
        self.gate.known = known is not None
        # A newcomer taking a seat the game master offers is answered whatever the hour's
        # answers to strangers: each offer is taken once, so forged ones cost one welcome
        # each at most, while a limit spent by strangers' LISTs would lose the newcomer.
        limited = known is None and not self._takes_offered_seat(order)
        if limited and self.gate.strangers_answered(now):
            # A stranger not vouched for, past the hour's answers to strangers: not acted
            # on either (a forged JOIN would sit on a list, and tell the game master).
            self.postmaster.note(mail_id, now, f"{type(order).__name__.upper()} from "
                                 f"{mail.sender!r}, no player, not authenticated: the "
                                 f"{self.config.stranger_replies} answers an hour to strangers "
                                 "are spent")
            return
        if isinstance(order, AskHelp):
            self.lobby.help(mail_id, mail.sender, lang or "en", now, mail.reply_to)
            return
        if isinstance(order, ListGames):
            self.lobby.list_games(mail_id, mail.sender, lang or "en", now, mail.reply_to)
            return
        if isinstance(order, Join):
            self.lobby.join(mail_id, mail.sender, order, lang, now, mail.reply_to)
            return
        opened = next((g for g in self.lobby.open_games()
                       if g.casefold() == order.game.casefold()), None)
        if opened is not None and isinstance(order, Observe):
            self.lobby.observe(mail_id, mail.sender, opened, lang, now, mail.reply_to)
            return
        game_id = self.store.game_named(order.game)
        if game_id is None or game_id in NOT_GAMES or not self.service_record(game_id).started:
            self._unknown_game(mail_id, mail, order.game, now)
            return
        confirm = ""
        if isinstance(order, Unobserve) and not self.gate.verdict.authenticated:
            # Anyone can write UNOBSERVE under an observer's From: unless the trusted mail
            # server vouches for it, the observer confirms from their own mailbox.
            confirm = self._unobserve_code(game_id, mail.sender)
            if not hmac.compare_digest(order.code.upper(), confirm):
                self._confirm_unobserve(mail_id, mail, game_id, confirm, now, steps)
                return
        elif limited and not self.gate.may_answer_stranger(now):
            self.postmaster.note(mail_id, now, f"{type(order).__name__.upper()} from "
                                 f"{mail.sender!r}, no player, not authenticated: the "
                                 f"{self.config.stranger_replies} answers an hour to strangers "
                                 "are spent")
            return
        step = self._game_step(game_id, mail_id, now, steps)
        if step is None:
            return
        with step.undone_on_error():
            table = step.table
            lang = lang or table.service.language
            if isinstance(order, Observe):
                observe(table, mail.sender, lang=lang, answers=mail.reply_to)
            elif isinstance(order, Takeover):
                seat = next((s.name for s in table.service.seats
                             if s.name.casefold() == order.seat.casefold()), order.seat)
                password, password_hash = self.new_password(game_id, seat)
                old = take_over(table, seat, mail.sender, password, password_hash,
                                lang=lang, answers=mail.reply_to)
                if old and not any(s.address == old for s in table.service.seats):
                    # Written for the player who left (as ``pbem replace`` drops them).
                    step.drop([i.outbox_id for i in self.store.outbox()
                               if i.game_id == game_id and i.to == old])
            else:
                unobserve(table, mail.sender, lang=lang, answers=mail.reply_to)
            self._seal(step, now, mail_id)

    def _takes_offered_seat(self, order: LobbyOrder) -> bool:
        """Whether ``order`` is a TAKEOVER of a seat offered now, in a game not over."""
        if not isinstance(order, Takeover):
            return False
        game_id = self.store.game_named(order.game)
        if game_id is None or game_id in NOT_GAMES:
            return False
        record = self.service_record(game_id)
        return (record.started and bool(offered_seat(record, order.seat))
                and self.state(game_id).phase != "over")

    def _confirm_unobserve(self, mail_id: str, mail: InboundMail, game_id: str, code: str,
                           now: datetime, steps: dict[str, Step]) -> None:
        """An UNOBSERVE not known to come from the observer: the observer's address is
        asked to confirm it (``UNOBSERVE <game> <code>``), at most once an hour; nothing
        changes. An address that does not observe the game gets nothing (it may be
        forged)."""
        audience = self.service_record(game_id).audience
        observer = audience.observer(mail.sender)
        if observer is None or not self.gate.once_an_hour(
                f"unobserve {game_id} {mail.sender}", now):
            self.postmaster.note(mail_id, now, f"UNOBSERVE {game_id} from {mail.sender!r}, not "
                                 "authenticated: " + ("no observer of the game" if observer
                                                      is None else "asked to confirm already"))
            return
        step = self._game_step(game_id, mail_id, now, steps)
        if step is None:
            return
        with step.undone_on_error():
            step.table.notify(Letter(observer.address, "unobserved",
                                     (("was", True), ("confirm", code)), mail.reply_to,
                                     lang=observer.lang))
            self._seal(step, now, mail_id)

    def _unobserve_code(self, game_id: str, address: str) -> str:
        """The code that confirms ``address``'s UNOBSERVE of the game: made from the game's
        secret seed, so only the mail sent to the address tells it."""
        seed = str(self.store.setup(game_id)["setup"]["seed"])
        return hmac.new(seed.encode(), f"unobserve {address.lower()}".encode(),
                        "sha256").hexdigest()[:10].upper()

    def _lobby_lang(self, address: str) -> str:
        """The language of a mail to the server from ``address``: theirs if they play in a
        game of the store, else English."""
        known = self.directory.seat_of(address)
        return known.lang if known is not None else "en"

    def _unreadable(self, mail_id: str, mail: InboundMail, error: OrderSyntaxError,
                    now: datetime, reader: Seat | None, game_id: str = "") -> None:
        """Answer a mail whose orders cannot be read (the postmaster's once an hour);
        ``game_id``: the game of the store it was for, if known."""
        message, suggestion = worded(error, reader.lang if reader else "en",
                                     self.config.sender.site_dir)
        # A mail to the lobby that does not read is told the order's right form, whoever
        # sent it: the form is the game's own words, nothing of the mail.
        self.postmaster.reply(mail_id, mail.sender, "unreadable", now, message=message,
                              suggestion=suggestion, reply_to=mail.reply_to, reader=reader,
                              own_suggestion=error.key == "lobby_form", mail_game=game_id)

    def _reader(self, address: str, problem: Problem, now: datetime,
                mail: InboundMail | None = None, table: Table | None = None) -> Seat | None:
        """The seat of the player a postmaster reply about ``problem`` goes to, for their
        language and time zone: in the game being played (``table``, with this round's
        changes) or the one ``mail``'s start line names, else in any game; None for a
        stranger. Looked up only when a reply is due, once an hour at most, however much an
        address mails: a refusal to a known player is in their language even when their mail
        could not be authenticated."""
        if not self.postmaster.due(address, problem, now):
            return None
        if table is not None:
            return (seat_at(table.service.seats, address)
                    or self.directory.seat_of(address, table.state.game))
        return self.directory.seat_of(address, self._game_of(mail))

    def _game_of(self, mail: InboundMail | None) -> str | None:
        """The game ``mail``'s start line names, None if it has none that reads."""
        try:
            return self.store.game_named(parse_header(mail.text, self.cards).game) if mail else None
        except OrderSyntaxError:
            return None

    def _refusal(self, service: GameService, seat: Seat, header: Header,
                 mail: InboundMail, now: datetime) -> str:
        """Why the mail may not act for ``seat`` ("" when it may): "not started",
        "dkim", "password" (wrong, or not checked: too many wrong ones), "address".
        The mail may act for the seat with the game started, the seat's password
        (or its absence's), the seat's address if the game requires it, and an aligned
        DKIM pass if the game requires that (house rule ``require_dkim``).

        A password remembered as right is taken at once; else it is checked in full
        (scrypt) unless the seat (or, for an authenticated sender, the sender) gave too many
        wrong ones this hour (``Gate.may_check``): then it is refused unchecked, at most one
        full check a minute going through."""
        if not service.started:
            return "not started"
        if service.house.require_dkim and not self.gate.verdict.dkim_aligned:
            log.info("mail %s for %s: the game requires an aligned DKIM pass; the trusted "
                     "mail server says %s", mail.message_id, seat.name, self.gate.verdict)
            return "dkim"
        # A bot seat's answer carries one of its one-time passwords, the newest most likely.
        keys = (*reversed(seat.bot_keys), seat.password_hash) if seat.bot else (
            seat.password_hash,)
        hashes = [h for h in dict.fromkeys((*keys, seat.away_hash)) if h]
        if not any(self._password_known(header.password, h) for h in hashes):
            tries = self.gate.tries_key(header.game, seat.name, mail.sender)
            if not self.gate.may_check(tries, now):
                log.warning("the password for %s from %r is not checked: too many wrong "
                            "ones this hour", seat.name, mail.sender)
                return "password"
            if not any(self._password_ok(header.password, h) for h in hashes):
                return "password"
        if service.timing.require_registered_address and mail.sender != seat.address:
            return "address"
        return ""

    def _password_ok(self, password: str, stored: str) -> bool:
        """True when ``password`` matches the stored hash; scrypt runs once per player.

        scrypt is slow on purpose (~0.2 s here) and would otherwise cost that on every mail.
        A match is remembered as an HMAC under a key of this process, never the password.
        """
        tag = hmac.new(self._verify_key, password.encode(), "sha256").digest()
        known = self._verified.get(stored)
        if known is not None and hmac.compare_digest(known, tag):
            return True
        if not check_password(password, stored):
            return False
        self._verified[stored] = tag
        return True

    # --- the unit of work -----------------------------------------------------------------

    @contextmanager
    def step(self, game_id: str, now: datetime, *, advance: bool = True) -> Iterator[Step]:
        """One step of a game, under the store's lock: the game loaded as stored, changed
        through ``step.table`` by the body, then carried forward (``advance``: as far as it
        goes without anyone's answer), sealed (its number, its mails composed) and committed
        in one store write; the bot seats' answers to its mails go to the inbox. Should the
        body raise, nothing is written. ``step.discard()`` writes nothing either.

        ``advance=False`` leaves the game where the body left it: an override of the
        service's record only (a pause, a seat's address, an announcement), or a body that
        advances itself (``step.advance()``) before it adds its own mails."""
        with self.store.lock():
            step = self._open(game_id, now)
            yield step
            if step.discarded:
                return
            if advance:
                step.advance()
            self._seal(step, now)
            self._write(step, now)

    def _open(self, game_id: str, now: datetime) -> Step:
        """A step on the game as stored."""
        state, service = self._load(game_id)
        return Step(Table(self.cards_of(game_id), state, service, now,
                          self.store.log_length(game_id)))

    def cards_of(self, game_id: str) -> CardSet:
        """The cards the game plays with: the daemon's, with the game's own pack if any."""
        return game_cards(self.cards, self.store.setup(game_id))

    def _load(self, game_id: str) -> tuple[GameState, GameService]:
        snapshot = self.store.snapshot(game_id)
        if snapshot is None:
            raise StoreError("The game has no snapshot.", text=game_id)
        try:
            return (from_json(GameState, snapshot["state"]),
                    from_json(GameService, snapshot["service"]))
        except (KeyError, TypeError, ValueError) as error:  # a record garbled on disk
            raise StoreError(f"The record of game {game_id} is damaged ({error!r}).",
                             suggestion="Restore the game's hot.json from a backup "
                             "(`pbem doctor` names the file).") from error

    @staticmethod
    def _snapshot(state: GameState, service: GameService) -> dict[str, Any]:
        return {"state": to_json(state), "service": to_json(service)}

    def _seal(self, step: Step, now: datetime, mail_id: str | None = None) -> None:
        """End a step: its number, its notices rendered and composed into mails."""
        table = step.table
        digest.deliver(table)
        table.in_mail_order()  # then the mails of the bot seats' upkeep, after all others
        bot_seats.upkeep(table, lambda player: self._new_password(table.state.game, player),
                        self.config.password_cost)
        table.service = replace(table.service, steps=table.service.steps + 1)
        sent = addressed_mails(table.cards, self.store, self.config.sender, table, now)
        step.sent += sent
        step.bot_passwords.update(bot_seats.answer_keys(
            table, {to for to, _ in sent}, lambda player: self._new_key(table.state.game, player)))
        table.notices.clear()
        table.step_began = len(table.events)
        if mail_id:
            step.mail_ids[mail_id] = step.began
        step.began = table.log_length

    def _write(self, step: Step, now: datetime) -> None:
        """One store write of sealed steps: log entries, snapshot, the mails applied, the
        outgoing mails (the log cut to ``step.cut_to`` entries first, when set; the queued
        mails ``step.dropped`` forgotten unsent); then the bot seats' answers to those mails
        go to the inbox."""
        table = step.table
        self.store.commit(table.state.game, log_entries=table.entries,
                          snapshot=self._snapshot(table.state, table.service),
                          mail_ids=step.mail_ids, cut_to=step.cut_to,
                          outbox=[item for _, item in step.sent], expect_length=table.base,
                          drop=step.dropped)
        replies = [receipt(raw) for raw in bot_seats.replies(
            table.cards, table.state.game, table.service.seats, step.sent, self.config.sender,
            step.bot_passwords)]
        if replies:
            self._bot_mail.update(message_id for _, message_id, _ in replies)
            self.store.receive_many(replies, received_at=now)

    # --- the log --------------------------------------------------------------------------

    def replay_check(self, game_id: str) -> bool:
        """True when the setup and the log rebuild the snapshot's state exactly."""
        record = self.store.setup(game_id)
        setup = from_json(Setup, record["setup"])
        cards = game_cards(self.cards, record)
        return replay(setup, commands(self.store.log(game_id)), cards) == self.state(game_id)


class _LinesToCopy(Collection[str]):
    """The lines the game's mails offer ``player`` to copy in ``state``
    (``Position.lines_to_copy``), worked out only when the order reader asks: it does only
    below text the player did not write as orders, and the odds they need take time."""

    def __init__(self, cards: CardSet, state: GameState, player: str | None) -> None:
        self._cards, self._state, self._player = cards, state, player
        self._lines: frozenset[str] | None = None

    def _worked_out(self) -> frozenset[str]:
        if self._lines is None:
            self._lines = frozenset() if self._player is None else position(
                self._cards, self._state, self._player).lines_to_copy
        return self._lines

    def __contains__(self, line: object) -> bool:
        return line in self._worked_out()

    def __iter__(self) -> Iterator[str]:
        return iter(self._worked_out())

    def __len__(self) -> int:
        return len(self._worked_out())
