"""A mailbox in front of a real ``Service``: raw mail in, every mail out kept as a transcript.

Tests play games the way players do, by mail, with the clock pinned. Each mail in and out is
written to a transcript (headers that matter, the text part, a hash of the HTML part and of
each attachment), compared exactly with a golden file in this folder. Regenerate the golden
files only on purpose: ``PBEM_UPDATE_GOLDENS=1 pytest tests/service/`` (see
``tests/support.py``).
"""

from __future__ import annotations

import email
import email.message
import email.policy
import email.utils
import hashlib
import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from support import check_golden
from titles import mail_title

from pbem.engine.state import GameState
from pbem.service import gm
from pbem.service.model import GameService, Timing
from pbem.service.service import Service, ServiceConfig
from pbem.service.settings import MailIdentity
from pbem.store import GameStore, OutboxItem, Store
from pbem.store.memory import MemoryStore

GOLDEN = Path(__file__).parent
START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
SERVICE = "pbem@pbem.example"
GM = "gm@pbem.example"
SEED = "5eed" * 16


class CountingStore:
    """A store (in memory, or the files under a folder) that also counts its commits per
    game (every step commits once); the rest is the store's own."""

    def __init__(self, store: GameStore) -> None:
        self.inner = store
        self.commits: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def commit(self, game_id: str, **kwargs: Any) -> None:
        self.inner.commit(game_id, **kwargs)
        self.commits[game_id] += 1


@dataclass
class Out:
    """One mail the service sent, read back as a player's mail client would."""

    to: str
    subject: str  # what the mail is about (tests/titles.py): a game mail's opening line
    text: str  # the plain text, below a game mail's title
    html: str | None
    attachments: list[tuple[str, str, bytes]]
    headers: dict[str, str]
    raw: bytes
    turn: int = 0

    def view_json(self) -> bytes | None:
        """The JSON view attached, if any."""
        return next((data for name, _, data in self.attachments
                     if name.startswith("view-")), None)


@dataclass
class Sent:
    """One mail a player sent, with the turn number it arrived in."""

    sender: str
    game: str
    turn: int
    raw: bytes


