"""The daemon with an OAuth2 mailbox and a provider's sending limits: the configuration,
`pbem auth login`, `pbem doctor`, a revoked login (mail held, the game master told, nothing
lost) and the sending caps (mail held, then sent in order), against a real SMTP server
(aiosmtpd checking XOAUTH2 tokens at a token service on loopback). The token libraries'
HTTP requests reach that token service (``route_providers_to``), the one thing mocked."""

from __future__ import annotations

import email
import email.policy
import logging
import os
import threading
import urllib.parse
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from clocks import T0, Clock
from servers import Account, Dovecot, SmtpCatcher, TokenServer, wait_until

from pbem.cli.main import main as pbem_main
from pbem.daemon.alarms import SMTP_LOGIN, read_alarms
from pbem.daemon.config import DaemonConfig, load_config
from pbem.daemon.doctor import examine
from pbem.daemon.intake import make_imap_intake
from pbem.daemon.outbox import read_hold
from pbem.daemon.server import Daemon
from pbem.errors import ConfigError
from pbem.service.model import parse_iso
from pbem.service.service import Service
from pbem.store import Store
from pbem.transport.oauth import OAuthSettings, login_google, read_login, write_login

PLAYERS = (("Alice", "alice@example.org", ""), ("Bob", "bob@example.org", ""),
           ("Carol", "carol@example.org", ""))
GM = "gm@example.org"


def configure(folder: Path, toml: str) -> DaemonConfig:
    path = folder / "pbem.toml"
    path.write_text(f'[store]\npath = "store"\n[listener]\nport = 0\n{toml}')
    return load_config(path, env={})


def oauth_toml(port: int, extra: str = "") -> str:
    return f"""[mail]
gm_address = "{GM}"
[oauth]
provider = "google"
client_id = "client-id"
client_secret = "client-secret"
[smtp]
host = "127.0.0.1"
port = {port}
security = "plain"
username = "{GM}"
auth = "oauth2"
{extra}"""


def new_game(config: DaemonConfig) -> None:
    service = Service(Store(config.store), replace(config.service_config(), password_cost=10))
    service.create_game("g1", PLAYERS, seed="5eed" * 8)
    service.start_game("g1", T0)


def keep_login(config: DaemonConfig, server: TokenServer) -> OAuthSettings:
    assert config.smtp is not None and config.smtp.oauth is not None
    settings = config.smtp.oauth
    write_login(settings.token_file, {"provider": "google", "username": GM,
                                      "refresh_token": server.grant(GM)})
    return settings


def message_ids(mails: list[bytes]) -> list[str]:
    return [str(email.message_from_bytes(raw, policy=email.policy.default)["Message-ID"])
            for raw in mails]


# ---- configuration ---------------------------------------------------------------------


def test_the_configuration_reads_oauth_and_the_limits(tmp_path: Path) -> None:
    config = configure(tmp_path, oauth_toml(2525, "max_per_minute = 30\nmax_per_day = 2000\n"))
    assert config.smtp is not None and config.smtp.oauth is not None
    assert config.smtp.oauth.provider == "google"
    assert config.smtp.oauth.token_file == config.store / "daemon" / "oauth-token.json"
    assert (config.smtp.max_per_minute, config.smtp.max_per_day) == (30, 2000)
    assert config.smtp.password is None


def test_the_configuration_names_what_oauth_lacks(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"needs an \[oauth\] section"):
        configure(tmp_path, '[smtp]\nhost = "h"\nusername = "u@example.org"\nauth = "oauth2"\n')
    with pytest.raises(ConfigError, match="client secret"):
        configure(tmp_path, '[oauth]\nprovider = "microsoft-app"\nclient_id = "c"\n')
    with pytest.raises(ConfigError, match="29 minutes"):
        configure(tmp_path, '[imap]\nhost = "h"\nusername = "u"\npassword = "p"\n'
                            'idle_seconds = 1800\n')


# ---- pbem auth login and pbem doctor ----------------------------------------------------


def test_google_login_by_pasting_the_address_the_browser_went_to(
        tmp_path: Path, provider: TokenServer) -> None:
    """The headless way: the consent page opens in any browser; the game master pastes the
    localhost address it ends on (the code in it is what Google's would hold)."""
    settings = OAuthSettings("google", "client-id", tmp_path / "login.json",
                             client_secret="client-secret")
    said: list[str] = []

    def browser(prompt: str) -> str:
        consent = next(line for line in said[0].splitlines() if line.startswith("https://"))
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(consent).query)
        assert query["access_type"] == ["offline"] and query["login_hint"] == [GM]
        return (f"{query['redirect_uri'][0]}?state={query['state'][0]}&code=code-{GM}"
                "&scope=https://mail.google.com/")

    login_google(settings, GM, ask=browser, say=said.append)
    kept = read_login(settings.token_file)
    assert kept is not None and kept["refresh_token"] in provider.refresh_tokens
    assert os.stat(settings.token_file).st_mode & 0o777 == 0o600


