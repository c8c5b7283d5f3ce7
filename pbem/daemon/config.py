"""The daemon's configuration: a TOML file (or nothing: the embedded default) plus secrets
from the environment.

With no file at all the daemon keeps its store in ``./var/pbem``, listens for SMTP on
127.0.0.1:2525 for mail to our address or domain, and writes outgoing mail into one local
Maildir per player under ``./var/pbem/maildirs/``. ``deploy/pbem.toml`` documents every key.

Every command finds the same file (``find_config``, the order ``SEARCH_ORDER`` says): the one
``--config`` names, else ``$PBEM_CONFIG``, else the first that exists of ``./pbem.toml``, the
user's ``$XDG_CONFIG_HOME/pbem/pbem.toml`` (``~/.config/pbem/pbem.toml`` when unset) and
``/etc/pbem/pbem.toml``; with none, the embedded default. So ``pbem game create`` finds the
store of the daemon that ``pbem run`` started from the same place.

Relative paths in a file are taken from the file's folder, so the daemon finds its store
whatever folder it is started from. Passwords may be left out of the file and given as
``PBEM_IMAP_PASSWORD``, ``PBEM_SMTP_PASSWORD`` and ``PBEM_OAUTH_CLIENT_SECRET``; the
environment wins over the file. Only a command that logs in to a server (``pbem run``,
``pbem doctor``, ``pbem auth login``) asks for them: the game master's others read the file
with ``logins=False``, and a secret missing is no mistake for them. ``auth = "oauth2"`` in
[imap] or [smtp] logs in with the token of the [oauth] section (``pbem.transport.oauth``)
instead of a password.
Every mistake is a :class:`~pbem.errors.ConfigError` naming the key and the file.
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pbem.daemon.logs import LOG_FORMATS, LogFormat
from pbem.errors import AddressError, ConfigError
from pbem.mail.address import deliverable, mail_address
from pbem.reports.languages import LANGUAGES
from pbem.service.settings import STRANGER_REPLIES, MailIdentity

# The service and the mail transports load only when a command needs them: reading the
# configuration is part of every `pbem` command, which starts at once (bench/cli_start.py).
if TYPE_CHECKING:
    from pbem.service.service import ServiceConfig
    from pbem.transport.imap import ImapConfig
    from pbem.transport.intake import IntakeKind, Logins
    from pbem.transport.maildir_intake import MaildirIntakeConfig
    from pbem.transport.oauth import OAuthSettings, Provider
    from pbem.transport.sender import Security

DEFAULT_STORE = Path("var/pbem")
CONFIG_NAME = "pbem.toml"
CONFIG_ENV = "PBEM_CONFIG"
# The system's file, last of the search; a module value so the tests can point it elsewhere.
SYSTEM_CONFIG = Path("/etc/pbem/pbem.toml")
SEARCH_ORDER = ("--config FILE, else $PBEM_CONFIG, else the first found of ./pbem.toml, "
                "$XDG_CONFIG_HOME/pbem/pbem.toml (~/.config/pbem/pbem.toml) and "
                "/etc/pbem/pbem.toml, else the embedded default")
"""Where a command looks for its configuration, for --help (``find_config`` does it)."""
IMAP_PASSWORD_ENV = "PBEM_IMAP_PASSWORD"
SMTP_PASSWORD_ENV = "PBEM_SMTP_PASSWORD"
OAUTH_SECRET_ENV = "PBEM_OAUTH_CLIENT_SECRET"
_SECURITY = ("tls", "starttls", "plain")
_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")

# Every section and key a file may hold; anything else is a mistake worth naming.
_KEYS: dict[str, tuple[str, ...]] = {
    "store": ("path",),
    "mail": ("address", "name", "domain", "gm_address", "gm_language", "gm_timezone",
             "templates", "max_kib", "mails_per_hour", "stranger_replies", "envelope_from",
             "address_per_game", "trusted_authserv_id"),
    "listener": ("enabled", "host", "port", "accept", "tls_cert", "tls_key", "check_dkim"),
    "smtp": ("host", "port", "security", "username", "password", "timeout", "ca_file",
             "auth", "max_per_minute", "max_per_day"),
    "oauth": ("provider", "client_id", "client_secret", "tenant", "scopes", "token_file",
              "token_url", "device_url", "auth_url"),
    "maildir": ("path",),
    "alarm": ("maildir", "sendmail", "to", "webhook"),
    # give_up_after (a count of attempts) is read for old files and no longer used.
    "daemon": ("tick_seconds", "queue_lifetime_days", "give_up_after", "log_level",
               "log_format", "metrics_file"),
}

INTAKES: dict[str, str] = {
    "imap": "pbem.transport.imap",
    "maildir_intake": "pbem.transport.maildir_intake",
}
"""Every polled intake, one row each: its section in the file, and the module that declares
it (``INTAKE``, a ``pbem.transport.intake.IntakeKind``: the section's keys, how they are
read, how the intake is made). The module is imported only when its section is there, so
reading the configuration loads no transport. A new intake (JMAP, POP3) is its module and
its row here."""


def intake_kind(section: str) -> IntakeKind[Any]:
    """The intake that ``section`` (a key of ``INTAKES``) configures."""
    kind: IntakeKind[Any] = import_module(INTAKES[section]).INTAKE
    return kind


T = TypeVar("T")


@dataclass(frozen=True)
class ListenerSettings:
    """The embedded SMTP listener: where it listens and whose mail it takes."""

    host: str = "127.0.0.1"
    port: int = 2525
    accept: tuple[str, ...] = ()  # addresses, or "@domain" for a whole domain
    # A certificate (PEM, its chain after it) and its key: the listener offers STARTTLS.
    tls_cert: Path | None = None
    tls_key: Path | None = None
    # Check each mail's DKIM signatures and say so in an Authentication-Results header of
    # [mail] trusted_authserv_id on top (pbem.transport.dkimcheck; dkimpy needed).
    check_dkim: bool = False

    @property
    def loopback(self) -> bool:
        """Whether only this machine can reach the listener."""
        return self.host == "localhost" or self.host == "::1" or self.host.startswith("127.")

    def accepts(self, address: str) -> bool:
        """Tell whether mail for ``address`` is ours to take."""
        bare = address.strip().strip("<>").strip().lower()
        domain = "@" + bare.rsplit("@", 1)[-1] if "@" in bare else ""
        # A game's own address (local+game@domain) is the address's.
        base = re.sub(r"\+[^@]*@", "@", bare, count=1)
        return bool({bare, base} & set(self.accept)) or (domain != "" and domain in self.accept)


@dataclass(frozen=True)
class SmtpSettings:
    """The relay our mail goes out through."""

    host: str
    port: int
    security: Security = "starttls"
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    timeout: float = 30.0
    ca_file: str | None = None
    oauth: OAuthSettings | None = None  # log in with an OAuth token, not the password
    max_per_minute: int | None = None  # the provider's sending limits (None: no limit)
    max_per_day: int | None = None


@dataclass(frozen=True)
class AlarmSettings:
    """The second way the game master is told that a mail login or sending fails, one that
    needs no mail login: a local Maildir the mail is written into, or a local ``sendmail``
    command (``pbem.daemon.alarms``), or a chat webhook (an apprise URL, the optional extra
    ``pbem[chat]``). ``to`` is the address the alarm mail is for (the game master's by
    default)."""

    maildir: Path | None = None
    sendmail: str | None = None
    to: str = ""
    webhook: str | None = field(default=None, repr=False)  # its token is a secret


@dataclass(frozen=True)
class DaemonConfig:
    """Everything ``pbem run`` and ``pbem doctor`` need, checked."""

    source: Path | None  # the file read, None for the embedded default
    store: Path
    sender: MailIdentity
    envelope_from: str
    max_mail_bytes: int = 256 * 1024
    mails_per_hour: int = 60
    stranger_replies: int = STRANGER_REPLIES  # an hour, in all, to no player's address
    # The mail server whose Authentication-Results header is believed ("": none).
    trusted_authserv_id: str = ""
    listener: ListenerSettings | None = field(default_factory=ListenerSettings)
    # The polled intakes configured: (section, its settings), in INTAKES' order.
    intakes: tuple[tuple[str, Any], ...] = ()
    smtp: SmtpSettings | None = None
    maildir: Path = DEFAULT_STORE / "maildirs"
    tick_seconds: float = 60.0
    # How long a mail refused for now is kept and retried before it is given up (Postfix's
    # maximal_queue_lifetime default).
    queue_lifetime: timedelta = timedelta(days=5)
    log_level: str = "INFO"
    log_format: LogFormat = "text"  # or "json": one object a line (pbem.daemon.logs)
    # Prometheus text-format figures, rewritten after every pass (pbem.daemon.metrics).
    metrics_file: Path | None = None
    alarm: AlarmSettings = field(default_factory=AlarmSettings)

    @property
    def origin(self) -> str:
        """Give where the settings came from, for messages."""
        return str(self.source) if self.source else "the embedded default configuration"

    def intake(self, section: str) -> Any:
        """Give the settings of the intake ``section`` configures, None without it."""
        return next((settings for name, settings in self.intakes if name == section), None)

    @property
    def imap(self) -> ImapConfig | None:
        """Give the IMAP intake's settings (``[imap]``), None without it."""
        return cast("ImapConfig | None", self.intake("imap"))

    @property
    def maildir_intake(self) -> MaildirIntakeConfig | None:
        """Give the Maildir intake's settings (``[maildir_intake]``), None without it: a
        local Maildir a delivery agent fills, polled (pbem.transport.maildir_intake)."""
        return cast("MaildirIntakeConfig | None", self.intake("maildir_intake"))

    @property
    def intake_state(self) -> Path:
        """Give the folder where the intakes keep their state (the IMAP cursor)."""
        return self.store / "daemon"

    @property
    def imap_cursor(self) -> Path:
        """Give the file keeping the IMAP intake's position."""
        return self.intake_state / "imap-cursor.json"

    def service_config(self) -> ServiceConfig:
        """Give the game service's settings."""
        from pbem.service.service import ServiceConfig

        return ServiceConfig(sender=self.sender, max_mail_bytes=self.max_mail_bytes,
                             mails_per_hour=self.mails_per_hour,
                             stranger_replies=self.stranger_replies,
                             trusted_authserv_id=self.trusted_authserv_id)


