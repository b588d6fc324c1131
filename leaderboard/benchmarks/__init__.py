"""Benchmark registry, discovered: every module in this package that defines a `Benchmark` subclass
with a `name` registers itself. A sixth benchmark is one module here, nothing else."""
from __future__ import annotations

import importlib
import inspect
import pkgutil

from .base import Benchmark


def _discover() -> dict[str, Benchmark]:
    found: dict[str, Benchmark] = {}
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module_info.name == "base":
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, Benchmark) and cls is not Benchmark and cls.__module__ == module.__name__ \
                    and getattr(cls, "name", None) and not inspect.isabstract(cls):
                found[cls.name] = cls()
    return found


ORDER = ("medreamm", "clinmm", "medrealmm", "medcmr", "xpcr")  # the papers' order; others follow by name
BENCHMARKS: dict[str, Benchmark] = dict(sorted(_discover().items(), key=lambda kv: (
    ORDER.index(kv[0]) if kv[0] in ORDER else len(ORDER), kv[0])))


def get_benchmark(name: str) -> Benchmark:
    try:
        return BENCHMARKS[name]
    except KeyError:
        raise KeyError(f"unknown benchmark {name!r}; available: {', '.join(sorted(BENCHMARKS))}") from None