def test_pbem_auth_login_with_microsoft_s_device_code(tmp_path: Path,
                                                      provider: TokenServer) -> None:
    (tmp_path / "pbem.toml").write_text(f"""[store]
path = "store"
[oauth]
provider = "microsoft"
client_id = "client-id"
[imap]
host = "127.0.0.1"
username = "{GM}"
auth = "oauth2"
""")
    result = CliRunner().invoke(pbem_main, ["auth", "login", "--config",
                                            str(tmp_path / "pbem.toml")])
    assert result.exit_code == 0, result.output
    assert "enter the code ABCD-EFGH" in result.output
    token_file = tmp_path / "store" / "daemon" / "oauth-token.json"
    assert f"kept in {token_file}" in result.output
    assert "rt-" not in result.output and "at-" not in result.output
    assert os.stat(token_file).st_mode & 0o777 == 0o600


def test_the_doctor_checks_the_token(tmp_path: Path, provider: TokenServer,
                                     oauth_smtp: SmtpCatcher) -> None:
    config = configure(tmp_path, oauth_toml(oauth_smtp.port))
    missing = [f for f in examine(config) if f.level == "problem"]
    assert any("no OAuth login is kept" in f.text and "pbem auth login" in f.text
               for f in missing)
    keep_login(config, provider)
    findings = examine(config)
    assert [f.text for f in findings if f.level == "problem"] == []
    assert any("google OAuth token refreshes" in f.text for f in findings)
    assert any("logged in as gm@example.org" in f.text for f in findings)
    provider.revoke(GM)
    revoked = [f.text for f in examine(config) if f.level == "problem"]
    assert any("cannot be refreshed" in t and "expired or revoked" in t and
               "Publish app" in t for t in revoked)


# ---- a revoked login: held, told, nothing lost ------------------------------------------


def test_a_revoked_smtp_login_holds_every_mail_and_tells_the_game_master(
        tmp_path: Path, provider: TokenServer, oauth_smtp: SmtpCatcher) -> None:
    config = configure(tmp_path, oauth_toml(oauth_smtp.port) + '[alarm]\nmaildir = "gm"\n')
    keep_login(config, provider)
    new_game(config)
    clock = Clock()
    daemon = Daemon(config, clock=clock)
    queued = len(daemon.store.outbox())
    provider.revoke(GM)
    for _ in range(3):  # tried again and again: never given up, never charged an attempt
        done = daemon.run_once()
        assert (done.flush.sent, done.flush.given_up) == (0, 0)
        clock.advance(3600)
    waiting = daemon.store.outbox()
    assert all(item.attempts == 0 and not item.last_error for item in waiting)
    notices = [item for item in waiting if item.to == GM]
    assert len(notices) == 1  # told once, not at every try
    assert b"pbem auth login" in notices[0].raw.replace(b"=\n", b"")
    held = read_hold(config.store)
    assert held is not None and "SMTP login is refused" in held[1]
    # The notice waits behind the broken login; the alarm did not (issue 39, point 3): it is
    # in the store and in the game master's local Maildir, once.
    assert [alarm.key for alarm in read_alarms(config.store)] == [SMTP_LOGIN]
    [alarm_mail] = (tmp_path / "gm" / "new").iterdir()
    assert b"pbem auth login" in alarm_mail.read_bytes().replace(b"=\n", b"")
    listed = CliRunner().invoke(pbem_main, ["outbox", "list", "--store", str(config.store)])
    assert "Sending is held until" in listed.output and "held" in listed.output
    # The game master logs in again: everything goes, once, the notice too.
    keep_login(config, provider)
    clock.advance(3600)
    assert daemon.run_once().flush.sent == queued + 1
    assert daemon.store.outbox() == []
    assert read_hold(config.store) is None
    assert read_alarms(config.store) == []
    assert len(list((tmp_path / "gm" / "new").iterdir())) == 2  # and that it is mended
    ids = message_ids([m.raw for m in oauth_smtp.mails])
    assert len(ids) == len(set(ids)) == queued + 1


ADVICE = "Run `pbem auth login`"


def advice_in(text: str) -> int:
    """How often the advice to log in again is given in ``text`` (lines joined)."""
    return " ".join(text.split()).count(ADVICE)


