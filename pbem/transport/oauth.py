"""OAuth2 access tokens for IMAP and SMTP logins (SASL XOAUTH2 / OAUTHBEARER).

The tokens come from the providers' own libraries, installed as extras: ``google-auth`` and
``google-auth-oauthlib`` for Google (``pip install 'pbem[google]'``), ``msal`` for Microsoft
(``pip install 'pbem[microsoft]'``). The game master logs in once (``pbem auth login``); the
refresh token (Google) or MSAL's token cache (Microsoft) is kept in a JSON file beside the
store, readable by its owner alone (0600), and never logged. Microsoft 365 app-only access
(``microsoft-app``) needs no file: a client secret gives a token whenever asked. Any other
provider (``custom``: Keycloak, an OpenID provider, what Dovecot's oauth2 passdb checks) is
spoken to in plain HTTP at the configured ``token_url`` (refresh, RFC 6749) and
``device_url`` (the device code login, RFC 8628), with no library.

:class:`Tokens` gives an access token, refreshing it a few minutes before it expires, or at
once when asked (a server refused the one we had). A refresh token the provider no longer
honours (revoked, expired, the app left in Google's "Testing" state for 7 days) raises
:class:`TokenRevoked`, whose message says what to do; a provider that cannot be reached
raises :class:`TokenUnavailable`, which a later try may get past.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC
from pathlib import Path
from typing import Any, Literal

from pbem.atomicfile import fsync_dir
from pbem.errors import ConfigError, PbemError

Provider = Literal["google", "microsoft", "microsoft-app", "custom"]
PROVIDERS: tuple[Provider, ...] = ("google", "microsoft", "microsoft-app", "custom")

GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token"
GOOGLE_AUTH_URI = "https://accounts.google.com/o/oauth2/auth"
MICROSOFT_AUTHORITY = "https://login.microsoftonline.com/"
DEFAULT_SCOPES: dict[Provider, tuple[str, ...]] = {
    "google": ("https://mail.google.com/",),
    # msal adds offline_access (the refresh token) itself and refuses it in a list.
    "microsoft": ("https://outlook.office.com/IMAP.AccessAsUser.All",
                  "https://outlook.office.com/SMTP.Send"),
    "microsoft-app": ("https://outlook.office365.com/.default",),
    "custom": (),  # the [oauth] scopes, if the provider wants any
}
HTTP_TIMEOUT = 30.0
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
# A token this close to its expiry is refreshed before it is used.
REFRESH_MARGIN = 300.0

_EXTRA: dict[Provider, str] = {"google": "google", "microsoft": "microsoft",
                               "microsoft-app": "microsoft", "custom": ""}
STEPS: dict[Provider, str] = {
    "google": "Run `pbem auth login` as the game master (deploy/PROVIDERS.md). If the "
              "Google Cloud app is still in 'Testing', its refresh tokens end after 7 days: "
              "publish it (OAuth consent screen > Publish app) and log in again.",
    "microsoft": "Run `pbem auth login` as the game master (deploy/PROVIDERS.md); check "
                 "that the app registration still has the IMAP.AccessAsUser.All and "
                 "SMTP.Send permissions.",
    "microsoft-app": "Check the client secret (PBEM_OAUTH_CLIENT_SECRET) has not expired, "
                     "and that the app has the Office 365 Exchange Online IMAP.AccessAsApp "
                     "and SMTP.SendAsApp permissions with admin consent (deploy/"
                     "PROVIDERS.md).",
    "custom": "Run `pbem auth login` as the game master (it shows a code to enter at the "
              "provider's address); check [oauth] token_url, device_url and client_id "
              "(deploy/PROVIDERS.md).",
}


class TokenError(PbemError):
    """No access token could be had."""


class TokenRevoked(TokenError):
    """The provider refuses the stored login for good: the game master must log in again."""


class TokenUnavailable(TokenError):
    """The provider could not be asked now (network); a later try may succeed."""


@dataclass(frozen=True)
class OAuthSettings:
    """Which provider and app the tokens come from, and where the login is kept."""

    provider: Provider
    client_id: str
    token_file: Path
    client_secret: str | None = field(default=None, repr=False)
    tenant: str = "common"
    scopes: tuple[str, ...] = ()
    # Any other provider ("custom"): its token endpoint, and its device authorization
    # endpoint (RFC 8628) for `pbem auth login`.
    token_url: str = ""
    device_url: str = ""
    # and its authorization endpoint, for a login by an address pasted back (RFC 6749 4.1).
    auth_url: str = ""

    def __post_init__(self) -> None:
        if self.provider not in PROVIDERS:
            raise ConfigError("the OAuth provider must be " + ", ".join(PROVIDERS),
                              text=str(self.provider))
        if self.provider == "custom" and not self.token_url:
            raise ConfigError("the custom OAuth provider needs its token_url",
                              suggestion="Add token_url = \"https://...\" under [oauth].")

    @property
    def wanted_scopes(self) -> tuple[str, ...]:
        """Give the scopes asked for: the configured ones, else the provider's for mail."""
        return self.scopes or DEFAULT_SCOPES[self.provider]

    @property
    def steps(self) -> str:
        """Give what the game master does to mend a missing or refused login."""
        return STEPS[self.provider]


