"""The result record: what a score produces and what the leaderboard stores and ranks.

Public part (`to_public_dict`): metrics, CIs, coverage, strata, protocol, model metadata.
Private part (`per_item`): per-item scores, which can leak answers; written only on request.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..privacy.disclosure import DEFAULT_MIN_CELL, Disclosure, Policy, publish

SCHEMA_VERSION = 1
MIN_PUBLIC_CELL = DEFAULT_MIN_CELL  # a number from fewer items would reveal individual items' scores


@dataclass
class ModelInfo:
    name: str
    link: str | None = None
    organisation: str | None = None
    access: str | None = None  # "open" | "proprietary"
    domain: str | None = None  # "general" | "medical"
    reasoning: bool | None = None
    input_modality: str | None = None  # "multimodal" | "text-only"
    params_b: float | None = None


@dataclass
class Result:
    benchmark: str
    model: ModelInfo
    metrics: dict[str, float | None]
    source: str = "submission"  # "submission" | "paper" | "human" | "pooled" (a paper figure pooled over models: never ranked)
    ci: dict[str, list[float]] = field(default_factory=dict)
    n_items: int = 0
    n_answered: int | None = 0  # None: not reported (paper rows)
    parse_failures: int | None = 0
    pending: dict[str, str] = field(default_factory=dict)  # metric -> why it has no value
    strata: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)  # stratum -> value -> {n, metrics}
    protocol: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    cell_flags: dict[str, str] = field(default_factory=dict)  # metric -> irregularity note (paper rows)
    created_at: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    metric_n: dict[str, int] = field(default_factory=dict)  # metric -> items it is computed from
    per_item: dict[str, dict[str, float]] | None = None  # private
    # private: the item sets behind the public numbers, for disclosure control (never serialised)
    disclosure: Disclosure | None = field(default=None, repr=False, compare=False)

    @property
    def coverage(self) -> float | None:
        if self.n_answered is None:
            return None
        return self.n_answered / self.n_items if self.n_items else 0.0

    def to_public_dict(self, policy: Policy | None = None, salt: str = "", breakdowns: bool = True) -> dict:
        """The record anyone may see. A submission passes disclosure control (`leaderboard.privacy.disclosure`:
        k-rule, complementary suppression, held-out labels, keyed fingerprint and noise); paper rows
        are published numbers already, shown whatever their n."""
        disclosure, self.disclosure = self.disclosure, None
        try:
            data = asdict(self)
        finally:
            self.disclosure = disclosure
        data.pop("per_item")
        data.pop("disclosure")
        if self.source == "submission":  # published paper/human numbers are public already, whatever their n
            data = publish(data, disclosure, policy or Policy(), salt, breakdowns)
        data["schema_version"] = SCHEMA_VERSION
        data["coverage"] = None if self.coverage is None else round(self.coverage, 6)
        return _finite(data)

    def write(self, path: Path, policy: Policy | None = None) -> None:
        Path(path).write_text(json.dumps(self.to_public_dict(policy), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    @classmethod
    def from_dict(cls, data: dict) -> "Result":
        data = {k: v for k, v in data.items() if k not in {"schema_version", "coverage", "disclosure"}}
        data["model"] = ModelInfo(**data["model"])
        return cls(**data)

    @classmethod
    def read(cls, path: Path) -> "Result":
        return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))


def _finite(value: Any) -> Any:
    """NaN/inf are not JSON: store them as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value