def test_the_advice_is_given_once_in_each_place_and_the_hold_to_the_second(
        tmp_path: Path, provider: TokenServer, oauth_smtp: SmtpCatcher,
        caplog: pytest.LogCaptureFixture) -> None:
    """Issue 39, point 6: a revoked SMTP login gives "Run `pbem auth login` ..." once in the
    log entry, the game master's mail, `pbem doctor` and `pbem outbox list`; the list gives
    the hold's end to the second, and how far off it is."""
    config = configure(tmp_path, oauth_toml(oauth_smtp.port))
    keep_login(config, provider)
    new_game(config)
    daemon = Daemon(config, clock=Clock())
    provider.revoke(GM)
    with caplog.at_level(logging.INFO):
        daemon.run_once()
    logged = [r.getMessage() for r in caplog.records if ADVICE in r.getMessage()]
    assert logged and [advice_in(m) for m in logged] == [1] * len(logged)
    [notice] = [item for item in daemon.store.outbox() if item.to == GM]
    message = email.message_from_bytes(notice.raw, policy=email.policy.default)
    assert isinstance(message, email.message.EmailMessage)
    body = message.get_body(("plain",))
    assert body is not None and advice_in(body.get_content()) == 1
    assert advice_in("\n".join(f.text for f in examine(config))) == 1
    held = read_hold(config.store)
    assert held is not None
    until = parse_iso(held[0])
    listed = CliRunner().invoke(pbem_main, [
        "outbox", "list", "--store", str(config.store),
        "--now", (until - timedelta(seconds=42)).isoformat()])
    assert listed.exit_code == 0, listed.output
    assert advice_in(listed.output) == 1
    assert f"Sending is held until {until:%Y-%m-%d %H:%M:%S} UTC (in 42 s)" in listed.output


# ---- a provider's sending limits --------------------------------------------------------


def test_mail_past_the_caps_waits_and_goes_later_in_order(
        tmp_path: Path, provider: TokenServer, oauth_smtp: SmtpCatcher) -> None:
    config = configure(tmp_path, oauth_toml(oauth_smtp.port,
                                            "max_per_minute = 2\nmax_per_day = 5\n"))
    keep_login(config, provider)
    new_game(config)
    for extra in ("g2", "g3"):  # more mail than the day allows
        service = Service(Store(config.store),
                          replace(config.service_config(), password_cost=10))
        service.create_game(extra, PLAYERS, seed="5eed" * 8)
        service.start_game(extra, T0)
    clock = Clock()
    daemon = Daemon(config, clock=clock)
    order = [item.message_id for item in daemon.store.outbox()]
    assert len(order) > 5
    assert daemon.run_once().flush.sent == 2
    held = read_hold(config.store)
    assert held is not None and "per-minute sending limit (2)" in held[1]
    assert held[0].startswith((T0 + timedelta(minutes=1)).isoformat()[:16])
    listed = CliRunner().invoke(pbem_main, ["outbox", "list", "--store", str(config.store)])
    assert "per-minute sending limit" in listed.output
    clock.advance(30)
    assert daemon.run_once().flush.sent == 0  # still within that minute
    clock.advance(31)
    assert daemon.run_once().flush.sent == 2
    clock.advance(61)
    assert daemon.run_once().flush.sent == 1  # the day's fifth
    held = read_hold(config.store)
    assert held is not None and "daily sending limit (5)" in held[1]
    # A new daemon (a restart) counts what the store sent in the last day.
    daemon = Daemon(config, clock=clock)
    clock.advance(3600)
    assert daemon.run_once().flush.sent == 0
    clock.now = T0 + timedelta(days=1, seconds=1)
    assert daemon.run_once().flush.sent == 2
    for _ in range(50):  # the rest, each time the limits let it
        if not daemon.store.outbox():
            break
        flush = daemon.run_once().flush
        assert (flush.sent <= 2 and flush.retry_at is not None) or not daemon.store.outbox()
        if flush.retry_at is not None:
            clock.now = max(clock.now, flush.retry_at)
    sent = message_ids([m.raw for m in oauth_smtp.mails])
    assert sent == order  # in order, each once