def find_config(given: Path | None = None, env: Mapping[str, str] | None = None, *,
                cwd: Path | None = None, system: Path | None = None) -> Path | None:
    """Give the configuration file a command reads (``SEARCH_ORDER``): ``given`` (its
    ``--config``), else ``$PBEM_CONFIG``, else the first file that exists of ``./pbem.toml``
    (in ``cwd``), the user's (``$XDG_CONFIG_HOME/pbem/pbem.toml``, ``~/.config`` when that
    is unset or not absolute) and the system's (``system``, by default ``SYSTEM_CONFIG``);
    None when there is none: the embedded default. A file named (``given`` or the
    environment's) is given even if it does not exist, so that ``load_config`` says so."""
    env = os.environ if env is None else env
    if given is not None:
        return given
    if env.get(CONFIG_ENV):
        return Path(env[CONFIG_ENV])
    xdg = Path(env.get("XDG_CONFIG_HOME", ""))
    home = Path(env["HOME"]) if env.get("HOME") else Path.home()
    user = xdg if xdg.is_absolute() else home / ".config"
    here = Path.cwd() if cwd is None else cwd
    for candidate in (here / CONFIG_NAME, user / "pbem" / CONFIG_NAME,
                      SYSTEM_CONFIG if system is None else system):
        if candidate.is_file():
            return candidate
    return None


