"""A store folder copied whole into one file while the daemon runs, and put back.

The copy is taken holding the locks every writer of the store takes (the store's own, then
the inbox's and the outbox's, in that order; see ``pbem.store``), so no step, no mail being
stored and no mail being marked sent falls half inside it: every game in it is as it was at
one step. The daemon and the game master's commands wait for the copy (seconds for a store of
hundreds of games); the listener's SMTP clients wait too, and nothing is refused. Only
regular files are kept (not the daemon's wake-up pipe).

The file is a gzipped tar of the folder, with ``pbem-backup.json`` first (when, which layout,
which games). Lock files and a killed writer's temporary files are left out. It is written
aside, synced and renamed into place, readable by its owner only (it holds password hashes
and received mail). ``restore`` unpacks one into a folder that does not exist yet (or is
empty), beside it first, then renames it into place: a restore that fails leaves nothing.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
import tarfile
import zlib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from pbem.atomicfile import TEMP_SUFFIX, fsync_dir, make_dir
from pbem.errors import StoreError
from pbem.store.lock import Locks

MANIFEST = "pbem-backup.json"
# Files that say who holds a lock now: meaningless in a copy, and harmful in a restore (a
# restored running.lock would name a process of the old machine).
_LOCKS = frozenset({"lock", "lock.waiting", "inbox.lock", "outbox.lock", "running.lock"})


@dataclass(frozen=True)
class Backup:
    """What a copy holds."""

    path: Path
    taken: str  # when, ISO 8601
    games: tuple[str, ...]
    files: int
    size: int  # bytes of the compressed file


def back_up(root: Path, dest: Path, now: datetime, *, wait: float | None = None) -> Backup:
    """Copy the store folder ``root`` into the file ``dest`` (see the module docstring); give
    what it holds. StoreError when there is no store there, or its lock stays taken longer
    than ``wait`` seconds."""
    if not (root / "games").is_dir():
        raise StoreError(f"There is no game store at {root}.",
                         suggestion="Name the store with --config or --store.")
    make_dir(dest.parent)
    temp = dest.with_name(f".{dest.name}.{os.getpid()}{TEMP_SUFFIX}")
    locks = Locks(root)
    try:
        with locks.lock(wait), locks.small("inbox.lock"), locks.small("outbox.lock"):
            games = tuple(sorted(p.name for p in (root / "games").iterdir() if p.is_dir()))
            taken = now.isoformat()
            manifest = {"taken": taken, "format": _format(root), "games": games}
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as out:
                with tarfile.open(fileobj=out, mode="w:gz") as tar:
                    text = json.dumps(manifest, indent=1).encode()
                    info = tarfile.TarInfo(MANIFEST)
                    info.size, info.mtime, info.mode = len(text), int(now.timestamp()), 0o600
                    tar.addfile(info, io.BytesIO(text))
                    files = _add_tree(tar, root)
                out.flush()
                os.fsync(out.fileno())
        os.replace(temp, dest)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    fsync_dir(dest.parent)
    return Backup(dest, taken, games, files, dest.stat().st_size)


def restore(archive: Path, root: Path) -> Backup:
    """Unpack the copy ``archive`` as the store folder ``root``, which must not exist yet or
    be empty; give what it held. StoreError, with nothing written, when it is no copy of a
    store or ``root`` holds anything."""
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise StoreError(f"{root} is not empty: a restore never mixes two stores.",
                         suggestion="Move it aside first (keep it: it may hold mail newer "
                         "than the copy), or restore into a new folder.")
    try:
        with tarfile.open(archive, mode="r:gz") as tar:
            manifest, members = _unpack(tar, archive, root)
    except (tarfile.TarError, EOFError, zlib.error) as error:
        raise StoreError(f"{archive} cannot be read as a pbem backup: {error}.") from None
    fsync_dir(root.parent)
    games = manifest.get("games")
    return Backup(archive, str(manifest.get("taken", "")),
                  tuple(str(g) for g in games) if isinstance(games, list) else (),
                  len(members), archive.stat().st_size)


def _unpack(tar: tarfile.TarFile, archive: Path,
            root: Path) -> tuple[dict[str, object], list[tarfile.TarInfo]]:
    """Unpack beside ``root``, then rename into place; give the manifest and the members."""
    manifest = _manifest(tar, archive)
    make_dir(root.parent)
    aside = root.with_name(f".{root.name}.restoring{TEMP_SUFFIX}")
    shutil.rmtree(aside, ignore_errors=True)
    make_dir(aside)
    try:
        members = [m for m in tar.getmembers() if m.name != MANIFEST]
        tar.extractall(aside, members=members, filter="data")
        _sync_tree(aside)
        if root.exists():
            root.rmdir()
        os.replace(aside, root)
    except BaseException:
        shutil.rmtree(aside, ignore_errors=True)
        raise
    return manifest, members


def _add_tree(tar: tarfile.TarFile, root: Path) -> int:
    """Add every file under ``root`` but locks and temporary files; give how many."""
    count = 0
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        here = Path(folder)
        for name in sorted(names):
            if name in _LOCKS or (name.startswith(".") and name.endswith(TEMP_SUFFIX)):
                continue
            path = here / name
            try:
                if not stat.S_ISREG(path.lstat().st_mode):
                    continue  # the daemon's wake-up pipe, a socket: nothing to keep
                tar.add(path, arcname=str(path.relative_to(root)), recursive=False)
            except FileNotFoundError:  # a Maildir file its reader moved (not the store's)
                continue
            count += 1
    return count


def _manifest(tar: tarfile.TarFile, archive: Path) -> dict[str, object]:
    try:
        member = tar.getmember(MANIFEST)
        data = tar.extractfile(member)
        value = json.loads(data.read()) if data is not None else None
    except (KeyError, ValueError, tarfile.TarError):
        value = None
    if not isinstance(value, dict):
        raise StoreError(f"{archive} is not a pbem backup (it has no {MANIFEST}).",
                         suggestion="Give a file written by `pbem backup`.")
    return value


def _format(root: Path) -> str:
    try:
        return (root / "format").read_text().split()[0]
    except (OSError, IndexError):
        return "?"


def _sync_tree(root: Path) -> None:
    for folder, _dirs, names in os.walk(root):
        for name in names:
            fd = os.open(Path(folder) / name, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        fsync_dir(Path(folder))

