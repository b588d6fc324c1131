#!/usr/bin/env bash
# Creates .venv-lmms (if needed): lmms-eval and exactly what it imports for our task folders, every package
# pinned, installed with --no-deps (see requirements-lmms.txt). Separate from .venv because lmms-eval's
# declared dependencies are heavy and would conflict. Safe to re-run (a no-op when installed).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
VENV=${LMMS_VENV:-.venv-lmms}
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-lmms.txt
