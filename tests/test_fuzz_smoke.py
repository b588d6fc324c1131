"""The smoke run of every fuzzer (issue 25): its seed corpus (tests/fuzz/<reader>/) and a few hundred seeded
mutations through the same entry point and budgets the long runs use (bench/fuzz_harness.py), each fuzzer in
its own process (the harness caps that process's memory). The long runs: `bench/fuzz_<reader>.py
-max_total_time=600`; their figures are in docs/reliability.md."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT

FUZZERS = sorted(p.stem.removeprefix("fuzz_") for p in (ROOT / "bench").glob("fuzz_*.py")
                 if p.stem not in ("fuzz_harness", "fuzz_prediction_files"))


def test_every_reader_has_a_fuzzer_and_seeds():
    assert set(FUZZERS) >= {"jsonl", "csv", "json", "parquet", "parquet_guard", "letters", "medreamm_parsing",
                            "judge_replies", "lmms_eval_import"}
    assert all(len(list((ROOT / "tests" / "fuzz" / name).iterdir())) >= 3 for name in FUZZERS)


@pytest.mark.parametrize("name", FUZZERS)
def test_smoke(name):
    done = subprocess.run([sys.executable, str(ROOT / "bench" / f"fuzz_{name}.py"), "--smoke", "--iterations", "200"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "no finding" in done.stdout, (done.stdout[-2000:], done.stderr[-2000:])
