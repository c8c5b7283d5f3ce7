"""Real mail servers for tests: a private Dovecot (IMAP + LMTP) and an aiosmtpd catcher.

Both bind 127.0.0.1 on free ports and are stopped by their own process id or thread.
See notes/mail-servers.md for why the Dovecot settings are what they are.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import re
import shutil
import signal
import smtplib
import socket
import ssl
import subprocess
import tempfile
import threading
import time
import urllib.parse
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session
from imapclient import IMAPClient
from imapclient.exceptions import IMAPClientError

DOVECOT_CANDIDATES = ("dovecot", "/usr/sbin/dovecot")


def dovecot_binary() -> str | None:
    """Give the path of the dovecot program, or None when it is not installed."""
    for candidate in DOVECOT_CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    return None


def sent_message_ids(store: Path) -> list[str]:
    """Give the Message-IDs of the mails a store marked sent (every game's sent journal), to
    hold against what the SMTP server caught."""
    return [json.loads(line)["message_id"] for path in store.glob("games/*/sent.log")
            for line in path.read_bytes().splitlines()]


def _port_block() -> range:
    """Give the ports this test process hands out: a block of its own below the kernel's
    ephemeral range, one block per pytest-xdist worker.

    A port the kernel picks (bind to port 0) is free only until it is used: between the
    pick and the server's bind, another worker's pick, or any process's outgoing
    connection, may take the same port, and the test then talks to a stranger. Ports
    below the ephemeral range are never picked by the kernel, and the workers' blocks
    do not meet, so no other test server can be given the same one."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    first = 10000
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
    size = (low - first) // max(workers, 1)
    return range(first + worker * size, first + (worker + 1) * size)


_PORTS = _port_block()
# The block in turn, from a start of this process's own: a suite run side by side with
# this one starts elsewhere in the block.
_TURNS = (_PORTS[(os.getpid() + step) % len(_PORTS)] for step in itertools.count())


def free_port() -> int:
    """Give a TCP port on 127.0.0.1 that is free now and that no other test server of
    this run is given (see ``_port_block``); never the same one twice in a process."""
    for port in itertools.islice(_TURNS, len(_PORTS)):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue  # something of the machine's listens there
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:  # no block to use
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def logged_in(port: int, account: Account) -> IMAPClient:
    """Give an IMAP client logged in as ``account`` on the plain ``port`` of 127.0.0.1."""
    client = IMAPClient("127.0.0.1", port=port, ssl=False, timeout=10)
    try:
        client.login(account.username, account.password)
    except BaseException:
        client.shutdown()
        raise
    return client


def make_certificate(folder: Path) -> tuple[Path, Path] | None:
    """Give (cert, key) of a self-signed certificate for 127.0.0.1; None without openssl."""
    openssl = shutil.which("openssl")
    if openssl is None:
        return None
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-subj", "/CN=localhost",
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    key.chmod(0o644)  # Dovecot reads it as root, but keep it readable for the test client too
    return cert, key


@dataclass(frozen=True)
class Account:
    """One mailbox on the test Dovecot."""

    username: str
    password: str


_CONFIG = """\
instance_name = pbem-test-{tag}
base_dir = {dir}/run
state_dir = {dir}/state
log_path = {dir}/dovecot.log
listen = 127.0.0.1
protocols = imap lmtp
{ssl}
disable_plaintext_auth = no
auth_mechanisms = plain login{oauth_mechanisms}
mail_location = maildir:~/Maildir
mail_fsync = never
default_internal_user = dovecot
default_login_user = dovenull
# Tests log in with wrong passwords on purpose: no delay after a failure.
auth_failure_delay = 0
{namespace}{extra}
{oauth_passdb}passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {dir}/users/%u
}}
userdb {{
  driver = static
  args = uid=nobody gid=nogroup home={dir}/mail/%u allow_all_users=yes
}}
{sieve}service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {imap_port}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {imaps_port}
    ssl = yes
  }}
}}
service lmtp {{
  inet_listener lmtp {{
    address = 127.0.0.1
    port = {lmtp_port}
  }}
}}
service anvil {{
  chroot =
  # Closing this socket switches off the per-IP login penalty: otherwise every failed
  # login from 127.0.0.1 would slow down every later login from it, for all tests.
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
"""


# Personal folders under INBOX. or INBOX/, as on Courier and Cyrus (``Dovecot(inbox_prefix=...)``).
_INBOX_NAMESPACE = """\
namespace inbox {{
  inbox = yes
  prefix = {prefix}
  separator = {separator}
}}
"""


_SIEVE = """\
recipient_delimiter = +
lda_mailbox_autocreate = yes
protocol lmtp {{
  mail_plugins = $mail_plugins sieve
}}
plugin {{
  sieve = file:{script}
}}
"""


class Dovecot:
    """A private Dovecot in a fresh folder under /tmp, run in the foreground as a subprocess.

    ``capabilities`` replaces the IMAP CAPABILITY list announced after login (to test a
    server without IDLE or MOVE). With openssl available, ``imaps_port`` serves TLS and the
    plain port offers STARTTLS, with the certificate at ``cert``. ``introspection_url`` adds
    the XOAUTH2 and OAUTHBEARER logins, each access token checked at that RFC 7662 address
    (a :class:`TokenServer`'s ``/introspect``). ``sieve`` runs that Sieve script on every
    LMTP delivery (Pigeonhole; ``recipient_delimiter = +``, folders made as it files into
    them); ``set_sieve`` changes it, as a game master edits theirs. ``inbox_prefix``
    (``INBOX.`` or ``INBOX/``) puts the personal folders under it, its last character the
    hierarchy separator (as Courier and Cyrus do), where a top-level folder cannot be made.
    ``settings`` are more lines of configuration, added at its end (deploy/'s Dovecot file,
    for the Postfix tests).
    """

    cert: Path | None

    def __init__(self, *, capabilities: str | None = None, tls: bool = True,
                 inbox_prefix: str = "",
                 introspection_url: str | None = None,
                 oauth_mechanisms: str = "xoauth2 oauthbearer",
                 sieve: str | None = None, settings: str = "") -> None:
        binary = dovecot_binary()
        if binary is None:
            raise RuntimeError("dovecot is not installed")
        self.binary = binary
        self.capabilities = capabilities
        self.personal_prefix = inbox_prefix
        self.separator = inbox_prefix[-1:] or "."  # Maildir++ without a namespace: "."
        self.introspection_url = introspection_url
        self.oauth_mechanisms = oauth_mechanisms
        self.settings = settings
        # Not pytest's tmp_path: Dovecot's unprivileged processes cannot enter it.
        self.dir = Path(tempfile.mkdtemp(prefix="pbem-dovecot-", dir="/tmp"))
        self.dir.chmod(0o755)
        certificate = make_certificate(self.dir) if tls else None
        self.cert = certificate[0] if certificate else None
        self._key: Path | None = certificate[1] if certificate else None
        mail = self.dir / "mail"
        mail.mkdir()
        shutil.chown(mail, "nobody", "nogroup")
        # One passwd-file per user: Dovecot rereads a shared one at most once a second, so
        # a user added just now could not log in yet; a file of its own is read on first use.
        self.users_dir = self.dir / "users"
        self.users_dir.mkdir()
        self.imap_port = self.imaps_port = self.lmtp_port = 0
        self._process: subprocess.Popen[bytes] | None = None
        self.sieve: Path | None = None
        if sieve is not None:
            folder = self.dir / "sieve"  # the mail user's: Pigeonhole compiles the script there
            folder.mkdir()
            shutil.chown(folder, "nobody", "nogroup")
            self.sieve = folder / "pbem.sieve"
            self.set_sieve(sieve)
        self._probe = self.add_user("probe")

    def set_sieve(self, script: str) -> None:
        """Replace the Sieve script every delivery runs from now on (Pigeonhole compiles it
        again, its file being newer than the compiled one)."""
        assert self.sieve is not None, "a Dovecot made without sieve="
        temp = self.sieve.with_suffix(".new")
        temp.write_text(script)
        temp.chmod(0o644)
        os.replace(temp, self.sieve)

    @property
    def tls(self) -> bool:
        """Tell whether the server offers TLS (imaps port and STARTTLS)."""
        return self.cert is not None

    def add_user(self, name: str | None = None, password: str | None = None) -> Account:
        """Give a new account with an empty mailbox, usable at once."""
        account = Account(name or f"u{uuid.uuid4().hex[:12]}", password or uuid.uuid4().hex)
        entry = self.users_dir / account.username
        entry.write_text(f"{account.username}:{{PLAIN}}{account.password}::::::\n")
        entry.chmod(0o644)
        return account

    def _write_config(self) -> Path:
        if self.cert is not None:
            ssl_part = f"ssl = yes\nssl_cert = <{self.cert}\nssl_key = <{self._key}"
        else:
            ssl_part = "ssl = no"
        extra = f"imap_capability = {self.capabilities}" if self.capabilities else ""
        oauth_passdb = ""
        if self.introspection_url is not None:
            oauth = self.dir / "oauth2.conf.ext"
            oauth.write_text(f"introspection_mode = post\n"
                             f"introspection_url = {self.introspection_url}\n"
                             "force_introspection = yes\nusername_attribute = username\n"
                             "active_attribute = active\nactive_value = true\n")
            oauth.chmod(0o644)
            oauth_passdb = (f"passdb {{\n  driver = oauth2\n"
                            f"  mechanisms = {self.oauth_mechanisms}\n"
                            f"  args = {oauth}\n}}\n")
        config = self.dir / "dovecot.conf"
        config.write_text(
            _CONFIG.format(
                tag=self.dir.name,
                dir=self.dir,
                ssl=ssl_part,
                extra=extra,
                namespace=_INBOX_NAMESPACE.format(prefix=self.personal_prefix,
                                                  separator=self.separator)
                if self.personal_prefix else "",
                oauth_mechanisms=" " + self.oauth_mechanisms if oauth_passdb else "",
                oauth_passdb=oauth_passdb,
                sieve=_SIEVE.format(script=self.sieve) if self.sieve else "",
                imap_port=self.imap_port,
                imaps_port=self.imaps_port if self.tls else 0,
                lmtp_port=self.lmtp_port,
            ) + self.settings
        )
        return config

    def start(self, timeout: float = 10.0) -> None:
        """Start Dovecot; returns once it greets and a real login succeeds."""
        if self._process is not None:
            return
        if self.imap_port:
            self._start(timeout)  # a restart keeps its ports
            return
        for attempt in range(3):
            # Free a moment ago; another process may take one before Dovecot binds it.
            self.imap_port, self.imaps_port, self.lmtp_port = free_port(), free_port(), free_port()
            try:
                self._start(timeout)
                return
            except RuntimeError:
                if attempt == 2 or "in use" not in self.log():
                    raise

    def _start(self, timeout: float) -> None:
        config = self._write_config()
        process = subprocess.Popen(
            [self.binary, "-F", "-c", str(config)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            # A session of its own: its login and mail processes share its process group.
            start_new_session=True,
        )
        self._process = process
        deadline = time.monotonic() + timeout
        last_error: Exception | None = None
        while time.monotonic() < deadline:
            if process.poll() is not None:
                stderr = process.stderr.read().decode() if process.stderr else ""
                self.stop()
                raise RuntimeError(f"dovecot exited at start: {stderr}\n{self.log()}")
            try:
                with self.client(self._probe):
                    return
            except (OSError, IMAPClientError) as error:
                last_error = error
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"dovecot did not accept a login in {timeout} s: {last_error}")

    def stop(self) -> None:
        """Stop our Dovecot and every process it started; returns once all have exited.

        Dovecot's master leaves running IMAP sessions behind when it stops; signalling its
        process group (ours alone, made at start) ends those too, so a stop is a real outage.
        """
        process, self._process = self._process, None
        if process is None:
            return
        group = process.pid
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()
        # Bounded: a member left as a zombie (if nothing reaps orphans here) stays in the
        # group, but holds no port.
        for sig in [signal.SIGTERM] * 100 + [signal.SIGKILL] * 50:
            try:
                os.killpg(group, sig)
            except ProcessLookupError:
                break  # the group is empty: its ports are free
            time.sleep(0.02)

    def restart(self) -> None:
        """Stop and start again on the same ports, keeping every mailbox."""
        self.stop()
        self.start()

    def remove(self) -> None:
        """Stop and delete the server's folder."""
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def kick(self, username: str) -> None:
        """End every IMAP session of ``username`` now, as a provider ends one whose token
        expired (Dovecot itself checks a token only at login)."""
        doveadm = shutil.which("doveadm") or "/usr/bin/doveadm"
        subprocess.run([doveadm, "-c", str(self.dir / "dovecot.conf"), "kick", username],
                       check=True, capture_output=True, timeout=10)

    def log(self) -> str:
        """Give Dovecot's log so far."""
        path = self.dir / "dovecot.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def client(self, account: Account) -> IMAPClient:
        """Give a logged-in IMAP client on the plain port (use it in a ``with``)."""
        return logged_in(self.imap_port, account)

    def append(self, account: Account, raw: bytes, folder: str = "INBOX") -> None:
        """Put a mail into a folder with IMAP APPEND."""
        with self.client(account) as client:
            if not client.folder_exists(self.full(folder)):
                client.create_folder(self.full(folder))
            client.append(self.full(folder), raw)

    def deliver(self, account: Account, raw: bytes, envelope_from: str = "sender@test",
                recipient: str | None = None) -> None:
        """Deliver a mail to the account over LMTP, as a mail server would: into its INBOX,
        or where the Sieve script files it; to ``recipient`` (an address of the account,
        such as ``user+detail@domain``) instead of the account's name if given."""
        with smtplib.LMTP("127.0.0.1", self.lmtp_port, local_hostname="localhost") as lmtp:
            lmtp.sendmail(envelope_from, [recipient or account.username], raw)

    def full(self, folder: str) -> str:
        """Give a folder's name on this server: under ``inbox_prefix``, each ``/`` the
        server's separator, but INBOX itself."""
        if folder.upper() == "INBOX" or (self.personal_prefix
                                         and folder.startswith(self.personal_prefix)):
            return folder
        return self.personal_prefix + folder.replace("/", self.separator)

    def messages(self, account: Account, folder: str) -> list[tuple[bytes, tuple[bytes, ...]]]:
        """Give (raw, flags) of every mail in a folder (a bare name: under ``INBOX.`` with
        ``inbox_prefix``), oldest first; [] if there is no folder."""
        return _messages(self.client(account), self.full(folder))


# Debian's cyrus-imapd conflicts with dovecot-imapd (both are "imap-server": system services
# on port 143). The tests run each as a private instance on free ports, so scripts/test.sh
# installs cyrus-common (the master, lmtpd, the tools) and unpacks cyrus-imapd's imapd and
# idled into CYRUS_UNPACKED instead of installing it; an installed cyrus-imapd serves too.
CYRUS_BIN = Path("/usr/lib/cyrus/bin")
CYRUS_UNPACKED = Path("/opt/pbem-tests/cyrus-imapd/usr/lib/cyrus/bin")
CYRUS_MASTER = str(CYRUS_BIN / "master")


def cyrus_program(name: str) -> str | None:
    """Give the path of one of Cyrus's programs, installed or unpacked; None if neither."""
    for folder in (CYRUS_BIN, CYRUS_UNPACKED):
        if (folder / name).is_file():
            return str(folder / name)
    return None


_CYRUS_IMAPD = """\
configdirectory: {dir}/conf
proc_path: {dir}/run/proc
mboxname_lockpath: {dir}/run/lock
defaultpartition: default
partition-default: {dir}/spool
# Personal folders under INBOX., as Cyrus installs have them by default.
altnamespace: no
unixhierarchysep: no
admins: pbemadmin
allowplaintext: yes
sasl_pwcheck_method: auxprop
sasl_auxprop_plugin: sasldb
sasl_sasldb_path: {dir}/sasldb2
sasl_mech_list: PLAIN LOGIN
# An account's INBOX is made at its first login or delivery.
autocreate_post: 1
autocreate_quota: 0
lmtpsocket: {dir}/run/socket/lmtp
idlesocket: {dir}/run/socket/idle
notifysocket: {dir}/run/socket/notify
sievedir: {dir}/sieve
syslog_prefix: pbem-test-cyrus
statuscache: no
"""

# Every program gets -C: the master does not hand its own configuration file down.
_CYRUS_CONF = """\
START {{
  recover cmd="{bin}/ctl_cyrusdb -C {conf} -r"
}}
SERVICES {{
  imap cmd="{imapd} -C {conf}" listen="127.0.0.1:{imap_port}" prefork=0
  lmtp cmd="{bin}/lmtpd -C {conf} -a" listen="127.0.0.1:{lmtp_port}" prefork=0
}}
EVENTS {{
}}
DAEMON {{
  idled cmd="{idled} -C {conf}"
}}
"""


def cyrus_installed() -> bool:
    """Tell whether Cyrus's programs (cyrus-common, and cyrus-imapd's installed or unpacked)
    and saslpasswd2 (sasl2-bin) are here."""
    programs = ("master", "lmtpd", "ctl_cyrusdb", "imapd", "idled")
    return all(map(cyrus_program, programs)) and shutil.which("saslpasswd2") is not None


class Cyrus:
    """A private Cyrus IMAP (Debian's cyrus-imapd) in a fresh folder under /tmp: its own
    imapd.conf and cyrus.conf, IMAP and LMTP on free ports of 127.0.0.1, users in a sasldb
    of its own. Personal folders sit under ``INBOX.`` (``altnamespace: no``), where a
    top-level folder cannot be made. The same methods as :class:`Dovecot`; no TLS.
    ``suppress`` names capabilities it does not announce (``IDLE MOVE UIDPLUS``).

    The master runs in a session of its own as the ``cyrus`` user, and is stopped with its
    whole process group by its process id.

    What it took (Cyrus 3.6, Debian 12): the master does not hand ``-C`` down, so every
    program in cyrus.conf has its own (else they read /etc/imapd.conf and /etc/sasldb2);
    imapd and lmtpd bind their end of idled's notices in ``configdirectory/socket``, which
    must exist for IDLE to report mail at once; ``lmtpd -a`` takes LMTP over TCP without a
    login; an INBOX made by a delivery and a login at once fails one of them (451 "Mailbox
    already exists"), so ``add_user`` logs in once; ``suppress_capabilities`` hides MOVE
    and UIDPLUS but not IDLE. Cyrus logs to syslog, absent here: ``log`` has the master's
    own output only.
    """

    personal_prefix = "INBOX."
    separator = "."
    cert: Path | None = None
    tls = False

    def __init__(self, *, suppress: str = "") -> None:
        if not cyrus_installed():
            raise RuntimeError("cyrus-imapd is not installed")
        self.dir = Path(tempfile.mkdtemp(prefix="pbem-cyrus-", dir="/tmp"))
        self.dir.chmod(0o755)
        # conf/socket: where imapd and lmtpd bind their end of the IDLE notices (idled).
        for sub in ("conf", "conf/socket", "spool", "run/proc", "run/lock", "run/socket",
                    "sieve"):
            (self.dir / sub).mkdir(parents=True)
        self.imap_port = self.lmtp_port = 0
        self.suppress = suppress
        self._process: subprocess.Popen[bytes] | None = None
        self.sieve: Path | None = None
        self._admin = self.add_user("pbemadmin")
        self._probe = self.add_user("probe")

    def add_user(self, name: str | None = None, password: str | None = None) -> Account:
        """Give a new account, usable at once (its INBOX is made at first use)."""
        account = Account(name or f"u{uuid.uuid4().hex[:12]}", password or uuid.uuid4().hex)
        subprocess.run(["saslpasswd2", "-f", str(self.dir / "sasldb2"), "-p", "-c",
                        account.username], input=account.password.encode(), check=True,
                       capture_output=True, timeout=10)
        shutil.chown(self.dir / "sasldb2", "cyrus", "mail")
        if self._process is not None:
            # Its INBOX made now: made by a delivery and a login at once, one of them fails.
            with self.client(account):
                pass
        return account

    def full(self, folder: str) -> str:
        """Give a folder's name on this server: under ``INBOX.``, each ``/`` a ``.``, but
        INBOX itself."""
        if folder.upper() == "INBOX" or folder.startswith(self.personal_prefix):
            return folder
        return self.personal_prefix + folder.replace("/", self.separator)

    def _write_config(self) -> Path:
        imapd = self.dir / "imapd.conf"
        imapd.write_text(_CYRUS_IMAPD.format(dir=self.dir) + (
            f"suppress_capabilities: {self.suppress}\n" if self.suppress else ""))
        (self.dir / "cyrus.conf").write_text(_CYRUS_CONF.format(
            conf=imapd, imap_port=self.imap_port, lmtp_port=self.lmtp_port, bin=CYRUS_BIN,
            imapd=cyrus_program("imapd"), idled=cyrus_program("idled")))
        for path in self.dir.rglob("*"):
            shutil.chown(path, "cyrus", "mail")
        shutil.chown(self.dir, "cyrus", "mail")
        return imapd

    def start(self, timeout: float = 15.0) -> None:
        """Start Cyrus; returns once a real login succeeds."""
        if self._process is not None:
            return
        if not self.imap_port:
            self.imap_port, self.lmtp_port = free_port(), free_port()
        imapd = self._write_config()
        self._process = process = subprocess.Popen(
            [CYRUS_MASTER, "-C", str(imapd), "-M", str(self.dir / "cyrus.conf"), "-D",
             "-p", str(self.dir / "run" / "master.pid")],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(self.dir / "master.log", "ab"),  # noqa: SIM115
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        last_error: Exception | None = None
        while time.monotonic() < deadline:
            if process.poll() is not None:
                self.stop()
                raise RuntimeError(f"cyrus master exited at start: {self.log()}")
            try:
                with self.client(self._probe):
                    return
            except (OSError, IMAPClientError) as error:
                last_error = error
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"cyrus did not accept a login in {timeout} s: {last_error}")

    def stop(self) -> None:
        """Stop the master and every process of its group; returns once all have exited."""
        process, self._process = self._process, None
        if process is None:
            return
        group = process.pid
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        for sig in [signal.SIGTERM] * 100 + [signal.SIGKILL] * 50:
            try:
                os.killpg(group, sig)
            except ProcessLookupError:
                break
            time.sleep(0.02)

    def restart(self) -> None:
        """Stop and start again on the same ports, keeping every mailbox."""
        self.stop()
        self.start()

    def remove(self) -> None:
        """Stop and delete the server's folder."""
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def log(self) -> str:
        """Give what the master wrote (Cyrus logs to syslog otherwise)."""
        path = self.dir / "master.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def client(self, account: Account) -> IMAPClient:
        """Give a logged-in IMAP client (use it in a ``with``)."""
        return logged_in(self.imap_port, account)

    def admin(self) -> IMAPClient:
        """Give a client logged in as the server's admin (``user.NAME.FOLDER`` names; use it
        in a ``with``)."""
        return self.client(self._admin)

    def append(self, account: Account, raw: bytes, folder: str = "INBOX") -> None:
        """Put a mail into a folder with IMAP APPEND (a bare name: under ``INBOX.``)."""
        with self.client(account) as client:
            if not client.folder_exists(self.full(folder)):
                client.create_folder(self.full(folder))
            client.append(self.full(folder), raw)

    def deliver(self, account: Account, raw: bytes, envelope_from: str = "sender@test",
                recipient: str | None = None) -> None:
        """Deliver a mail into the account's INBOX over LMTP, as a mail server would."""
        with smtplib.LMTP("127.0.0.1", self.lmtp_port, local_hostname="localhost") as lmtp:
            lmtp.sendmail(envelope_from, [recipient or account.username], raw)

    def messages(self, account: Account, folder: str) -> list[tuple[bytes, tuple[bytes, ...]]]:
        """Give (raw, flags) of every mail in a folder (a bare name: under ``INBOX.``),
        oldest first; [] if there is no folder."""
        return _messages(self.client(account), self.full(folder))


def _messages(client: IMAPClient, folder: str) -> list[tuple[bytes, tuple[bytes, ...]]]:
    with client:
        if not client.folder_exists(folder):
            return []
        client.select_folder(folder, readonly=True)
        uids = sorted(client.search("ALL"))
        data = client.fetch(uids, [b"BODY.PEEK[]", b"FLAGS"]) if uids else {}
        return [(data[uid][b"BODY[]"], tuple(data[uid][b"FLAGS"])) for uid in uids]


@dataclass(frozen=True)
class CaughtMail:
    """One mail the catcher accepted."""

    envelope_from: str
    rcpt_tos: tuple[str, ...]
    raw: bytes


class SmtpCatcher:
    """An aiosmtpd server collecting what it receives; can refuse mail for a while.

    ``refuse(code, times)`` answers the next ``times`` transactions at MAIL FROM with the
    given code (421 also closes the connection, as real servers do). ``reject`` lists
    recipients refused at RCPT with 550. ``logins`` switches on AUTH with those
    username/password pairs; ``bearer`` switches on AUTH XOAUTH2, asking it whom an access
    token belongs to (None: a dead token), as a provider's server asks its token service
    (``TokenServer.valid``); ``certificate`` (cert, key) offers STARTTLS; ``idle_timeout``
    closes a session left idle that many seconds.
    """

    def __init__(
        self,
        *,
        logins: dict[str, str] | None = None,
        certificate: tuple[Path, Path] | None = None,
        idle_timeout: float | None = None,
        bearer: Callable[[str], str | None] | None = None,
    ) -> None:
        self.mails: list[CaughtMail] = []
        self._bearer = bearer
        self.oauth_logins: list[str] = []  # the users logged in with XOAUTH2
        self.reject: set[str] = set()
        self._refusals: list[str] = []
        self._lock = threading.Lock()
        self._logins = logins
        self.sessions = 0
        kwargs: dict[str, Any] = {"decode_data": False, "enable_SMTPUTF8": True}
        if logins is not None or bearer is not None:
            kwargs.update(authenticator=self._authenticate, auth_require_tls=False)
        if idle_timeout is not None:
            kwargs.update(timeout=idle_timeout)
        if certificate is not None:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(str(certificate[0]), str(certificate[1]))
            kwargs.update(tls_context=context)
        self.port = free_port()
        self._controller = Controller(
            self, hostname="127.0.0.1", port=self.port, server_hostname="catcher", **kwargs
        )

    def _authenticate(
        self, server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: Any
    ) -> AuthResult:
        ok = (
            isinstance(data, LoginPassword)
            and self._logins is not None
            and self._logins.get(data.login.decode()) == data.password.decode()
        )
        return AuthResult(success=ok, handled=False)

    async def auth_XOAUTH2(self, server: SMTP, args: list[str]) -> AuthResult:
        """The XOAUTH2 mechanism as Gmail and Outlook run it: a refused token gets a 334
        with the error, the client's empty answer, then 535."""
        if self._bearer is None:
            return AuthResult(success=False, handled=False)
        if len(args) > 1:
            blob: Any = base64.b64decode(args[1])
        else:
            blob = await server.challenge_auth("", encode_to_b64=False)
        if not isinstance(blob, bytes):
            return AuthResult(success=False, handled=True)
        fields = dict(part.split("=", 1) for part in blob.decode().split("\x01") if "=" in part)
        user = self._bearer(fields.get("auth", "").removeprefix("Bearer "))
        if user is None or user != fields.get("user"):
            await server.challenge_auth(json.dumps({"status": "401", "schemes": "bearer"}))
            return AuthResult(success=False, handled=False)
        with self._lock:
            self.oauth_logins.append(user)
        return AuthResult(success=True, auth_data=user)

    def refuse(self, code: int = 451, times: int = 1) -> None:
        """Refuse the next ``times`` mails at MAIL FROM with ``code``."""
        with self._lock:
            self._refusals.extend([f"{code} {'4.3.2' if code < 500 else '5.7.1'} not now"] * times)

    async def handle_EHLO(
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        hostname: str,
        responses: list[str],
    ) -> list[str]:
        session.host_name = hostname
        with self._lock:
            self.sessions += 1
        return responses

    async def handle_MAIL(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        with self._lock:
            refusal = self._refusals.pop(0) if self._refusals else None
        if refusal is not None:
            if refusal.startswith("421"):
                await server.push(refusal)
                server.transport.close()  # type: ignore[union-attr]
                return "421 closing"  # not seen: the connection is already closed
            return refusal
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        if address in self.reject:
            return "550 5.1.1 no such user"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        with self._lock:
            self.mails.append(
                CaughtMail(envelope.mail_from or "", tuple(envelope.rcpt_tos), bytes(raw))
            )
        return "250 OK caught"

    def wait_for(self, count: int, timeout: float = 5.0) -> list[CaughtMail]:
        """Give the mails once at least ``count`` arrived (fails the test after ``timeout``)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if len(self.mails) >= count:
                    return list(self.mails)
            time.sleep(0.01)
        raise AssertionError(f"catcher got {len(self.mails)} mails, expected {count}")

    def start(self) -> SmtpCatcher:
        """Start serving on its own thread; gives itself."""
        self._controller.start()
        return self

    def stop(self) -> None:
        """Stop serving and end its thread."""
        self._controller.stop()


class ImapCutter:
    """A TCP proxy on 127.0.0.1 before an IMAP server's plain port that cuts the connection
    once, where a server restart or a daemon killed would: at the first command of a client
    whose words after the tag match ``command`` (a regular expression), with ``passed``
    False it closes both ends without handing the command on; with ``passed`` True it hands
    it on (its words first made ``rewrite[1]`` where they match ``rewrite[0]``), waits for
    the server's tagged answer, and closes both ends without handing that on. ``cut`` is set
    once it has. Lines pass as they are (a command with a literal, as APPEND sends, is not
    looked at whole). Use it in a ``with``."""

    def __init__(self, port: int, command: bytes, *, passed: bool,
                 rewrite: tuple[bytes, bytes] | None = None) -> None:
        self._target = port
        self._command = re.compile(command)
        self._passed = passed
        self._rewrite = rewrite
        self.cut = threading.Event()
        self._armed = True
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self._sockets: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def __enter__(self) -> ImapCutter:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)  # ends the accept under way
        self._listener.close()
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
        self._thread.join(10)

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self._target), timeout=30)
            server.settimeout(None)
            with self._lock:
                self._sockets += [client, server]
            watched: list[bytes] = []  # the tag whose answer ends the connection
            threading.Thread(target=self._upward, args=(client, server, watched),
                             daemon=True).start()
            threading.Thread(target=self._downward, args=(server, client, watched),
                             daemon=True).start()

    def _end(self, *socks: socket.socket) -> None:
        for sock in socks:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def _upward(self, client: socket.socket, server: socket.socket,
                watched: list[bytes]) -> None:
        reader = client.makefile("rb")
        try:
            while line := reader.readline():
                tag, _, words = line.partition(b" ")
                with self._lock:
                    hit = self._armed and bool(self._command.match(words))
                    self._armed = self._armed and not hit
                if hit and not self._passed:
                    self.cut.set()
                    break
                if hit:
                    if self._rewrite is not None:
                        words = re.sub(self._rewrite[0], self._rewrite[1], words)
                    watched.append(tag)
                    line = tag + b" " + words
                server.sendall(line)
        except OSError:
            pass
        self._end(client, server)

    def _downward(self, server: socket.socket, client: socket.socket,
                  watched: list[bytes]) -> None:
        reader = server.makefile("rb")
        try:
            while line := reader.readline():
                if watched and line.startswith(watched[0] + b" "):
                    self.cut.set()
                    break
                client.sendall(line)
        except OSError:
            pass
        self._end(client, server)


def children_of(pid: int) -> set[int]:
    """Give the process ids of the children of ``pid`` (none once it is gone)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found.update(int(child) for child in (task / "children").read_text().split())
    return found


def wait_until(condition: Callable[[], bool], timeout: float = 5.0, step: float = 0.02) -> bool:
    """Give True once ``condition()`` holds, False after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


class TokenServer:
    """A provider's token service on loopback, for the OAuth tests.

    Serves Google's token endpoint (``/google/token``), Microsoft's identity platform
    (``/ms/<tenant>/...``: OpenID configuration, device code, token) and an RFC 7662
    introspection endpoint (``/introspect``) that the test Dovecot and SMTP server ask
    whether an access token is good. The providers' real addresses reach it through
    :func:`route_providers_to`. Access tokens live ``lifetime`` seconds; ``expire`` and
    ``revoke`` end one at once, as a provider does.
    """

    def __init__(self, lifetime: int = 3600) -> None:
        self.lifetime = lifetime
        self.refresh_tokens: dict[str, str] = {}  # refresh token -> username
        self.access: dict[str, tuple[str, float]] = {}  # access token -> (user, ends at)
        self.refreshes = 0  # token grants served
        self.introspections = 0
        self.scope = ""  # the scopes granted, "" for what was asked
        self._lock = threading.Lock()
        self.port = free_port()
        server_self = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                server_self._answer(self, "GET", {})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
                server_self._answer(self, "POST", form)

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> TokenServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def grant(self, username: str) -> str:
        """Give a new refresh token for ``username`` (what a login would leave)."""
        token = "rt-" + uuid.uuid4().hex
        with self._lock:
            self.refresh_tokens[token] = username
        return token

    def revoke(self, username: str) -> None:
        """End every refresh and access token of ``username``."""
        with self._lock:
            for store in (self.refresh_tokens,):
                for token in [t for t, u in store.items() if u == username]:
                    del store[token]
            for token in [t for t, (u, _) in self.access.items() if u == username]:
                del self.access[token]

    def expire_access(self) -> None:
        """End every access token now (refresh tokens stay good)."""
        with self._lock:
            self.access.clear()

    def valid(self, token: str) -> str | None:
        """Give the user of a live access token, None for a dead or unknown one."""
        with self._lock:
            self.introspections += 1
            found = self.access.get(token)
        return found[0] if found and found[1] > time.time() else None

    def _issue(self, username: str, scope: str) -> dict[str, Any]:
        token = "at-" + uuid.uuid4().hex
        with self._lock:
            self.access[token] = (username, time.time() + self.lifetime)
            self.refreshes += 1
        return {"access_token": token, "token_type": "Bearer", "expires_in": self.lifetime,
                "scope": self.scope or scope}

    def _microsoft_extras(self, username: str) -> dict[str, Any]:
        def b64(value: dict[str, Any]) -> str:
            return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

        now = int(time.time())
        claims = {"iss": "https://login.microsoftonline.com/tid/v2.0", "aud": "client",
                  "sub": username, "oid": "uid", "tid": "tid", "iat": now, "exp": now + 3600,
                  "preferred_username": username}
        return {"client_info": b64({"uid": "uid", "utid": "tid"}),
                "id_token": f"{b64({'alg': 'none'})}.{b64(claims)}.",
                "refresh_token": self.grant(username)}

    def _answer(self, handler: BaseHTTPRequestHandler, method: str,
                form: dict[str, str]) -> None:
        path = urllib.parse.urlsplit(handler.path).path
        status, body = 404, {"error": "not_found"}
        if path == "/introspect":
            user = self.valid(form.get("token", ""))
            status, body = 200, ({"active": True, "username": user} if user
                                 else {"active": False})
        elif path == "/google/token":
            status, body = self._google(form)
        elif path.startswith("/ms/"):
            status, body = self._microsoft(path.split("/")[2], path, form)
        data = json.dumps(body).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def _google(self, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        grant = form.get("grant_type")
        if grant == "refresh_token":
            user = self.refresh_tokens.get(form.get("refresh_token", ""))
        elif grant == "authorization_code" and form.get("code", "").startswith("code-"):
            user = form["code"].removeprefix("code-")
        else:
            user = None
        if user is None:
            return 400, {"error": "invalid_grant",
                         "error_description": "Token has been expired or revoked."}
        body = self._issue(user, form.get("scope", "https://mail.google.com/"))
        if grant == "authorization_code":
            body["refresh_token"] = self.grant(user)
        return 200, body

    def _microsoft(self, tenant: str, path: str,
                   form: dict[str, str]) -> tuple[int, dict[str, Any]]:
        base = f"https://login.microsoftonline.com/{tenant}"
        if path.endswith("/.well-known/openid-configuration"):
            return 200, {"authorization_endpoint": f"{base}/oauth2/v2.0/authorize",
                         "token_endpoint": f"{base}/oauth2/v2.0/token",
                         "device_authorization_endpoint": f"{base}/oauth2/v2.0/devicecode",
                         "issuer": f"{base}/v2.0"}
        if path.endswith("/discovery/instance"):
            return 200, {"tenant_discovery_endpoint":
                         f"{base}/v2.0/.well-known/openid-configuration",
                         "metadata": [{"preferred_network": "login.microsoftonline.com",
                                       "preferred_cache": "login.windows.net",
                                       "aliases": ["login.microsoftonline.com",
                                                   "login.windows.net"]}]}
        scope = " ".join(s for s in form.get("scope", "").split()
                         if s not in ("offline_access", "openid", "profile"))
        if path.endswith("/devicecode"):
            return 200, {"device_code": "device-" + form.get("client_id", ""),
                         "user_code": "ABCD-EFGH", "verification_uri": "https://example/dev",
                         "expires_in": 900, "interval": 0,
                         "message": "To sign in, enter the code ABCD-EFGH."}
        if path.endswith("/token"):
            grant = form.get("grant_type")
            user = None
            if grant == "refresh_token":
                user = self.refresh_tokens.get(form.get("refresh_token", ""))
            elif grant == "urn:ietf:params:oauth:grant-type:device_code":
                user = "gm@example.org"
            elif grant == "client_credentials" and form.get("client_secret") == "secret":
                return 200, self._issue("app@example.org", scope)
            if user is None:
                return 400, {"error": "invalid_grant", "error_description":
                             "AADSTS70008: The refresh token has expired or is revoked."}
            return 200, self._issue(user, scope) | self._microsoft_extras(user)
        return 404, {"error": "not_found"}


_PROVIDER_HOSTS = ("https://oauth2.googleapis.com/", "https://login.microsoftonline.com/")


def route_providers_to(monkeypatch: Any, server: TokenServer) -> None:
    """Send the token libraries' HTTP requests for Google and Microsoft to ``server``: the
    one thing the OAuth tests mock, at the requests library's transport."""
    import requests.adapters

    send = requests.adapters.HTTPAdapter.send

    def rerouted(adapter: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        for host, prefix in zip(_PROVIDER_HOSTS, ("/google/", "/ms/"), strict=True):
            if request.url.startswith(host):
                request.url = server.url + prefix + request.url[len(host):]
                if prefix == "/google/":
                    request.url = server.url + "/google/token"
        return send(adapter, request, *args, **kwargs)

    monkeypatch.setattr(requests.adapters.HTTPAdapter, "send", rerouted)

MailServer = Dovecot | Cyrus
"""An IMAP server of the tests: the same methods on both."""


class ChatHook:
    """A chat webhook of the test's own on 127.0.0.1: keeps the JSON body of every post
    (apprise's ``json://`` scheme posts ``{"title", "message", ...}``). ``answer``: the
    HTTP status it gives, or None to take each post and never answer (until stopped)."""

    def __init__(self, answer: int | None = 200) -> None:
        self.answer = answer
        self.posts: list[dict[str, Any]] = []
        self.tried = 0  # posts received, answered or not
        self._stop = threading.Event()
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                hook.tried += 1
                if hook.answer is None:
                    hook._stop.wait(60)  # a webhook that never answers
                    return
                if hook.answer < 300:
                    try:  # apprise's json:// posts JSON
                        hook.posts.append(json.loads(body))
                    except ValueError:  # ntfy:// the message, its title in a header
                        hook.posts.append({"title": self.headers.get("X-Title", ""),
                                           "message": body.decode()})
                self.send_response(hook.answer)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.url = f"json://127.0.0.1:{self.port}/hook"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> ChatHook:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)
