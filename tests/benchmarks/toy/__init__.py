"""Toy: a four-item multiple-choice benchmark, the smallest complete benchmark folder.

`tests/test_add_a_benchmark.py` copies this folder to `benchmarks/toy/` in a copy of the project and
builds, scores and shows it without touching any other file (the README's "Adding a benchmark")."""
POSITION = 99
