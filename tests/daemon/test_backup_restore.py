"""``pbem backup`` while a real ``pbem run`` takes a burst of mail, ``pbem restore`` into a new
folder, and every game there checks out (``pbem replay --check``, ``pbem doctor``)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tarfile
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from daemons import configure, new_game, order_mail, pbem_run, send
from servers import free_port, wait_until
from support import REPO

from pbem.errors import StoreError
from pbem.store import Store
from pbem.store.backup import MANIFEST, back_up, restore


def pbem(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from pbem.cli.main import main; main()", *arguments],
        cwd=cwd, env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True,
        timeout=300, check=False)


def test_a_backup_taken_during_a_burst_of_mail_restores_to_games_that_check_out(
        tmp_path: Path) -> None:
    port = free_port()
    site = tmp_path / "site"
    site.mkdir()
    config = configure(site, f"[listener]\nport = {port}\n")
    now = datetime.now(UTC)
    passwords = {game: new_game(config, game, now=now) for game in ("g1", "g2")}
    burst_done = threading.Event()
    failures: list[BaseException] = []

    def burst() -> None:
        try:
            for n in range(40):
                game = ("g1", "g2")[n % 2]
                player = ("Alice", "Bob", "Carol")[n % 3]
                send(port, order_mail(n, player, passwords[game][player], "STATUS",
                                      game=game), sender=f"{player.lower()}@example.org")
        except BaseException as error:  # pragma: no cover - reported below
            failures.append(error)
        finally:
            burst_done.set()

    backups = tmp_path / "backups"
    with pbem_run(site, port):
        sender = threading.Thread(target=burst)
        sender.start()
        taken = []
        try:
            while not burst_done.is_set() or not taken:
                done = pbem("backup", str(backups / f"b{len(taken)}.tar.gz"), "--config",
                            str(site / "pbem.toml"), cwd=tmp_path)
                assert done.returncode == 0, done.stderr
                taken.append(backups / f"b{len(taken)}.tar.gz")
        finally:
            sender.join(120)
        assert not failures, failures
    assert taken
    for archive in taken:
        assert stat.S_IMODE(archive.stat().st_mode) == 0o600
        with tarfile.open(archive) as tar:
            names = tar.getnames()
        assert names[0] == MANIFEST
        assert not any(Path(n).name in ("lock", "inbox.lock", "outbox.lock", "running.lock")
                       for n in names)
        # Restored into a new folder: every game replays to its snapshot, the doctor passes.
        scratch = tmp_path / f"restored-{archive.stem}"
        scratch.mkdir()
        (scratch / "pbem.toml").write_text(
            f'[store]\npath = "store"\n[listener]\nport = {free_port()}\n')
        done = pbem("restore", str(archive), "--config", str(scratch / "pbem.toml"),
                    cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        for game in ("g1", "g2"):
            check = pbem("replay", game, "--check", "--config", str(scratch / "pbem.toml"),
                         cwd=tmp_path)
            assert check.returncode == 0, check.stdout + check.stderr
        doctor = pbem("doctor", "--config", str(scratch / "pbem.toml"), cwd=tmp_path)
        assert doctor.returncode == 0, doctor.stdout + doctor.stderr
        assert "problem" not in doctor.stdout
    # The last copy, taken after the burst ended, holds every mail the daemon had stored.
    last = Store(tmp_path / f"restored-{taken[-1].stem}" / "store")
    with last.lock():
        assert {"g1", "g2"} <= set(last.games())


def test_a_copy_waits_for_the_step_that_holds_the_lock(tmp_path: Path) -> None:
    """The copy takes the store's lock as every writer does: while a step holds it, the copy
    waits (here, gives up after its wait) rather than copy half a step."""
    config = configure(tmp_path)
    new_game(config)
    store = Store(config.store)
    holding, release = threading.Event(), threading.Event()

    def step() -> None:
        with store.lock():
            holding.set()
            release.wait(30)

    thread = threading.Thread(target=step)
    thread.start()
    try:
        assert holding.wait(30)
        with pytest.raises(StoreError):
            back_up(config.store, tmp_path / "b.tar.gz", datetime.now(UTC), wait=0.2)
        assert not (tmp_path / "b.tar.gz").exists()
        assert not list(tmp_path.glob(".b.tar.gz*"))
    finally:
        release.set()
        thread.join()
    assert back_up(config.store, tmp_path / "b.tar.gz", datetime.now(UTC), wait=5).games[0] == "g1"


def test_a_restore_never_mixes_two_stores_and_refuses_what_is_no_backup(
        tmp_path: Path) -> None:
    config = configure(tmp_path)
    new_game(config)
    archive = back_up(config.store, tmp_path / "b.tar.gz", datetime.now(UTC)).path
    with pytest.raises(StoreError, match="not empty"):
        restore(archive, config.store)
    other = tmp_path / "other.tar.gz"
    with tarfile.open(other, "w:gz") as tar:
        tar.add(tmp_path / "pbem.toml", arcname="pbem.toml")
    with pytest.raises(StoreError, match="not a pbem backup"):
        restore(other, tmp_path / "new")
    assert not (tmp_path / "new").exists()
    done = restore(archive, tmp_path / "new")
    assert "g1" in done.games
    assert wait_until(lambda: (tmp_path / "new" / "games" / "g1").is_dir())
