"""Crash-safe file writes: a file is either its old whole content or its new whole content.

Every write goes to a temporary file in the same folder, is fsynced, renamed over the old
file with ``os.replace`` and then the folder is fsynced, so the new name survives a power
cut too. The game store uses these for its TinyDB files, raw mails and log segments.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
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


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so a crash leaves either the old or the new file."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        # The temp file is ours alone; leaving it would only be litter.
        Path(temp).unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


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
        folder.mkdir()
    except FileExistsError:
        return
    fsync_dir(folder.parent)


def move_atomic(source: Path, target: Path) -> None:
    """Rename ``source`` to ``target`` (same file system) and make both folders durable."""
    os.replace(source, target)
    fsync_dir(target.parent)
    if source.parent != target.parent:
        fsync_dir(source.parent)


def temp_files(root: Path) -> Iterator[Path]:
    """Give every temporary file a killed writer left anywhere under ``root``."""
    for folder, _dirs, names in os.walk(root):
        for name in names:
            if name.startswith(".") and name.endswith(TEMP_SUFFIX):
                yield Path(folder) / name
