"""``pbem demo``: a whole game on the embedded default, four bots playing by real mail.

The daemon runs here with its own SMTP listener for mail in and local Maildirs for mail out.
Each bot reads its Maildir, decides, and sends its orders over SMTP to the listener, as a
person's mail client would. At the end the archive is built and the paths printed. With
``keep_running`` the first seat is left to a person, and the daemon goes on serving.
"""

from __future__ import annotations

import shlex
import smtplib
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from email.parser import BytesHeaderParser
from pathlib import Path

from pbem.archive.build import build_game, build_index
from pbem.bots import Level
from pbem.bots.mailbots import BotSeat, MailBot
from pbem.daemon.config import load_config
from pbem.daemon.server import Daemon, utc_now
from pbem.engine.carddata import CardPack
from pbem.mail.automatic import OWN_HEADER
from pbem.service import gm, history
from pbem.store import Store
from pbem.transport.sender import MaildirSender, open_maildir

_HEADERS = BytesHeaderParser()

GAME = "demo"
BOTS = ("Adam", "Eve", "Mallory", "Trent")
HUMAN = "Morgan"  # the seat a person takes with --keep-running: a name mails read well with
PLAYER_DOMAIN = "players.example"
TURN_CAP = 300  # a documented cap: bots that stall cannot keep the demo running forever
TIME_LIMIT = 30 * 60.0  # seconds before the demo gives up waiting for the game's end
DEMO_MAILS_PER_HOUR = 1_000_000


@dataclass(frozen=True)
class DemoResult:
    outcome: str
    winners: tuple[str, ...]
    turns: int
    maildirs: Path
    archive: Path
    mails_sent: int  # the game's mails delivered to its players
    game: str = GAME


class _Mailbox:
    """One seat's Maildir as its mail client sees it: the new mails, once each."""

    def __init__(self, path: Path) -> None:
        # The daemon may be delivering the welcome into it this very moment.
        self.folder = open_maildir(path)
        # Keys already handed out, never parsed again: at first the mails of an earlier
        # demo in the same folder, which were never this game's.
        self._read: set[str] = set(self.folder.iterkeys())

    def new(self) -> list[bytes]:
        fresh = []
        for key in sorted(set(self.folder.iterkeys()) - self._read):
            self._read.add(key)
            message = self.folder[key]
            if message.get_subdir() == "new":
                fresh.append(self.folder.get_bytes(key))
                message.set_subdir("cur")
                message.add_flag("S")
                self.folder[key] = message
        return fresh


def run_demo(folder: Path, *, port: int = 2525, keep_running: bool = False,
             seed: str | None = None, victory_groups: int | None = None,
             levels: Sequence[Level] = (), pack: CardPack | None = None,
             lang: str = "en", echo: Callable[[str], None] = print) -> DemoResult:
    """Play the demo game in ``folder`` and give how it went (``victory_groups`` makes a
    shorter game, for the tests; seat ``i`` plays at ``levels[i]``, normal when not
    given; ``pack``: the game master's own cards, docs/cards.md; ``lang``: the language of
    the players' mail)."""
    folder = folder.resolve()
    game = _free_game_id(folder / "store")
    base = load_config(None)
    assert base.listener is not None
    # The bots write far more than a person: the per-sender hourly limit against floods
    # (60 by default) would drop their mail unanswered a few dozen turns in.
    config = replace(base, store=folder / "store", maildir=folder / "maildirs",
                     listener=replace(base.listener, port=port), tick_seconds=5.0,
                     mails_per_hour=DEMO_MAILS_PER_HOUR)
    daemon = Daemon(config)
    ready = threading.Event()
    server = threading.Thread(target=daemon.serve, kwargs={"ready": ready.set}, daemon=True)
    server.start()
    if not ready.wait(30):
        raise RuntimeError("the daemon did not start within 30 s")
    listener = daemon.listener_port or port
    service = daemon.service
    maildir = MaildirSender(config.maildir)
    names = [(HUMAN if keep_running and i == 0 else name) for i, name in enumerate(BOTS)]
    addresses = {n: f"{n.lower()}@{PLAYER_DOMAIN}" for n in names}
    options: dict[str, int] = {"max_turns": TURN_CAP}
    if victory_groups is not None:
        options["victory_groups"] = victory_groups
    # As `pbem game create` and `start` do: the dice commitment is logged, for `pbem verify`.
    gm.create_game(service, game, [(n, addresses[n], "") for n in names], seed=seed,
                   options=options, now=utc_now(), lang=lang, pack=pack)
    passwords = gm.start_game(service, game, utc_now())
    daemon.wake()
    echo(f"Game {game!r} started: {', '.join(_seated(names, levels))}. The daemon listens on "
         f"127.0.0.1:{listener}; mail out goes to {config.maildir}.")

    def mailer(sender: str) -> Callable[[bytes], None]:
        """How a seat's mail client sends: SMTP to the listener, from the seat's address."""
        def send(raw: bytes) -> None:
            with smtplib.SMTP("127.0.0.1", listener, timeout=30) as smtp:
                smtp.sendmail(sender, [config.sender.address], raw)
            daemon.wake()
        return send

    bots = []
    for index, name in enumerate(names):
        if name == HUMAN:
            continue
        address = addresses[name]
        level = levels[index] if index < len(levels) else "normal"
        seat = BotSeat(game, name, passwords[name], address, config.sender.address, level)
        bot = MailBot(service.cards_of(game), seat, mailer(address))
        bots.append((bot, _Mailbox(maildir.maildir_path(address))))
    if keep_running:
        _explain_joining(echo, passwords[HUMAN], addresses[HUMAN], listener,
                         config.sender.address, maildir.maildir_path(addresses[HUMAN]))

    started = time.monotonic()
    last_turn = -1
    while True:
        state = service.state(game)
        if state.phase == "over":
            break
        if state.turn_number != last_turn and state.turn_number % 10 == 0:
            echo(f"  turn {state.turn_number}: {state.active_player.name} to play")
        last_turn = state.turn_number
        moved = False
        for bot, box in bots:
            mails = box.new()
            if mails and bot.receive(mails):
                moved = True
        if not moved:
            if not keep_running and time.monotonic() - started > TIME_LIMIT:
                raise RuntimeError("the demo game did not end in time")
            time.sleep(0.05)
    # Let the daemon send the last reports, then stop it and build the archive.
    daemon.wake()
    _wait_for_outbox(daemon)
    final = service.state(game)
    if not keep_running:
        daemon.request_stop()
        server.join(30)
    archive = folder / "archive"
    with daemon.store.lock():
        record = history.read_game(daemon.store, game)
    build_index([build_game(record.played_with(service.cards), record, archive)], archive)
    result = DemoResult(final.outcome, final.winners, final.turn_number, config.maildir,
                        archive / "index.html", _count(config.maildir, game), game)
    for line in next_steps(result, folder, addresses[names[0]], keep_running):
        echo(line)
    if keep_running:
        echo("The game is over; the daemon keeps running (Ctrl-C to stop).")
        server.join()
    return result


