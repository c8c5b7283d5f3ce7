"""A private Postfix for tests (Debian's ``postfix`` package): ``postfix -c DIR`` with a
main.cf and master.cf of its own, its queue and data in that folder, SMTP on a free port of
127.0.0.1 only, and every mail it does not deliver itself relayed to one loopback port (the
test's catch-all): nothing leaves the machine.

What it took (Postfix 3.7, Debian 12): the package installed with "No configuration"
(debconf ``postfix/main_mailer_type``) starts no system Postfix and writes no
/etc/postfix/main.cf; ``postfix -c DIR start`` as root needs no ``alternate_config_directories``;
every service runs unchrooted (a chroot would need /etc files copied into the queue folder);
``maillog_file`` with the ``postlog`` service writes the log without syslog; the queue folder
must be reachable by the ``postfix`` user, hence a folder under /tmp rather than pytest's.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import smtplib
import subprocess
import tempfile
from pathlib import Path

from servers import free_port, wait_until

POSTFIX = "/usr/sbin/postfix"
POSTMAP = "/usr/sbin/postmap"
MASTER_CF = Path("/usr/share/postfix/master.cf.dist")


def postfix_installed() -> bool:
    """Tell whether Debian's postfix package is here."""
    return Path(POSTFIX).is_file() and MASTER_CF.is_file()


def main_cf_settings(text: str) -> dict[str, str]:
    """Give the ``name = value`` lines of a main.cf (comments and blank lines skipped)."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        match = re.fullmatch(r"([a-z_0-9]+)\s*=\s*(.*?)\s*", line)
        if match:
            found[match[1]] = match[2]
    return found


class Postfix:
    """A private Postfix in a fresh folder under /tmp.

    ``settings`` are main.cf lines (deploy/'s), where ``/etc/postfix/`` means this folder and
    ``/var/spool/postfix/`` its queue; ``tables`` are lookup tables written into the folder
    and compiled with postmap (name: text). Mail for no domain of its own goes to
    ``relay_port`` on 127.0.0.1 (``relayhost``, no DNS); 127.0.0.1 may relay without a login.
    """

    def __init__(self, relay_port: int, settings: dict[str, str] | None = None,
                 tables: dict[str, str] | None = None) -> None:
        if not postfix_installed():
            raise RuntimeError("postfix is not installed")
        self.dir = Path(tempfile.mkdtemp(prefix="pbem-postfix-", dir="/tmp"))
        self.dir.chmod(0o755)
        self.queue = self.dir / "queue"
        self.port = 0
        self.relay_port = relay_port
        self.settings = dict(settings or {})
        self.tables = dict(tables or {})
        self._master_pid: int | None = None

    def moved(self, value: str) -> str:
        """Give a deploy/ value with the system's Postfix folders moved into ours."""
        return (value.replace("/var/spool/postfix/", f"{self.queue}/")
                .replace("/etc/postfix/", f"{self.dir}/"))

    def _main_cf(self) -> str:
        own = {
            "compatibility_level": "3.6",
            "queue_directory": str(self.queue),
            "data_directory": str(self.dir / "data"),
            "mail_owner": "postfix",
            "setgid_group": "postdrop",
            "syslog_name": f"postfix-{self.dir.name}",
            "maillog_file": str(self.dir / "postfix.log"),
            "maillog_file_prefixes": str(self.dir),
            "inet_interfaces": "127.0.0.1",
            "inet_protocols": "ipv4",
            "myhostname": "mx.pbem-test.invalid",
            "mydomain": "pbem-test.invalid",
            "mydestination": "",
            "mynetworks": "127.0.0.0/8",
            "alias_maps": "",
            "alias_database": "",
            "relayhost": f"[127.0.0.1]:{self.relay_port}",
            "smtp_dns_support_level": "disabled",
            "smtpd_relay_restrictions": "permit_mynetworks, reject_unauth_destination",
            "smtp_tls_security_level": "none",
            "smtpd_tls_security_level": "none",
            "biff": "no",
            # Tests send a little mail from one address: no tarpit after errors.
            "smtpd_error_sleep_time": "0",
            "smtpd_soft_error_limit": "1000",
        }
        own.update({name: self.moved(value) for name, value in self.settings.items()})
        return "".join(f"{name} = {value}\n" for name, value in own.items())

    def _master_cf(self) -> str:
        lines = []
        for line in MASTER_CF.read_text().splitlines():
            fields = line.split()
            if len(fields) >= 8 and not line[0].isspace() and not line.startswith("#"):
                if fields[4] == "y":
                    fields[4] = "n"  # no chroot
                if fields[:2] == ["smtp", "inet"]:
                    fields[0] = f"127.0.0.1:{self.port}"
                line = " ".join(fields)
            lines.append(line)
        return "\n".join(lines) + "\n"

    def postfix(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run ``postfix -c DIR args`` (start, stop, flush...)."""
        return subprocess.run([POSTFIX, "-c", str(self.dir), *args], check=check,
                              capture_output=True, text=True, timeout=60)

    def start(self, timeout: float = 20.0) -> Postfix:
        """Write the configuration and start; returns once its SMTP port greets."""
        self.port = free_port()
        (self.dir / "main.cf").write_text(self._main_cf())
        (self.dir / "master.cf").write_text(self._master_cf())
        for name, text in self.tables.items():
            (self.dir / name).write_text(text)
            subprocess.run([POSTMAP, "-c", str(self.dir), str(self.dir / name)], check=True,
                           capture_output=True, timeout=30)
        self.queue.mkdir(exist_ok=True)
        data = self.dir / "data"
        data.mkdir(exist_ok=True)
        shutil.chown(data, "postfix", "postfix")
        self.postfix("start")
        pid_file = self.queue / "pid" / "master.pid"
        if wait_until(pid_file.is_file, timeout):
            with contextlib.suppress(ValueError, OSError):
                self._master_pid = int(pid_file.read_text().strip())
        if not wait_until(self.greets, timeout, step=0.1):
            self.stop()
            raise RuntimeError(f"postfix did not greet on {self.port}:\n{self.log()}")
        return self

    def greets(self) -> bool:
        """Tell whether its SMTP port answers 220."""
        try:
            with smtplib.SMTP("127.0.0.1", self.port, local_hostname="test", timeout=5):
                return True
        except OSError:
            return False

    def stop(self) -> None:
        """``postfix -c DIR stop``; then the master by its process id, if still there."""
        self.postfix("stop", check=False)
        pid, self._master_pid = self._master_pid, None
        if pid is None:
            return
        if not wait_until(lambda: not _alive(pid), 10, step=0.05):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            wait_until(lambda: not _alive(pid), 10, step=0.05)

    def remove(self) -> None:
        """Stop and delete its folder."""
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def log(self) -> str:
        """Give its log so far."""
        path = self.dir / "postfix.log"
        return path.read_text(errors="replace") if path.exists() else ""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (nobody reaped it yet) holds no port.
    with contextlib.suppress(OSError):
        if Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z":
            return False
    return True
