"""The chat poster (pbem.transport.chat): a post reaches a webhook of the test's own through
apprise, a webhook that fails or never answers is deferred, a game without a webhook drops
its post, and a URL apprise does not know is refused."""

from __future__ import annotations

import logging
import time

import pytest
from servers import ChatHook

from pbem.errors import ConfigError
from pbem.transport.chat import ChatPoster, check_url, post_of
from pbem.transport.sender import RecipientDeferred

POST = (b"From: g1@pbem.example\r\nTo: g1@pbem.example\r\nSubject: [g1] Turn 2: Bob's move\r\n"
        b"Message-ID: <p1@pbem.example>\r\nMIME-Version: 1.0\r\n"
        b"Content-Type: text/plain; charset=utf-8\r\n\r\nIt is Bob's move.\r\n")


def test_the_post_is_the_subject_and_the_text() -> None:
    assert post_of(POST) == ("[g1] Turn 2: Bob's move", "It is Bob's move.")


def test_a_post_reaches_the_webhook() -> None:
    with ChatHook() as hook:
        ChatPoster(lambda to: hook.url if to == "chat:g1" else None).send("chat:g1", POST)
        assert len(hook.posts) == 1
        assert hook.posts[0]["title"] == "[g1] Turn 2: Bob's move"
        assert hook.posts[0]["message"] == "It is Bob's move."


def test_a_webhook_that_fails_defers_the_post() -> None:
    with ChatHook(answer=500) as hook:
        with pytest.raises(RecipientDeferred):
            ChatPoster(lambda to: hook.url).send("chat:g1", POST)
        assert hook.tried == 1 and hook.posts == []


def test_a_webhook_that_never_answers_defers_the_post_after_the_timeout() -> None:
    with ChatHook(answer=None) as hook:
        began = time.monotonic()
        with pytest.raises(RecipientDeferred):
            ChatPoster(lambda to: hook.url, timeout=0.5).send("chat:g1", POST)
        assert time.monotonic() - began < 30  # the timeout, not the server's 60 s
        assert hook.tried == 1


def test_a_game_posting_nowhere_drops_the_post() -> None:
    with ChatHook() as hook:
        ChatPoster(lambda to: None).send("chat:g1", POST)  # no error: nothing to do
        assert hook.tried == 0


def test_a_url_apprise_does_not_know_is_refused() -> None:
    check_url("json://127.0.0.1:9/hook")
    with pytest.raises(ConfigError):
        check_url("nosuchservice://token")


def test_the_webhook_token_is_never_logged(caplog: pytest.LogCaptureFixture) -> None:
    """apprise names the whole URL in its debug lines: they are not logged."""
    with ChatHook(answer=500) as hook, caplog.at_level(logging.DEBUG):
        url = hook.url.replace("/hook", "/secret-token-xyz")
        with pytest.raises(RecipientDeferred):
            ChatPoster(lambda to: url).send("chat:g1", POST)
    assert caplog.records  # the failure is logged ...
    assert not any("secret-token-xyz" in r.getMessage() for r in caplog.records)  # ... not it


def test_a_post_longer_than_the_service_takes_goes_in_several() -> None:
    """ntfy takes 7,800 characters a message (Discord 2,000): a longer post is split, not
    sent whole to be refused at every retry."""
    body = "\r\n".join(f"- event {n:05d} of a long turn." for n in range(400)).encode()
    with ChatHook() as hook:
        url = f"ntfy://127.0.0.1:{hook.port}/pbem-g1"
        ChatPoster(lambda to: url).send("chat:g1", POST.replace(b"It is Bob's move.", body))
        assert len(hook.posts) >= 2
        told = "\n".join(p["message"] for p in hook.posts)
        assert all(f"event {n:05d}" in told for n in (0, 199, 399))