def _wait_for_outbox(daemon: Daemon, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with daemon.store.lock():
            if not daemon.store.outbox():
                return
        daemon.wake()
        time.sleep(0.1)


def _count(root: Path, game: str) -> int:
    """The mails of ``game`` delivered into the players' Maildirs (not the sender's
    delivery markers, nor the mails of an earlier demo in the same folder)."""
    count = 0
    for path in root.iterdir():
        if path.name.startswith(".") or not (path / "new").is_dir():
            continue
        box = open_maildir(path)
        count += sum(1 for key in box.iterkeys()
                     if _HEADERS.parsebytes(box.get_bytes(key)).get(OWN_HEADER) == game)
    return count


def _free_game_id(store: Path) -> str:
    """``demo``, or ``demo-2``, ``demo-3``... when an earlier demo in this folder holds it:
    a second demo (with --keep-running, say) needs no other folder."""
    taken = set(Store(store).games()) if (store / "index.json").exists() else set()
    n = 1
    while (game := GAME if n == 1 else f"{GAME}-{n}") in taken:
        n += 1
    return game


def pbem_command() -> str:
    """The command that runs this very pbem, as a shell takes it wherever it is typed: the
    program started, if it is pbem; else the pbem beside the Python running (a virtual
    environment's ``bin/``: ``scripts/demo.sh`` installs it only there, not on the PATH);
    else that Python running the package."""
    started = Path(sys.argv[0])
    if started.name == "pbem" and started.is_file():
        return shlex.quote(str(started.absolute()))
    beside = Path(sys.executable).parent / "pbem"
    if beside.is_file():
        return shlex.quote(str(beside.absolute()))
    return f"{shlex.quote(sys.executable)} -m pbem.cli.main"


def reading(maildir: Path) -> str:
    """The command that lists the mails of ``maildir`` (no mail client needed)."""
    return f"{pbem_command()} mailbox {shlex.quote(str(maildir.absolute()))}"


def next_steps(result: DemoResult, folder: Path, address: str,
               kept_running: bool) -> list[str]:
    """What to do next, once the demo game is over: where to look, and how to play. Every
    command runs as printed, from any folder, on a machine with no mail client and no
    pbem on the PATH."""
    maildir = MaildirSender(result.maildirs).maildir_path(address)
    lines = ["", "What next:",
             f"- Open the archive in a browser: {result.archive.absolute().as_uri()}",
             f"- List a player's mail as they got it: {reading(maildir)}",
             f"- Read the last one: {reading(maildir)} last"]
    if not kept_running:
        lines.append(f"- Take a seat yourself against three bots: {pbem_command()} demo --dir "
                     f"{shlex.quote(str(folder.absolute()))} --keep-running")
    return lines


def _explain_joining(echo: Callable[[str], None], password: str, address: str, port: int,
                     service_address: str, maildir: Path) -> None:
    echo("")
    echo(f"You play the seat '{HUMAN}'. Your mail client's outgoing server: 127.0.0.1, port "
         f"{port}, no login. Send your orders to {service_address} from {address}.")
    echo(f"Your password: {password}")
    echo(f"Mail to you is delivered into the Maildir {maildir.absolute()}; list it with "
         f"{reading(maildir)} (add a number, or last, to read one).")
    echo("Each report ends with an order form: reply with your orders filled in.")


def _seated(names: Sequence[str], levels: Sequence[Level]) -> list[str]:
    """Each seat's name, with its bot's level when one was given."""
    return [f"{n} ({levels[i]})" if i < len(levels) and n != HUMAN else n
            for i, n in enumerate(names)]
