"""Issue 39, point 4: OAuth2 toward any provider (``[oauth] provider = "custom"`` with its
``token_url`` and ``device_url``), against a token service of the test's own on 127.0.0.1
(an ``http.server`` in a thread), no provider's name faked: ``pbem auth login`` by the
device code flow (RFC 8628), a refresh before the token expires, and a revoked login that
raises the alarm of point 3 while the daemon sends through a real SMTP server (aiosmtpd
checking the XOAUTH2 token at that service)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from clocks import Clock
from servers import Dovecot, SmtpCatcher, dovecot_binary, wait_until
from support import REPO

from pbem.cli.main import main as pbem_main
from pbem.daemon.alarms import IMAP_LOGIN, SMTP_LOGIN, read_alarms
from pbem.daemon.config import DaemonConfig, load_config
from pbem.daemon.intake import make_imap_intake
from pbem.daemon.server import Daemon
from pbem.errors import ConfigError
from pbem.service.service import Service
from pbem.store import Store
from pbem.transport.imap_connection import open_session, quietly_close
from pbem.transport.oauth import TokenRevoked, Tokens, read_login

GM = "gm@example.org"
PLAYERS = (("Alice", "alice@example.org", ""), ("Bob", "bob@example.org", ""),
           ("Carol", "carol@example.org", ""))


class DeviceProvider:
    """A provider's token endpoint (/token) and device authorization endpoint (/device),
    as RFC 6749 and RFC 8628 have them; the login is approved after ``pending`` polls. Its
    authorization endpoint (/authorize, RFC 6749 4.1 with PKCE) is the browser's consent
    page, approved at once: it sends the browser to the redirect address with a code."""

    def __init__(self) -> None:
        self.expires_in = 3600
        self.pending = 1
        self.user = GM  # whom the device login is for
        self.refresh: dict[str, str] = {}  # refresh token -> user
        self.access: dict[str, str] = {}  # access token -> user
        self.grants: list[str] = []  # the grant_type of each /token request
        self.codes: dict[str, tuple[str, str, str]] = {}  # code -> user, challenge, redirect
        self._lock = threading.Lock()
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                url = urllib.parse.urlsplit(self.path)
                location = provider.authorize(dict(urllib.parse.parse_qsl(url.query)))
                self.send_response(302 if url.path == "/authorize" and location else 400)
                if url.path == "/authorize" and location:
                    self.send_header("Location", location)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
                status, answer = provider.answer(self.path, form)
                body = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def answer(self, path: str, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            if path == "/introspect":  # what a mail server asks (Dovecot's oauth2 passdb)
                user = self.access.get(form.get("token", ""))
                return 200, ({"active": True, "username": user} if user
                             else {"active": False})
            if form.get("client_id") != "pbem-client":
                return 401, {"error": "invalid_client"}
            if path == "/device":
                return 200, {"device_code": "device-1", "user_code": "WDJB-MJHT",
                             "verification_uri": f"{self.url}/activate",
                             "interval": 0.01, "expires_in": 60}
            grant = form.get("grant_type", "")
            self.grants.append(grant)
            if grant == "urn:ietf:params:oauth:grant-type:device_code":
                if form.get("device_code") != "device-1":
                    return 400, {"error": "invalid_grant"}
                if self.pending > 0:
                    self.pending -= 1
                    return 400, {"error": "authorization_pending"}
                return 200, self._issue(self.user)
            if grant == "authorization_code":
                user, challenge, redirect = self.codes.pop(form.get("code", ""), ("", "", ""))
                verifier = form.get("code_verifier", "").encode()
                if not user or redirect != form.get("redirect_uri") or challenge != \
                        base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).decode() \
                        .rstrip("="):
                    return 400, {"error": "invalid_grant"}
                return 200, self._issue(user)
            if grant == "refresh_token":
                user = self.refresh.pop(form.get("refresh_token", ""), None)
                if user is None:
                    return 400, {"error": "invalid_grant",
                                 "error_description": "Token is not active"}
                return 200, self._issue(user)
            return 400, {"error": "unsupported_grant_type"}

    def authorize(self, query: dict[str, str]) -> str | None:
        """Give where the consent page sends the browser (None: a request it refuses)."""
        redirect = query.get("redirect_uri", "")
        if (query.get("client_id") != "pbem-client" or query.get("response_type") != "code"
                or query.get("code_challenge_method") != "S256"
                or not redirect.startswith("http://localhost:")):
            return None
        code = secrets.token_hex(8)
        with self._lock:
            self.codes[code] = (self.user, query.get("code_challenge", ""), redirect)
        return redirect + "?" + urllib.parse.urlencode({"code": code,
                                                        "state": query.get("state", "")})

    def _issue(self, user: str) -> dict[str, Any]:
        refresh, access = secrets.token_hex(8), secrets.token_hex(8)
        self.refresh[refresh], self.access[access] = user, user
        return {"access_token": access, "token_type": "Bearer", "refresh_token": refresh,
                "expires_in": self.expires_in}

    def valid(self, token: str) -> str | None:
        with self._lock:
            return self.access.get(token)

    def revoke(self, user: str) -> None:
        with self._lock:
            self.refresh = {t: u for t, u in self.refresh.items() if u != user}
            self.access = {t: u for t, u in self.access.items() if u != user}

    def start(self) -> DeviceProvider:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)


@pytest.fixture
def device_provider() -> Iterator[DeviceProvider]:
    provider = DeviceProvider().start()
    try:
        yield provider
    finally:
        provider.stop()


@pytest.fixture
def smtp(device_provider: DeviceProvider) -> Iterator[SmtpCatcher]:
    catcher = SmtpCatcher(bearer=device_provider.valid).start()
    try:
        yield catcher
    finally:
        catcher.stop()


def configure(folder: Path, provider: DeviceProvider, smtp_port: int,
              auth_url: str = "") -> DaemonConfig:
    path = folder / "pbem.toml"
    path.write_text(f"""[store]
