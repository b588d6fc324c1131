"""`python -m leaderboard predict`: run a model behind any OpenAI-compatible chat endpoint on a built
dataset, following each benchmark's inference protocol, and write a prediction file that `validate`
accepts. Protocols are discovered: every module here defining a `Protocol` subclass with a `name`
registers itself (one module per benchmark)."""
from __future__ import annotations

import importlib
import inspect
import pkgutil

from .base import Protocol

_SHARED = {"base", "runner", "cli"}


def _discover() -> dict[str, Protocol]:
    found: dict[str, Protocol] = {}
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module_info.name in _SHARED:
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, Protocol) and cls is not Protocol and cls.__module__ == module.__name__ \
                    and getattr(cls, "name", None) and not inspect.isabstract(cls):
                found[cls.name] = cls()
    return found


PROTOCOLS: dict[str, Protocol] = _discover()
