#!/usr/bin/env bash
# Installs pbem in its own virtual environment and plays a whole game on the embedded default:
# the daemon's own SMTP listener for mail in, local Maildirs for mail out, four bots playing by
# mail. Extra arguments go to `pbem demo` (e.g. --keep-running to join a game yourself).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e .
exec .venv/bin/pbem demo "$@"