def load_config(path: Path | None = None, env: Mapping[str, str] | None = None, *,
                logins: bool = True) -> DaemonConfig:
    """Give the configuration read from ``path`` (None: the embedded default).
    ``logins=False`` for a command that logs in to no server: a password or client secret
    missing (from the file and the environment) is then no mistake, and left empty."""
    env = os.environ if env is None else env
    if path is None:
        return _build({}, None, Path.cwd(), env, logins)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"The configuration file {path} does not exist.",
                          suggestion="Give the right path, or leave out --config to run "
                          "with the embedded default.") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"Cannot read the configuration file {path}: {error}.") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"The configuration file {path} is not valid TOML: {error}.",
                          suggestion="Check the quotes and brackets on that line.") from None
    return _build(data, path, path.resolve().parent, env, logins)


class _Reader:
    """Reads typed values out of one section, naming the key and the file on a mistake."""

    def __init__(self, data: Mapping[str, Any], section: str, origin: str, base: Path,
                 keys: tuple[str, ...]) -> None:
        self.section, self.origin, self.base = section, origin, base
        value = data.get(section, {})
        if not isinstance(value, dict):
            raise ConfigError(f"In {origin}, [{section}] must be a table of keys.",
                              suggestion=f"Write it as a section: [{section}] on a line of "
                              "its own, the keys below it.")
        self.values: dict[str, Any] = value
        for key in value:
            if key not in keys:
                close = difflib.get_close_matches(key, keys, n=1)
                hint = (f"Did you mean {close[0]}?" if close
                        else f"Known keys: {', '.join(keys)}.")
                raise ConfigError(f"In {origin}, [{section}] has an unknown key {key!r}.",
                                  suggestion=hint)

    def fail(self, key: str, wanted: str, value: object) -> ConfigError:
        return ConfigError(f"In {self.origin}, [{self.section}] {key} must be {wanted}, "
                           f"not {value!r}.")

    def _get(self, key: str, default: T, kind: type | tuple[type, ...], wanted: str) -> T:
        value: Any = self.values.get(key, default)
        # TOML booleans are ints to isinstance; a port of `true` is still a mistake.
        if value is not default and (not isinstance(value, kind) or (
                isinstance(value, bool) and kind is not bool)):
            raise self.fail(key, wanted, value)
        return cast(T, value)

    def text(self, key: str, default: str) -> str:
        return self._get(key, default, str, "a quoted string")

    def optional_text(self, key: str) -> str | None:
        value = self._get(key, "", str, "a quoted string")
        return value or None

    def flag(self, key: str, default: bool) -> bool:
        return self._get(key, default, bool, "true or false")

    def whole(self, key: str, default: int, low: int, high: int) -> int:
        value = self._get(key, default, int, f"a whole number from {low} to {high}")
        if not low <= value <= high:
            raise self.fail(key, f"a whole number from {low} to {high}", value)
        return value

    def seconds(self, key: str, default: float) -> float:
        value = self._get(key, default, (int, float), "a number of seconds above 0")
        if value <= 0:
            raise self.fail(key, "a number of seconds above 0", value)
        return float(value)

    def days(self, key: str, default: float) -> timedelta:
        value = self._get(key, default, (int, float), "a number of days above 0")
        if not 0 < value <= 365:
            raise self.fail(key, "a number of days above 0 (at most 365)", value)
        return timedelta(days=value)

    def choice(self, key: str, default: str, choices: tuple[str, ...]) -> str:
        value = self.text(key, default)
        if value not in choices:
            raise self.fail(key, " or ".join(repr(c) for c in choices), value)
        return value

    def path(self, key: str, default: Path) -> Path:
        value = self.values.get(key)
        if value is None:
            return default
        if not isinstance(value, str) or not value:
            raise self.fail(key, "a folder name in quotes", value)
        found = Path(value).expanduser()
        return found if found.is_absolute() else self.base / found

    def strings(self, key: str, *, lower: bool = True) -> tuple[str, ...]:
        value = self.values.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.fail(key, "a list of quoted " + ("addresses" if lower else "names"),
                            value)
        return tuple(v.strip().lower() if lower else v.strip() for v in value)

    def file(self, key: str) -> str | None:
        if key not in self.values:
            return None
        path = self.path(key, Path())
        if not path.is_file():
            raise ConfigError(f"In {self.origin}, [{self.section}] {key} names {path}, "
                              "which is not a file.")
        return str(path)

    def required(self, key: str) -> str:
        value = self.text(key, "")
        if not value:
            raise ConfigError(f"In {self.origin}, [{self.section}] needs {key}.",
                              suggestion=f"Add a line {key} = \"...\" under [{self.section}].")
        return value


