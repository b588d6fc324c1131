"""Name -> adapter. Adding a benchmark means adding one adapter module and one line here."""
from __future__ import annotations

from .adapters.base import Adapter
from .adapters.medreamm import MedReaMMAdapter

ADAPTERS: dict[str, type[Adapter]] = {
    "medreamm": MedReaMMAdapter,
}

SAMPLES_DIR = __import__("pathlib").Path(__file__).parent / "samples"


def get_adapter(name: str) -> Adapter:
    try:
        return ADAPTERS[name]()
    except KeyError:
        raise SystemExit(f"unknown benchmark {name!r}; available: {', '.join(sorted(ADAPTERS))}") from None
