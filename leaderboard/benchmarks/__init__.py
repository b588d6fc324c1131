"""Benchmark registry, discovered: every module in this package that defines a `Benchmark` subclass
with a `name` registers itself. A sixth benchmark is one module here, nothing else."""
from __future__ import annotations

from dataset_builders.discovery import discover

from .base import Benchmark


def _discover() -> dict[str, Benchmark]:
    return {name: cls() for name, cls in discover(__name__, __path__, Benchmark).items()}


ORDER = ("medreamm", "clinmm", "medrealmm", "medcmr", "xpcr")  # the papers' order; others follow by name
BENCHMARKS: dict[str, Benchmark] = dict(sorted(_discover().items(), key=lambda kv: (
    ORDER.index(kv[0]) if kv[0] in ORDER else len(ORDER), kv[0])))


def get_benchmark(name: str) -> Benchmark:
    try:
        return BENCHMARKS[name]
    except KeyError:
        raise KeyError(f"unknown benchmark {name!r}; available: {', '.join(sorted(BENCHMARKS))}") from None
