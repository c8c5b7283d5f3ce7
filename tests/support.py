"""Paths the tests read and the one switch that rewrites every golden file.

``PBEM_UPDATE_GOLDENS=1 .venv/bin/pytest`` writes every golden file again (the reports'
mails in ``golden/reports/``, the composed report and the inbound mails' expectations in
``mails/``, the service transcripts in ``transcripts/``) before comparing; review the diff
before committing it. Without it a golden file that differs fails its test.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
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
