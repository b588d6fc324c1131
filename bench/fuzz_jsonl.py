"""Fuzzes the .jsonl prediction-file reader (see bench/fuzz_prediction_files.py and bench/fuzz_harness.py)."""
from __future__ import annotations

import sys

from fuzz_harness import fuzz_main
from fuzz_prediction_files import check


def one_input(data: bytes) -> None:
    check(data, ".jsonl")


if __name__ == "__main__":
    sys.exit(fuzz_main("jsonl", one_input))