@dataclass(frozen=True)
class AccessToken:
    """A bearer token and when it ends (seconds since the epoch)."""

    token: str = field(repr=False)
    expires_at: float
    scopes: tuple[str, ...] = ()


def sasl_xoauth2(username: str, token: str) -> str:
    """Give the XOAUTH2 initial response (before base64)."""
    return f"user={username}\x01auth=Bearer {token}\x01\x01"


def sasl_oauthbearer(username: str, token: str) -> str:
    """Give the OAUTHBEARER initial response of RFC 7628 (before base64)."""
    return f"n,a={username},\x01auth=Bearer {token}\x01\x01"


def _missing_extra(provider: Provider, error: ImportError) -> TokenRevoked:
    return TokenRevoked(f"the {provider} OAuth login needs a library that is not installed "
                        f"({error.name})",
                        suggestion=f"pip install 'pbem[{_EXTRA[provider]}]'")


# -- the token file -------------------------------------------------------------------


def read_login(path: Path) -> dict[str, Any] | None:
    """Give what ``pbem auth login`` kept, or None when there is no file."""
    try:
        value = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        raise TokenRevoked(f"the OAuth login file {path} cannot be read ({error})",
                           suggestion="Run `pbem auth login` again.") from None
    return value if isinstance(value, dict) else None