@dataclass
class Mailroom:
    """The service, its store, a pinned clock, and the transcript of everything mailed.

    The store is in memory (``pbem.store.memory``), or with ``files`` the real one in
    ``root/store``, for what only files show (another process, the files themselves)."""

    root: Path
    now: datetime = START
    sender: MailIdentity = field(default_factory=lambda: MailIdentity(
        address=SERVICE, name="Illuminati PBEM", domain="pbem.example", gm_address=GM))
    mails_per_hour: int = 60  # from one address; more are dropped (the sender is told)
    files: bool = False

    def __post_init__(self) -> None:
        self.store = CountingStore(Store(self.root / "store") if self.files else MemoryStore())
        numbers = itertools.count(1)
        self.service = Service(self.store, ServiceConfig(
            sender=self.sender, password_cost=4, mails_per_hour=self.mails_per_hour,
            passwords=lambda game, player: f"{player.lower()}-{game}-{next(numbers):02d}"))
        self.lines: list[str] = []
        self.outgoing: list[Out] = []
        self.incoming: list[Sent] = []
        self.passwords: dict[tuple[str, str], str] = {}
        self.addresses: dict[str, str] = {}
        self._ids = itertools.count(1)
        self.step_commits: Counter[str] = Counter()  # commits of the last mail or tick

    # --- the game master ------------------------------------------------------------------

    def new_game(self, game: str, players: Sequence[tuple[str, str]], *,
                 timing: Timing | None = None, seed: str = SEED,
                 options: dict[str, Any] | None = None) -> list[Out]:
        """Create and start a game; players are (name, Illuminati or ""), each mailing from
        ``<name>@example.org``. Gives the mails sent."""
        for name, _ in players:
            self.addresses.setdefault(name, f"{name.lower()}@example.org")
        self.service.create_game(game, [(n, self.addresses[n], i) for n, i in players],
                                 options=options, timing=timing, seed=seed)
        self.lines.append(f"=== GM {self._when()}: create and start {game} with "
                          f"{', '.join(n for n, _ in players)}")
        passwords = self.service.start_game(game, self.now)
        for name, password in passwords.items():
            self.passwords[(game, name)] = password
        return self.collect()

    def override(self, name: str, *args: Any, game: str = "", **options: Any) -> list[Out]:
        """A GM override of ``pbem.service.gm`` (``name``: "pause", "resume", "extend"...)
        on the game, with ``args`` after the game and keyword ``options`` after the clock
        (``reason=``); gives the mails sent."""
        game = game or self._only_game()
        words = [*map(str, args), *(f"--{k} {v}" for k, v in options.items())]
        self.lines.append(f"=== GM {self._when()}: {name} {game} {' '.join(words)}")
        getattr(gm, name)(self.service, game, *args, now=self.now, **options)
        return self.collect()

    # --- players --------------------------------------------------------------------------

    def at(self, **delta: float) -> None:
        """Move the clock on (minutes=, hours=, days=)."""
        self.now += timedelta(**delta)

    def orders(self, player: str, *lines: str, game: str = "", turn: int | str | None = "now",
               password: str | None = None, address: str | None = None,
               subject: str = "orders", message_id: str | None = None) -> list[Out]:
        """Mail orders as ``player``: the start line (TURN is the game's state now unless
        given), the lines, END. Gives the mails the service sent in answer."""
        game = game or self._only_game()
        known = next((g for g in self.service.games() if g.lower() == game.lower()), "")
        if turn == "now":
            turn = self.service.state(known).seq if known else None
        secret = password if password is not None else self.passwords.get(
            (known, player), "no-such-password")
        start = f"GAME {game} PLAYER {player} PASSWORD {secret}"
        if turn is not None:
            start += f" TURN {turn}"
        body = "\n".join([start, *lines, "END"]) + "\n"
        return self.mail(player, body, address=address, subject=subject, message_id=message_id)

    def mail(self, player: str, body: str, *, address: str | None = None,
             subject: str = "orders", message_id: str | None = None,
             headers: Sequence[tuple[str, str]] = ()) -> list[Out]:
        """Mail any text from a player's (or any) address; gives the mails sent in answer."""
        address = address or self.addresses.get(player, f"{player.lower()}@example.org")
        message_id = message_id or f"<m{next(self._ids)}@example.org>"
        head = [f"From: {player} <{address}>", f"To: {SERVICE}", f"Subject: {subject}",
                f"Message-ID: {message_id}", f"Date: {email.utils.format_datetime(self.now)}",
                *(f"{name}: {value}" for name, value in headers),
                "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8"]
        raw = ("\n".join(head) + "\n\n" + body).encode()
        return self.receive(raw)

    def receive(self, raw: bytes) -> list[Out]:
        """Hand raw bytes to the service as the mail transport would."""
        self.lines.append(f"=== IN {self._when()}")
        self.lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
        message = email.message_from_bytes(raw, policy=email.policy.default)
        game = self._game_of(raw)
        self.incoming.append(Sent(str(message.get("From", "")), game,
                                  self._turn(game), raw))
        before = Counter(self.store.commits)
        self.service.receive(raw, self.now)
        self.step_commits = self.store.commits - before
        return self.collect()

    def tick(self, **delta: float) -> list[Out]:
        """Move the clock on and let deadlines pass; gives the mails sent."""
        self.at(**delta)
        self.lines.append(f"=== TICK {self._when()}")
        before = Counter(self.store.commits)
        self.service.tick(self.now)
        self.step_commits = self.store.commits - before
        assert all(n == 1 for n in self.step_commits.values()), self.step_commits
        return self.collect()

    # --- looking --------------------------------------------------------------------------

    def state(self, game: str = "") -> GameState:
        return self.service.state(game or self._only_game())

    def record(self, game: str = "") -> GameService:
        return self.service.service_record(game or self._only_game())

    def to(self, player: str, mails: Sequence[Out] | None = None) -> list[Out]:
        """The mails (of ``mails``, or all) sent to a player."""
        address = self.addresses[player]
        return [m for m in (self.outgoing if mails is None else mails) if m.to == address]

    def transcript(self) -> str:
        return "\n".join(self.lines) + "\n"

    def check(self, name: str) -> None:
        """The transcript equals the golden file; every game's log replays to its snapshot."""
        for game in self.service.games():
            assert self.service.replay_check(game), f"{game}: the log does not replay"
        check_golden(GOLDEN / f"{name}.txt", self.transcript())

    # --- inside ---------------------------------------------------------------------------

    def collect(self) -> list[Out]:
        """Give the mails queued since last time, marked sent, and add them to the
        transcript."""
        with self.store.lock():
            items = self.store.outbox()
            for item in items:
                self.store.mark_sent(item, sent_at=self.now)
        mails = [self._read(item) for item in items]
        for mail in mails:
            self.lines += _transcribed(mail, self._when())
        self.outgoing += mails
        return mails

    def _read(self, item: OutboxItem) -> Out:
        message = email.message_from_bytes(item.raw, policy=email.policy.default)
        assert isinstance(message, email.message.EmailMessage)
        plain = message.get_body(("plain",))
        html = message.get_body(("html",))
        attachments = []
        for part in message.iter_attachments():
            data = part.get_payload(decode=True)
            attachments.append((part.get_filename() or "", part.get_content_type(),
                                data if isinstance(data, bytes) else b""))
        kept = ("To", "Subject", "In-Reply-To", "Auto-Submitted", "X-Pbem-Game", "X-Pbem")
        headers = {k: str(message[k]) for k in kept if message[k] is not None}
        title = mail_title(message)
        text = _lines(plain.get_content()) if plain is not None else ""
        if title != str(message["Subject"]):  # a game mail: its text opens with the title
            headers["Title"] = title
            text = text.removeprefix(f"{title}\n\n")
        return Out(
            to=item.to, subject=title,
            # The bytes have CRLF line ends, as SMTP wants; a reader sees lines.
            text=text,
            html=_lines(html.get_content()) if html is not None else None,
            attachments=attachments, headers=headers, raw=item.raw,
            turn=self._turn(item.game_id))

    def _when(self) -> str:
        return self.now.strftime("%Y-%m-%d %H:%M UTC")

    def _only_game(self) -> str:
        games = self.service.games()
        assert len(games) == 1, "name the game"
        return games[0]

    def _game_of(self, raw: bytes) -> str:
        text = raw.decode("utf-8", "replace").lower()
        for game in self.service.games():
            if f"game {game.lower()} " in text:
                return game
        return ""

    def _turn(self, game: str) -> int:
        if game not in self.service.games():
            return 0
        return self.service.state(game).turn_number


def _transcribed(mail: Out, when: str) -> list[str]:
    lines = [f"=== OUT {when}"]
    lines += [f"{k}: {v}" for k, v in mail.headers.items()]
    lines += ["", mail.text.rstrip("\n")]
    if mail.html is not None:
        lines.append(f"[html: {len(mail.html)} chars, sha256 {_digest(mail.html.encode())}]")
    for name, kind, data in mail.attachments:
        lines.append(f"[attachment {name} {kind}: {len(data)} bytes, sha256 {_digest(data)}]")
    return lines


def _lines(text: object) -> str:
    return str(text).replace("\r\n", "\n")


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]
