"""Benchmark registry: name -> module object. A sixth benchmark is one module and one line here."""
from __future__ import annotations

from .base import Benchmark
from .medreamm import MedReaMM

BENCHMARKS: dict[str, Benchmark] = {b.name: b for b in (MedReaMM(),)}


def get_benchmark(name: str) -> Benchmark:
    try:
        return BENCHMARKS[name]
    except KeyError:
        raise KeyError(f"unknown benchmark {name!r}; available: {', '.join(sorted(BENCHMARKS))}") from None
