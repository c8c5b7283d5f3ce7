"""Nobody can pass for a player, lock one out, or get backscatter out of the service
(issue 44, points 1 to 3), through the daemon's real SMTP listener.

The trusted mail server is "mx.pbem.test" (``[mail] trusted_authserv_id``): the tests write
its Authentication-Results header into the mails themselves, as a milter in front of the
listener would add it; a header of another server, or one of the trusted id below the
topmost, is what a forger can write, and counts for nothing.
"""

from __future__ import annotations

import smtplib
from pathlib import Path

from daemon_game import GM, GameDaemon
from daemons import GAME, T0, order_mail
from gm_cli import run
from servers import wait_until

from pbem.service.gm import add_observer
from pbem.service.postmaster import POSTMASTER
from pbem.service.service import Service
from pbem.store import Store

TRUSTED = 'trusted_authserv_id = "mx.pbem.test"\n'
PASS = ("Authentication-Results: mx.pbem.test; dkim=pass header.d=example.org; "
        "spf=pass smtp.mailfrom=example.org; dmarc=pass header.from=example.org\r\n")
FAIL = ("Authentication-Results: mx.pbem.test; dkim=none; spf=fail "
        "smtp.mailfrom=example.org; dmarc=fail (p=reject) header.from=example.org\r\n")


def _settled(store: Store) -> bool:
    with store.lock():
        return not store.inbox() and not store.outbox()


def _replies(game: GameDaemon, address: str) -> list[str]:
    """The In-Reply-To of each answer to ``address`` (its welcome is no answer)."""
    return [str(m["In-Reply-To"]) for m in game.mails().get(address, [])
            if m["In-Reply-To"]]


def _mail(sender: str, n: int, body: str, headers: str = "") -> bytes:
    return (f"From: {sender}\r\nTo: pbem@localhost\r\nSubject: hello\r\n"
            f"Message-ID: <m{n}@example.net>\r\n{headers}\r\n{body}\r\n").encode()


def test_a_from_the_trusted_server_calls_forged_is_never_answered_nor_counted(
        tmp_path: Path) -> None:
    """200 mails under Alice's From that the trusted server says fail DMARC (orders with a
    wrong password, lobby words): no answer, none of Alice's limits spent, each one in the
    postmaster's record with its verdict. A pass written by another server, or a trusted
    header below the topmost, changes nothing. Alice's own mail is then answered."""
    game = GameDaemon(tmp_path, TRUSTED)
    store = Store(game.config.store)
    forged_below = (FAIL + PASS.replace("dmarc=pass", "dmarc=pass (written by the forger)"))
    other_server = PASS.replace("mx.pbem.test", "mx.forger.example")
    with game.listening() as port, smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        for n in range(200):
            body = (f"GAME {GAME} PLAYER Alice PASSWORD wrong{n}\r\nSTATUS\r\nEND"
                    if n % 2 else "LIST")
            headers = forged_below if n % 3 == 0 else other_server + FAIL
            smtp.sendmail("alice@example.org", ["pbem@localhost"],
                          _mail("Alice <alice@example.org>", n, body, headers))
        assert wait_until(lambda: _settled(store), timeout=120)
        assert _replies(game, "alice@example.org") == []
        # Alice's own mail, vouched for: read and answered (no limit of hers was spent).
        smtp.sendmail("alice@example.org", ["pbem@localhost"],
                      game.orders(1, "Alice", "STANDING LIST").replace(
                          b"Message-ID", PASS.encode() + b"Message-ID"))
        assert wait_until(lambda: _settled(store) and _replies(game, "alice@example.org"),
                          timeout=120)
    assert _replies(game, "alice@example.org") == ["<order-1@example.org>"]
    with store.lock():
        forged = [e for e in store.log(POSTMASTER) if "forged" in e]
    assert len(forged) == 200
    assert all(e["forged"].startswith("fail (") and "dmarc=fail" in e["forged"]
               for e in forged)
    assert sum(e.get("game") == GAME for e in forged) == 100  # the order mails name it
    # The game master sees them in the game's history.
    shown = run(game.config.store, "history", GAME).output
    assert f"Mail naming {GAME} set aside as forged" in shown
    assert "alice@example.org  fail (dkim=none spf=fail dmarc=fail)" in shown


def test_a_header_of_another_server_is_no_verdict(tmp_path: Path) -> None:
    """A dmarc=fail written by a server the configuration does not trust is ignored: the
    mail is read as any other (its wrong password answered)."""
    game = GameDaemon(tmp_path, TRUSTED)
    game.deliver(game.orders(1, "Alice", "STATUS", password="wrong").replace(
        b"Message-ID", FAIL.replace("mx.pbem.test", "mx.other.example").encode()
        + b"Message-ID"))
    game.run()
    assert _replies(game, "alice@example.org") == ["<order-1@example.org>"]


KINDS = ("LIST", "HELP", f"JOIN {GAME} AS Mallory", f"OBSERVE {GAME}", f"UNOBSERVE {GAME}",
         f"TAKEOVER {GAME} Bob", f"GAME {GAME} PLAYER Alice PASSWORD x\r\nSTATUS\r\nEND",
         "GAME nosuchgame PLAYER X PASSWORD y\r\nSTATUS\r\nEND", "buy watches", "JOIN")


