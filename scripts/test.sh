#!/usr/bin/env bash
# Set up and run the whole test suite (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/setup-lmms.sh  # lmms-eval in its own .venv-lmms (tests/test_lmms_eval_tasks.py)
# The browser tests drive Debian's Chromium through Playwright (Playwright's own browser download
# cannot work offline). Installing it needs root, as on CI and the dev machines.
if [ ! -x /usr/bin/chromium ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
exec .venv/bin/python -m pytest -q "$@"
