"""Mails processed in rounds: a round's steps of one game are one store write, and the outcome
is exactly that of processing the mails one at a time."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from pbem.service import service as service_module
from pbem.service.postmaster import POSTMASTER
from pbem.service.service import BATCH, Service, ServiceConfig
from pbem.service.settings import MailIdentity
from pbem.store.memory import MemoryStore

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
PLAYERS = (("ann", "ann@example.org", ""), ("bob", "bob@example.org", ""),
           ("cy", "cy@example.org", ""))
BODIES = ("STANDING LIST", "SET HTML OFF", "STANDING DEFEND ANY UPTO 3", "STATUS",
          "PRESS TO {other}\nA word in private.\nEND PRESS", "SET HTML ON", "HELP")


def mails(count: int) -> list[bytes]:
    names = [p[0] for p in PLAYERS]
    out = []
    for n in range(count):
        player, other = names[n % 3], names[(n + 1) % 3]
        body = BODIES[n % len(BODIES)].format(other=other)
        out.append((f"From: {player} <{player}@example.org>\r\nTo: pbem@localhost\r\n"
                    f"Subject: orders {n}\r\nMessage-ID: <m{n}@example.org>\r\n\r\n"
                    f"GAME g PLAYER {player} PASSWORD pw\r\n{body}\r\nEND\r\n").encode())
    return out


def new_service() -> Service:
    config = ServiceConfig(sender=MailIdentity(gm_address="gm@example.org"),
                           passwords=lambda game, player: "pw", password_cost=1)
    service = Service(MemoryStore(), config)
    service.create_game("g", PLAYERS, seed="5eed" * 16)
    service.start_game("g", NOW)
    return service


def outcome(service: Service) -> tuple[Any, ...]:
    """All a game is, but its password hashes (salted at random)."""
    record = service.service_record("g")
    record = replace(record, seats=tuple(replace(s, password_hash="") for s in record.seats))
    with service.store.lock():
        outbox = [(i.outbox_id, i.to, i.raw) for i in service.store.outbox()]
        return (service.state("g"), record, list(service.store.log("g")), outbox,
                service.store.inbox())


def spy_commits(service: Service, monkeypatch: pytest.MonkeyPatch,
                fail: Callable[[dict[str, Any]], bool] = lambda kw: False) -> list[int]:
    """Count the mails of each commit of game g (and fail those ``fail`` picks)."""
    counts: list[int] = []
    real = service.store.commit

    def commit(game_id: str, **kw: Any) -> None:
        if game_id == "g" and kw.get("mail_ids"):
            if fail(kw):
                raise OSError("simulated full disk")
            counts.append(len(kw["mail_ids"]))
        real(game_id, **kw)

    monkeypatch.setattr(service.store, "commit", commit)
    return counts


def test_a_round_is_one_write_and_equals_one_mail_at_a_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each mail is still its own step (numbered, logged and answered as if alone): state,
    service record, log and outgoing mails match a run that processed after every mail."""
    count = BATCH + 10
    batched, alone = new_service(), new_service()
    commits = spy_commits(batched, monkeypatch)
    for raw in mails(count):
        batched.accept(raw, NOW)
        alone.receive(raw, NOW)
    assert batched.process(NOW) == count
    assert commits == [BATCH, 10]
    assert outcome(batched) == outcome(alone)
    assert batched.service_record("g").steps == 1 + count
    assert batched.replay_check("g")


def test_after_round_is_called_once_a_round_is_committed() -> None:
    """The daemon's sending loop is woken after each round, with that round's answers
    already queued, so they leave while later rounds are processed."""
    service = new_service()
    for raw in mails(BATCH + 10):
        service.accept(raw, NOW)
    queued: list[tuple[int, int]] = []

    def after_round() -> None:
        queued.append((len(service.store.inbox()), len(service.store.outbox())))

    assert service.process(NOW, after_round=after_round) == BATCH + 10
    (inbox_first, outbox_first), (inbox_last, outbox_last) = queued
    assert (inbox_first, inbox_last) == (10, 0)
    assert 0 < outbox_first < outbox_last == len(service.store.outbox())


def test_a_mail_breaking_mid_round_is_taken_back_alone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug while carrying out one mail undoes that mail's half-done step only: the mails
    before and after it in the round are applied as if it had never come; it is set aside."""
    real = service_module.carry_out_mail

    def breaks_on_html_off(table: Any, seat: Any, parsed: Any, **kw: Any) -> Any:
        result = real(table, seat, parsed, **kw)
        if "SetHtml(enabled=False)" in repr(parsed.orders):  # made by now: to be undone
            raise RuntimeError("simulated bug after the orders were carried out")
        return result

    monkeypatch.setattr(service_module, "carry_out_mail", breaks_on_html_off)
    batched, alone = new_service(), new_service()
    for raw in mails(14):  # mails 1 and 8 say SET HTML OFF
        batched.accept(raw, NOW)
        alone.receive(raw, NOW)
    assert batched.process(NOW) == 14
    assert outcome(batched) == outcome(alone)
    with batched.store.lock():
        failed = batched.store.meta(POSTMASTER)["failed"]
    assert len(failed) == 2
    assert batched.service_record("g").steps == 1 + 12


def test_a_round_whose_write_fails_is_done_again_one_mail_at_a_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """If the round's write fails, its mails are handled again one by one: none is lost,
    none set aside, and the outcome is the same."""
    batched, alone = new_service(), new_service()
    commits = spy_commits(batched, monkeypatch, fail=lambda kw: len(kw["mail_ids"]) > 1)
    for raw in mails(9):
        batched.accept(raw, NOW)
        alone.receive(raw, NOW)
    assert batched.process(NOW) == 9
    assert commits == [1] * 9
    assert outcome(batched) == outcome(alone)
    with batched.store.lock():
        assert "failed" not in batched.store.meta(POSTMASTER)
