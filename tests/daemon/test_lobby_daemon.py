"""The lobby through the daemon on the embedded default (issue 43.2 and 43.10): real SMTP to
the listener, replies into Maildirs, the game master's real ``pbem`` commands while the
daemon runs. HELP and a malformed JOIN mailed to the server get the lobby's help; a game
open for sign-up is listed, shown, extended, a JOIN declined and the sign-up closed, each
told by mail to whom it concerns."""

from __future__ import annotations

import email
import email.message
import email.policy
import smtplib
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from clocks import T0, Clock
from daemons import serving
from servers import wait_until

from pbem.cli.main import main as pbem_main
from pbem.daemon.config import load_config
from pbem.daemon.server import Daemon
from pbem.service.signup import LOBBY, replay
from pbem.store import Store

TO = "pbem@localhost"


def gm(store: Path, *args: str) -> str:
    result = CliRunner().invoke(pbem_main, [*args, "--store", str(store),
                                            "--now", T0.isoformat()])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_lobby_s_doors_and_the_game_master_s_sign_up_commands(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config(None, env={})  # the embedded default
    assert config.listener is not None
    config = replace(config, listener=replace(config.listener, port=0), tick_seconds=1.0)
    store = config.store
    store.mkdir(parents=True)
    boxes = store / "maildirs"
    sent = 0

    def mail(address: str, body: str) -> None:
        nonlocal sent
        sent += 1
        raw = (f"From: <{address}>\r\nTo: {TO}\r\nSubject: mail {sent}\r\n"
               f"Message-ID: <lobby{sent}@example.org>\r\n\r\n{body}\r\n").encode()
        with smtplib.SMTP("127.0.0.1", port, local_hostname="test", timeout=30) as smtp:
            smtp.sendmail(address, [TO], raw)

    def box(address: str) -> list[email.message.EmailMessage]:
        folder = boxes / address / "new"
        found = []
        for path in sorted(folder.iterdir() if folder.is_dir() else [],
                           key=lambda p: p.stat().st_mtime_ns):
            message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
            assert isinstance(message, email.message.EmailMessage)
            found.append(message)
        return found

    def await_mail(address: str, subject: str) -> str:
        def found() -> list[email.message.EmailMessage]:
            return [m for m in box(address) if subject in str(m["Subject"])]
        assert wait_until(lambda: bool(found()), timeout=60), (
            address, subject, [str(m["Subject"]) for m in box(address)])
        body = found()[0].get_body(("plain",))
        assert body is not None
        return " ".join(str(body.get_content()).split())

    gm(store, "game", "open", "club", "--seats", "3", "--approval", "--deadline-to-fill",
       "2024-06-01T12:00")
    with serving(Daemon(config, clock=Clock())) as daemon:
        port = daemon.listener_port
        assert port is not None
        mail("dan@example.org", "HELP")
        helped = await_mail("dan@example.org", "How to write to the game server")
        assert "JOIN <game> AS <name>" in helped and "No orders could be read" not in helped
        mail("eve@example.org", "JOIN club")
        refused = await_mail("eve@example.org", "not understood")
        assert "this JOIN has no AS" in refused
        for name in ("Ann", "Ben"):
            mail(f"{name.lower()}@example.org", f"JOIN club AS {name}")
            await_mail(f"{name.lower()}@example.org", "waits for approval")
        assert "waiting for your approval: Ann, Ben" in gm(store, "games")
        assert "Ben <ben@example.org>" in gm(store, "game", "show", "club")
        gm(store, "approve", "club", "Ann")
        gm(store, "reject", "club", "Ben", "--reason", "members only")
        assert "members only" in await_mail("ben@example.org", "declined")
        gm(store, "extend", "club", "--hours", "24")
        assert "2024-06-02 12:00" in await_mail("ann@example.org", "Sign-up extended")
        gm(store, "game", "close", "club")
        assert "closed the sign-up for club" in await_mail("ann@example.org",
                                                           "Sign-up closed")
        assert wait_until(lambda: not Store(store).outbox(), timeout=60)
    lobby = Store(store)
    assert replay(lobby.log(LOBBY)) == lobby.meta(LOBBY)
    assert lobby.meta(LOBBY)["open"] == {}
