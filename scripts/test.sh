#!/usr/bin/env bash
# Installs everything the tests need on a fresh machine, then runs the checks and the tests.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v dovecot >/dev/null 2>&1 || need_apt+=(dovecot-imapd dovecot-lmtpd)
# Pigeonhole: Sieve on LMTP delivery (tests/daemon/test_scaling_sieve.py).
[ -f /usr/lib/dovecot/modules/lib90_sieve_plugin.so ] || need_apt+=(dovecot-sieve)
# Cyrus IMAP, the second IMAP server of the intake's tests (tests/servers.py, Cyrus);
# saslpasswd2 (sasl2-bin) makes its test users. cyrus-imapd itself conflicts with
# dovecot-imapd (both are Debian's "imap-server"): its imapd and idled are unpacked below.
[ -x /usr/lib/cyrus/bin/master ] || need_apt+=(cyrus-common)
command -v saslpasswd2 >/dev/null 2>&1 || need_apt+=(sasl2-bin)
# Postfix, run by the tests as private instances (tests/mta.py, postfix -c DIR): installed
# with "No configuration" (below), so no system Postfix is set up, started or on port 25.
[ -x /usr/sbin/postfix ] || need_apt+=(postfix)
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
# The TLS tests make their certificates with openssl (tests/servers.py).
command -v openssl >/dev/null 2>&1 || need_apt+=(openssl)
# The structure pictures of HTML mail are drawn with DejaVu Sans (pbem/reports/pictures.py).
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need_apt+=(fonts-dejavu-core)
if [ ${#need_apt[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq
        echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}"
    else
        echo "tests need: ${need_apt[*]} (run as root, or install them with apt-get)" >&2
        exit 1
    fi
fi
cyrus_unpacked=/opt/pbem-tests/cyrus-imapd
if [ ! -x /usr/lib/cyrus/bin/imapd ] && [ ! -x "$cyrus_unpacked/usr/lib/cyrus/bin/imapd" ]; then
    if [ "$(id -u)" = 0 ]; then
        debs=$(mktemp -d)
        chmod 777 "$debs"  # apt's download user (_apt) writes there
        (cd "$debs" && apt-get download -qq cyrus-imapd)
        mkdir -p "$cyrus_unpacked"
        dpkg -x "$debs"/cyrus-imapd_*.deb "$cyrus_unpacked"
        rm -rf "$debs"
    else
        echo "tests need cyrus-imapd's imapd unpacked in $cyrus_unpacked (run as root)" >&2
        exit 1
    fi
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'

.venv/bin/ruff check pbem tests bench
.venv/bin/mypy
# The wheel, installed outside the checkout, plays a demo (how a game master installs pbem).
bash scripts/wheel-check.sh
# worksteal: an idle worker takes tests queued for the other, so the long ones near the end
# (Cyrus, Postfix, the daemons) do not leave one core idle: 491 s against 537 s with
# "load" on 2026-12-05.
exec .venv/bin/pytest -n 2 --dist worksteal "$@"
