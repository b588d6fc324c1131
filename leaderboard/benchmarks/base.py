"""What a benchmark module declares, and the context a score runs in.

A benchmark module owns everything specific to it: prediction fields, answer fields, strata,
metric names with direction, the primary ranking metric, decisions, and `score`. Nothing else in
the project knows a benchmark's details.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from ..answer_key import AnswerKey
from ..metrics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from ..predictions import PredictionSchema, ValidationReport
from ..result import ModelInfo, Result

SCORER_VERSION = "0.1.0"


@dataclass(frozen=True)
class MetricSpec:
    name: str
    label: str
    higher_is_better: bool = True
    group: str = ""  # e.g. the matching mode; the Space groups columns by it


@dataclass
class ScoringContext:
    """Everything outside the files that a score depends on; recorded in the result's protocol."""

    model: ModelInfo = field(default_factory=lambda: ModelInfo(name="unnamed"))
    icd_coder: Any = None
    icd_coder_reason: str = "no ICD-11 coder configured"
    embedder: Any = None
    embedder_reason: str = "semantic matching unavailable: set SAPBERT_PATH"
    judge: Any = None  # leaderboard.judge.Judge or None (judged metrics then pending)
    judge_2: Any = None  # a second judge where the protocol has two (ClinMM-Bench)
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    progress: bool = False
    keep_per_item: bool = False
    data_path: Any = None  # the built dataset folder being scored (for scorers that need model inputs too)


class Benchmark(ABC):
    name: str
    pretty_name: str
    configs: tuple[str, ...] = ("default",)  # the key concatenates them, with a `config` column
    split: str = "test"
    id_column: str
    answer_columns: tuple[str, ...]
    strata_columns: tuple[str, ...] = ()
    context_columns: tuple[str, ...] = ()  # other key columns the scorer needs (e.g. what a judge must see)
    schema: PredictionSchema
    metrics: tuple[MetricSpec, ...]
    primary_metric: str
    stratum_metric: str | None = None  # the metric held in result.strata cells, when not the primary one
    decisions: tuple[str, ...] = ()
    citation: str = ""

    @property
    def strata_metric(self) -> str:
        return self.stratum_metric or self.primary_metric

    def metric(self, name: str) -> MetricSpec:
        return next(m for m in self.metrics if m.name == name)

    @abstractmethod
    def score(self, key: AnswerKey, report: ValidationReport, context: ScoringContext) -> Result:
        ...

    def optional_ids(self, key: AnswerKey):
        """Ids a file may leave out without them counting as wrong (an Arrow array), or None."""
        return None

    def extra_issues(self, path, key: AnswerKey, report: ValidationReport) -> list:
        """Line-level problems that depend on the answer key (e.g. an item's format); none by default."""
        return []

    def base_protocol(self, key: AnswerKey, context: ScoringContext) -> dict:
        return {
            "scorer": f"leaderboard {SCORER_VERSION}",
            "benchmark": self.name,
            "dataset_fingerprint": key.fingerprint,
            "items": len(key),
            "bootstrap": {"resamples": context.resamples, "seed": context.seed, "type": "percentile, over items"},
            "decisions": list(self.decisions),
        }