path = "store"
[listener]
port = 0
[mail]
gm_address = "{GM}"
[oauth]
provider = "custom"
client_id = "pbem-client"
token_url = "{provider.url}/token"
device_url = "{provider.url}/device"
{f'auth_url = "{auth_url}"' if auth_url else ""}
[smtp]
host = "127.0.0.1"
port = {smtp_port}
security = "plain"
username = "{GM}"
auth = "oauth2"
[alarm]
maildir = "gm"
""")
    return load_config(path, env={})


def auth_login(folder: Path) -> Any:
    return CliRunner().invoke(pbem_main, ["auth", "login", "--config",
                                          str(folder / "pbem.toml")])


def test_pbem_auth_login_with_a_device_code_at_the_configured_endpoints(
        tmp_path: Path, device_provider: DeviceProvider, smtp: SmtpCatcher) -> None:
    config = configure(tmp_path, device_provider, smtp.port)
    assert config.smtp is not None and config.smtp.oauth is not None
    assert config.smtp.oauth.token_url == f"{device_provider.url}/token"
    result = auth_login(tmp_path)
    assert result.exit_code == 0, result.output
    assert "WDJB-MJHT" in result.output and f"{device_provider.url}/activate" in result.output
    # Polled while pending, then the login, then the check's refresh.
    assert device_provider.grants == ["urn:ietf:params:oauth:grant-type:device_code"] * 2 \
        + ["refresh_token"]
    kept = read_login(config.smtp.oauth.token_file)
    assert kept is not None and kept["provider"] == "custom" and kept["username"] == GM
    assert kept["refresh_token"] in device_provider.refresh  # the rotated one is kept
    assert config.smtp.oauth.token_file.stat().st_mode & 0o077 == 0


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any) -> None:
        return None  # the browser's next address is read, not followed


def _browser(address: str) -> str:
    """Give where the provider's consent page sends the browser (its Location)."""
    try:
        urllib.request.build_opener(_NoRedirect).open(address, timeout=10)
    except urllib.error.HTTPError as answer:
        assert answer.code == 302, answer.code
        return str(answer.headers["Location"])
    raise AssertionError("the consent page sent the browser nowhere")


