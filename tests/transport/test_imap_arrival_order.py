"""IMAP mail is applied in the order it reached the server (INTERNALDATE), not in UID order:
Dovecot files mails delivered at once (an LMTP process each) in whatever order they finish,
so a later UID may hold an earlier mail.

Real Dovecot and real Cyrus (folders under ``INBOX.``, a run_once files them there): two
order mails of one player, APPENDed with explicit internal dates in the
other order than their UIDs (the later mail first); a real daemon fetches them in one pass
(``run_once``). The player's last order must win: the time zone set by the later mail.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from robust_kit import config, new_game, order
from servers import Account, MailServer

from pbem.daemon.server import Daemon
from pbem.service.service import Service
from pbem.store import Store


@pytest.fixture(params=["dovecot", "cyrus"])
def server(request: pytest.FixtureRequest) -> MailServer:
    found: MailServer = request.getfixturevalue(request.param)
    return found


@pytest.fixture
def account(server: MailServer) -> Account:
    return server.add_user()


def test_a_games_imap_mail_goes_in_the_order_it_arrived(tmp_path: Path, server: MailServer,
                                                        account: Account) -> None:
    path = tmp_path / "pbem.toml"
    path.write_text(f"""[store]
path = "{tmp_path / 'store'}"
[mail]
mails_per_hour = 1000000
[imap]
host = "127.0.0.1"
port = {server.imap_port}
security = "plain"
username = "{account.username}"
password = "{account.password}"
answer_earlier_mail = true
[maildir]
path = "{tmp_path / 'maildirs'}"
""")
    cfg = config(path)
    passwords = new_game(cfg, "order")
    sent = datetime.now(UTC).replace(microsecond=0)
    earlier = order("tz-1", "order", "Alice", passwords["Alice"], "SET TIMEZONE Asia/Tokyo")
    later = order("tz-2", "order", "Alice", passwords["Alice"], "SET TIMEZONE Europe/Paris")
    with server.client(account) as client:
        client.append("INBOX", later, msg_time=sent)  # the lower UID
        client.append("INBOX", earlier, msg_time=sent - timedelta(minutes=5))
        uids = client.select_folder("INBOX")
        assert uids[b"EXISTS"] == 2
    done = Daemon(cfg).run_once()
    assert done.processed == 2 and not done.problems
    seat = next(s for s in Service(Store(cfg.store)).service_record("order").seats
                if s.name == "Alice")
    assert seat.tz == "Europe/Paris"
    assert len(server.messages(account, "pbem-done")) == 2
