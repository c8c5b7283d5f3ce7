"""Intakes behind a protocol (issue 36, point 7): a polled intake is a ``pbem.transport.
intake.Intake`` whose module declares its ``INTAKE`` (its section's keys, how they are read,
how it is made), registered by one row of ``pbem.daemon.config.INTAKES``; the daemon asks
nothing else of it. The Maildir intake (``[maildir_intake]``) takes the mail a local
delivery agent leaves in a Maildir, with no mail login; and an intake made up here (this
module is its module), one row added, has its section read and checked, and its mail
stored, processed and answered by the daemon as IMAP's is."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from clocks import Clock
from daemons import GAME, configure, delivered, maildir, new_game, order_mail, serving
from servers import wait_until

from pbem.cli.daemon import run
from pbem.daemon import config as configs
from pbem.daemon import intake as intakes
from pbem.daemon.intake import make_polled_intakes, polled
from pbem.daemon.server import Daemon
from pbem.errors import ConfigError
from pbem.service.service import Service
from pbem.store import Store
from pbem.transport.imap import UnprocessableMail
from pbem.transport.intake import GroupDelivery, IntakeHooks, IntakeKind, Logins, SectionValues
from pbem.transport.listener import TryLater
from pbem.transport.maildir_intake import MaildirIntake, MaildirIntakeConfig

MAILDIR = '[listener]\nenabled = false\n[maildir_intake]\npath = "incoming"\n'


def drop(folder: Path, name: str, raw: bytes) -> Path:
    """Deliver ``raw`` as a delivery agent does: written in tmp/, renamed into new/."""
    for sub in ("tmp", "new", "cur"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    (folder / "tmp" / name).write_bytes(raw)
    return (folder / "tmp" / name).rename(folder / "new" / name)


def test_pbem_run_takes_in_a_maildir_and_answers(tmp_path: Path) -> None:
    config = configure(tmp_path, MAILDIR)
    assert config.listener is None and [k.name for k in polled(config)] == ["maildir"]
    passwords = new_game(config)
    sent = delivered(config.maildir)
    drop(tmp_path / "incoming", "1.host", order_mail(1, "Carol", passwords["Carol"],
                                                     "SET HTML OFF"))
    result = CliRunner().invoke(run, ["--config", str(tmp_path / "pbem.toml"), "--once"])
    assert result.exit_code == 0, result.output
    assert "processed 1 mail(s)" in result.output
    assert not Service(Store(config.store)).service_record(GAME).seat("Carol").html
    answers = [m for m in maildir(config.maildir)["carol@example.org"]
               if m["In-Reply-To"] == "<order-1@example.org>"]
    assert len(answers) == 1 and delivered(config.maildir) > sent
    assert list((tmp_path / "incoming" / "new").iterdir()) == []
    assert [p.name for p in (tmp_path / "incoming" / "cur").iterdir()] == ["1.host:2,S"]


def test_a_group_the_store_cannot_take_stays_in_new(tmp_path: Path) -> None:
    folder = tmp_path / "md"
    for n in range(3):
        drop(folder, f"{n}.host", b"Subject: %d\r\n\r\nhi\r\n" % n)
    given: list[Sequence[bytes]] = []

    def full(raws: Sequence[bytes]) -> list[BaseException | None]:
        given.append(raws)
        return [TryLater("the store's disk is full")]  # none stored

    intake = MaildirIntake(MaildirIntakeConfig(folder), full)
    assert intake.fetch_new() == 0
    assert len(given) == 1 and len(given[0]) == 3
    assert sorted(p.name for p in (folder / "new").iterdir()) == ["0.host", "1.host", "2.host"]

    def taken(raws: Sequence[bytes]) -> list[BaseException | None]:
        return [None, UnprocessableMail("too big"), None]  # the second: its stand-in stored

    assert MaildirIntake(MaildirIntakeConfig(folder), taken).fetch_new() == 3
    assert list((folder / "new").iterdir()) == []
    assert sorted(p.name for p in (folder / "cur").iterdir()) == [
        "0.host:2,S", "1.host:2,S", "2.host:2,S"]


def test_a_mail_over_the_limit_is_read_to_its_head_only(tmp_path: Path) -> None:
    """Issue 44: a mail of any size is judged by its size before it is read whole; the
    store gets the stand-in that says its size, never the body."""
    folder = tmp_path / "md"
    head = b"From: carol@example.org\r\nSubject: big\r\nMessage-ID: <big@x>\r\n\r\n"
    drop(folder, "0.host", head + b"x" * 3_000_000)
    drop(folder, "1.host", head + b"small\r\n")
    given: list[bytes] = []

    def keep(raws: Sequence[bytes]) -> list[BaseException | None]:
        given.extend(raws)
        return [None] * len(raws)

    assert MaildirIntake(MaildirIntakeConfig(folder), keep, max_bytes=100_000).fetch_new() == 2
    big, small = given
    assert big.startswith(b"X-Pbem-Too-Big: %d" % (len(head) + 3_000_000))
    assert len(big) < 1_000 and b"xxxx" not in big
    assert small == head + b"small\r\n"


def test_a_maildir_intake_needs_its_path(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="maildir_intake"):
        configure(tmp_path, "[maildir_intake]\npoll_seconds = 5\n")


class ListIntake:
    """The most trivial intake: the mails of a list, handed over once."""

    def __init__(self, deliver: GroupDelivery, raws: list[bytes]) -> None:
        self.deliver, self.raws, self.closed = deliver, raws, False

    def fetch_new(self) -> int:
        raws, self.raws = self.raws, []
        fates = self.deliver(raws) if raws else []
        return sum(1 for fate in fates if fate is None)

    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            self.fetch_new()
            stop.wait(0.05)

    def close(self) -> None:
        self.closed = True


PASSWORDS: dict[str, str] = {}  # the game's, once made
MADE: list[ListIntake] = []


@dataclass(frozen=True)
class ListSettings:
    """The settings of the intake made up here: the one order line its mail holds."""

    order: str
    player: str


def _read(values: SectionValues, logins: Logins) -> ListSettings:
    return ListSettings(values.required("order"), values.text("player", "Alice"))


def _make(settings: ListSettings, hooks: IntakeHooks) -> ListIntake:
    MADE.append(ListIntake(hooks.deliver_group, [order_mail(
        7, settings.player, PASSWORDS[settings.player], settings.order)]))
    return MADE[-1]


INTAKE = IntakeKind("list", ("order", "player"), _read, lambda s: f"a list ({s.order})", _make)
"""The intake made up here, as an intake's module declares it."""


