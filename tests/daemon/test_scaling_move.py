"""Several daemons behind one mail server, each game routed to its own (deploy/SCALING.md):
two real ``pbem run`` processes (the embedded default: SMTP listener, answers into Maildirs)
behind a recipient-routing relay standing in for Postfix's transport map, and a game moved
from one to the other mid-game with ``pbem export --move`` and ``pbem import`` while its
players keep writing. Nothing is lost or doubled: every order mail is applied once, and
every answer is delivered once."""

from __future__ import annotations

import json
import smtplib
from collections.abc import Callable
from pathlib import Path

from daemons import pbem_run
from relay import RoutingRelay
from scaling import (
    DOMAIN,
    Players,
    check_each_order_once,
    mailboxes,
    new_game,
    pbem,
    writing,
)
from servers import free_port, wait_until

from pbem.daemon.config import DaemonConfig, load_config
from pbem.service.service import Service
from pbem.store import Store


def _configure(folder: Path, port: int, boxes: Path) -> DaemonConfig:
    folder.mkdir()
    (folder / "pbem.toml").write_text(f"""[store]
path = "store"
[mail]
address = "pbem@{DOMAIN}"
address_per_game = true
mails_per_hour = 1000000
[listener]
port = {port}
[maildir]
path = "{boxes}"
""")
    return load_config(folder / "pbem.toml", env={})


def _through(relay: RoutingRelay) -> Callable[[str, str, bytes], None]:
    """Send a player's mail to the game's own address through the relay."""
    def send(sender: str, game: str, raw: bytes) -> None:
        with smtplib.SMTP("127.0.0.1", relay.port, local_hostname="player",
                          timeout=30) as smtp:
            smtp.sendmail(sender, [f"pbem+{game}@{DOMAIN}"], raw)
    return send


def test_a_game_moves_to_another_daemon_mid_game_and_nothing_is_lost_or_doubled(
        tmp_path: Path) -> None:
    """g1 and g2 start on daemon A; g1 moves to daemon B while its players keep writing:
    A holds its mail (450) once the move begins, the relay queues it, B takes it once the
    route is switched. Each order is answered once, from the game's own address, and each
    is applied once (the game's step count grows by exactly the orders sent), even an order
    A applied that reaches B again afterwards, the very same mail: the Message-IDs A saw
    moved with the game, and B ignores the copy as A would have (no answer)."""
    boxes = tmp_path / "mailboxes"
    port_a, port_b = free_port(), free_port()
    a = _configure(tmp_path / "a", port_a, boxes)
    b = _configure(tmp_path / "b", port_b, boxes)
    passwords = {game: new_game(a, game) for game in ("g1", "g2")}
    steps_at_start = Service(Store(a.store)).service_record("g1").steps
    relay = RoutingRelay({f"pbem+g1@{DOMAIN}": port_a, f"pbem+g2@{DOMAIN}": port_a}).start()
    players = Players(_through(relay), passwords)
    try:
        with pbem_run(tmp_path / "a", port_a), pbem_run(tmp_path / "b", port_b):
            assert wait_until(lambda: len(mailboxes(boxes)) >= 6
                              and not Store(a.store).outbox(), timeout=30)
            assert {sender for sender, _, _ in mailboxes(boxes)} == {
                f"Illuminati PBEM <pbem+g1@{DOMAIN}>", f"Illuminati PBEM <pbem+g2@{DOMAIN}>"}
            for _ in range(6):
                players.write("g1")
                players.write("g2")
            # The move, while the players go on writing to both games.
            with writing(players, ("g1", "g2")):
                exported = tmp_path / "g1.json"
                moved_out = pbem(tmp_path / "a", "export", "g1", "--move", "-o", str(exported))
                assert moved_out.returncode == 0, moved_out.stderr
                assert "g1" not in Service(Store(a.store)).games()
                imported = pbem(tmp_path / "b", "import", str(exported))
                assert imported.returncode == 0, imported.stderr
                again = pbem(tmp_path / "b", "import", str(exported))
                assert again.returncode == 1 and "exists already" in again.stderr
                relay.route(f"pbem+g1@{DOMAIN}", port_b)
                copy = players.send_again("g1", players.sent["g1"][0])
                for _ in range(3):
                    players.write("g1")
            orders = {i for ids in players.sent.values() for i in ids}
            assert wait_until(lambda: relay.queued() == 0, timeout=60), relay.queued()
            assert wait_until(lambda: orders <= {r for _, r, _ in mailboxes(boxes)},
                              timeout=90)
            assert wait_until(lambda: not Store(a.store).outbox()
                              and not Store(b.store).outbox(), timeout=30)
    finally:
        relay.stop()
    assert relay.bounced == []
    assert relay.deferrals > 0  # A held g1's mail during the move (or nothing was tested)
    check_each_order_once(players, boxes, {"g1": b.store, "g2": a.store}, steps_at_start)
    # B took g1's mail only after the route was switched; A took its mail before.
    to_b = [raw for rcpt, port, raw in relay.delivered if port == port_b]
    assert to_b and all(b"GAME g1 " in raw for raw in to_b)
    assert copy in to_b  # (answered once, by A, and applied once: checked above)
    export = json.loads((tmp_path / "g1.json").read_text())
    assert export["move"]["snapshot"]["service"]["seats"][0]["password_hash"]
