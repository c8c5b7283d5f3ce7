"""A club on a real ``pbem run``: the daemon in a process of its own on the embedded default
(its SMTP listener takes the mail in, answers go into Maildirs under var/pbem/maildirs), the
game master's real ``pbem`` commands, and players who read the mail they get and answer it
with the mail bots of ``pbem.bots.mailbots`` (the orders of docs/orders.md, password, STEP
and all, written as a reply to the mail that asked for them).

``Club.check()`` holds the season's invariants (issue 43's "Done when"): no traceback or
internal error reaches anyone's mail or the daemon's log, every mail sent in is answered
(a mail whose In-Reply-To names it) or reported to the game master (but a stranger's that the
service leaves unanswered on purpose: ``Club.unanswered_on_purpose``), no player is eliminated
while a stand-in plays their seat, every game is listed by ``pbem games``, ``pbem replay
--check`` passes for every game and ``pbem doctor`` finds no problem.

The daemon runs on the real clock: the games' deadlines (hours) never pass during a test,
so nothing depends on the machine's speed; ``[daemon] tick_seconds`` is short so that mail
a command makes leaves at once rather than at a minute's tick.
"""

from __future__ import annotations

import email
import email.message
import email.policy
import email.utils
import hashlib
import re
import shlex
import smtplib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from click.testing import CliRunner
from daemons import pbem_run
from servers import free_port, wait_until
from support import delivery_order

from pbem.bots.mailbots import BotSeat, decide
from pbem.cli.main import main as pbem_main
from pbem.engine.carddata import load_cardset
from pbem.engine.codec import from_json
from pbem.engine.state import GameState
from pbem.service.model import GameService
from pbem.service.postmaster import POSTMASTER
from pbem.store import Store, mail_id_for

CARDS = load_cardset()
TO = "pbem@localhost"
GM = "gm@club.test"
# The welcome's password, in English or French (a seat taken over keeps its language).
_PASSWORD = re.compile(r"(?:YOUR PASSWORD|VOTRE MOT DE PASSE)\r?\n-+\r?\n(\S+)")
# What an exception's own words look like once printed: never for a player or the GM.
_INTERNAL = re.compile(r"Traceback \(most recent call last\)|\b[A-Z][A-Za-z]*(Error|Exception)"
                       r": |could not be processed")
WAIT = 120.0  # seconds: generous, for a loaded machine (never a measure of speed)
MAX_TURNS = "max_turns=5"  # a game's length in the season tests
STANDING = ("STANDING DEFEND ANY UPTO 2", "STANDING NEVER INTERFERE")  # answers left behind


@dataclass
class Seat:
    """A person playing one seat by mail."""

    game: str
    player: str
    address: str
    password: str
    answered: int = 0  # how many of the seat's game mails it has read
    away: bool = False  # reads and answers nothing meanwhile


@dataclass(frozen=True)
class Sent:
    """A mail sent to the daemon."""

    message_id: str
    sender: str
    body: str


@dataclass(frozen=True)
class Delivered:
    """A mail the daemon delivered, read."""

    raw: bytes
    message: email.message.EmailMessage
    text: str
    refs: tuple[str, ...]  # the Message-IDs it answers (In-Reply-To, References)

    @property
    def game(self) -> str:
        return str(self.message.get("X-Pbem-Game", ""))