def _paste_login(folder: Path, provider: DeviceProvider,
                 tamper: Callable[[str], str] = lambda address: address) -> tuple[int, str]:
    """Run ``pbem auth login --paste`` as the game master would: open the address it prints
    (the test's "browser"), paste back the address the browser was sent to. Give its exit
    code and output."""
    process = subprocess.Popen(
        [sys.executable, "-c", "from pbem.cli.main import main; main()", "auth", "login",
         "--paste", "--config", str(folder / "pbem.toml")],
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdin is not None and process.stdout is not None
    try:
        seen = []
        for line in process.stdout:
            seen.append(line)
            if line.startswith(f"{provider.url}/authorize?"):
                process.stdin.write(tamper(_browser(line.strip())) + "\n")
                process.stdin.flush()
                break
        rest, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, "".join(seen) + rest


def test_pbem_auth_login_with_an_address_pasted_back(
        tmp_path: Path, device_provider: DeviceProvider, smtp: SmtpCatcher) -> None:
    """The authorization code grant at the configured auth_url (PKCE checked by the
    provider): the address the browser went to, pasted back, gives the kept login."""
    config = configure(tmp_path, device_provider, smtp.port,
                       auth_url=f"{device_provider.url}/authorize")
    assert config.smtp is not None and config.smtp.oauth is not None
    code, output = _paste_login(tmp_path, device_provider)
    assert code == 0, output
    assert device_provider.grants == ["authorization_code", "refresh_token"]
    kept = read_login(config.smtp.oauth.token_file)
    assert kept is not None and kept["provider"] == "custom" and kept["username"] == GM
    assert kept["refresh_token"] in device_provider.refresh
    assert config.smtp.oauth.token_file.stat().st_mode & 0o077 == 0
    assert Tokens(config.smtp.oauth).access_token().token in device_provider.access


def test_a_pasted_address_of_another_login_is_refused(
        tmp_path: Path, device_provider: DeviceProvider, smtp: SmtpCatcher) -> None:
    """An address whose state is not this login's (another login's, or a forged one) is
    refused before its code is used; nothing is kept."""
    config = configure(tmp_path, device_provider, smtp.port,
                       auth_url=f"{device_provider.url}/authorize")
    assert config.smtp is not None and config.smtp.oauth is not None
    code, output = _paste_login(tmp_path, device_provider,
                                tamper=lambda address: address.replace("state=", "state=x"))
    assert code == 1, output
    assert "pbem auth login" in output
    assert device_provider.grants == []
    assert read_login(config.smtp.oauth.token_file) is None


def test_a_token_is_refreshed_before_it_expires_and_a_revoked_one_raises(
        tmp_path: Path, device_provider: DeviceProvider, smtp: SmtpCatcher) -> None:
    config = configure(tmp_path, device_provider, smtp.port)
    assert config.smtp is not None and config.smtp.oauth is not None
    assert auth_login(tmp_path).exit_code == 0
    tokens = Tokens(config.smtp.oauth)
    first = tokens.access_token()
    assert tokens.access_token() == first  # an hour left: kept
    device_provider.expires_in = 60  # within the margin: refreshed before it is used
    second = tokens.access_token(fresh=True)
    third = tokens.access_token()
    assert len({first.token, second.token, third.token}) == 3
    assert device_provider.valid(third.token) == GM
    device_provider.revoke(GM)
    with pytest.raises(TokenRevoked) as raised:
        tokens.access_token(fresh=True)
    assert "Token is not active" in raised.value.message


def test_a_revoked_custom_login_raises_the_alarm_and_clears_after_a_new_login(
        tmp_path: Path, device_provider: DeviceProvider, smtp: SmtpCatcher) -> None:
    config = configure(tmp_path, device_provider, smtp.port)
    assert auth_login(tmp_path).exit_code == 0
    service = Service(Store(config.store), config.service_config())
    service.create_game("g1", PLAYERS, seed="5eed" * 8)
    clock = Clock()
    service.start_game("g1", clock())
    daemon = Daemon(config, clock=clock)
    device_provider.revoke(GM)
    assert daemon.run_once().flush.sent == 0
    [alarm] = read_alarms(config.store)
    assert alarm.key == SMTP_LOGIN and "Token is not active" in alarm.error
    assert len(list((tmp_path / "gm" / "new").iterdir())) == 1
    device_provider.pending = 0
    assert auth_login(tmp_path).exit_code == 0
    clock.advance(3600)
    assert daemon.run_once().flush.sent > 0
    assert read_alarms(config.store) == []
    assert smtp.oauth_logins and set(smtp.oauth_logins) == {GM}


def test_the_imap_intake_logs_in_to_dovecot_with_the_custom_login_and_raises_the_alarm(
        tmp_path: Path, device_provider: DeviceProvider) -> None:
    """Dovecot's oauth2 passdb asks the test's token service about each token: the login
    `pbem auth login` made works for IMAP; revoked, the intake raises the alarm."""
    if dovecot_binary() is None:
        pytest.skip("dovecot is not installed (apt-get install dovecot-imapd dovecot-lmtpd)")
    dovecot = Dovecot(introspection_url=f"{device_provider.url}/introspect", tls=False)
    try:
        dovecot.start()
        account = dovecot.add_user()
        device_provider.user = account.username
        path = tmp_path / "pbem.toml"
        path.write_text(f"""[store]
path = "store"
[mail]
gm_address = "{GM}"
[oauth]
provider = "custom"
client_id = "pbem-client"
token_url = "{device_provider.url}/token"
device_url = "{device_provider.url}/device"
[imap]
host = "127.0.0.1"
port = {dovecot.imap_port}
security = "plain"
username = "{account.username}"
auth = "oauth2"
[alarm]
maildir = "gm"
""")
        config = load_config(path, env={})
        assert auth_login(tmp_path).exit_code == 0
        assert config.imap is not None
        client, token = open_session(config.imap)
        quietly_close(client)
        assert token is not None and device_provider.valid(token.token) == account.username
        device_provider.revoke(account.username)
        intake = make_imap_intake(config, lambda raws: [None] * len(raws), Clock())
        stop = threading.Event()
        thread = threading.Thread(target=intake.run, args=(stop,), daemon=True)
        thread.start()
        try:
            assert wait_until(lambda: bool(read_alarms(config.store)), timeout=20)
        finally:
            stop.set()
            thread.join(timeout=20)
        [alarm] = read_alarms(config.store)
        assert alarm.key == IMAP_LOGIN and "Token is not active" in alarm.error
        assert len(list((tmp_path / "gm" / "new").iterdir())) == 1
    finally:
        dovecot.remove()


def test_the_custom_provider_needs_its_token_url(tmp_path: Path) -> None:
    path = tmp_path / "pbem.toml"
    path.write_text('[oauth]\nprovider = "custom"\nclient_id = "c"\n[smtp]\nhost = "h"\n'
                    'username = "u@example.org"\nauth = "oauth2"\n')
    with pytest.raises(ConfigError, match="token_url"):
        load_config(path, env={})