def write_login(path: Path, value: dict[str, Any]) -> None:
    """Keep the login in ``path``, readable by its owner alone, replaced atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)  # whatever the umask
        os.write(fd, json.dumps(value, indent=1).encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temp, path)
    fsync_dir(path.parent)


# -- tokens ---------------------------------------------------------------------------


class Tokens:
    """Access tokens for one account, refreshed before they expire; safe across threads."""

    def __init__(self, settings: OAuthSettings) -> None:
        self.settings = settings
        self._current: AccessToken | None = None
        self._lock = threading.Lock()
        self._app: Any = None  # MSAL's application object, once made

    def access_token(self, *, fresh: bool = False) -> AccessToken:
        """Give a token valid for a while yet; ``fresh`` asks the provider for a new one."""
        with self._lock:
            current = self._current
            if fresh or current is None or current.expires_at - time.time() < REFRESH_MARGIN:
                current = self._current = self._refresh(fresh)
            return current

    def _refresh(self, fresh: bool) -> AccessToken:
        provider = self.settings.provider
        refresh: dict[Provider, Callable[[], AccessToken]] = {
            "google": self._google, "custom": self._custom,
            "microsoft": lambda: self._microsoft(fresh),
            "microsoft-app": lambda: self._microsoft(fresh)}
        try:
            return refresh[provider]()
        except ImportError as error:
            raise _missing_extra(provider, error) from None

    def _stored(self) -> dict[str, Any]:
        login = read_login(self.settings.token_file)
        if login is None:
            raise TokenRevoked(f"no OAuth login is kept in {self.settings.token_file}",
                               suggestion=self.settings.steps)
        if login.get("provider") != self.settings.provider:
            raise TokenRevoked(f"the OAuth login in {self.settings.token_file} is for "
                               f"{login.get('provider')}, not {self.settings.provider}",
                               suggestion=self.settings.steps)
        return login

    def _google(self) -> AccessToken:
        import google.auth.exceptions
        from google.auth.transport.requests import Request
        from google.oauth2.credentials import Credentials

        login = self._stored()
        settings = self.settings
        credentials = Credentials(  # type: ignore[no-untyped-call]
            None, refresh_token=login.get("refresh_token"), token_uri=GOOGLE_TOKEN_URI,
            client_id=settings.client_id, client_secret=settings.client_secret,
            scopes=list(settings.wanted_scopes))
        try:
            credentials.refresh(Request())  # type: ignore[no-untyped-call]
        except google.auth.exceptions.RefreshError as error:
            if getattr(error, "retryable", False):
                raise TokenUnavailable(f"Google's token service is unavailable: {error}")\
                    from None
            raise TokenRevoked(f"Google refused the kept login ({_first(error)})",
                               suggestion=settings.steps) from None
        except google.auth.exceptions.TransportError as error:
            raise TokenUnavailable(f"cannot reach Google's token service: {error}") from None
        if credentials.refresh_token and credentials.refresh_token != login["refresh_token"]:
            write_login(settings.token_file, login | {"refresh_token":
                                                      credentials.refresh_token})
        expiry = credentials.expiry  # naive, in UTC
        ends = (expiry.replace(tzinfo=UTC).timestamp() if expiry is not None
                else time.time() + 3600)
        return AccessToken(credentials.token or "", ends,
                           tuple(credentials.granted_scopes or settings.wanted_scopes))

    def _custom(self) -> AccessToken:
        """A refresh at the configured token endpoint (RFC 6749, section 6); a refresh
        token it hands back replaces the kept one."""
        login = self._stored()
        settings = self.settings
        result = post_form(settings.token_url, {
            "grant_type": "refresh_token", "refresh_token": str(login.get("refresh_token")),
            "client_id": settings.client_id,
            **({"client_secret": settings.client_secret} if settings.client_secret else {}),
            **({"scope": " ".join(settings.scopes)} if settings.scopes else {})},
            steps=settings.steps)
        if "access_token" not in result:
            why = _first(result.get("error_description") or result.get("error"))
            raise TokenRevoked(f"the token service {settings.token_url} refused the kept "
                               f"login ({why})", suggestion=settings.steps)
        renewed = result.get("refresh_token")
        if renewed and renewed != login.get("refresh_token"):
            write_login(settings.token_file, login | {"refresh_token": renewed})
        scopes = tuple(str(result.get("scope", "")).split()) or settings.wanted_scopes
        return AccessToken(str(result["access_token"]),
                           time.time() + float(result.get("expires_in", 3600)), scopes)

    def _microsoft_app(self) -> Any:
        """Give MSAL's application object, made once (it looks the authority up once)."""
        import msal

        if self._app is None:
            settings = self.settings
            authority = MICROSOFT_AUTHORITY + settings.tenant
            if settings.provider == "microsoft-app":
                self._app = msal.ConfidentialClientApplication(
                    settings.client_id, client_credential=settings.client_secret,
                    authority=authority)
            else:
                self._app = msal.PublicClientApplication(
                    settings.client_id, authority=authority,
                    token_cache=msal.SerializableTokenCache())
        return self._app

    def _microsoft(self, fresh: bool) -> AccessToken:
        import msal.exceptions
        import requests

        settings = self.settings
        try:
            app = self._microsoft_app()
            if settings.provider == "microsoft-app":
                result = app.acquire_token_for_client(list(settings.wanted_scopes))
            else:
                # Read anew each time: `pbem auth login` may have replaced it meanwhile.
                login = self._stored()
                cache = app.token_cache
                cache.deserialize(login.get("cache", "{}"))
                accounts = app.get_accounts(username=login.get("username"))
                if not accounts:
                    raise TokenRevoked(f"the OAuth login in {settings.token_file} holds no "
                                       "Microsoft account", suggestion=settings.steps)
                result = app.acquire_token_silent_with_error(
                    list(settings.wanted_scopes), account=accounts[0], force_refresh=fresh)
                if cache.has_state_changed:
                    write_login(settings.token_file, login | {"cache": cache.serialize()})
        except (requests.RequestException, msal.exceptions.MsalServiceError) as error:
            self._app = None  # looked up again next time
            raise TokenUnavailable(f"cannot reach Microsoft's token service: {error}") \
                from None
        except ValueError as error:  # msal's word for an authority it cannot use
            self._app = None
            raise TokenUnavailable(f"Microsoft's token service answered oddly: {error}") \
                from None
        if not result or "access_token" not in result:
            why = (result or {}).get("error_description") or (result or {}).get("error") \
                or "no token in the cache"
            raise TokenRevoked(f"Microsoft refused the kept login ({_first(why)})",
                               suggestion=settings.steps)
        scopes = tuple(str(result.get("scope", "")).split()) or settings.wanted_scopes
        return AccessToken(result["access_token"],
                           time.time() + float(result.get("expires_in", 3600)), scopes)

    def check(self) -> tuple[AccessToken | None, list[str]]:
        """Give a fresh token and what is missing from it, or None and why there is none."""
        try:
            token = self.access_token(fresh=True)
        except PbemError as error:
            text = error.message + (f". {error.suggestion}" if error.suggestion else "")
            return None, [text]
        wanted = {s for s in self.settings.wanted_scopes if not s.endswith("/.default")}
        granted = {s.lower() for s in token.scopes}
        missing = sorted(s for s in wanted if s.lower() not in granted)
        problems = [f"the OAuth token lacks the scope {scope}; {self.settings.steps}"
                    for scope in missing]
        return token, problems


