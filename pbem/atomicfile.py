"""Crash-safe file writes: a file is either its old whole content or its new whole content.

Every write goes to a temporary file in the same folder, is fsynced, renamed over the old
file with ``os.replace`` and then the folder is fsynced, so the new name survives a power
cut too. The game store uses these for its TinyDB files, raw mails and log segments.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import Any

TEMP_SUFFIX = ".tmp"


def fsync_dir(folder: Path) -> None:
    """Make the folder's entries (new, renamed or removed names) durable."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` so a crash leaves either the old or the new file
    (readable by its owner only, unless ``mode`` says otherwise)."""
    write_many_atomic([(path, data)], mode=mode)


def write_many_atomic(files: Iterable[tuple[Path, bytes]], *, mode: int | None = None) -> None:
    """Replace each path with its data, each file either old or new after a crash (0600, or
    ``mode``).

    All are written before any is fsynced (the file system then flushes them together,
    about twice as fast as one by one here), and each folder is fsynced once at the end.
    """
    temps: list[tuple[Path, Path]] = []
    try:
        with contextlib.ExitStack() as open_files:
            handles = []
            for path, data in files:
                fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                            suffix=TEMP_SUFFIX)
                temps.append((Path(name), path))
                if mode is not None:
                    os.fchmod(fd, mode)
                handles.append(open_files.enter_context(os.fdopen(fd, "wb")))
                handles[-1].write(data)
                handles[-1].flush()
            for handle in handles:
                os.fsync(handle.fileno())
        for temp, target in temps:
            os.replace(temp, target)
    except BaseException:
        # The temp files are ours alone; leaving them would only be litter.
        for temp, _ in temps:
            temp.unlink(missing_ok=True)
        raise
    for folder in {target.parent for _, target in temps}:
        fsync_dir(folder)


def write_quick(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that a killed process leaves either the old or the
    new file; not fsynced, so a power cut may leave neither whole: for a note whose loss
    costs little (0600)."""
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` (made, or emptied first), readable by its owner alone
    (0600, whatever the umask and the file's mode before): for a file that holds a secret
    outside the store (an export holds the game's seed, a move's the password hashes)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(os.dup(fd), "wb") as handle:
            handle.write(data)
    finally:
        os.close(fd)


def dump_json(value: Any) -> bytes:
    """Give the compact UTF-8 JSON form of a value.

    TypeError or ValueError if the value is not plain JSON (NaN and infinities are refused:
    other JSON readers cannot parse them).
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.encode("utf-8")


def write_json_atomic(path: Path, value: Any) -> None:
    """Replace ``path`` with the JSON form of ``value``, crash-safely."""
    write_atomic(path, dump_json(value))


def read_json(path: Path) -> Any:
    """Give the parsed JSON content of ``path`` (FileNotFoundError if it is missing)."""
    return json.loads(path.read_bytes())


def make_dir(folder: Path) -> None:
    """Create ``folder`` (and missing parents) so that its name survives a crash."""
    if folder.is_dir():
        return
    make_dir(folder.parent)
    try:
        folder.mkdir(mode=0o700)  # the store holds players' addresses: its owner's only
    except FileExistsError:
        return
    fsync_dir(folder.parent)


def temp_files(root: Path, older_than: float = 0.0, *,
               young_in: Collection[Path] = ()) -> Iterator[Path]:
    """Give every temporary file a killed writer left anywhere under ``root``: only those
    last written more than ``older_than`` seconds ago (a younger one's writer may be at
    work), except under the folders ``young_in`` names, whose files are given whatever
    their age (their writers are known to be gone)."""
    now = time.time()
    for folder, _dirs, names in os.walk(root):
        aged = not any(Path(folder).is_relative_to(young) for young in young_in)
        for name in names:
            if name.startswith(".") and name.endswith(TEMP_SUFFIX):
                path = Path(folder) / name
                try:
                    if not aged or now - path.stat().st_mtime >= older_than:
                        yield path
                except FileNotFoundError:  # its writer finished meanwhile
                    continue


def note_holder(fd: int) -> None:
    """Write this process's id into a lock file just taken (``fd``), for whoever finds it
    taken; a disk too full to take the few bytes leaves it as it was: the lock is the flock,
    the id only a note (a daemon must start, and a game master's command run, on a full
    disk, to tell and to wait)."""
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
