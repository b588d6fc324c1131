"""Fuzzes the lmms-eval log import (leaderboard/harness/lmms_eval_import.py): the input is a samples file and a results
file (split at the first line `=====`); `collect` imports them or raises ImportProblem; see bench/fuzz_harness.py."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

from fuzz_harness import fuzz_main, instrumented, scratch_folder

with instrumented():
    from leaderboard.harness.lmms_eval_import import ImportProblem, collect, previews, settings

FOLDER = scratch_folder("fuzz-lmms-")


def one_input(data: bytes) -> None:
    samples, _, results = data.partition(b"\n=====\n")
    shutil.rmtree(FOLDER, ignore_errors=True)
    FOLDER.mkdir()
    (FOLDER / "r1_samples_toy_task.jsonl").write_bytes(samples)
    (FOLDER / "r1_results.json").write_bytes(results)
    try:
        imported = collect(FOLDER, "toy")
    except ImportProblem:
        return
    settings("toy", imported)
    previews(imported.results, sorted(imported.tasks))


if __name__ == "__main__":
    sys.exit(fuzz_main("lmms_eval_import", one_input))
