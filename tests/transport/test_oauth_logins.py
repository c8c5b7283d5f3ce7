"""OAuth2 logins against real servers: Dovecot checks each XOAUTH2/OAUTHBEARER token at a
token service on loopback (its oauth2 passdb), and so does the aiosmtpd server. The token
libraries (google-auth, msal) are real; their HTTP requests to Google and Microsoft reach
the same loopback token service (``route_providers_to``), the one thing mocked."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from servers import (
    Dovecot,
    SmtpCatcher,
    TokenServer,
    dovecot_binary,
    wait_until,
)

from pbem.errors import PbemError
from pbem.transport.imap import ImapConfig, ImapIntake, ImapTokenError, JsonFileCursor
from pbem.transport.oauth import (
    REFRESH_MARGIN,
    OAuthSettings,
    TokenRevoked,
    Tokens,
    login_microsoft,
    write_login,
)
from pbem.transport.sender import LoginImpossible, SmtpSender


def _mail(n: int) -> bytes:
    return (f"From: ann@example.org\r\nTo: gm@example.org\r\nSubject: orders {n}\r\n"
            f"Message-ID: <m{n}@example.org>\r\n\r\nbody {n}\r\n").encode()


def _dovecot(**kwargs: object) -> Iterator[Dovecot]:
    if dovecot_binary() is None:
        pytest.skip("dovecot is not installed")
    server = Dovecot(tls=False, **kwargs)  # type: ignore[arg-type]
    try:
        server.start()
        yield server
    finally:
        server.remove()


def google_login(folder: Path, server: TokenServer, user: str) -> OAuthSettings:
    """The settings of a Google login kept as `pbem auth login` keeps it."""
    settings = OAuthSettings("google", "client-id", folder / "daemon" / "oauth-token.json",
                             client_secret="client-secret")
    write_login(settings.token_file, {"provider": "google", "username": user,
                                      "refresh_token": server.grant(user)})
    return settings


def imap_config(dovecot: Dovecot, user: str, oauth: OAuthSettings) -> ImapConfig:
    return ImapConfig("127.0.0.1", dovecot.imap_port, user, "", security="plain",
                      poll_seconds=0.2, oauth=oauth)


# ---- tokens ------------------------------------------------------------------------------


def test_google_tokens_refresh_before_expiry_and_the_login_stays_private(
        tmp_path: Path, provider: TokenServer) -> None:
    settings = google_login(tmp_path, provider, "gm@example.org")
    assert os.stat(settings.token_file).st_mode & 0o777 == 0o600
    tokens = Tokens(settings)
    first = tokens.access_token()
    assert provider.valid(first.token) == "gm@example.org"
    assert tokens.access_token() == first  # still good for an hour: not asked again
    refreshes = provider.refreshes
    provider.lifetime = int(REFRESH_MARGIN) - 1  # ends within the margin: refreshed each use
    assert tokens.access_token(fresh=True) != first
    assert tokens.access_token() != tokens.access_token()
    assert provider.refreshes == refreshes + 3
    assert "rt-" not in repr(settings) + repr(first)  # secrets are never in a repr


def test_a_revoked_google_login_says_what_to_do(tmp_path: Path, provider: TokenServer) -> None:
    settings = google_login(tmp_path, provider, "gm@example.org")
    provider.revoke("gm@example.org")
    with pytest.raises(TokenRevoked) as caught:
        Tokens(settings).access_token()
    assert "expired or revoked" in str(caught.value)
    assert "pbem auth login" in (caught.value.suggestion or "")
    assert "rt-" not in str(caught.value)


def test_the_doctor_check_names_missing_scopes(tmp_path: Path, provider: TokenServer) -> None:
    settings = google_login(tmp_path, provider, "gm@example.org")
    provider.scope = "openid"
    try:
        token, problems = Tokens(settings).check()
    finally:
        provider.scope = ""
    assert token is not None
    assert len(problems) == 1
    assert "lacks the scope https://mail.google.com/" in problems[0]
    assert "pbem auth login" in problems[0]


def test_microsoft_tokens_come_from_msal_s_cache(tmp_path: Path, provider: TokenServer) -> None:
    # What `pbem auth login` keeps for Microsoft: MSAL's cache after a device-code login.
    settings = OAuthSettings("microsoft", "client-id", tmp_path / "ms.json")
    said: list[str] = []
    login_microsoft(settings, "gm@example.org", say=said.append)
    assert "ABCD-EFGH" in said[0]
    assert os.stat(settings.token_file).st_mode & 0o777 == 0o600
    tokens = Tokens(settings)
    token = tokens.access_token()
    assert provider.valid(token.token) == "gm@example.org"
    assert tokens.access_token(fresh=True).token != token.token  # a refresh, through msal
    assert "IMAP.AccessAsUser.All" in " ".join(token.scopes)
    provider.revoke("gm@example.org")
    with pytest.raises(TokenRevoked, match="AADSTS70008"):
        tokens.access_token(fresh=True)


def test_microsoft_app_only_tokens_need_no_login(tmp_path: Path, provider: TokenServer) -> None:
    settings = OAuthSettings("microsoft-app", "client-id", tmp_path / "none.json",
                             client_secret="secret", tenant="contoso.example")
    token = Tokens(settings).access_token()
    assert provider.valid(token.token) == "app@example.org"
    wrong = OAuthSettings("microsoft-app", "client-id", tmp_path / "none.json",
                          client_secret="wrong", tenant="contoso.example")
    with pytest.raises(TokenRevoked, match="AADSTS"):
        Tokens(wrong).access_token()


# ---- IMAP --------------------------------------------------------------------------------


def test_imap_logs_in_with_xoauth2_and_takes_mail(
        tmp_path: Path, provider: TokenServer, oauth_dovecot: Dovecot) -> None:
    account = oauth_dovecot.add_user()
    settings = google_login(tmp_path, provider, account.username)
    oauth_dovecot.deliver(account, _mail(1))
    got: list[bytes] = []
    intake = ImapIntake(imap_config(oauth_dovecot, account.username, settings), got.append,
                        JsonFileCursor(tmp_path / "cursor.json"))
    try:
        assert intake.fetch_new() == 1
    finally:
        intake.close()
    assert b"orders 1" in got[0]
    assert f"user=<{account.username}>, method=XOAUTH2" in oauth_dovecot.log()


def test_imap_uses_oauthbearer_where_xoauth2_is_not_offered(
        tmp_path: Path, provider: TokenServer, token_server: TokenServer) -> None:
    for dovecot in _dovecot(introspection_url=token_server.url + "/introspect",
                            oauth_mechanisms="oauthbearer"):
        account = dovecot.add_user()
        settings = google_login(tmp_path, provider, account.username)
        intake = ImapIntake(imap_config(dovecot, account.username, settings), lambda raw: None,
                            JsonFileCursor(tmp_path / "cursor.json"))
        try:
            assert intake.fetch_new() == 0
        finally:
            intake.close()
        assert f"user=<{account.username}>, method=OAUTHBEARER" in dovecot.log()


def _running(intake: ImapIntake) -> tuple[threading.Event, threading.Thread]:
    stop = threading.Event()
    thread = threading.Thread(target=intake.run, args=(stop,), daemon=True)
    thread.start()
    return stop, thread


def test_a_session_dropped_for_an_expired_token_is_reopened_losing_nothing(
        tmp_path: Path, provider: TokenServer, oauth_dovecot: Dovecot) -> None:
    """Microsoft ends a session whose token expired: the intake asks a fresh token, logs in
    again, and takes each mail once."""
    account = oauth_dovecot.add_user()
    settings = google_login(tmp_path, provider, account.username)
    got: list[bytes] = []
    intake = ImapIntake(imap_config(oauth_dovecot, account.username, settings), got.append,
                        JsonFileCursor(tmp_path / "cursor.json"), retry_base=0.05,
                        retry_cap=0.2)
    stop, thread = _running(intake)
    try:
        oauth_dovecot.deliver(account, _mail(1))
        assert wait_until(lambda: len(got) == 1, timeout=10)
        refreshes = provider.refreshes
        provider.expire_access()  # the token the session logged in with is dead now
        oauth_dovecot.kick(account.username)
        oauth_dovecot.deliver(account, _mail(2))
        oauth_dovecot.deliver(account, _mail(3))
        assert wait_until(lambda: len(got) == 3, timeout=15)
    finally:
        stop.set()
        thread.join(timeout=10)
    assert [b"orders 1" in got[0], b"orders 2" in got[1], b"orders 3" in got[2]] == [True] * 3
    assert provider.refreshes > refreshes  # a fresh token for the new session
    assert oauth_dovecot.log().count(f"user=<{account.username}>, method=XOAUTH2") >= 2
    assert oauth_dovecot.messages(account, "INBOX") == []


def test_the_session_is_renewed_before_its_token_expires(
        tmp_path: Path, provider: TokenServer, oauth_dovecot: Dovecot) -> None:
    account = oauth_dovecot.add_user()
    settings = google_login(tmp_path, provider, account.username)
    provider.lifetime = int(REFRESH_MARGIN) + 1  # to be renewed about a second from now
    got: list[bytes] = []
    intake = ImapIntake(imap_config(oauth_dovecot, account.username, settings), got.append,
                        JsonFileCursor(tmp_path / "cursor.json"))
    stop, thread = _running(intake)
    marker = f"user=<{account.username}>, method=XOAUTH2"
    try:
        assert wait_until(lambda: oauth_dovecot.log().count(marker) >= 3, timeout=15)
        oauth_dovecot.deliver(account, _mail(1))
        assert wait_until(lambda: len(got) == 1, timeout=10)
    finally:
        stop.set()
        thread.join(timeout=10)
    assert "Authentication failed" not in oauth_dovecot.log().split(marker, 1)[1]


def test_a_revoked_login_is_told_once_and_the_mail_waits_on_the_server(
        tmp_path: Path, provider: TokenServer, oauth_dovecot: Dovecot) -> None:
    account = oauth_dovecot.add_user()
    settings = google_login(tmp_path, provider, account.username)
    provider.revoke(account.username)
    oauth_dovecot.deliver(account, _mail(1))
    got: list[bytes] = []
    told: list[PbemError] = []
    intake = ImapIntake(imap_config(oauth_dovecot, account.username, settings), got.append,
                        JsonFileCursor(tmp_path / "cursor.json"), retry_base=0.05,
                        retry_cap=0.2, login_refused=told.append)
    stop, thread = _running(intake)
    try:
        assert wait_until(lambda: len(told) == 1, timeout=10)
        assert isinstance(told[0], ImapTokenError)
        assert "revoked" in str(told[0]) and "pbem auth login" in (told[0].suggestion or "")
        assert len(oauth_dovecot.messages(account, "INBOX")) == 1  # the mail waits
        assert got == []
        # The game master logs in again: the intake goes on by itself.
        write_login(settings.token_file, {"provider": "google", "username": account.username,
                                          "refresh_token": provider.grant(account.username)})
        assert wait_until(lambda: len(got) == 1, timeout=10)
    finally:
        stop.set()
        thread.join(timeout=10)
    assert len(told) == 1


# ---- SMTP --------------------------------------------------------------------------------


def test_smtp_sends_with_xoauth2_and_replaces_a_refused_token(
        tmp_path: Path, provider: TokenServer, oauth_smtp: SmtpCatcher) -> None:
    settings = google_login(tmp_path, provider, "gm@example.org")
    with SmtpSender("127.0.0.1", oauth_smtp.port, "plain", "gm@example.org",
                    oauth=settings) as sender:
        sender.send("ann@example.org", _mail(1), envelope_from="gm@example.org")
        sender.close()
        provider.expire_access()  # the held token died before its time
        sender.send("ann@example.org", _mail(2), envelope_from="gm@example.org")
    assert [b"orders 1" in m.raw for m in oauth_smtp.mails] == [True, False]
    assert oauth_smtp.oauth_logins == ["gm@example.org", "gm@example.org"]


def test_an_smtp_session_is_renewed_before_its_token_expires(
        tmp_path: Path, provider: TokenServer, oauth_smtp: SmtpCatcher) -> None:
    settings = google_login(tmp_path, provider, "gm@example.org")
    provider.lifetime = int(REFRESH_MARGIN) + 1
    with SmtpSender("127.0.0.1", oauth_smtp.port, "plain", "gm@example.org",
                    oauth=settings) as sender:
        sender.send("ann@example.org", _mail(1), envelope_from="gm@example.org")
        time.sleep(1.5)  # the session's token is now within the margin of its end
        sender.send("ann@example.org", _mail(2), envelope_from="gm@example.org")
    assert len(oauth_smtp.mails) == 2
    assert oauth_smtp.oauth_logins == ["gm@example.org", "gm@example.org"]


def test_smtp_with_a_revoked_login_raises_login_impossible(
        tmp_path: Path, provider: TokenServer, oauth_smtp: SmtpCatcher) -> None:
    settings = google_login(tmp_path, provider, "gm@example.org")
    provider.revoke("gm@example.org")
    with SmtpSender("127.0.0.1", oauth_smtp.port, "plain", "gm@example.org",
                    oauth=settings) as sender, pytest.raises(LoginImpossible) as caught:
        sender.send("ann@example.org", _mail(1), envelope_from="gm@example.org")
    assert "pbem auth login" in (caught.value.suggestion or "")
    assert oauth_smtp.mails == []
