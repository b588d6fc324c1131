"""Fuzzes MedReaMM's free-text diagnosis parsing (benchmarks/medreamm/parsing.py); see bench/fuzz_harness.py."""
from __future__ import annotations

import sys

from fuzz_harness import fuzz_main, instrumented

with instrumented():
    from benchmarks.medreamm.parsing import after_last_heading, normalise, parse_response, ranked_list, ranked_lists


def one_input(data: bytes) -> None:
    text = data.decode("utf-8", "replace")
    items = parse_response(text)
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise AssertionError(f"parse_response returned {items!r:.80}")
    ranked = ranked_list(items)
    if len(ranked) > len(items):
        raise AssertionError("ranked_list made up items")
    ranked_lists([items, ranked])
    after_last_heading(text)
    normalise(text)


if __name__ == "__main__":
    sys.exit(fuzz_main("medreamm_parsing", one_input))