def _address(reader: _Reader, key: str, value: str, *, maildir: bool = False) -> str:
    """The address checked as a seat's is (``pbem.mail.address``)."""
    try:
        mail_address(value)
        return deliverable(value, maildir=maildir)
    except AddressError as error:
        why = error.message[:1].upper() + error.message[1:]
        raise ConfigError(f"In {reader.origin}, [{reader.section}] {key} must be a plain "
                          f"mail address like pbem@example.org, not {value!r}.",
                          suggestion=None if error.message.startswith("this is not")
                          else f"{why}. {error.suggestion}") from None


def _build(data: Mapping[str, Any], source: Path | None, base: Path,
           env: Mapping[str, str], logins: bool) -> DaemonConfig:
    origin = str(source) if source else "the embedded default configuration"
    sections = [*_KEYS, *INTAKES]
    for section in data:
        if section not in sections:
            close = difflib.get_close_matches(section, sections, n=1)
            hint = (f"Did you mean [{close[0]}]?" if close
                    else f"Known sections: {', '.join(f'[{s}]' for s in sections)}.")
            raise ConfigError(f"In {origin}, there is an unknown section [{section}].",
                              suggestion=hint)
    read = {section: _Reader(data, section, origin, base, keys)
            for section, keys in _KEYS.items()}

    store = read["store"].path("path", base / DEFAULT_STORE)
    mail = read["mail"]
    address = _address(mail, "address", mail.text("address", "pbem@localhost"))
    domain = mail.text("domain", address.rsplit("@", 1)[1])
    gm = mail.text("gm_address", "")
    templates = mail.path("templates", Path())
    gm_tz = mail.text("gm_timezone", "UTC")
    try:
        ZoneInfo(gm_tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise mail.fail("gm_timezone", "an IANA time zone such as Europe/Paris or UTC",
                        gm_tz) from None
    sender = MailIdentity(address=address, name=mail.text("name", "Illuminati PBEM"), domain=domain,
                    # Mailed to like a player, so a Maildir must take it too.
                    gm_address=_address(mail, "gm_address", gm, maildir="smtp" not in data)
                    if gm else "",
                    site_dir=templates if "templates" in mail.values else None,
                    gm_lang=mail.choice("gm_language", "en", LANGUAGES), gm_tz=gm_tz,
                    per_game=mail.flag("address_per_game", False))
    if sender.site_dir is not None and not sender.site_dir.is_dir():
        raise ConfigError(f"In {origin}, [mail] templates names {sender.site_dir}, "
                          "which is not a folder.")
    envelope_from = mail.text("envelope_from", address)
    if envelope_from:
        _address(mail, "envelope_from", envelope_from)

    oauth = _oauth(read["oauth"], env, store, logins) if "oauth" in data else None
    logged = _logins(env, logins, oauth) if "smtp" in data or set(data) & set(INTAKES) else None
    intakes = tuple(
        (section, kind.read(_Reader(data, section, origin, base, kind.keys),
                            cast("Logins", logged)))
        for section, kind in ((s, intake_kind(s)) for s in INTAKES if s in data))
    listener_section = read["listener"]
    enabled = listener_section.flag("enabled", not intakes)
    listener = None
    if enabled:
        accept = listener_section.strings("accept") or (address, "@" + domain.lower())
        cert, key = (listener_section.path(k, Path()) for k in ("tls_cert", "tls_key"))
        if (cert == Path()) != (key == Path()):
            raise ConfigError(f"In {origin}, [listener] has one of tls_cert and tls_key "
                              "without the other.",
                              suggestion="Give both (the certificate and its key), or neither.")
        check_dkim = listener_section.flag("check_dkim", False)
        if check_dkim and not read["mail"].text("trusted_authserv_id", "").strip():
            raise ConfigError(f"In {origin}, [listener] check_dkim is on but [mail] "
                              "trusted_authserv_id is not set.",
                              suggestion="Set trusted_authserv_id to the name the listener's "
                              "Authentication-Results header is to carry (this host's name).")
        if check_dkim and not _dkim_available():
            raise ConfigError(f"In {origin}, [listener] check_dkim is on but dkimpy is not "
                              "installed.", suggestion="pip install 'pbem[dkim]'")
        listener = ListenerSettings(host=listener_section.text("host", "127.0.0.1"),
                                    port=listener_section.whole("port", 2525, 0, 65535),
                                    accept=accept, tls_cert=None if cert == Path() else cert,
                                    tls_key=None if key == Path() else key,
                                    check_dkim=check_dkim)
    if listener is None and not intakes:
        raise ConfigError(f"In {origin}, no mail comes in: the listener is off and there is "
                          "no [imap] section.",
                          suggestion="Set [listener] enabled = true, or add an [imap] section "
                          "(or [maildir_intake]).")
    daemon = read["daemon"]
    metrics = daemon.path("metrics_file", Path())
    if metrics != Path() and not metrics.parent.is_dir():
        raise ConfigError(f"In {origin}, [daemon] metrics_file is in {metrics.parent}, which "
                          "is no folder.", suggestion="Name a file in node_exporter's "
                          "textfile folder (--collector.textfile.directory), which must exist.")
    return DaemonConfig(
        source=source, store=store, sender=sender, envelope_from=envelope_from,
        max_mail_bytes=mail.whole("max_kib", 256, 1, 100 * 1024) * 1024,
        mails_per_hour=mail.whole("mails_per_hour", 60, 1, 1_000_000),
        stranger_replies=mail.whole("stranger_replies", STRANGER_REPLIES, 0, 1_000_000),
        trusted_authserv_id=mail.text("trusted_authserv_id", "").strip(),
        listener=listener, intakes=intakes,
        smtp=_smtp(read["smtp"], cast("Logins", logged)) if "smtp" in data else None,
        maildir=read["maildir"].path("path", store / "maildirs"),
        tick_seconds=daemon.seconds("tick_seconds", 60.0),
        queue_lifetime=daemon.days("queue_lifetime_days", 5.0),
        log_level=daemon.choice("log_level", "INFO", _LOG_LEVELS),
        log_format=cast(LogFormat, daemon.choice("log_format", "text", LOG_FORMATS)),
        metrics_file=None if metrics == Path() else metrics,
        alarm=_alarm(read["alarm"], sender.gm_address),
    )


def _logins(env: Mapping[str, str], logins: bool, oauth: OAuthSettings | None) -> Logins:
    """What a section that logs in is read with (imported here only: a configuration with
    no intake and no [smtp] loads no transport)."""
    from pbem.transport.intake import Logins

    return Logins(env, logins, oauth)


def _dkim_available() -> bool:
    """Whether the listener can check DKIM (imported here only: ``pbem games`` and the
    other commands that read the configuration load no transport)."""
    from pbem.transport.dkimcheck import available

    return available()


def _alarm(reader: _Reader, gm_address: str) -> AlarmSettings:
    """The [alarm] section: where the game master is told of a broken mail login."""
    maildir = reader.path("maildir", Path())
    to = reader.text("to", gm_address)
    if to:
        to = _address(reader, "to", to)
    webhook = reader.optional_text("webhook")
    if webhook is not None:
        from pbem.transport.chat import check_url

        try:
            check_url(webhook)
        except ConfigError as error:
            raise ConfigError(f"In {reader.origin}, [alarm] webhook: {error.message}",
                              suggestion=error.suggestion) from None
    return AlarmSettings(maildir=None if maildir == Path() else maildir,
                         sendmail=reader.optional_text("sendmail"), to=to, webhook=webhook)


def _oauth(reader: _Reader, env: Mapping[str, str], store: Path,
           logins: bool) -> OAuthSettings:
    from pbem.transport.oauth import PROVIDERS, OAuthSettings

    provider = cast("Provider", reader.choice("provider", "google", PROVIDERS))
    secret = env.get(OAUTH_SECRET_ENV) or reader.optional_text("client_secret")
    if provider == "microsoft-app" and secret is None and logins:
        raise ConfigError(f"In {reader.origin}, [oauth] provider microsoft-app needs a "
                          "client secret.",
                          suggestion=f"Set the environment variable {OAUTH_SECRET_ENV}, or "
                          "add client_secret = \"...\" under [oauth].")
    return OAuthSettings(
        provider=provider, client_id=reader.required("client_id"),
        token_file=reader.path("token_file", store / "daemon" / "oauth-token.json"),
        client_secret=secret, tenant=reader.text("tenant", "common"),
        scopes=reader.strings("scopes", lower=False),
        token_url=_endpoint(reader, "token_url", provider == "custom"),
        device_url=_endpoint(reader, "device_url", False),
        auth_url=_endpoint(reader, "auth_url", False))


def _endpoint(reader: _Reader, key: str, required: bool) -> str:
    """An OAuth endpoint of the custom provider: an http(s) address."""
    value = reader.required(key) if required else reader.text(key, "")
    if value and not value.startswith(("https://", "http://")):
        raise reader.fail(key, "an https:// address", value)
    return value


def _limit(reader: _Reader, key: str) -> int | None:
    return reader.whole(key, 0, 1, 10_000_000) if key in reader.values else None


def _smtp(reader: _Reader, logged: Logins) -> SmtpSettings:
    security = reader.choice("security", "starttls", _SECURITY)
    username = reader.optional_text("username")
    password = logged.password(reader)  # SMTP_PASSWORD_ENV
    oauth = logged.oauth_for(reader)
    if oauth is not None and username is None:
        raise ConfigError(f"In {reader.origin}, [smtp] auth = \"oauth2\" needs the "
                          "username (the mailbox's address).")
    if username is not None and password is None and oauth is None and logged.logins:
        raise ConfigError(f"In {reader.origin}, [smtp] has a username but no password.",
                          suggestion=f"Set the environment variable {SMTP_PASSWORD_ENV}, or "
                          "add password = \"...\" under [smtp].")
    default_port = {"tls": 465, "starttls": 587, "plain": 25}[security]
    return SmtpSettings(
        host=reader.required("host"),
        port=reader.whole("port", default_port, 1, 65535),
        security=cast("Security", security), username=username, password=password,
        timeout=reader.seconds("timeout", 30.0),
        ca_file=reader.file("ca_file"),
        oauth=oauth,
        max_per_minute=_limit(reader, "max_per_minute"),
        max_per_day=_limit(reader, "max_per_day"),
    )
