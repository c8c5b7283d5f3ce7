#!/usr/bin/env bash
# Builds the sdist and, from it, the wheel (as a release would), installs the wheel into a
# fresh virtual environment outside the checkout, and plays a short demo game from there:
# proof that the wheel carries everything (templates, card data) that `pipx install` needs.
# Called by scripts/test.sh; prints the wheel's name and the demo's last lines.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-.venv/bin/python}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" -m build --sdist --wheel --outdir "$work/dist" . >"$work/build.log" 2>&1 \
    || { cat "$work/build.log"; exit 1; }
wheel=$(ls "$work"/dist/pbem-*.whl)
ls "$work"/dist/pbem-*.tar.gz >/dev/null
"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q "$wheel" 2>&1 | grep -v '^WARNING: Location' || true
cd "$work"  # nothing of the checkout on the path
"$work/venv/bin/pbem" --version
"$work/venv/bin/pbem" demo --dir "$work/demo" --port 0 --seed 5eed >"$work/demo.log" 2>&1 \
    || { cat "$work/demo.log"; exit 1; }
tail -n 3 "$work/demo.log"
test -f "$work/demo/archive/index.html"
echo "wheel check passed: $(basename "$wheel")"
