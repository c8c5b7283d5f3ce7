"""A game's chat posts through a real daemon (``pbem run``): the game master names a webhook
with ``pbem game chat``, the game posts whose move and the public results there, and a
webhook that fails or never answers holds up none of the players' mail.

The webhook is a server of the test's own on 127.0.0.1 (``servers.ChatHook``), reached by
apprise's ``json://`` scheme: nothing is mocked."""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from daemons import CHEAP_PASSWORDS, PLAYERS, configure, maildir, order_mail, pbem_run, send
from servers import ChatHook, free_port, wait_until

from pbem.cli.gm import cli
from pbem.daemon.config import DaemonConfig
from pbem.service.service import Service
from pbem.store import Store
from pbem.transport import chat


def gm(config: DaemonConfig, *args: str) -> str:
    result = CliRunner().invoke(cli, [*args, "--store", str(config.store)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def game_posting_to(config: DaemonConfig, url: str) -> tuple[dict[str, str], list[str]]:
    """Game g1, its chat webhook set by the game master, started; the passwords, and the
    players in turn order."""
    service = Service(Store(config.store),
                      replace(config.service_config(), password_cost=CHEAP_PASSWORDS))
    service.create_game("g1", PLAYERS, seed="5eed" * 8)
    said = gm(config, "game", "chat", "g1", url)
    assert url not in said and "json://…" in said
    passwords = service.start_game("g1", datetime.now(UTC))
    return passwords, [p.name for p in service.state("g1").players]


def answered(config: DaemonConfig) -> int:
    """The mails delivered that answer a player's mail or report the turn it ended."""
    return sum(1 for box in maildir(config.maildir).values() for m in box
               if m["In-Reply-To"] or "Turn 2" in str(m.get_body(("plain",)).get_content()))


def test_the_game_posts_whose_move_and_the_public_results(tmp_path: Path) -> None:
    port = free_port()
    config = configure(tmp_path, f"[listener]\nport = {port}\n")
    with ChatHook() as hook:
        passwords, order = game_posting_to(config, hook.url)
        first_player, second_player = order[0], order[1]
        with pbem_run(tmp_path, port):
            assert wait_until(lambda: len(hook.posts) >= 1, timeout=60)
            send(port, order_mail(1, first_player, passwords[first_player], "PASS"),
                 sender=f"{first_player.lower()}@example.org")
            assert wait_until(lambda: len(hook.posts) >= 2, timeout=60)
        first, second = hook.posts[:2]
    assert first["title"] == f"[g1] Turn 1: {first_player}'s move"
    assert second["title"] == f"[g1] Turn 2: {second_player}'s move"
    assert f"{first_player} passed" in " ".join(second["message"].split())
    assert f"{second_player}'s move" in second["message"]
    # Public facts only: no password, no hand, and the webhook's token is in no mail.
    for post in hook.posts:
        assert not any(p in post["message"] for p in passwords.values())
        assert "hand" not in post["message"].lower()
    mails = [m.as_string() for box in maildir(config.maildir).values() for m in box]
    assert mails and not any(f"127.0.0.1:{hook.port}" in m for m in mails)
    assert f"127.0.0.1:{hook.port}" not in (tmp_path / "daemon.log").read_text()
    shown = gm(config, "game", "show", "g1") + gm(config, "game", "show", "g1", "--json")
    assert hook.url not in shown and "json://…" in shown
    history = gm(config, "history", "g1")  # the GM entry names the webhook's service only
    assert "chat (json)" in history and hook.url not in history


@pytest.mark.parametrize("answer", [500, None], ids=["answers-500", "never-answers"])
def test_a_failing_webhook_holds_up_no_mail(tmp_path: Path, answer: int | None) -> None:
    port = free_port()
    config = configure(tmp_path, f"[listener]\nport = {port}\n")
    with ChatHook(answer=answer) as hook:
        passwords, order = game_posting_to(config, hook.url)
        with pbem_run(tmp_path, port):
            assert wait_until(lambda: hook.tried >= 1, timeout=60)  # the webhook is tried
            send(port, order_mail(1, order[0], passwords[order[0]], "PASS"),
                 sender=f"{order[0].lower()}@example.org")
            # Alice's answer and everyone's report of turn 2 arrive all the same.
            assert wait_until(lambda: answered(config) >= 1 + len(PLAYERS), timeout=60)
            assert hook.posts == []
            posts = [i for i in Store(config.store).outbox() if i.to == "chat:g1"]
            assert posts  # kept, to be tried again on their own schedule
            if answer is None:  # the mail went while the first post still waited (30 s)
                assert not any(i.last_error for i in posts)
            if answer == 500:
                assert wait_until(lambda: any(i.last_error for i in Store(
                    config.store).outbox() if i.to == "chat:g1"), timeout=60)
            stopping = time.monotonic()
        # Told to stop, the daemon does not wait out the webhook's timeout (the post began
        # well under a second before the mail was answered), and the post still waiting for
        # it stays queued for the next start.
        assert time.monotonic() - stopping < chat.TIMEOUT / 2
        assert {i.outbox_id for i in posts} <= {
            i.outbox_id for i in Store(config.store).outbox() if i.to == "chat:g1"}
