"""A backlog after a restart is worked off in rounds the size of those mail arriving makes,
not in one round of ``BATCH`` mails whose answers all wait for its commit.

A real daemon (``pbem run``) starts on a store with 200 order mails waiting, from 42
players of 14 games, their passwords hashed at the real cost (checked once per player per
process: the first round after a restart pays for every sender in it). When the first
answer leaves, nearly all the backlog still waits: the first commit came after a round of a
few mails (about ``ROUND_SECONDS`` of work), where it came after 50 (15-19 s here) before;
the daemon's log (at DEBUG) gives each round's size. Every mail is applied and answered once.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from robust_kit import (
    answers,
    config,
    new_game,
    new_port,
    order,
    running_daemon,
    wait_settled,
    write_config,
)

from pbem.service.auth import COST
from pbem.service.service import BATCH, Service
from pbem.store import Store

GAMES = 14
MAILS = 200


def test_a_backlog_after_a_restart_goes_in_small_rounds(tmp_path: Path) -> None:
    store = tmp_path / "store"
    port = new_port()
    path = write_config(tmp_path, store, port=port)
    cfg = config(path)
    passwords = {f"b{g}": new_game(cfg, f"b{g}", cost=COST) for g in range(GAMES)}
    service = Service(Store(store), cfg.service_config())
    now = datetime.now(UTC)
    senders = [(game, player) for game in sorted(passwords) for player in sorted(passwords[game])]
    keys = []
    for n in range(MAILS):
        game, player = senders[n % len(senders)]
        keys.append(f"backlog-{n}")
        service.accept(order(keys[-1], game, player, passwords[game][player]), now)
    assert len(Store(store).inbox()) == MAILS
    maildirs = tmp_path / "maildirs"
    log = tmp_path / "daemon.log"
    with running_daemon(path, port, log):
        assert wait_settled(store)
    rounds = [int(line.split("a round of ")[1].split()[0])
              for line in log.read_text().splitlines() if "a round of " in line]
    print(f"rounds after the restart: {rounds}")
    # The first commit came after a round of a few mails (about ROUND_SECONDS of work, each
    # new sender's password checked), not after BATCH of them: the answers of the first
    # mails leave while the rest of the backlog is worked off.
    assert sum(rounds) == MAILS and rounds[0] < BATCH // 2
    counted = answers(maildirs)
    assert {key: counted.get(f"<{key}@example.org>", 0) for key in keys} == {
        key: 1 for key in keys}
