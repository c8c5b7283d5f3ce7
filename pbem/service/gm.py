"""The game master's operations, as plain functions over a ``Service`` (used by the CLI).

Each override is one step of its game (``Service.step``): the store's lock taken
(re-entrant: the CLI may hold it already), the game loaded, the change made through the
step's ``Table``, and the step sealed and committed as the service commits a mail's, in one
write: log entries, snapshot, announcement mails; bot seats answer after. An override that
raises writes nothing. Time is passed in.

What changes the game itself is an engine command (``GmSetMoney``, ``GmMoveCard``,
``GmRenamePlayer``, ``GmRemovePlayer``, ``GmEndGame``), so the log replays it. What changes
only the service's record (a pause, a deadline, a seat's address or bot flag, a mail
dropped) is a GM entry in the log (``Table.record``, see ``pbem.service.entries``), which
replay skips. Every override is announced to the players by mail, in each one's language,
but a mail dropped: where a mail goes and what it says are its recipient's business, so
that entry is ``gm_only`` (the game master's ``pbem history`` shows it, nothing a player
reads does).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from pbem.bots import LEVELS, Level
from pbem.engine.carddata import CardPack
from pbem.engine.cards import CardSet
from pbem.engine.codec import from_json
from pbem.engine.commands import (
    CallOff,
    Command,
    GmEndGame,
    GmMoveCard,
    GmRemovePlayer,
    GmRenamePlayer,
    GmSetMoney,
)
from pbem.engine.events import Event, GmRename
from pbem.engine.rules import apply
from pbem.engine.setup import MAX_PLAYERS, MIN_PLAYERS, Setup, new_game
from pbem.engine.state import GameState
from pbem.errors import IllegalCommandError
from pbem.mail.address import mail_address
from pbem.orders.lexer import RESERVED
from pbem.orders.model import StandingAttackReaction, StandingCounter, StandingTurnReaction
from pbem.orders.names import NameMatcher, card_matcher
from pbem.reports.context import utc_minute
from pbem.service.absences import cancel
from pbem.service.chat import set_chat
from pbem.service.deadlines import offer_due, past_reminders_sent, tick
from pbem.service.entries import (
    CommandEntry,
    GmAnnounce,
    GmAttackCut,
    GmBot,
    GmCreate,
    GmDropMail,
    GmEvent,
    GmExtend,
    GmPause,
    GmReplace,
    GmResume,
    GmRollback,
    GmStart,
    command_of,
    gm_event_of,
    log_entries,
)
from pbem.service.model import Absence, GameService, Seat, Timing, iso, parse_iso
from pbem.service.notice_mails import welcome_settings
from pbem.service.notices import (
    ChatPost,
    GameOver,
    GmNews,
    StatusReport,
    TurnReport,
    Welcome,
    chat_recipient,
)
from pbem.service.observers import observe, unobserve
from pbem.service.offers import tell_offer_ended
from pbem.service.packs import game_cards, pack_record
from pbem.service.postmaster import POSTMASTER
from pbem.service.records import Record, player_records
from pbem.service.service import NOT_GAMES, Service
from pbem.service.signup import Opening
from pbem.service.table import Table
from pbem.service.takeover import offer_seat as offer
from pbem.service.takeover import passed_on
from pbem.store import OutboxItem

GM = "gm"  # the ``player`` of the game master's engine commands
PLACES = ("uncontrolled", "dead", "deck", "discards")
_NAME = re.compile(r"[^\W\d_][\w.'-]*( [\w.'-]+)*")
_WHOLE_NAMES = ("all", "any", "anyone", "card", "me", GM)


# --- creating and starting ---------------------------------------------------------------------


def create_game(service: Service, game_id: str, players: Sequence[tuple[str, str, str]], *,
                options: dict[str, Any] | None = None, timing: Timing | None = None,
                seed: str | None = None, now: datetime, lang: str = "en",
                pack: CardPack | None = None) -> str:
    """A new game, not started; gives the dice commitment (the SHA-256 of the seed).
    Players are (name, address, Illuminati or "" to deal one; any spelling of its name);
    ``lang`` is the language of their mail until each chooses; ``pack`` the game master's
    own cards (docs/cards.md), added to the daemon's or replacing them.

    The commitment is recorded at once, so ``verify`` can later hold the revealed seed to it.
    """
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise IllegalCommandError(f"a game needs {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                                  f"not {len(players)}")
    cards = service.cards if pack is None else game_cards(service.cards,
                                                          {"cards": pack_record(pack)})
    illuminati = NameMatcher([i.name for i in cards.illuminati],
                             aliases=cards.aliases(), what="Illuminati")
    players = [(name, mail_address(address), illuminati.match(chosen) if chosen else "")
               for name, address, chosen in players]
    def note(table: Table) -> None:
        table.record(GmCreate([p[0] for p in players], table.state.dice.commitment))

    with service.store.lock():
        service.create_game(game_id, players, options=options, timing=timing, seed=seed,
                            now=now, note=note, lang=lang, pack=pack)
        return service.state(game_id).dice.commitment


def delete_game(service: Service, game_id: str) -> None:
    """Delete a game created and never started: nobody was mailed about it, so it leaves
    nothing behind. A started game is refused: its players hold passwords and reports, and
    its log is the record of what they did (``pbem end`` ends it)."""
    with service.store.lock():
        if service.service_record(game_id).started:
            raise IllegalCommandError("the game has started, so it cannot be deleted",
                                      text=game_id,
                                      suggestion=f"end it instead: pbem end {game_id}")
        service.store.delete_game(game_id)


def start_game(service: Service, game_id: str, now: datetime) -> dict[str, str]:
    """Welcome mails out and the first turn begun; gives the passwords (GM's eyes only)."""
    with service.store.lock():
        return service.start_game(game_id, now, note=lambda table: table.record(
            GmStart(table.state.dice.commitment)))


# --- running -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Processed:
    """What ``process`` did: mails handled (the bot seats' included), log entries added per
    game."""

    mails: int
    steps: dict[str, int]


def process(service: Service, now: datetime) -> Processed:
    """Handle every waiting mail and run the deadlines (bot seats answer as they go)."""
    with service.store.lock():
        before = {g: service.store.log_length(g) for g in service.games()}
        mails = service.process(now)
        service.tick(now)
        steps = {g: service.store.log_length(g) - before.get(g, 0) for g in service.games()}
    return Processed(mails, {g: n for g, n in steps.items() if n})


@dataclass(frozen=True)
class Preview:
    """What the next step would do at ``now``, computed on a copy and committed nowhere."""

    game: str
    now: datetime
    before: GameService
    after: GameService
    state: GameState
    steps: tuple[tuple[int, Command, tuple[Event, ...]], ...]
    mails: tuple[tuple[str, str], ...]  # (kind, to); to "" is the game master
    inbox: int = 0  # mails waiting in the store's inbox: processed before the deadlines


def preview(service: Service, game_id: str, now: datetime) -> Preview:
    """What ``pbem process`` would do to this game at ``now``: the deadlines due, the window
    closing, the turn going on. (Bot seats answer the step's mails after it: not shown.)"""
    with service.step(game_id, now, advance=False) as step:
        step.discard()  # a rehearsal: nothing is written
        table, inbox = step.table, len(service.store.inbox())
        before = table.service
        if table.state.phase != "over" and table.service.started:
            tick(table)
            step.advance()
    steps = tuple((e.seq, e.command, e.events) for e in log_entries(table.entries)
                  if isinstance(e, CommandEntry))
    return Preview(game_id, now, before, table.service, table.state, steps,
                   tuple((n.kind, n.to) for n in table.notices), inbox)


# --- overrides of the game: engine commands ----------------------------------------------------


def edit_money(service: Service, game_id: str, card: str, amount: int, reason: str,
               now: datetime) -> list[Event]:
    """Set the money on a card (any spelling of its name); logged and announced."""
    return _edit_card(service, game_id, card, now,
                      lambda table, name: GmSetMoney(GM, name, amount, reason))


def edit_move(service: Service, game_id: str, card: str, place: str, reason: str,
              now: datetime) -> list[Event]:
    """Put a card in ``place`` (uncontrolled, dead, deck, discards, hand:PLAYER)."""
    return _edit_card(service, game_id, card, now, lambda table, name: GmMoveCard(
        GM, name, _place(table.state, place), reason))


def _edit_card(service: Service, game_id: str, card: str, now: datetime,
               command: Callable[[Table, str], GmSetMoney | GmMoveCard]) -> list[Event]:
    """One GM edit of a card (any spelling of its name) in a running game: the command
    ``command`` makes of the card's name, carried out, logged and announced."""
    with service.step(game_id, now) as step:
        table = step.table
        _running(table)
        _started(table, "the cards are dealt at the start (pbem game start)")
        name = card_matcher(table.cards).match(card)
        events = table.do(command(table, name))
        _tell_players(table, events)
    return events


def end_game(service: Service, game_id: str, winners: Sequence[str], now: datetime,
             reason: str = "") -> list[Event]:
    """End the game now (``GmEndGame``), won by ``winners`` (seats, any spelling) or by no
    one: every player gets the game's last mail, with the reason; the archive and history
    show it. An attack waiting for answers is called off or played out first
    (``_attack_cut``), and the last mail says which."""
    with service.step(game_id, now) as step:
        table = step.table
        _running(table)
        _started(table, "a game not started yet can simply be left alone")
        names = [_seat(table.service, winner) for winner in winners]
        table.service = replace(table.service, queue=())  # no order waits on after the end
        _attack_cut(table)
        events = table.do(GmEndGame(GM, tuple(names), reason))
        table.service = replace(table.service, queue=(), deadline="", offer_deadline="")
    return events


def _attack_cut(table: Table, seat: str = "") -> GmEvent | None:
    """Settle the attack waiting for answers in a response window when the game master ends
    the game or removes ``seat`` (the engine ends a game or takes a player out between
    attacks only); give the GM entry that tells the players how, None without a window.

    The rules: "After a player announces an attack, he can change his mind and call it off
    -- until he puts some money down. Once he actually takes money from his treasury and
    puts it in the bank, the attack is committed. It must be played out". So an attack no
    money went into yet is called off when the game ends or its attacker is removed (no
    action spent); any other is played out at once, as at the window's deadline: the answers
    given count, silence is no spending, and the removed player's own answer counts no more.
    Every player gets the attack's result, as at any window's close."""
    window, attack = table.service.window, table.state.attack
    if window is None or attack is None:
        return None
    called_off = not attack.committed and seat in ("", attack.player)
    event = table.record(GmAttackCut(attack.player, attack.target, called_off, seat))
    if called_off:
        table.call_off(attack.player, CallOff(attack.player))
        return event
    if seat:
        table.service = replace(table.service, window=replace(
            window, asked=tuple(p for p in window.asked if p != seat),
            answers=tuple(a for a in window.answers if a.player != seat)))
    table.close_window()
    return event


def remove_seat(service: Service, game_id: str, seat: str, now: datetime,
                reason: str = "") -> list[Event]:
    """The game master takes the player out of the game (``GmRemovePlayer``): their groups
    go free, their money to the bank; if it was their turn, the next player's begins. An
    attack waiting for answers is called off or played out first (``_attack_cut``). Every
    player is told, the removed one too, the removal and its reason before what follows."""
    with service.step(game_id, now) as step:
        table = step.table
        _running(table)
        _started(table, "seat someone else with pbem replace, or create a new game with the "
                        "players you want")
        name = _seat(table.service, seat)
        if not table.state.player(name).playing:
            raise IllegalCommandError(f"{name} is no longer playing", text=name)
        if table.state.active_player.name == name:
            table.service = replace(table.service, queue=())
        cut = _attack_cut(table, name)
        events = table.do(GmRemovePlayer(GM, name, reason))
        table.service = _with_seat(table.service, name, bot=False, bot_password="",
                                   bot_keys=())
        _tell_players(table, events, gm=cut, also=(name,))
        tell_offer_ended(table, events)
    return events


def rollback(service: Service, game_id: str, to: int, now: datetime, reason: str = "") -> int:
    """Cut the log back to step ``to``, rebuild the snapshot by replay and log the rollback
    as a GM entry, in one write; announced. Gives the number of log entries cut."""
    store = service.store
    with service.step(game_id, now, advance=False) as step:
        if step.table.state.phase == "over":
            # Its seed was revealed at the end: every roll it would make again is known.
            raise IllegalCommandError("the game is over and its seed is public, so it cannot "
                                      "be played on", text=game_id)
        log = list(store.log(game_id))
        current = int(log[-1]["seq"]) if log else 0
        if current == 0:
            raise IllegalCommandError("the game has not moved yet: there is no step to go "
                                      "back to", text=game_id)
        if not 0 <= to < current:
            raise IllegalCommandError(f"the game is at step {current}; it can go back to a step "
                                      f"from 0 to {current - 1}", text=str(to))
        length = sum(1 for entry in log if int(entry["seq"]) <= to)
        setup = from_json(Setup, store.setup(game_id)["setup"])
        state, rest = _replay_to(step.table.cards, setup, log, length)
        if not _at_rest(state):
            raise IllegalCommandError(
                f"step {to} is in the middle of an attack or of a special card",
                suggestion="go back to step " + " or ".join(str(s) for s in rest))
        cut = [e for entry in log_entries(log[length:]) for e in entry.events]
        was = step.table.state  # players are told turns and players, not step numbers
        step.rewind(Table(step.table.cards, state,
                          _rolled_back(step.table.service, state, length, now, cut),
                          now, length))
        table = step.table
        # The overrides cut off stay on record (the GM did them), by kind and time; those
        # only the GM sees (mail dropped: done for good) whole, in the GM's own views.
        cut_off = [e for e in map(gm_event_of, log[length:]) if e]
        undone = [{"kind": e.kind, "at": e.at} for e in cut_off if not e.gm_only]
        kept = [{"kind": e.kind, "at": e.at, "data": e.data} for e in cut_off if e.gm_only]
        event = table.record(GmRollback(
            to, current, reason, undone, kept or None, turn=state.turn_number,
            player=state.active_player.name, from_turn=was.turn_number,
            from_player=was.active_player.name))
        _tell_players(table, gm=event)
        step.advance()
        if not any(isinstance(n, TurnReport | GameOver) for n in table.notices):
            for p in table.state.players:
                if not p.departed:
                    table.notify(StatusReport(p.name))
    return len(log) - length


def _replay_to(cards: CardSet, setup: Setup, log: list[dict[str, Any]],
               length: int) -> tuple[GameState, list[int]]:
    """The state after ``length`` entries, and the nearest steps around it at rest."""
    state, _ = new_game(cards, setup)
    at_length = state
    rest: list[int] = []  # log lengths after which no attack or special card is under way
    for n in range(len(log) + 1):
        if n == length:
            at_length = state
        if _at_rest(state):
            rest.append(n)
        command = command_of(log[n]) if n < len(log) else None
        if command is not None:
            state, _ = apply(state, command, cards)
    around = [max(r for r in rest if r <= length),
              *[r for r in rest if r > length][:1]]
    return at_length, [int(log[r - 1]["seq"]) if r else 0 for r in around]


def _at_rest(state: GameState) -> bool:
    """True when no attack or special card is under way: a point a rollback may go to."""
    return state.attack is None and state.special is None


def _rolled_back(service: GameService, state: GameState, length: int, now: datetime,
                 cut: Sequence[Event] = ()) -> GameService:
    """The service record to go with ``state`` after a rollback that cut off the steps
    whose events are ``cut``.

    Seats, timing, standing orders and the pause stay; what belonged to the steps cut off
    (the response window, queued orders, reminders) goes, and a seat renamed in them gets
    its old name back (whoever plays it now goes on playing it); the orders deadline is a
    full period from now, or the one given before if that is later. ``steps`` is kept so the
    names of the mails sent from now on never repeat those of mails already sent.

    A group offer pending at ``state`` gets its answer's deadline the same way: a full
    response period from now, or the one given before if later, and its reminder is due
    again; with no offer pending, no answer's deadline or reminder is kept (one from the
    steps cut off would outlive its offer).
    """
    if state.attack is not None or state.special is not None:
        raise IllegalCommandError("the game cannot be rolled back into the middle of an attack "
                                  "or of a special card being played")
    for event in reversed(cut):
        if isinstance(event, GmRename):
            service = _renamed(service, event.new, event.old)
    deadline = ""
    if state.phase == "actions":
        fresh = now + timedelta(hours=service.timing.orders_hours)
        deadline = iso(max(fresh, parse_iso(service.deadline)) if service.deadline else fresh)
    offer_deadline = ""
    if state.offer is not None:
        fresh = now + timedelta(hours=service.timing.response_hours)
        offer_deadline = iso(max(fresh, parse_iso(service.offer_deadline))
                             if service.offer_deadline else fresh)
    return replace(
        service, window=None, queue=(), reminded=(), turn_seq=state.seq, deadline=deadline,
        reported=min(service.reported, length), offer_deadline=offer_deadline,
        offer_reminded=False,
    )



# --- overrides of the service's record ---------------------------------------------------------


def replace_seat(service: Service, game_id: str, seat: str, address: str, now: datetime,
                 name: str = "", reason: str = "") -> str:
    """Someone new plays ``seat`` from ``address`` (new password, no misses, no bot), under
    ``name`` if given (the seat is renamed in the game: ``GmRenamePlayer``); gives their new
    password ("" before the start: the welcome mail brings it then)."""
    address = mail_address(address)
    with service.step(game_id, now, advance=False) as step:
        table = step.table
        _running(table)
        who = _seat(table.service, seat)
        was = table.service.seat(who)
        old = was.address
        events = _rename_seat(table, who, name, reason) if name.strip() else []
        renamed = events[-1] if events else None
        now_called = renamed.new if isinstance(renamed, GmRename) else who
        password, password_hash = (service.new_password(game_id, now_called)
                                   if table.service.started else ("", ""))
        if not table.state.player(now_called).playing:
            raise IllegalCommandError(f"{now_called} is no longer playing",
                                      suggestion="only a seat still in the game can be replaced")
        table.service = _with_seat(table.service, now_called, address=address.lower(),
                                   password_hash=password_hash, misses=0, bot=False,
                                   bot_password="", bot_keys=(), away_hash="", absences=(),
                                   folded=(), untold=None, folded_mails=(), pictured=())
        event = table.record(GmReplace(who, now_called, address.lower(), old, reason))
        if password:
            settings = welcome_settings(table.service.timing, table.service.house)
            table.notify(Welcome(now_called, password, settings))
        if table.service.started:  # before the start nobody has heard of the game yet
            passed_on(table, now_called, was, tell=False)
            _tell_players(table, events, event)
        step.drop(_superseded(service, table, old))
    return password


def _superseded(service: Service, table: Table, old: str) -> list[str]:
    """The mails of the game still queued for ``old``, a seat's address just replaced:
    written for the player who left the seat (a welcome with a password that no longer
    works, reports they will not read), and superseded by what the new player is sent (the
    welcome, then every report with the game as it stands). None while another seat of
    the game keeps that address: a queued mail does not say which seat it is for."""
    if any(s.address == old for s in table.service.seats):
        return []
    game = table.state.game
    return [i.outbox_id for i in service.store.outbox() if i.game_id == game and i.to == old]


def _rename_seat(table: Table, seat: str, name: str, reason: str = "") -> list[Event]:
    """The seat is called ``name`` from now on, in the game (``GmRenamePlayer``) and in the
    service's record (seat, standing orders); between attacks only."""
    name = " ".join(name.split())
    taken = [p.name for p in table.state.players if p.name != seat]
    problem = _name_problem(name, taken, table.cards.names())
    if problem:
        raise IllegalCommandError(problem, text=name,
                                  suggestion="choose a name of letters and digits, like Dee")
    if table.state.attack is not None or table.service.window is not None or (
            table.service.queue or table.state.special is not None):
        raise IllegalCommandError(
            "a seat can be renamed only between attacks",
            suggestion="wait until the attack under way is settled (pbem preview shows when)")
    if name == seat:
        return []
    events = table.do(GmRenamePlayer(GM, seat, name, reason))
    table.service = _renamed(table.service, seat, name)
    return events


def _name_problem(name: str, taken: Iterable[str], cards: Iterable[str]) -> str:
    """Why ``name`` cannot be a player's name in this game, as a sentence; "" if it can.

    A name must read back in every order: letters first, no keyword of the order language,
    no card's name, and no other player's name (in any case).
    """
    words = name.casefold().split()
    if not name or len(name) > 30 or not _NAME.fullmatch(name):
        return (f"{name!r} cannot be a player's name: it must begin with a letter and hold "
                "only letters, digits, spaces and . ' - (30 at most)")
    if any(w in RESERVED for w in words) or name.casefold() in _WHOLE_NAMES:
        return f"{name!r} cannot be a player's name: it holds a word of the order language"
    if name.casefold() in {c.casefold() for c in cards}:
        return f"{name!r} cannot be a player's name: it is the name of a card"
    if name.casefold() in {t.casefold() for t in taken}:
        return f"the name {name} is already used in this game"
    return ""


def _renamed(service: GameService, seat: str, name: str) -> GameService:
    """The service's record with ``seat`` called ``name`` (seat and standing orders)."""

    def new(who: str) -> str:
        return name if who == seat else who

    standing = []
    for player, order in service.standing:
        if isinstance(order, StandingAttackReaction):
            order = replace(order, attacker=new(order.attacker))
        elif isinstance(order, StandingTurnReaction | StandingCounter):
            order = replace(order, player=new(order.player))
        standing.append((new(player), order))
    return replace(_with_seat(service, seat, name=name), standing=tuple(standing))



def set_bot(service: Service, game_id: str, seat: str, on: bool, now: datetime,
            level: Level = "normal") -> None:
    """A bot plays ``seat`` at ``level`` (``on``: it acts at once if the game waits for it;
    a seat a bot plays already changes level), or its player again (a new password is
    mailed to the seat's address); announced to the players."""
    with service.store.lock():
        with service.step(game_id, now) as step:
            step.discard()  # the checks only: the seat's own step follows
            table = step.table
            _running(table)
            _started(table, "start it first (pbem game start), then give the seat to a bot")
            who = _seat(table.service, seat)
            if level not in LEVELS:
                raise IllegalCommandError(f"no bot level {level}",
                                          suggestion=f"one of {', '.join(LEVELS)}", text=level)
            was = table.service.seat(who)
            if was.bot == on and (not on or was.bot_level == level):
                raise IllegalCommandError(f"a bot plays {who} already" if on
                                          else f"no bot plays {who}", text=who,
                                          suggestion="give another --level to change how it "
                                          "plays" if on else "")
        entry = GmBot(who, on, level if on else None)

        def note(table: Table) -> None:  # in the seat's own step, before the bot acts
            _tell_players(table, gm=table.record(entry))

        service.set_bot(game_id, who, on, now, note=note, level=level)


def pause(service: Service, game_id: str, now: datetime, reason: str = "") -> None:
    """Stop the deadlines until ``resume``."""
    with service.step(game_id, now, advance=False) as step:
        table = step.table
        _running(table)
        _started(table, "its deadlines begin at the start (pbem game start)")
        if table.service.paused:
            raise IllegalCommandError("the game is already paused")
        table.service = replace(table.service, paused=True)
        _tell_players(table, gm=table.record(GmPause(reason)))


def resume(service: Service, game_id: str,
           now: datetime) -> tuple[float, datetime | None, datetime | None]:
    """Run the deadlines again, every one moved later by the time the game was paused;
    gives the hours paused, the deadline running now (the response window's, else the
    orders'; None if none runs) and the answer's to a group offered (None without one)."""
    with service.step(game_id, now) as step:
        table = step.table
        _running(table)
        paused_at = _paused_at(service.store.log(game_id))
        if not table.service.paused:
            raise IllegalCommandError("the game is not paused")
        stopped = max(timedelta(0), now - parse_iso(paused_at)) if paused_at else timedelta(0)
        table.service = replace(_shifted(table.service, stopped), paused=False)
        hours = round(stopped.total_seconds() / 3600, 2)
        window = table.service.window
        running = window.deadline if window is not None else table.service.deadline
        deadline = parse_iso(running) if running else None
        offer, answer = _offer_data(table)
        told = _deadline_data(deadline) if deadline is not None else {}  # the new one
        _tell_players(table, gm=table.record(GmResume(
            hours, window is not None, told.get("deadline"), told.get("deadline_utc"), offer)))
    return hours, deadline, answer


def _paused_at(log: Iterable[dict[str, Any]]) -> str:
    """When the game was last paused (a rollback may have cut the pause off): ISO, or ""."""
    paused_at = ""
    for event in map(gm_event_of, log):
        if isinstance(event, GmPause):
            paused_at = event.at
        elif isinstance(event, GmRollback):
            paused_at = next(reversed(event.undone_at(GmPause)), paused_at)
    return paused_at


def _shifted(service: GameService, by: timedelta) -> GameService:
    """The record with every deadline (the orders', a window's, a group offer's) ``by``
    later."""
    if not by:
        return service

    def later(moment: str) -> str:
        return iso(parse_iso(moment) + by) if moment else ""

    window = service.window
    if window is not None:
        window = replace(window, deadline=later(window.deadline))
    return replace(service, deadline=later(service.deadline), window=window,
                   offer_deadline=later(service.offer_deadline))


def extend(service: Service, game_id: str, hours: float, now: datetime,
           reason: str = "") -> tuple[datetime, datetime | None]:
    """Move the running deadline ``hours`` later (with a group offered, the answer's and
    the orders': see ``_extended``); gives the new deadline (the response window's, else
    the orders') and the answer's to a group offered (None without one)."""
    with service.step(game_id, now, advance=False) as step:
        table = step.table
        _running(table)
        window = table.service.window is not None
        deadline = parse_iso(_extended(table, hours))
        offer, answer = _offer_data(table) if not window else (None, None)
        told = _deadline_data(deadline)
        event = table.record(GmExtend(hours, told["deadline"], told["deadline_utc"], window,
                                      offer, reason))
        _tell_players(table, gm=event)
    return deadline, answer


def _extended(table: Table, hours: float) -> str:
    """Move the running deadline later; gives the new deadline (ISO): the response
    window's, else the orders'. Reminders are sent again for the new deadline, those whose
    time is still ahead: the mail telling the extension stands for any already past
    (``past_reminders_sent``), so that no reminder follows it at once.

    With a group offered and unanswered, the answer's deadline (``offer_due``) moves by
    ``hours``, and so does the orders deadline: the giver's turn waits for the answer, so
    the time given to the receiver would otherwise be taken from the giver, and the orders
    deadline, which ends the turn and the offer with it, would cap the answer's.
    """
    service = table.service
    by = timedelta(hours=hours)
    if service.window is not None:
        deadline = iso(parse_iso(service.window.deadline) + by)
        window = replace(service.window, deadline=deadline, reminded=())
        table.service = past_reminders_sent(table.state, replace(service, window=window),
                                            table.now)
        return deadline
    if not service.deadline:
        raise IllegalCommandError("no deadline is running in this game",
                                  suggestion="a deadline runs once the game has started")
    due = offer_due(table.state, service)
    if due is not None:
        service = replace(service, offer_deadline=iso(due + by), offer_reminded=False)
    deadline = iso(parse_iso(service.deadline) + by)
    table.service = past_reminders_sent(table.state,
                                        replace(service, deadline=deadline, reminded=()),
                                        table.now)
    return deadline


def _offer_data(table: Table) -> tuple[dict[str, Any] | None, datetime | None]:
    """The group offered and unanswered as a GM entry records it for the players' mail (who
    offers what to whom, and by when the answer is due), and that moment; (None, None)
    without an offer."""
    offer, due = table.state.offer, offer_due(table.state, table.service)
    if offer is None or due is None:
        return None, None
    return {"giver": offer.giver, "receiver": offer.receiver, "group": offer.group,
            **_deadline_data(due)}, due


def _deadline_data(deadline: datetime) -> dict[str, str]:
    """A deadline as a GM entry records it for the players' mail: ISO, and UTC to read."""
    return {"deadline": iso(deadline),
            "deadline_utc": utc_minute(deadline)}


def absences(service: Service, game_id: str) -> list[tuple[str, Absence]]:
    """Every absence the players of the game gave (``SET ABSENCE``), by seat, oldest first."""
    record = service.service_record(game_id)
    return [(seat.name, absence) for seat in record.seats for absence in seat.absences]


def cancel_absence(service: Service, game_id: str, seat: str, number: int | None = None, *,
                   now: datetime) -> tuple[Absence, ...]:
    """Cancel absence ``number`` (1: the first of the seat's) of ``seat``, or all of them;
    the player, the others and the game master are told. Gives those cancelled."""
    with service.step(game_id, now) as step:
        return cancel(step.table, _seat(step.table.service, seat), number, by_gm=True)


def announce(service: Service, game_id: str, text: str, now: datetime) -> int:
    """Mail ``text`` from the game master to every player; gives how many were mailed."""
    if not text.strip():
        raise IllegalCommandError("the announcement is empty", suggestion="write some text")
    with service.step(game_id, now, advance=False) as step:
        table = step.table
        _tell_players(table, gm=table.record(GmAnnounce(text)))
        told = len(table.notices)
    return told


def drop_mail(service: Service, outbox_ids: Sequence[str], now: datetime,
              reason: str = "") -> list[OutboxItem]:
    """Forget queued mails for good, unsent (``pbem outbox drop``), each logged in its game
    as a ``gm_only`` entry (its id, the seat it was for if one seat has its address, the
    address, the reason), one store write per game; gives them. StoreError, before any is
    dropped, if one was sent or is unknown. Mail of the postmaster's record (no game) is
    logged in that record, which only the game master reads."""
    with service.store.lock():
        queued = {i.outbox_id: i for i in service.store.outbox()}
        by_game: dict[str, list[OutboxItem]] = {}
        for outbox_id in dict.fromkeys(outbox_ids):
            if outbox_id not in queued:
                service.store.queued_game(outbox_id)  # raises, saying sent or unknown
            item = queued[outbox_id]
            by_game.setdefault(item.game_id, []).append(item)
        for game_id, items in by_game.items():
            if game_id == POSTMASTER:
                service.store.commit(POSTMASTER, log_entries=[
                    {"dropped": i.outbox_id, "to": i.to, "reason": reason} for i in items],
                    snapshot=None, drop=[i.outbox_id for i in items])
                continue
            with service.step(game_id, now, advance=False) as step:
                for item in items:
                    seats = [s.name for s in step.table.service.seats if s.address == item.to]
                    step.table.record(GmDropMail(item.outbox_id, item.to, reason,
                                                 seats[0] if len(seats) == 1 else None))
                step.drop([i.outbox_id for i in items])
    return [item for items in by_game.values() for item in items]


# --- shared ------------------------------------------------------------------------------------


def _tell_players(table: Table, events: Sequence[Event] = (), gm: GmEvent | None = None,
                  also: Iterable[str] = ()) -> None:
    """Tell every player still sent reports (and ``also``) what the game master did: the
    override's engine ``events`` and its GM entry ``gm``, each put in the reader's language."""
    extra = set(also)
    for p in table.state.players:
        if not p.departed or p.name in extra:
            table.notify(GmNews(p.name, tuple(events), gm))
    audience = table.service.audience
    if audience.chat and table.service.started and not (gm is not None and gm.gm_only):
        # The group's chat too, what everyone may see of it (pbem.service.chat).
        table.notify(ChatPost(chat_recipient(table.state.game), override=True,
                              events=tuple(events), gm=gm, lang=audience.chat_lang))


def _with_seat(service: GameService, seat: str, **changes: Any) -> GameService:
    service.seat(seat)  # KeyError names an unknown seat
    seats: list[Seat] = [replace(s, **changes) if s.name == seat else s for s in service.seats]
    return replace(service, seats=tuple(seats))


def _running(table: Table) -> None:
    if table.state.phase == "over":
        raise IllegalCommandError("the game is over", text=table.state.game)


def _started(table: Table, suggestion: str) -> None:
    """Refuse what only a started game can do: its seats get their passwords at the start,
    its deadlines begin then, and before it a game keeps at least two players."""
    if not table.service.started:
        raise IllegalCommandError("the game has not started", text=table.state.game,
                                  suggestion=suggestion)


def _seat(service: GameService, query: str) -> str:
    """The seat's name from any unambiguous spelling of it."""
    return NameMatcher([s.name for s in service.seats], what="seat").match(query)


def _place(state: GameState, place: str) -> str:
    """The engine's name of a place; the player's name of a hand matched loosely."""
    lowered = place.strip().lower()
    if lowered in PLACES:
        return lowered
    if lowered.startswith("hand:"):
        names = [p.name for p in state.players]
        return "hand:" + NameMatcher(names, what="player").match(place.strip()[5:])
    raise IllegalCommandError(f"unknown place {place!r}",
                              suggestion="uncontrolled, dead, deck, discards or hand:PLAYER")


# --- sign-up, observers, takeover, player records (pbem.service.signup and beside) ---------


def open_game(service: Service, game_id: str, opening: Opening, now: datetime) -> None:
    """Open ``game_id`` for sign-up by mail (LIST, JOIN); it starts when full."""
    with service.store.lock():
        service.lobby.open(game_id, opening, now)


def approve(service: Service, game_id: str, name: str, now: datetime) -> None:
    """Seat a player whose join waits for approval (the game starts if that fills it)."""
    with service.store.lock():
        service.lobby.approve(game_id, name, now)


def start_open(service: Service, game_id: str, now: datetime) -> dict[str, str]:
    """Start a game open for sign-up with the players seated so far (three or more)."""
    with service.store.lock():
        return service.lobby.start(game_id, now)


def close_signup(service: Service, game_id: str, now: datetime, reason: str = "", *,
                 deleted: bool = False) -> list[str]:
    """Close the sign-up of a game open for it (``deleted``: the game master deletes it):
    it will not start, and everyone who joined is told. Gives their names."""
    with service.store.lock():
        return service.lobby.close(game_id, now, why="deleted" if deleted else "closed",
                                   reason=reason)


def reject_join(service: Service, game_id: str, name: str, now: datetime,
                reason: str = "") -> str:
    """Decline a join (waiting for approval, seated before the start, or on a waiting
    list): the player is told; a seat freed goes to the next on the waiting list."""
    with service.store.lock():
        return service.lobby.reject(game_id, name, now, reason)


def extend_signup(service: Service, game_id: str, hours: float, now: datetime,
                  reason: str = "") -> datetime:
    """Move the deadline to fill a game open for sign-up later; those who joined are told."""
    with service.store.lock():
        return service.lobby.extend(game_id, hours, now, reason)


def add_observer(service: Service, game_id: str, address: str, now: datetime,
                 lang: str = "en") -> bool:
    """``address`` observes the game (even one not open to observers by mail)."""
    with service.step(game_id, now, advance=False) as step:
        return observe(step.table, mail_address(address), lang=lang, by_gm=True)


def remove_observer(service: Service, game_id: str, address: str, now: datetime) -> bool:
    """``address`` observes the game no more."""
    with service.step(game_id, now, advance=False) as step:
        return unobserve(step.table, mail_address(address), by_gm=True)


def chat(service: Service, game_id: str, url: str, now: datetime, lang: str = "en") -> bool:
    """The game posts its public events to the chat webhook ``url`` ("" : to none any
    more); gives whether that changed (pbem.service.chat)."""
    with service.step(game_id, now, advance=False) as step:
        return set_chat(step.table, url.strip(), lang)


def offer_seat(service: Service, game_id: str, seat: str, now: datetime,
               reason: str = "") -> str:
    """Offer a seat for takeover by mail (TAKEOVER); the game's waiting list is told.
    Gives the seat's name."""
    with service.step(game_id, now, advance=False) as step:
        _started(step.table, "start the game first")
        return offer(step.table, seat, reason, tell=service.lobby.waiting(game_id))


def players(service: Service) -> dict[str, Record]:
    """Every player's record across the games of the store, by address."""
    return player_records(service.store, NOT_GAMES)
