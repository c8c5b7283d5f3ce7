"""The game master's alerts are bounded and grouped (issue 44, point 4), through the daemon:
mails given up by the relay and wrong passwords for two seats make one notice at once (the
first alert), then one notice half an hour later that counts the others by kind and tells
each, not a mail per event."""

from __future__ import annotations

from pathlib import Path

from clocks import Clock
from daemons import configure, new_game, order_mail, parse, smtp_relay
from servers import SmtpCatcher

from pbem.daemon.server import Daemon
from pbem.service.gate import WRONG_FREE

GM = "gm@example.org"
BOB = "bob@example.org"


def _to_gm(catcher: SmtpCatcher) -> list[str]:
    return [str(parse(m.raw)["Subject"]) for m in catcher.mails if m.rcpt_tos == (GM,)]


def test_alerts_of_several_kinds_are_told_at_once_then_in_one_grouped_notice(
        tmp_path: Path, smtp_catcher: SmtpCatcher) -> None:
    config = configure(tmp_path, smtp_relay(smtp_catcher.port, f'[mail]\ngm_address = "{GM}"\n'))
    smtp_catcher.reject = {BOB}
    new_game(config)
    clock = Clock()
    daemon = Daemon(config, clock=clock)
    assert daemon.run_once().flush.given_up == 2  # Bob's welcome and report
    for n in range(WRONG_FREE + 5):  # a password guessed at for two seats
        for player in ("Alice", "Carol"):
            daemon.deliver_smtp(order_mail(100 * n + len(player), player, f"guess{n}", "STATUS"),
                                f"{player.lower()}@example.org", ["pbem@localhost"])
    daemon.run_once()
    daemon.run_once()
    assert _to_gm(smtp_catcher) == [f"A mail to {BOB} could not be delivered"]
    clock.advance(31 * 60)
    daemon.tick()
    daemon.run_once()
    told = _to_gm(smtp_catcher)
    assert told[1:] == ["3 alerts: 1 mail given up, 2 seats with wrong passwords"]
    notice = parse(next(m.raw for m in smtp_catcher.mails[::-1] if m.rcpt_tos == (GM,)))
    text = " ".join(notice.get_body(("plain",)).get_content().split())
    assert f"A mail to {BOB} could not be delivered" in text
    assert "Wrong passwords for Alice in game g1" in text
    assert "Wrong passwords for Carol in game g1" in text
    # Quiet again: nothing more comes.
    clock.advance(31 * 60)
    daemon.tick()
    daemon.run_once()
    assert len(_to_gm(smtp_catcher)) == 2