@dataclass
class Club:
    """The club's folder, its daemon's port, the mails sent, the seats played by mail."""

    folder: Path
    port: int = field(default_factory=free_port)
    sent: list[Sent] = field(default_factory=list)
    seats: dict[tuple[str, str], Seat] = field(default_factory=dict)
    games: set[str] = field(default_factory=set)
    # (game, player) -> the absence's (start, end), while a stand-in may play their seat
    stood_in: dict[tuple[str, str], tuple[date, date]] = field(default_factory=dict)
    commands: list[str] = field(default_factory=list)
    former: dict[tuple[str, str], Seat] = field(default_factory=dict)  # seats taken over
    numbered: int = 0
    seed: int = 0  # the games' dice seeds are drawn from it
    store_path: str = "var/pbem"  # the store's folder, in the club's folder
    tick_seconds: float = 1.0  # the daemon's deadline tick (short: see issue 43 point 6)
    read: dict[Path, Delivered] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.config = self.folder / "pbem.toml"
        self.config.write_text(f"""[store]
path = "{self.store_path}"
[listener]
port = {self.port}
[mail]
gm_address = "{GM}"
[daemon]
tick_seconds = {self.tick_seconds}
""")
        self.store = self.folder / self.store_path
        self.boxes = self.store / "maildirs"
        self.store.mkdir(parents=True)

    # --- the daemon --------------------------------------------------------------------------

    @contextmanager
    def running(self) -> Iterator[None]:
        """``pbem run`` on the club's configuration, stopped afterwards."""
        with pbem_run(self.folder, self.port):
            yield

    def settled(self) -> bool:
        """Nothing waits: the inbox and the outbox are empty."""
        store = Store(self.store)
        with store.lock():
            return not store.inbox() and not store.outbox()

    def settle(self) -> None:
        assert wait_until(self.settled, timeout=WAIT, step=0.05), (
            "the daemon did not settle", self.log_tail())

    def log_tail(self) -> str:
        return (self.folder / "daemon.log").read_text(errors="replace")[-3000:]

    # --- the game master ---------------------------------------------------------------------

    def gm(self, *args: str, ok: bool = True) -> str:
        """Run ``pbem ARGS --config pbem.toml``; give its output (exit 0 unless not ``ok``)."""
        if args[:2] in (("game", "open"), ("game", "create")) and "--seed" not in args:
            # The dice of every game are known: a season plays the same each time.
            seed = hashlib.sha256(f"{self.seed}:{args[2]}".encode()).hexdigest()
            args = (*args, "--seed", seed)
        self.commands.append(shlex.join(args))
        result = CliRunner().invoke(pbem_main, [*args, "--config", str(self.config)])
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise AssertionError(f"pbem {shlex.join(args)} raised") from result.exception
        assert not _INTERNAL.search(result.output), (args, result.output)
        if ok:
            assert result.exit_code == 0, (args, result.output)
        return result.output

    def doctor(self) -> str:
        result = CliRunner().invoke(pbem_main, ["doctor", "--config", str(self.config)])
        return f"{result.exit_code}\n{result.output}"

    # --- the players' mail -------------------------------------------------------------------

    def mail(self, address: str, body: str, *, name: str = "") -> str:
        """Mail ``body`` from ``address`` to the daemon's listener; give its Message-ID."""
        self.numbered += 1
        message_id = f"<club-{self.numbered}@{address.partition('@')[2]}>"
        sender = email.utils.formataddr((name, address))
        raw = (f"From: {sender}\r\nTo: {TO}\r\nSubject: mail {self.numbered}\r\n"
               f"Message-ID: {message_id}\r\n\r\n{body}\r\n").encode()
        self.send(address, raw, message_id, body)
        return message_id

    def send(self, address: str, raw: bytes, message_id: str, body: str) -> None:
        with smtplib.SMTP("127.0.0.1", self.port, local_hostname="club", timeout=60) as smtp:
            smtp.sendmail(address, [TO], raw)
        self.sent.append(Sent(message_id, address, body))

    def delivered(self, address: str) -> list[Delivered]:
        """The mails delivered to ``address``, oldest first (each file read once)."""
        folder = self.boxes / address / "new"
        if not folder.is_dir():
            return []
        paths = sorted(folder.iterdir(), key=delivery_order)
        for path in paths:
            if path not in self.read:
                raw = path.read_bytes()
                message = parse(raw)
                refs = (*str(message.get("In-Reply-To", "")).split(),
                        *str(message.get("References", "")).split())
                self.read[path] = Delivered(raw, message, text(message), refs)
        return [self.read[path] for path in paths]

    def raw_box(self, address: str) -> list[bytes]:
        return [d.raw for d in self.delivered(address)]

    def box(self, address: str) -> list[email.message.EmailMessage]:
        return [d.message for d in self.delivered(address)]

    def texts(self, address: str) -> list[str]:
        return [d.text for d in self.delivered(address)]

    def addresses(self) -> list[str]:
        if not self.boxes.is_dir():
            return []
        return sorted(p.name for p in self.boxes.iterdir() if (p / "new").is_dir())

    def await_text(self, address: str, part: str | re.Pattern[str], count: int = 1) -> str:
        """The ``count``-th mail to ``address`` whose text holds ``part`` (or matches it),
        once delivered."""
        def found() -> list[str]:
            return [t for t in self.texts(address)
                    if (part.search(t) if isinstance(part, re.Pattern) else part in t)]
        assert wait_until(lambda: len(found()) >= count, timeout=WAIT, step=0.05), (
            address, part, [t.splitlines()[:2] for t in self.texts(address)], self.log_tail())
        return found()[count - 1]

    def join(self, game: str, player: str, address: str, extra: str = "") -> Seat:
        """``player`` mails JOIN and reads their password in the welcome (once the game
        starts: the last JOIN)."""
        self.mail(address, f"JOIN {game} AS {player}{extra}", name=player)
        seat = Seat(game, player, address, "")
        self.seats[(game, player)] = seat
        return seat

    def read_passwords(self) -> None:
        """Each seat without a password reads it in its welcome mail."""
        for seat in self.seats.values():
            if not seat.password and not seat.away:
                welcome = self.await_text(seat.address, _PASSWORD)
                found = _PASSWORD.search(welcome)
                assert found is not None
                seat.password = found.group(1)

    def seat(self, game: str, player: str, address: str) -> Seat:
        """A seat given by ``pbem game create``: its password is in the welcome."""
        seat = Seat(game, player, address, "")
        self.seats[(game, player)] = seat
        return seat

    def passwords_seen(self, game: str, player: str) -> int:
        """How many mails of ``game`` to ``player``'s address gave a password."""
        seat = self.seats[(game, player)]
        return sum(1 for d in self.delivered(seat.address)
                   if d.game == game and _PASSWORD.search(d.text))

    def new_password(self, game: str, player: str, seen: int) -> None:
        """``player`` reads the password of the mail after the ``seen`` first that gave one,
        and plays again."""
        seat = self.seats[(game, player)]
        welcome = self.await_text(seat.address, _PASSWORD, seen + 1)
        found = _PASSWORD.search(welcome)
        assert found is not None
        seat.password, seat.away = found.group(1), False
        seat.answered = len(self.game_mails(seat))
        self.orders(game, player, "STATUS")

    def orders(self, game: str, player: str, *lines: str) -> str:
        """``player`` mails order lines to ``game``; give the Message-ID."""
        seat = self.seats[(game, player)]
        body = "\r\n".join([f"GAME {game} PLAYER {player} PASSWORD {seat.password}", *lines,
                            "END"])
        return self.mail(seat.address, body, name=player)

    def game_mails(self, seat: Seat) -> list[bytes]:
        """The mails ``seat``'s address got from its game."""
        return [d.raw for d in self.delivered(seat.address) if d.game == seat.game]

    def play_round(self) -> int:
        """Each seat played by mail reads its new mails and answers the last that asks
        something of it (its bot decides); give how many order mails were sent. Every seat
        reads before any sends, so what each reads does not hang on the daemon's speed."""
        answers = []
        for seat in list(self.seats.values()):
            if not seat.password or seat.away:
                continue
            mails = self.game_mails(seat)
            new, seat.answered = mails[seat.answered:], len(mails)
            if not new:
                continue
            raw = decide(CARDS, BotSeat(seat.game, seat.player, seat.password, seat.address,
                                        TO), new)
            if raw is not None:
                answers.append((seat.address, raw))
        for address, raw in answers:
            message = parse(raw)
            self.send(address, raw, str(message["Message-ID"]), text(message))
        return len(answers)

    def play(self, games: set[str], rounds: int = 400, check_every: int = 0) -> None:
        """Play until each of ``games`` is over (or nothing more is asked of anyone)."""
        for n in range(rounds):
            self.settle()
            if all(self.state(g).phase == "over" for g in games):
                return
            if check_every and n % check_every == 0:
                self.check(full=False)
            if not self.play_round():
                self.settle()
                if not self.play_round():
                    waiting = {g: (self.state(g).phase, self.state(g).active_player.name)
                               for g in games}
                    raise AssertionError(f"no one is asked anything: {waiting}")
        raise AssertionError("the games did not end")

    # --- the games ---------------------------------------------------------------------------

    def state(self, game: str) -> GameState:
        store = Store(self.store)
        with store.lock():
            game_id = store.game_named(game) or game
            snapshot = store.snapshot(game_id)
        assert snapshot is not None, game
        return from_json(GameState, snapshot["state"])

    def started(self, game: str) -> bool:
        store = Store(self.store)
        with store.lock():
            game_id = store.game_named(game)
            return game_id is not None and store.snapshot(game_id) is not None

    def absent(self, game: str, player: str, policy: str, *, days: int = 3,
               start_in: int = 0, lines: tuple[str, ...] = ()) -> str:
        """``player`` mails SET ABSENCE for ``days`` days from ``start_in`` days on (with
        ``lines`` before it); under ``pass`` or ``bot`` a stand-in may play their seat
        meanwhile."""
        # From yesterday when it starts now: begun in every time zone the player may have.
        first = datetime.now(UTC).date() + timedelta(days=start_in or -1)
        if policy in ("pass", "bot"):
            self.stood_in[(game, player)] = (first, first + timedelta(days=days))
        state = self.state(game)
        # Leaving in their own turn, they pass it (else it waits for its deadline).
        leaving = ("PASS",) if (state.phase == "actions" and start_in == 0
                                and state.active_player.name == player
                                and not state.turn.did_anything) else ()
        return self.orders(game, player, *lines,
                           f"SET ABSENCE {first.isoformat()} TO "
                           f"{(first + timedelta(days=days)).isoformat()}", *leaving)

    def away(self, game: str, player: str) -> None:
        """``player`` reads and answers no more mail of ``game`` (away, or their seat in
        other hands) until ``back``."""
        self.seats[(game, player)].away = True

    def back(self, game: str, player: str) -> None:
        """``player`` is back: CANCEL ABSENCE, then plays on from their mail."""
        seat = self.seats[(game, player)]
        seat.away = False
        self.stood_in.pop((game, player), None)
        seat.answered = len(self.game_mails(seat))  # what came meanwhile is history
        self.orders(game, player, "CANCEL ABSENCE ALL", "STATUS")

    def takeover(self, game: str, seat_name: str, address: str, name: str) -> Seat:
        """``name`` at ``address`` mails TAKEOVER and plays the seat from the welcome on;
        its former player stops. The newcomer reads the report and order form that come with
        the welcome (no STATUS needed)."""
        old = self.seats[(game, seat_name)]
        self.mail(address, f"TAKEOVER {game} {seat_name}", name=name)
        welcome = self.await_text(address, _PASSWORD)
        found = _PASSWORD.search(welcome)
        assert found is not None
        seat = Seat(game, seat_name, address, found.group(1))
        self.seats[(game, seat_name)] = seat
        self.former[(game, seat_name)] = old
        self.settle()
        return seat

    # --- the invariants ----------------------------------------------------------------------

    def check(self, *, full: bool = True) -> None:
        """The season's invariants, once the daemon settled (``full``: with ``pbem games``,
        ``replay --check`` and ``doctor``)."""
        self.settle()
        problems = [*self.internal_errors(), *self.unanswered(), *self.eliminated()]
        if full:
            problems += self.listed_and_replayed()
        assert not problems, "\n".join(problems)

    def internal_errors(self) -> list[str]:
        found = []
        for address in self.addresses():
            for mail in self.delivered(address):
                hit = _INTERNAL.search(mail.text)
                if hit:
                    found.append(f"internal error to {address} ({mail.message['Subject']}): "
                                 f"{mail.text[max(0, hit.start() - 200):hit.end() + 300]}")
        log = (self.folder / "daemon.log").read_text(errors="replace") \
            if (self.folder / "daemon.log").exists() else ""
        hit = _INTERNAL.search(log)
        if hit:
            found.append(f"internal error in the daemon's log: "
                         f"{log[max(0, hit.start() - 300):hit.end() + 1500]}")
        return found

    def unanswered(self) -> list[str]:
        """Mails sent in that neither their sender nor the game master got an answer to.

        An answer names the mail in In-Reply-To or References (the welcome that answers a
        TAKEOVER too)."""
        replies: set[str] = set()
        for address in self.addresses():
            for mail in self.delivered(address):
                replies.update(mail.refs)
        gm = "\n".join(self.texts(GM))
        owed = self.owed() | self.unanswered_on_purpose()
        return [f"not answered: {s.sender} {s.message_id} {s.body[:300]!r}"
                for s in self.sent if s.message_id not in replies and s.message_id not in gm
                and s.message_id.strip("<>") not in owed]

    def unanswered_on_purpose(self) -> set[str]:
        """The mails of strangers (addresses that never held a seat of the club) that the
        service left unanswered on purpose, as the postmaster's log says (an entry with no
        answer): past the answers an hour it gives strangers, or an UNOBSERVE, not
        authenticated, from an address that observes nothing (``pbem.service.service``).
        A player's mail is never one of them."""
        noted = {entry["mail_id"] for entry in Store(self.store).log(POSTMASTER)
                 if not entry.get("answer")}
        players = {seat.address for seat in (*self.seats.values(), *self.former.values())}
        return {s.message_id.strip("<>") for s in self.sent
                if s.sender not in players and mail_id_for(s.message_id) in noted}

    def owed(self) -> set[str]:
        """The order mails whose answers were folded away and that the next mail to their
        seat will refer to (``Seat.folded_mails``): answered, but not yet mailed."""
        store = Store(self.store)
        with store.lock():
            snapshots = [store.snapshot(game_id) for game_id in store.games()]
        return {mail for snapshot in snapshots if snapshot is not None
                for seat in from_json(GameService, snapshot["service"]).seats
                for mail in (m.strip("<>") for m in seat.folded_mails)}

    def eliminated(self) -> list[str]:
        """Players eliminated while they are away and a stand-in plays their seat (checked
        after every step, so an absence that ends is forgotten by ``back``)."""
        found = []
        today = datetime.now(UTC).date()
        for (game, player), (first, _) in self.stood_in.items():
            if first > today or not self.started(game):
                continue
            status = {p.name: p.status for p in self.state(game).players}.get(player)
            if status == "eliminated":
                found.append(f"{player} of {game} eliminated while away (a stand-in played)")
        return found

    def listed_and_replayed(self) -> list[str]:
        found = []
        listed = self.gm("games")
        for game in sorted(self.games):
            if not re.search(rf"^{re.escape(game)}\b", listed, re.MULTILINE):
                found.append(f"{game} not listed by pbem games:\n{listed}")
            if self.started(game):
                result = CliRunner().invoke(pbem_main, ["replay", game, "--check", "--config",
                                                        str(self.config)])
                if result.exit_code != 0:
                    found.append(f"pbem replay {game} --check: {result.output}")
        doctor = self.doctor()
        if not doctor.startswith("0\n"):
            found.append(f"pbem doctor: {doctor}")
        return found


