"""A full disk is never a mail's fault: a real daemon (``pbem run``) with its store on a
small tmpfs, the disk filled while order mails come in over SMTP, then freed.

Every mail is answered 250 or a temporary 4xx (never 5xx, never a 250 for a mail then lost);
while the disk has no room the listener answers 452; a refused mail is sent again once there
is room, as a mail server would. In the end each mail is applied exactly once (a step each,
the store says applied), answered exactly once, none set aside as broken, and the game master
got one mail per time the store could not be written.

Mounting the tmpfs needs root (CI runs as root); the test is skipped otherwise.
``PBEM_DISK_TRIALS`` sets the number of trials (fill, send, free) of the default run;
the slow test runs many more.
"""

from __future__ import annotations

import errno
import os
import random
import subprocess
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from robust_kit import (
    HANG,
    answers,
    config,
    new_game,
    new_port,
    order,
    pause,
    running_daemon,
    send,
    to_gm,
    wait_settled,
    write_config,
)
from servers import wait_until

from pbem.service.postmaster import POSTMASTER
from pbem.service.service import Service
from pbem.store import Store, mail_id_for

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small tmpfs for the "
                                "store needs root (CI runs as root)")

GAME = "full"
MAILS_PER_TRIAL = 6
SEED = 2112
MAX_KIB = 16  # the listener refuses for later below twice this free


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs",
                           str(mount)], capture_output=True, text=True, check=False)
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def free_bytes(folder: Path) -> int:
    info = os.statvfs(folder)
    return info.f_bavail * info.f_frsize


def fill(mount: Path, leave: int) -> None:
    """Fill the disk until ``leave`` bytes are free (or none, should it fill first).

    Unbuffered: the daemon writes to the same disk meanwhile, so a write may find less room
    than measured. A buffered file kept the bytes it could not write and wrote them again
    as it closed, outside the ``try``: the OSError that failed the slow test 1 run in 4."""
    with open(mount / "filler", "ab", buffering=0) as filler:
        try:
            while (room := free_bytes(mount) - leave) > 0:
                filler.write(b"\0" * min(room, 65536))  # a short write, or ENOSPC
        except OSError as error:
            assert error.errno == errno.ENOSPC


