"""Paths the tests read and the one switch that rewrites every golden file.

``PBEM_UPDATE_GOLDENS=1 .venv/bin/pytest`` writes every golden file again (the reports'
mails in ``golden/reports/``, the composed report and the inbound mails' expectations in
``mails/``, the service transcripts in ``transcripts/``) before comparing; review the diff
before committing it. Without it a golden file that differs fails its test.
"""

from __future__ import annotations

import os
import re
import signal
import struct
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pbem.errors import IllegalCommandError, PbemError

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
TEMPLATES = REPO / "pbem" / "templates"
# shared/ lies beside the checkout (here and in CI): <checkout>/../shared/reference.
REFERENCE = Path(os.environ.get("PBEM_REFERENCE", REPO.parent / "shared" / "reference"))

REGENERATE_GOLDENS = "PBEM_UPDATE_GOLDENS"
REGENERATE = os.environ.get(REGENERATE_GOLDENS) == "1"


def check_golden(path: Path, content: str | bytes) -> None:
    """``content`` equals the golden file ``path``, byte for byte; with
    PBEM_UPDATE_GOLDENS=1 the file is written first (the test's other checks still run)."""
    raw = content.encode() if isinstance(content, str) else content
    if REGENERATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(raw)
    assert path.exists(), f"{path.name} is missing: run with {REGENERATE_GOLDENS}=1"
    assert raw == path.read_bytes(), (
        f"{path.name} changed; if on purpose, regenerate with {REGENERATE_GOLDENS}=1")


@contextmanager
def refuses(key: str, error: type[PbemError] = IllegalCommandError,
            **words: Any) -> Iterator[pytest.ExceptionInfo[PbemError]]:
    """Expects ``error`` raised with ``key`` and these of its ``words``: a refusal as the code
    names it (``pbem.refusal_keys``), never the English of a catalogue, so rewording a
    message breaks no test."""
    with pytest.raises(error) as refused:
        yield refused
    assert refused.value.key == key, f"refused with {refused.value.key!r}, not {key!r}"
    got = {word: refused.value.words.get(word) for word in words}
    assert got == words, f"{key} refused with {got}, not {words}"


# --- headless Chromium (the browser tests of the mails and the archive) ----------------------

_MAILDIR_NAME = re.compile(r"^(\d+)\.M(\d+)P\d+Q(\d+)\.")


def delivery_order(path: Path) -> tuple[int, int]:
    """Sort key of a Maildir file in the order it was delivered. Python's ``mailbox`` names
    a file ``<seconds>.M<microseconds>P<pid>Q<count>.<host>`` with neither number padded,
    so the names alone misorder two mails of one second (M99999 after M512345); the file's
    time alone ties within the kernel's clock tick. A name of another writer sorts by its
    time."""
    found = _MAILDIR_NAME.match(path.name)
    if found is None:
        return (path.stat().st_mtime_ns, 0)
    seconds, micro, count = (int(n) for n in found.groups())
    return (seconds * 10**9 + micro * 1000, count)


CHROMIUM = Path("/usr/bin/chromium")
# The opening of a page a test writes for Chromium: with no charset declared, Chromium may
# read its UTF-8 as windows-1252 ("contrÃ´lÃ©s").
PAGE_HEAD = '<!DOCTYPE html><html><head><meta charset="utf-8"></head>'
CHROMIUM_TIMEOUT = 180  # seconds; a first start on a cold machine is slow


@dataclass(frozen=True)
class BrowserVisit:
    """What headless Chromium gave for one page: the DOM after loading, the console lines."""

    dom: str
    console: list[str]


def chromium(page: Path, profile: Path, *, width: int, height: int,
             screenshot: Path | None = None, flags: Sequence[str] = ()) -> BrowserVisit:
    """Open ``page`` once in headless Chromium (``profile`` its own user data), in a window
    ``width`` x ``height``, a PNG ``screenshot`` if asked, ``flags`` added (e.g. a forced
    dark mode); fails the test if it does not end well within ``CHROMIUM_TIMEOUT``."""
    command = [
        str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
        f"--window-size={width},{height}", *flags,
        *((f"--screenshot={screenshot}",) if screenshot else ()), "--dump-dom", page.as_uri(),
    ]
    # Its own process group, so a hung browser is ended with all its helpers, by our pid.
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=CHROMIUM_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    assert proc.returncode == 0, err[-2000:]
    return BrowserVisit(out, [line for line in err.splitlines() if ":CONSOLE" in line])


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height