def play_until(club: Club, games: set[str], condition: Callable[[], bool],
               rounds: int = 200) -> bool:
    """Play rounds of mail until ``condition()`` holds (True) or every game is over."""
    for _ in range(rounds):
        club.settle()
        if condition():
            return True
        if all(club.state(g).phase == "over" for g in games):
            return False
        if not club.play_round():
            club.settle()
            if not club.play_round() and not condition():
                raise AssertionError(f"no one is asked anything in {sorted(games)}")
    raise AssertionError("the condition never came")


def window_open(club: Club, game: str) -> Callable[[], bool]:
    """An attack of ``game`` waits for the players' answers."""
    def holds() -> bool:
        state = club.state(game)
        return state.phase == "attack" and state.attack is not None
    return holds


def created_game(club: Club, game: str, players: tuple[str, ...], *options: str) -> None:
    """A game made by ``pbem game create`` with house rules, started."""
    args = ["game", "create", game]
    for name in players:
        args += ["--player", f"{name}={name.lower()}.{game}@club.test"]
        club.seat(game, name, f"{name.lower()}.{game}@club.test")
    for option in (MAX_TURNS, *options):
        args += ["--option", option]
    club.gm(*args)
    club.gm("game", "start", game)
    club.games.add(game)
    club.read_passwords()


def parse(raw: bytes) -> email.message.EmailMessage:
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(message, email.message.EmailMessage)
    return message


def text(message: email.message.EmailMessage) -> str:
    body = message.get_body(("plain",))
    return str(body.get_content()) if body is not None else ""
