"""Name -> adapter, discovered: every module in `adapters/` defining an `Adapter` subclass with a
`name` registers itself. Adding a benchmark means adding one adapter module."""
from __future__ import annotations

from pathlib import Path

from . import adapters
from .adapters.base import Adapter
from .discovery import discover

SAMPLES_DIR = Path(__file__).parent / "samples"


def _discover() -> dict[str, type[Adapter]]:
    return discover(adapters.__name__, adapters.__path__, Adapter)


ADAPTERS: dict[str, type[Adapter]] = _discover()


def get_adapter(name: str) -> Adapter:
    try:
        return ADAPTERS[name]()
    except KeyError:
        raise SystemExit(f"unknown benchmark {name!r}; available: {', '.join(sorted(ADAPTERS))}") from None