def test_forged_strangers_of_every_kind_get_ten_replies_in_all(tmp_path: Path) -> None:
    """100 mails from 100 forged strangers, ten of each kind (lobby words, orders, unknown
    games, junk): at most ``stranger_replies`` (10) replies in all. Strangers the trusted
    server vouches for are answered apart from that budget."""
    game = GameDaemon(tmp_path, TRUSTED)
    store = Store(game.config.store)
    with game.listening() as port, smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        for n in range(100):
            victim = f"victim{n}@example.net"
            smtp.sendmail(victim, ["pbem@localhost"], _mail(victim, n, KINDS[n % 10]))
        assert wait_until(lambda: _settled(store), timeout=120)
        for n in range(15):
            friend = f"friend{n}@example.org"
            smtp.sendmail(friend, ["pbem@localhost"], _mail(friend, 1000 + n, "LIST", PASS))
        assert wait_until(lambda: _settled(store), timeout=120)
    mails = game.mails()
    victims = [m for address, got in mails.items() if address.startswith("victim")
               for m in got]
    print(f"100 forged strangers of every kind: {len(victims)} replies")
    assert len(victims) <= 10
    assert len([a for a in mails if a.startswith("friend")]) == 15
    assert game.state().player("Bob").playing  # no forged TAKEOVER took a seat


def test_a_forged_unobserve_takes_no_observer_off(tmp_path: Path) -> None:
    """UNOBSERVE under an observer's From, not vouched for: the observer stays, and is
    mailed a code to confirm from their own mailbox; the code confirmed, they leave. An
    UNOBSERVE the trusted server vouches for is done at once."""
    game = GameDaemon(tmp_path, TRUSTED)
    service = Service(Store(game.config.store))
    for address in ("eve@example.org", "fay@example.org"):
        add_observer(service, GAME, address, T0)
    store = Store(game.config.store)
    with game.listening() as port, smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        for n in range(5):
            smtp.sendmail("eve@example.org", ["pbem@localhost"],
                          _mail("eve@example.org", n, f"UNOBSERVE {GAME}"))
        assert wait_until(lambda: _settled(store), timeout=60)
        observers = {o.address for o in service.service_record(GAME).audience.observers}
        assert observers == {"eve@example.org", "fay@example.org"}
        confirm = [t for t in game.text_to("eve@example.org") if f"UNOBSERVE {GAME} " in t]
        assert len(confirm) == 1  # once an hour, however many are forged
        code = confirm[0].split(f"UNOBSERVE {GAME} ", 1)[1].split()[0]
        smtp.sendmail("eve@example.org", ["pbem@localhost"],
                      _mail("eve@example.org", 10, f"UNOBSERVE {GAME} {code}"))
        smtp.sendmail("fay@example.org", ["pbem@localhost"],
                      _mail("fay@example.org", 11, f"UNOBSERVE {GAME}", PASS))
        assert wait_until(lambda: _settled(store), timeout=60)
    assert service.service_record(GAME).audience.observers == ()


def test_a_thousand_forged_wrong_passwords_do_not_lock_the_player_out(
        tmp_path: Path) -> None:
    """1,000 mails under Alice's From with wrong passwords (no word of the trusted server
    on them) and 1,000 LISTs under her From: her own mail, vouched for, is read and
    answered all the same; the game master is told once that the seat's password is being
    tried, and Alice gets at most one refusal of each kind."""
    game = GameDaemon(tmp_path, TRUSTED)
    store = Store(game.config.store)
    with game.listening() as port, smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        for n in range(1000):
            smtp.sendmail("alice@example.org", ["pbem@localhost"], order_mail(
                10_000 + n, "Alice", f"guess{n}", "STATUS"))
            smtp.sendmail("alice@example.org", ["pbem@localhost"],
                          _mail("alice@example.org", 20_000 + n, "LIST"))
        assert wait_until(lambda: _settled(store), timeout=600)
        forged_answers = len(_replies(game, "alice@example.org"))
        smtp.sendmail("alice@example.org", ["pbem@localhost"],
                      game.orders(1, "Alice", "STANDING LIST").replace(
                          b"Message-ID", PASS.encode() + b"Message-ID"))
        smtp.sendmail("alice@example.org", ["pbem@localhost"],
                      _mail("alice@example.org", 2, "LIST", PASS))
        assert wait_until(lambda: _settled(store), timeout=120)
    answered = set(_replies(game, "alice@example.org"))
    assert {"<order-1@example.org>", "<m2@example.net>"} <= answered
    print(f"2,000 forged mails under Alice's From: {forged_answers} answers to her")
    # At most one of each kind: the refusal, the word that more go unanswered this hour,
    # the notice that mail past the hourly limit goes unread, one LIST.
    assert forged_answers <= 4
    told = [str(m["Subject"]) for m in game.mails()[GM]]
    assert [s for s in told if "Wrong passwords" in s] == [
        f"Wrong passwords for Alice in game {GAME}: checks slowed down"]
