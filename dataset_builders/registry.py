"""Name -> adapter, discovered: every module in `adapters/` defining an `Adapter` subclass with a
`name` registers itself. Adding a benchmark means adding one adapter module."""
from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

from . import adapters
from .adapters.base import Adapter

SAMPLES_DIR = Path(__file__).parent / "samples"


def _discover() -> dict[str, type[Adapter]]:
    found: dict[str, type[Adapter]] = {}
    for module_info in sorted(pkgutil.iter_modules(adapters.__path__), key=lambda m: m.name):
        if module_info.name == "base":
            continue
        module = importlib.import_module(f"{adapters.__name__}.{module_info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, Adapter) and cls is not Adapter and cls.__module__ == module.__name__ \
                    and getattr(cls, "name", None) and not inspect.isabstract(cls):
                found[cls.name] = cls
    return found


ADAPTERS: dict[str, type[Adapter]] = _discover()


def get_adapter(name: str) -> Adapter:
    try:
        return ADAPTERS[name]()
    except KeyError:
        raise SystemExit(f"unknown benchmark {name!r}; available: {', '.join(sorted(ADAPTERS))}") from None
