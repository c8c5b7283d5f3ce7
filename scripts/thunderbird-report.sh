#!/usr/bin/env bash
# One turn report opened in Thunderbird under Xvfb, and a screenshot of it (issue 38: a
# report checked in a real desktop mail client). Not part of the test suite.
#
#   bash scripts/thunderbird-report.sh [OUT_DIR]     (default: test-artifacts/thunderbird)
#
# Installs thunderbird, xvfb and imagemagick from Debian's packages when missing (as root);
# PYTHON names the interpreter with pbem's dependencies (default .venv/bin/python).
# Writes OUT_DIR/report.eml (the largest report of a 6-player late game, as mailed) and
# OUT_DIR/thunderbird.png (the whole virtual screen, 1280x1600, some seconds after opening).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-test-artifacts/thunderbird}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
python="${PYTHON:-.venv/bin/python}"
[ -x "$python" ] || python=python3
if ! command -v thunderbird >/dev/null || ! command -v xvfb-run >/dev/null \
        || ! command -v import >/dev/null; then
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        thunderbird xvfb xauth imagemagick
fi
PYTHONPATH="$PWD" "$python" - "$out/report.eml" <<'PY'
import sys
from datetime import timedelta
sys.path.insert(0, "bench")
from report_size import NOW, late_game, _mail_bytes  # noqa: E402
from pbem.engine.carddata import load_cardset  # noqa: E402
from pbem.reports import mails  # noqa: E402
cards = load_cardset()
state = late_game()
player = state.players[0].name
rendered = mails.turn_report(cards, state, player, (), now=NOW,
                             deadline=NOW + timedelta(days=2))
open(sys.argv[1], "wb").write(_mail_bytes(rendered))
PY
profile="$(mktemp -d)"
# A profile that skips the first-run account wizard and the start page.
cat > "$profile/user.js" <<'JS'
user_pref("mail.provider.suppress_dialog_on_startup", true);
user_pref("mail.shell.checkDefaultClient", false);
user_pref("mailnews.start_page.enabled", false);
user_pref("app.update.enabled", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("mailnews.message_display.disable_remote_image", true);
JS
xvfb-run -a -s "-screen 0 1280x1600x24" bash -c "
    thunderbird --no-remote --profile '$profile' -file '$out/report.eml' >'$out/thunderbird.log' 2>&1 &
    pid=\$!
    sleep \${WAIT:-25}
    import -window root '$out/thunderbird.png'
    kill \$pid 2>/dev/null || true
    wait \$pid 2>/dev/null || true
"
rm -rf "$profile"
echo "$out/thunderbird.png"