def _first(error: object) -> str:
    """Give the first line of a provider's error, without any token it might quote."""
    text = str(error.args[0] if isinstance(error, Exception) and error.args else error)
    return text.splitlines()[0][:200] if text else type(error).__name__


_SHARED: dict[OAuthSettings, Tokens] = {}
_SHARED_LOCK = threading.Lock()


def tokens_for(settings: OAuthSettings) -> Tokens:
    """Give the process's one :class:`Tokens` for these settings (IMAP and SMTP share it)."""
    with _SHARED_LOCK:
        found = _SHARED.get(settings)
        if found is None:
            found = _SHARED[settings] = Tokens(settings)
        return found


# -- logging in (``pbem auth login``) -------------------------------------------------


def login_google(settings: OAuthSettings, username: str, *, ask: Callable[[str], str],
                 say: Callable[[str], None], port: int = 8765) -> None:
    """Log in with Google's installed-app flow, on a machine without a browser too.

    The game master opens the printed address in any browser, agrees, and pastes back the
    address the browser was sent to (``http://localhost:PORT/?code=...``; the page itself
    need not load). The refresh token is kept in the token file.
    """
    try:
        from google_auth_oauthlib.flow import InstalledAppFlow
    except ImportError as error:
        raise _missing_extra("google", error) from None
    flow = InstalledAppFlow.from_client_config(
        {"installed": {"client_id": settings.client_id,
                       "client_secret": settings.client_secret or "",
                       "auth_uri": GOOGLE_AUTH_URI, "token_uri": GOOGLE_TOKEN_URI,
                       "redirect_uris": ["http://localhost"]}},
        scopes=list(settings.wanted_scopes))
    flow.redirect_uri = f"http://localhost:{port}/"
    url, _ = flow.authorization_url(access_type="offline", prompt="consent",
                                    login_hint=username)
    say(f"Open this address in a browser, sign in as {username} and allow access:\n\n"
        f"{url}\n\nThe browser then goes to http://localhost:{port}/?... (the page may not "
        "load: that is fine). Copy that whole address from the browser's address bar.")
    answer = ask("Address the browser went to").strip()
    os.environ.setdefault("OAUTHLIB_RELAX_TOKEN_SCOPE", "1")
    try:
        flow.fetch_token(authorization_response=answer.replace("http://", "https://", 1))
    except Exception as error:  # oauthlib's and requests' many kinds
        raise TokenRevoked(f"Google did not give a token ({_first(error)})",
                           suggestion="Run `pbem auth login` again and paste the whole "
                           "address, promptly: the code is valid a few minutes.") from None
    credentials = flow.credentials
    if not credentials.refresh_token:
        raise TokenRevoked("Google gave no refresh token",
                           suggestion="Remove pbem's access at myaccount.google.com/"
                           "permissions and run `pbem auth login` again.")
    write_login(settings.token_file, {"provider": "google", "username": username,
                                      "refresh_token": credentials.refresh_token})