def test_filling_survives_the_disk_filling_under_it(small_disk: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """What the daemon does while the test fills the disk, made certain: each measure of the
    room says a little more than there is (the daemon wrote since), so a write is short.
    The disk ends full and filling raises nothing."""
    measured = free_bytes
    monkeypatch.setitem(globals(), "free_bytes", lambda folder: measured(folder) + 3000)
    fill(small_disk, 0)
    assert measured(small_disk) == 0


def run_trials(tmp_path: Path, mount: Path, trials: int) -> dict[str, int]:
    store = mount / "store"
    port = new_port()
    path = write_config(tmp_path, store, port=port, extra=f"max_kib = {MAX_KIB}")
    passwords = new_game(config(path), GAME)
    rng = random.Random(SEED)
    players = sorted(passwords)
    sent: list[str] = []  # keys of the mails taken (250)
    refused: list[bytes] = []
    figures = {"trials": trials, "mails": 0, "refused_4xx": 0, "probes_452": 0}
    with running_daemon(path, port, tmp_path / "daemon.log"):
        for trial in range(trials):
            leave = rng.choice((0, 4096, 16384, 40960, 98304, 196608))
            keys = [f"t{trial}-m{n}" for n in range(MAILS_PER_TRIAL)]
            outcomes: dict[str, int] = {}

            def burst(keys: list[str] = keys, outcomes: dict[str, int] = outcomes) -> None:
                for key in keys:
                    player = rng.choice(players)
                    raw = order(key, GAME, player, passwords[player])
                    outcomes[key] = send(port, raw)
                    if outcomes[key] != 250:
                        refused.append(raw)
                    pause(rng.uniform(0, 0.05))

            sender = threading.Thread(target=burst)
            sender.start()
            pause(rng.uniform(0, 0.2))
            fill(mount, leave)  # while the burst comes in
            sender.join()
            if rng.random() < 0.5:
                fill(mount, 0)  # the disk fills up while mail waits to be applied
                leave = 0
            figures["mails"] += len(keys)
            for key, code in outcomes.items():
                assert code == 250 or 400 <= code < 500, (key, code)
                if code == 250:
                    sent.append(key)
                else:
                    figures["refused_4xx"] += 1
            if leave <= 2 * MAX_KIB * 1024:  # no room: refused for later, told so
                player = players[0]
                code = send(port, order(f"probe-{trial}", GAME, player, passwords[player]))
                assert code == 452, code
                figures["probes_452"] += 1
            pause(rng.uniform(0, 1.0))  # the daemon meets the full disk, or not
            (mount / "filler").unlink()
            assert wait_settled(store), "the daemon did not catch up once there was room"
        for raw in refused:  # sent again, as a mail server does, until taken
            assert wait_until(lambda raw=raw: send(port, raw) == 250, timeout=HANG, step=0.5)
        assert wait_settled(store), "the daemon did not catch up"
    applied = [key for key in sent] + [
        key.decode().split("<", 1)[1].split("@")[0] for raw in refused
        for key in [raw.split(b"Message-ID: ", 1)[1].split(b"\r\n", 1)[0]]]
    assert len(applied) == figures["mails"]
    # Every mail taken applied exactly once (a step each) and answered exactly once.
    s = Store(store)
    ids = [mail_id_for(f"<{key}@example.org>") for key in applied]
    assert s.applied_mails(GAME, ids) == set(ids)
    assert Service(s).service_record(GAME).steps == 1 + len(applied)
    counted = answers(tmp_path / "maildirs")
    assert {key: counted.get(f"<{key}@example.org>", 0) for key in applied} == {
        key: 1 for key in applied}
    assert s.meta(POSTMASTER).get("failed", []) == []  # none set aside as broken
    # The game master heard once of each time the store could not be written.
    warned = (tmp_path / "daemon.log").read_text().count("cannot be written (")
    told = [m for m in to_gm(tmp_path / "maildirs")
            if "could not be written" in str(m["Subject"])]
    assert len(told) == warned
    figures["unwritable_episodes"] = warned
    return figures


def test_a_full_disk_loses_no_mail_and_applies_each_once(tmp_path: Path,
                                                          small_disk: Path) -> None:
    figures = run_trials(tmp_path, small_disk, int(os.environ.get("PBEM_DISK_TRIALS", "6")))
    print(figures)


@pytest.mark.slow
def test_a_full_disk_many_times(tmp_path: Path, small_disk: Path) -> None:
    figures = run_trials(tmp_path, small_disk, 40)
    print(figures)


def test_mail_waiting_when_the_disk_is_full_is_applied_once_there_is_room(
        tmp_path: Path, small_disk: Path) -> None:
    """The case the issue lost a mail in, made certain: mails taken in, then the disk full
    before they are applied. They wait (not set aside), new mail is refused 452, and once
    there is room each is applied and answered exactly once, the game master told once."""
    store = small_disk / "store"
    port = new_port()
    path = write_config(tmp_path, store, port=port, extra=f"max_kib = {MAX_KIB}")
    cfg = config(path)
    passwords = new_game(cfg, GAME)
    service = Service(Store(store), cfg.service_config())
    keys = [f"waiting-{n}" for n in range(8)]
    for n, key in enumerate(keys):
        player = sorted(passwords)[n % 3]
        assert service.accept(order(key, GAME, player, passwords[player]),
                              datetime.now(UTC)) is not None
    fill(small_disk, 0)
    log = tmp_path / "daemon.log"
    with running_daemon(path, port, log):
        assert wait_until(lambda: "cannot be written (" in log.read_text(), timeout=HANG)
        assert send(port, order("probe", GAME, "Alice", passwords["Alice"])) == 452
        assert len(Store(store).inbox()) == len(keys)  # waiting, none set aside
        (small_disk / "filler").unlink()
        assert wait_settled(store)
        assert wait_until(lambda: bool(to_gm(tmp_path / "maildirs")), timeout=HANG)
    s = Store(store)
    ids = [mail_id_for(f"<{key}@example.org>") for key in keys]
    assert s.applied_mails(GAME, ids) == set(ids)
    assert Service(s).service_record(GAME).steps == 1 + len(keys)
    counted = answers(tmp_path / "maildirs")
    assert {key: counted.get(f"<{key}@example.org>", 0) for key in keys} == {
        key: 1 for key in keys}
    assert s.meta(POSTMASTER).get("failed", []) == []
    assert log.read_text().count("cannot be written (") == 1
    assert [str(m["Subject"]) for m in to_gm(tmp_path / "maildirs")] == [
        "The game store could not be written for a while"]