def test_a_refused_imap_login_is_mailed_to_the_game_master(
        tmp_path: Path, provider: TokenServer, dovecot: Dovecot, account: Account) -> None:
    """The intake the daemon builds tells the game master (a mail queued in the store) when
    the provider refuses its login; the mail it could not fetch stays on the server."""
    config = configure(tmp_path, f"""[mail]
gm_address = "{GM}"
[oauth]
provider = "google"
client_id = "client-id"
[imap]
host = "127.0.0.1"
port = {dovecot.imap_port}
security = "plain"
username = "{account.username}"
auth = "oauth2"
""")
    dovecot.deliver(account, b"Subject: orders\r\n\r\nbody\r\n")
    intake = make_imap_intake(config, lambda raws: [None] * len(raws), Clock())
    stop = threading.Event()
    thread = threading.Thread(target=intake.run, args=(stop,), daemon=True)
    thread.start()
    store = Store(config.store)
    try:
        assert wait_until(lambda: bool(store.outbox()), timeout=10)
    finally:
        stop.set()
        thread.join(timeout=10)
    [notice] = store.outbox()
    assert notice.to == GM
    message = email.message_from_bytes(notice.raw, policy=email.policy.default)
    assert "(IMAP)" in str(message["Subject"])
    assert isinstance(message, email.message.EmailMessage)
    body = message.get_body(("plain",))
    assert body is not None and advice_in(body.get_content()) == 1  # issue 39, point 6
    assert len(dovecot.messages(account, "INBOX")) == 1


@pytest.mark.parametrize("name", ["gmail-app-password.toml", "gmail-oauth.toml",
                                  "google-workspace.toml", "outlook.toml",
                                  "microsoft365.toml", "fastmail.toml", "yahoo.toml"])
def test_every_provider_example_loads(name: str) -> None:
    """deploy/PROVIDERS.md's files are ready: they load, log in to both servers the same way,
    and set a sending limit."""
    path = Path(__file__).resolve().parents[2] / "deploy" / name
    config = load_config(path, env={"PBEM_IMAP_PASSWORD": "i", "PBEM_SMTP_PASSWORD": "s",
                                    "PBEM_OAUTH_CLIENT_SECRET": "c"})
    assert config.imap is not None and config.smtp is not None
    assert config.imap.security == config.smtp.security == "tls" or config.smtp.port == 587
    assert (config.imap.oauth is None) == (config.smtp.oauth is None) == ("[oauth]" not in
                                                                          path.read_text())
    assert config.smtp.max_per_minute is not None
    assert name in (path.parent / "PROVIDERS.md").read_text()


def test_the_daemon_goes_on_through_a_session_dropped_for_its_token(
        tmp_path: Path, provider: TokenServer, oauth_dovecot: Dovecot,
        oauth_smtp: SmtpCatcher) -> None:
    """The whole daemon on OAuth2 for IMAP and SMTP: the provider ends every token and
    drops the IMAP session mid-way; the daemon gets fresh tokens, logs in again, and each
    mail is taken once and each answer sent once."""
    account = oauth_dovecot.add_user()
    config = configure(tmp_path, oauth_toml(oauth_smtp.port).replace(
        "[smtp]", f"""[imap]
host = "127.0.0.1"
port = {oauth_dovecot.imap_port}
security = "plain"
username = "{account.username}"
auth = "oauth2"
poll_seconds = 0.5
answer_earlier_mail = true
[smtp]""").replace(f'username = "{GM}"', f'username = "{account.username}"'))
    assert config.smtp is not None and config.smtp.oauth is not None
    write_login(config.smtp.oauth.token_file,
                {"provider": "google", "username": account.username,
                 "refresh_token": provider.grant(account.username)})
    daemon = Daemon(config, clock=Clock())
    assert not daemon.in_processes  # threads: the test's rerouting of requests holds there

    def stranger(n: int) -> bytes:
        return (f"From: stranger{n}@example.org\r\nTo: {account.username}\r\n"
                f"Subject: hello {n}\r\nMessage-ID: <s{n}@example.org>\r\n\r\nhi\r\n").encode()

    thread = threading.Thread(target=daemon.serve, daemon=True)
    thread.start()
    try:
        for n in range(3):
            oauth_dovecot.deliver(account, stranger(n))
        assert wait_until(lambda: len(oauth_smtp.mails) == 3, timeout=20)
        refreshes = provider.refreshes
        provider.expire_access()
        oauth_dovecot.kick(account.username)
        for n in range(3, 6):
            oauth_dovecot.deliver(account, stranger(n))
        assert wait_until(lambda: len(oauth_smtp.mails) == 6, timeout=30)
    finally:
        daemon.request_stop()
        thread.join(timeout=30)
    done = oauth_dovecot.messages(account, "pbem-done")
    assert sorted(message_ids([raw for raw, _ in done])) == [f"<s{n}@example.org>"
                                                             for n in range(6)]
    assert oauth_dovecot.messages(account, "INBOX") == []
    answered = sorted(m.rcpt_tos[0] for m in oauth_smtp.mails)
    assert answered == [f"stranger{n}@example.org" for n in range(6)]
    assert len(set(message_ids([m.raw for m in oauth_smtp.mails]))) == 6
    # A second IMAP session, with a fresh token (the first one's was dead by then).
    assert oauth_dovecot.log().count(f"user=<{account.username}>, method=XOAUTH2") >= 2
    assert provider.refreshes > refreshes