def login_microsoft(settings: OAuthSettings, username: str, *,
                    say: Callable[[str], None]) -> None:
    """Log in with Microsoft's device code flow: the game master enters a short code at
    Microsoft's address in any browser. MSAL's token cache is kept in the token file."""
    try:
        import msal
    except ImportError as error:
        raise _missing_extra("microsoft", error) from None
    if settings.provider == "microsoft-app":
        raise ConfigError("microsoft-app needs no login: it uses the client secret",
                          suggestion="Run `pbem doctor` to check it.")
    cache = msal.SerializableTokenCache()
    app = msal.PublicClientApplication(settings.client_id,
                                       authority=MICROSOFT_AUTHORITY + settings.tenant,
                                       token_cache=cache)
    flow = app.initiate_device_flow(scopes=list(settings.wanted_scopes))
    if "user_code" not in flow:
        why = _first(flow.get("error_description") or flow.get("error"))
        raise TokenRevoked(f"Microsoft did not start the login ({why})",
                           suggestion=settings.steps)
    say(str(flow["message"]))
    result = app.acquire_token_by_device_flow(flow)
    if "access_token" not in result:
        raise TokenRevoked(f"Microsoft did not give a token "
                           f"({_first(result.get('error_description') or result.get('error'))})",
                           suggestion=settings.steps)
    accounts = app.get_accounts()
    name = accounts[0]["username"] if accounts else username
    write_login(settings.token_file, {"provider": "microsoft", "username": name,
                                      "cache": cache.serialize()})



# -- any other provider ("custom"): plain HTTP, no library -----------------------------


def post_form(url: str, fields: dict[str, str], *, steps: str) -> dict[str, Any]:
    """Give the JSON answer of a POST of ``fields`` to a token service. An answer of 400 or
    401 is given back (its ``error`` says why: the caller decides); a service out of reach,
    a 5xx or an answer that is no JSON object raises TokenUnavailable."""
    data = urllib.parse.urlencode(fields).encode()
    request = urllib.request.Request(url, data=data, headers={
        "Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded"})
    try:
        with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT) as answer:
            body = answer.read()
    except urllib.error.HTTPError as error:
        if error.code not in (400, 401):
            raise TokenUnavailable(f"the token service {url} answered {error.code}") from None
        body = error.read()
    except (OSError, ValueError) as error:
        raise TokenUnavailable(f"cannot reach the token service {url}: {error}") from None
    try:
        value = json.loads(body)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise TokenUnavailable(f"the token service {url} answered no JSON object",
                               suggestion=steps)
    return value


