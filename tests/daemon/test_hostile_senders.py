"""Mail from hostile senders through the real daemon (issue 21, point 4): From addresses
with NUL, control or non-ASCII characters and order lines made to trip the reader, seeded.

Every such mail gets a bounded, clear outcome -- an answer when its address can be
answered, else a line in the log -- and none makes processing raise; the game master hears
of a mail that broke at most once per ``ALERT_INTERVAL``, summed up.
"""

from __future__ import annotations

import logging
import random
from pathlib import Path

import pytest
from daemon_game import GAME, GM, GameDaemon

import pbem.service.service as service_module
from pbem.mail.inbound import InboundMail
from pbem.service.postmaster import ALERT_INTERVAL

SEED = 21_04
MAILS = 240

_BAD_CHARS = ["\x00", "\x01", "\x07", "\x1b", "\x7f", "\t", "\u00e9", "\u202e", "\u200b",
              "\ufeff", "\udcff", "\U0001f600", "\u0430", "\\", '"', "'", "(", ")", ",", ";",
              ":", "<", ">", "@", " ", "\r", "\n "]
_WORDS = ["DROP", "ATTACK", "GIVE", "MB", "TO", "PRESS", "END", "PASS", "STATUS", "SET",
          "PLAY", "WITH", "USING", "'", '"', "'\"x", "\u201c", "\u00ab", "Bob", "ALL", "ME",
          "1", "-1", "99999999999999999999", "\x00", "\u00e9t\u00e9", "TURN", "DEFEND",
          "STANDING", "GAME", "PASSWORD", "\u202e", "=?utf-8?q?x?=", "HELP", "HISTORY"]


def _from_header(rng: random.Random) -> str:
    """A From header: an address spoiled by some of ``_BAD_CHARS``, or an odd form; one in
    four a plain address, a player's or a stranger's."""
    if rng.random() < 0.25:
        return rng.choice(["alice@example.org", "bob@example.org", "Carol <carol@example.org>",
                           f"x{rng.randint(1, 50)}@example.net"])
    local = "".join(rng.choice("abcxyz.") for _ in range(rng.randint(1, 8))) or "a"
    domain = rng.choice(["example.org", "ex\u00e4mple.org", "[127.0.0.1]", "x", ""])
    for _ in range(rng.randint(1, 3)):
        at = rng.randint(0, len(local))
        local = local[:at] + rng.choice(_BAD_CHARS) + local[at:]
    address = f"{local}@{domain}"
    return rng.choice([
        address, f"<{address}>", f"Eve <{address}>", f'"{local}" <{local}@{domain}>',
        f"=?utf-8?q?{local.encode('utf-8', 'surrogatepass').hex()}?= <{address}>",
        f"=?utf-8?b?AAEC?= <{address}>", f"{address}, bob@example.org", address * 3,
        f"Eve <{address}", "undisclosed-recipients:;", "",
    ])


def _order_line(rng: random.Random) -> str:
    if rng.random() < 0.15:
        return "DROP '\"x '\"x"
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 6)))


def _mail(rng: random.Random, n: int, passwords: dict[str, str]) -> bytes:
    player = rng.choice(["Alice", "Bob", "Carol", "Al'ice", "\u00c9ve", "\x00", "ALL"])
    password = passwords.get(player, "x") if rng.random() < 0.3 else rng.choice(
        ["x", "'\"x", "\x00", "\u00e9"])
    lines = [_order_line(rng) for _ in range(rng.randint(1, 5))]
    game = rng.choice([GAME, GAME, "g\u00e9", "<b>x</b>"])
    start = f"GAME {game} PLAYER {player} PASSWORD {password}"
    body = "\r\n".join([start, *lines, *(["END"] if rng.random() < 0.7 else [])])
    head = f"From: {_from_header(rng)}\r\nTo: pbem@localhost\r\nSubject: fuzz {n}\r\n" \
           f"Message-ID: <fuzz-{n}@example.org>\r\n"
    charset = rng.choice(["utf-8", "latin-1"])
    head += f"Content-Type: text/plain; charset={charset}\r\n\r\n"
    return head.encode("utf-8", "surrogateescape") + body.encode(charset, "replace")


def test_hostile_from_headers_and_order_lines_crash_nothing_and_alerts_are_bounded(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    game = GameDaemon(tmp_path)
    rng = random.Random(SEED)
    caplog.set_level(logging.INFO)
    for n in range(MAILS):
        game.deliver(_mail(rng, n, game.passwords),
                     rng.choice(["relay@example.net", "eve@example.org"]))
        if n % 40 == 39:
            game.run()
            game.clock.advance(600)  # four hours in all: the alerts' limit comes round
    game.run()
    broke = [r for r in caplog.records if r.getMessage().endswith("could not be processed")]
    alerts = game.mails().get(GM, [])
    answered = {str(m["In-Reply-To"]) for mails in game.mails().values() for m in mails
                if str(m["In-Reply-To"] or "").startswith("<fuzz-")}
    unanswered = [r for r in caplog.records if "gets no answer" in r.getMessage()]
    hours = MAILS // 40 * 600 / ALERT_INTERVAL.total_seconds()
    print(f"{MAILS} fuzzed mails: {len(broke)} broke, {len(alerts)} GM alerts, "
          f"{len(answered)} answered, {len(unanswered)} logged unanswered")
    assert broke == []
    assert len(alerts) <= hours + 1
    assert len(answered) + len(unanswered) == MAILS  # one clear outcome each
    logged = "\n".join(r.getMessage() + str(r.exc_text or "") for r in caplog.records)
    assert not any(secret in logged for secret in game.passwords.values())
    with game.daemon.store.lock():
        assert game.daemon.store.inbox() == []


def test_mails_that_break_tell_the_game_master_once_per_interval_summed_up(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug that breaks every mail of a kind: 60 such mails over two hours give the game
    master at most one notice per ``ALERT_INTERVAL`` (the first at once), each counting the
    mails that broke since the one before, and the deadline tick sends the last summary.
    Each sender is told that nothing was done."""
    game = GameDaemon(tmp_path, "stranger_replies = 30\n")  # every sender told
    real = service_module.parse_mail

    def breaks_on_poison(data: bytes, **kw: int) -> InboundMail:
        if b"poison" in data:
            raise RuntimeError("simulated bug")
        return real(data, **kw)

    monkeypatch.setattr(service_module, "parse_mail", breaks_on_poison)
    for n in range(60):
        game.deliver(f"From: x{n}@example.net\r\nMessage-ID: <p{n}@x>\r\n\r\npoison\r\n"
                     .encode())
        game.run()
        game.clock.advance(120)
    game.clock.advance(ALERT_INTERVAL.total_seconds())
    game.daemon.tick()  # the mails that broke since the last notice
    game.run()  # (that notice sent)
    subjects = [str(m["Subject"]) for m in game.mails()[GM]]
    counts = [int(s.split()[0]) if s[0].isdigit() else 1 for s in subjects]
    print(f"60 mails broke: {len(subjects)} notices to the game master: {subjects}")
    assert len(subjects) <= 2 * 3600 / ALERT_INTERVAL.total_seconds() + 2
    assert sum(counts) == 60
    assert all("could not be processed" in s for s in subjects)
    text = game.text_to(GM)[-1]
    assert "RuntimeError" in " ".join(text.split())
    told = {address: [str(m["Subject"]) for m in mails]
            for address, mails in game.mails().items() if address.endswith(".net")}
    assert told == {f"x{n}@example.net": ["Your mail could not be processed: nothing was done"]
                    for n in range(60)}
