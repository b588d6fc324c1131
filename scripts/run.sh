#!/usr/bin/env bash
# The main job on a fresh machine: set up, build every sample dataset into hub/, start the Space.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m dataset_builders samples --out hub
exec .venv/bin/python -m space "$@"
