"""The lobby's log entries are typed (issue 36, point 4): each stored form the lobby has
always written reads back as its frozen entry and is written again byte for byte, so lobbies
written before read the same; an unknown kind is a damaged log, not a silent skip."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pbem.errors import StoreError
from pbem.service.entries import GmJoinDeclined, GmSignupClosed
from pbem.service.lobby_log import (
    LOBBY_KINDS,
    LobbyClosed,
    LobbyJoin,
    LobbyReject,
    LobbyWait,
    lobby_entry,
)
from pbem.service.signup import FOLDS, replay

AT = "2026-12-02T12:00:00+00:00"
GM_CLOSED = {"kind": "signup_closed", "data": {"game": "h", "told": ["Ann"],
                                                "deleted": True, "reason": "r"}}
# Each shape as pbem.service.signup wrote it before its entries were typed.
STORED: list[dict[str, Any]] = [
    {"kind": "open", "game": "g", "opening": {"seats": 3, "fill_by": "", "approval": True,
                                               "options": None, "timing": None, "lang": "en",
                                               "observers": True, "press": False,
                                               "seed": ""}, "at": AT},
    {"kind": "join", "game": "g", "name": "Ann", "address": "ann@x.org",
     "prefer": ["The UFOs"], "lang": "en", "mail_id": "m1", "at": AT},
    {"kind": "approve", "game": "g", "name": "Ann", "at": AT},
    {"kind": "observe", "game": "g", "address": "obs@x.org", "lang": "fr", "mail_id": "m2",
     "at": AT},
    {"kind": "join", "game": "g", "name": "Bob", "address": "bob@x.org", "prefer": [],
     "lang": "en", "mail_id": "m3", "at": AT},
    {"kind": "extended", "game": "g", "fill_by": AT, "hours": 24.0, "by": "gm", "reason": "",
     "gm": {"kind": "signup_extended", "data": {"game": "g", "hours": 24.0, "fill_by": AT,
                                                "fill_by_utc": "2026-12-02 12:00",
                                                "reason": ""}}, "at": AT},
    {"kind": "reject", "game": "g", "name": "Bob", "by": "gm", "reason": "no",
     "gm": {"kind": "join_declined", "data": {"game": "g", "name": "Bob", "reason": "no"}},
     "at": AT},
    {"kind": "list", "mail_id": "m4", "at": AT},
    {"kind": "help", "mail_id": "m5", "at": AT},
    {"kind": "refused", "mail_id": "m6", "at": AT},
    {"kind": "refused", "game": "nope", "mail_id": "m7", "at": AT},
    {"kind": "started", "game": "g", "at": AT},
    {"kind": "wait", "game": "g", "name": "Cy", "address": "cy@x.org", "prefer": [],
     "lang": "en", "at": AT},
    {"kind": "closed", "game": "h", "at": AT},
    {"kind": "closed", "game": "h", "by": "gm", "why": "deleted", "reason": "r",
     "gm": GM_CLOSED, "at": AT},
]


@pytest.mark.parametrize("stored", STORED, ids=lambda s: str(s["kind"]))
def test_each_stored_form_reads_as_its_entry_and_is_written_the_same(
        stored: dict[str, Any]) -> None:
    entry = lobby_entry(stored)
    assert type(entry) is LOBBY_KINDS[stored["kind"]]
    assert json.dumps(entry.stored()) == json.dumps(stored)


def test_every_kind_is_among_the_shapes_and_every_change_has_its_fold() -> None:
    assert {s["kind"] for s in STORED} == set(LOBBY_KINDS)
    assert set(FOLDS) == {k for k in LOBBY_KINDS.values() if k.changes}


def test_the_fields_read_are_typed() -> None:
    join, wait = lobby_entry(STORED[1]), lobby_entry(STORED[12])
    assert join == LobbyJoin("g", "Ann", "ann@x.org", ("The UFOs",), "en", mail_id="m1", at=AT)
    assert isinstance(wait, LobbyWait) and wait.prefer == ()
    reject = lobby_entry(STORED[6])
    assert isinstance(reject, LobbyReject) and isinstance(reject.gm, GmJoinDeclined)
    closed = lobby_entry(STORED[-1])
    assert isinstance(closed, LobbyClosed) and isinstance(closed.gm, GmSignupClosed)
    assert closed.gm.at == AT


def test_a_log_replays_to_its_lobby() -> None:
    meta = replay(STORED[:13])  # (h was never opened)
    assert meta["open"] == {}  # g started
    assert [p["name"] for p in meta["waiting"]["g"]] == ["Cy"]


def test_an_unknown_kind_is_a_damaged_log() -> None:
    with pytest.raises(StoreError):
        lobby_entry({"kind": "teleport", "at": AT})