def test_a_new_intake_is_its_module_and_one_row(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(configs.INTAKES, "list_intake", __name__)
    with pytest.raises(ConfigError, match=r"\[list_intake\] has an unknown key 'ordr'. "
                       r"Did you mean order\?"):
        configure(tmp_path, '[listener]\nport = 0\n[list_intake]\nordr = "SET HTML OFF"\n')
    with pytest.raises(ConfigError, match=r"\[list_intake\] needs order"):
        configure(tmp_path, '[listener]\nport = 0\n[list_intake]\nplayer = "Bob"\n')
    config = configure(tmp_path, '[listener]\nport = 0\n[list_intake]\norder = "SET HTML OFF"\n')
    assert config.intake("list_intake") == ListSettings("SET HTML OFF", "Alice")
    PASSWORDS.update(new_game(config))
    assert [(k.name, k.describe(config)) for k in polled(config)] == [
        ("list", "a list (SET HTML OFF)")]
    assert len(make_polled_intakes(config, intakes.make_mail_intake(
        config, Clock(), lambda: None), Clock())) == 1
    done = Daemon(config, clock=Clock()).run_once()
    assert done.processed == 1 and done.problems == ()
    assert MADE[-1].closed
    assert not Service(Store(config.store)).service_record(GAME).seat("Alice").html


def test_a_section_no_row_registers_is_unknown(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"unknown section \[list_intake\]"):
        configure(tmp_path, '[listener]\nport = 0\n[list_intake]\norder = "SET HTML OFF"\n')


@pytest.mark.parametrize("in_processes", [True, False])
def test_the_serving_daemon_takes_mail_dropped_while_it_runs(
        tmp_path: Path, in_processes: bool) -> None:
    """In the intake's child process (a real clock crosses into it), or on a thread."""
    config = configure(tmp_path, MAILDIR.replace('"incoming"\n', '"incoming"\n'
                                                 'poll_seconds = 0.2\n'))
    passwords = new_game(config)
    daemon = Daemon(config) if in_processes else Daemon(config, clock=Clock())
    assert daemon.in_processes == in_processes
    with serving(daemon):
        drop(tmp_path / "incoming", "9.host",
             order_mail(9, "Bob", passwords["Bob"], "SET HTML OFF"))
        assert wait_until(lambda: any(
            m["In-Reply-To"] == "<order-9@example.org>"
            for m in maildir(config.maildir).get("bob@example.org", [])), timeout=60)
    assert [p.name for p in (tmp_path / "incoming" / "cur").iterdir()] == ["9.host:2,S"]
