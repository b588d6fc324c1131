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
# A CJK font, so MedRealMM's Chinese renders in the browser tests' screenshots (not boxes)
if ! fc-list 2>/dev/null | grep -qi "Noto Sans CJK"; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk >/dev/null
fi
# Random test order (pytest-randomly) on every run, with the seed printed (-q hides pytest's own header).
# Replay an order: RANDOMLY_SEED=N bash scripts/test.sh; file order: bash scripts/test.sh -p no:randomly
order=()
case " $* " in
  *" no:randomly "*|*" -pno:randomly "*) ;;
  *) seed=${RANDOMLY_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
     echo "test order: random, seed $seed (replay: RANDOMLY_SEED=$seed bash scripts/test.sh)"
     order=("--randomly-seed=$seed") ;;
esac
# Four workers, whole files each (--dist loadfile keeps a file's module fixtures, e.g. one lmms-eval launch or one
# Space, in one process): most slow tests wait on servers and subprocesses, so four pay even on two cores.
# One process: TEST_WORKERS=0 bash scripts/test.sh
workers=${TEST_WORKERS:-4}
parallel=()
[ "$workers" != 0 ] && parallel=(-n "$workers" --dist loadfile)
exec .venv/bin/python -m pytest -q "${parallel[@]}" "${order[@]}" "$@"
