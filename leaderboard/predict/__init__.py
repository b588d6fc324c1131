"""`python -m leaderboard predict`: run a model behind any OpenAI-compatible chat endpoint on a built
dataset, following each benchmark's inference protocol, and write a prediction file that `validate`
accepts. Protocols are discovered: every module here defining a `Protocol` subclass with a `name`
registers itself (one module per benchmark)."""
from __future__ import annotations

from dataset_builders.discovery import discover

from .base import Protocol

_SHARED = {"base", "runner", "cli"}


def _discover() -> dict[str, Protocol]:
    return {name: cls() for name, cls in discover(__name__, __path__, Protocol, skip=tuple(_SHARED)).items()}


PROTOCOLS: dict[str, Protocol] = _discover()