def login_paste(settings: OAuthSettings, username: str, *, ask: Callable[[str], str],
                say: Callable[[str], None], port: int = 8765) -> None:
    """Log in with the authorization code grant (RFC 6749 4.1, PKCE of RFC 7636) at the
    configured endpoints, on a machine without a browser too: the game master opens the
    printed address in any browser, signs in, and pastes back the address the browser was
    sent to (``http://localhost:PORT/?code=...``; the page itself need not load). The
    refresh token is kept in the token file."""
    if not settings.auth_url:
        raise ConfigError("the custom OAuth provider needs its auth_url to log in by a "
                          "pasted address",
                          suggestion="Add auth_url = \"https://...\" under [oauth], or "
                          "device_url for a login by a code.")
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    state = secrets.token_urlsafe(16)
    redirect = f"http://localhost:{port}/"
    query = {"response_type": "code", "client_id": settings.client_id,
             "redirect_uri": redirect, "state": state, "login_hint": username,
             "code_challenge": challenge.decode().rstrip("="), "code_challenge_method": "S256",
             **({"scope": " ".join(settings.scopes)} if settings.scopes else {})}
    joiner = "&" if "?" in settings.auth_url else "?"
    url = settings.auth_url + joiner + urllib.parse.urlencode(query)
    say(f"Open this address in a browser, sign in as {username} and allow access:\n\n"
        f"{url}\n\nThe browser then goes to {redirect}?... (the page may not load: that is "
        "fine). Copy that whole address from the browser's address bar.")
    answer = ask("Address the browser went to").strip()
    again = "Run `pbem auth login` again and paste the whole address, promptly."
    fields = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(answer).query))
    if fields.get("state") != state or not (fields.get("code") or fields.get("error")):
        raise TokenRevoked("the address pasted is not the one this login sent the browser "
                           "to", suggestion=again)
    if "code" not in fields:
        raise TokenRevoked(f"the provider refused the login "
                           f"({_first(fields.get('error_description') or fields['error'])})",
                           suggestion=settings.steps)
    client = {"client_id": settings.client_id,
              **({"client_secret": settings.client_secret} if settings.client_secret else {})}
    result = post_form(settings.token_url, client | {
        "grant_type": "authorization_code", "code": fields["code"], "redirect_uri": redirect,
        "code_verifier": verifier}, steps=settings.steps)
    if "refresh_token" not in result:
        raise TokenRevoked(f"the provider did not give a login "
                           f"({_first(result.get('error_description') or result.get('error'))})",
                           suggestion=again)
    write_login(settings.token_file, {"provider": "custom", "username": username,
                                      "refresh_token": result["refresh_token"]})


def login_device(settings: OAuthSettings, username: str, *, say: Callable[[str], None],
                 sleep: Callable[[float], None] = time.sleep) -> None:
    """Log in with the device authorization grant (RFC 8628) at the configured endpoints:
    the game master enters a short code at the provider's address in any browser; the
    refresh token is kept in the token file."""
    if not settings.device_url:
        raise ConfigError("the custom OAuth provider needs its device_url to log in",
                          suggestion="Add device_url = \"https://...\" under [oauth].")
    client = {"client_id": settings.client_id,
              **({"client_secret": settings.client_secret} if settings.client_secret else {})}
    started = post_form(settings.device_url, client | (
        {"scope": " ".join(settings.scopes)} if settings.scopes else {}), steps=settings.steps)
    if "device_code" not in started or "user_code" not in started:
        raise TokenRevoked(f"the provider did not start the login "
                           f"({_first(started.get('error_description') or started.get('error'))})",
                           suggestion=settings.steps)
    where = started.get("verification_uri_complete") or started.get("verification_uri")
    say(f"Open {where} in any browser, sign in as {username} and enter the code "
        f"{started['user_code']}.")
    interval = float(started.get("interval", 5))
    ends = time.monotonic() + float(started.get("expires_in", 600))
    while time.monotonic() < ends:
        sleep(interval)
        result = post_form(settings.token_url, client | {
            "grant_type": DEVICE_GRANT, "device_code": str(started["device_code"])},
            steps=settings.steps)
        error = result.get("error")
        if error == "authorization_pending":
            continue
        if error == "slow_down":
            interval += 5
            continue
        if "refresh_token" not in result:
            raise TokenRevoked(f"the provider did not give a login "
                               f"({_first(result.get('error_description') or error)})",
                               suggestion=settings.steps)
        write_login(settings.token_file, {"provider": "custom", "username": username,
                                          "refresh_token": result["refresh_token"]})
        return
    raise TokenRevoked("the code was not entered in time",
                       suggestion="Run `pbem auth login` again.")
