"""``pbem game chat GAME URL|--off``: the game master names the chat webhook a game posts
its public events to (pbem.service.chat). The URL is kept in the game's record and shown to
nobody (masked in ``pbem game show``, its scheme only in the log); without apprise it is
refused, saying what to install; each turn report then queues a post for ``chat:<game>``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from gm_cli import PLAYERS, START, run, snapshot

from pbem.service.entries import GmChat, gm_event_of
from pbem.store import Store
from pbem.transport.chat import post_of

HOOK = "json://127.0.0.1:9/hook-token"


def created(tmp_path: Path) -> Path:
    store = tmp_path / "store"
    run(store, "game", "create", "g", *(a for p in PLAYERS for a in ("--player", p)),
        "--seed", "5eed" * 16, "--orders-hours", "72", now=START)
    return store


def test_a_webhook_set_is_kept_masked_and_posted_to(tmp_path: Path) -> None:
    store = created(tmp_path)
    said = run(store, "game", "chat", "g", HOOK, "--language", "fr", now=START).output
    assert "json://…" in said and "hook-token" not in said
    _, service = snapshot(store)
    assert service.audience.chat == HOOK and service.audience.chat_lang == "fr"
    entries = [gm_event_of(e) for e in Store(store).log("g")]
    chat = [e for e in entries if isinstance(e, GmChat)]
    assert chat == [GmChat(on=True, service="json", at=chat[0].at)]
    assert Store(store).log("g") and all(
        "hook-token" not in str(e) for e in Store(store).log("g"))
    run(store, "game", "start", "g", now=START)
    posts = [i for i in Store(store).outbox() if i.to == "chat:g"]
    assert len(posts) == 1 and b"hook-token" not in posts[0].raw
    assert b"Tour 1" in posts[0].raw  # in French, as asked
    for args in (("game", "show", "g"), ("game", "show", "g", "--json")):
        shown = run(store, *args).output
        assert "hook-token" not in shown and "json://…" in shown


def test_off_stops_the_posts(tmp_path: Path) -> None:
    store = created(tmp_path)
    run(store, "game", "chat", "g", HOOK, now=START)
    said = run(store, "game", "chat", "g", "--off", now=START).output
    assert "no chat" in said
    _, service = snapshot(store)
    assert service.audience.chat == ""
    run(store, "game", "start", "g", now=START)
    assert not [i for i in Store(store).outbox() if i.to.startswith("chat:")]
    log = [gm_event_of(e) for e in Store(store).log("g")]
    assert [e.on for e in log if isinstance(e, GmChat)] == [True, False]


def test_without_apprise_a_webhook_is_refused(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    store = created(tmp_path)
    monkeypatch.setitem(sys.modules, "apprise", None)  # as if it were not installed
    said = run(store, "game", "chat", "g", HOOK, now=START, code=1).output
    assert "pip install 'pbem[chat]'" in said
    assert snapshot(store)[1].audience.chat == ""


def test_a_url_apprise_does_not_know_is_refused(tmp_path: Path) -> None:
    store = created(tmp_path)
    run(store, "game", "chat", "g", "nosuchservice://token", now=START, code=1)
    run(store, "game", "chat", "g", now=START, code=2)  # neither a URL nor --off
    assert snapshot(store)[1].audience.chat == ""


def test_the_game_masters_overrides_are_posted_too(tmp_path: Path) -> None:
    """A deadline moved, a pause and a resume are told to the chat as to the players, alone
    (not the turn's news again), without the players' addresses."""
    store = created(tmp_path)
    run(store, "game", "chat", "g", HOOK, now=START)
    run(store, "game", "start", "g", now=START)
    run(store, "extend", "g", "--hours", "24")
    run(store, "pause", "g")
    posts = [i for i in Store(store).outbox() if i.to == "chat:g"]
    assert len(posts) == 3  # the start's report, the extension, the pause
    texts = [" ".join(post_of(i.raw)[1].split()) for i in posts]
    assert "What the game master did:" in texts[1]
    assert "extended the orders deadline by 24 hours" in texts[1]
    assert "paused" in texts[2]
    assert "Turn 1 begins" in texts[0] and "Turn 1 begins" not in texts[1] + texts[2]
    assert not any("@example.org" in t for t in texts)
