"""What a benchmark module declares, and the context a score runs in.

A benchmark module owns everything specific to it: prediction fields, answer fields, strata,
metric names with direction, the primary ranking metric, decisions, and `score`. Nothing else in
the project knows a benchmark's details.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from ..intake.answer_key import AnswerKey
from ..privacy.disclosure import Disclosure
from leaderboard.scoring.engine.kinds import Kind
from .metrics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from ..intake.prediction_files import PredictionSchema, ValidationReport
from .result import ModelInfo, Result

SCORER_VERSION = "0.1.0"


@dataclass(frozen=True)
class MetricSpec:
    name: str
    label: str
    higher_is_better: bool = True
    group: str = ""  # e.g. the matching mode; the Space groups columns by it
    item_span: float = 100.0  # the most one item can move n x value (x100 item means: 100); scales public noise
    # the ONE range of the metric's values (None = open end): noisy public values are clamped to it and
    # charts draw their axes over it (an open end: axes from the data)
    value_range: tuple[float | None, float | None] = (0.0, 100.0)
    decimals: int = 1  # shown with this many decimals (downloads keep full precision)
    # a percentage of items scored 0/1 (accuracy, hit rate): a paper row's CI then follows from its n (Wilson)
    proportion: bool = False
    published_n: int | None = None  # items behind this metric in the paper, when not the row's n_items
    # how the engine computes it from per-item columns (`leaderboard.scoring.engine.kinds`; engine.coded_numbers);
    # None: the scorer hands the column to an engine function itself (mean_metrics, subset_numbers, ...)
    aggregation: Kind | None = None

    @property
    def bounds(self) -> tuple[float | None, float | None]:
        """The range public noise is clamped to."""
        return self.value_range

    @property
    def scale(self) -> tuple[float, float] | None:
        """Chart axes: the range when both ends are known, else None (from the data)."""
        low, high = self.value_range
        return None if low is None or high is None else (low, high)


# The scoring services a benchmark may declare in `needs`, and why each is missing when not configured.
SERVICES = {
    "icd_coder": "no ICD-11 coder configured",
    "embedder": "semantic matching unavailable: set SAPBERT_PATH",
    "judge": "LLM judge not configured: set JUDGE_BASE_URL and JUDGE_MODEL (or --judge-base-url/--judge-model)",
    "judge_2": "second LLM judge not configured: set JUDGE_MODEL_2 (or --judge-model-2)",
    "letter_reader": "letter reader off: the letter rule alone (set LETTER_READER_MODEL or --letter-reader-model "
                     "to read its unparseable responses with a model at the judge endpoint)",
}


class UnknownService(TypeError):
    """A scoring service name that is not in SERVICES."""


class ScoringContext:
    """Everything outside the files that a score depends on; recorded in the result's protocol.

    Services (ICD coder, embedder, judges) are held by name: a benchmark declares the ones it uses in
    `Benchmark.needs`, front doors configure only those, and the scorer asks `service(name)`."""

    def __init__(self, model: ModelInfo | None = None, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                 progress: bool = False, keep_per_item: bool = False, data_path: Any = None, **services: Any):
        unknown = sorted(set(services) - set(SERVICES))
        if unknown:
            raise UnknownService(f"unknown scoring service(s) {unknown}; known: {sorted(SERVICES)}")
        self.model = model or ModelInfo(name="unnamed")
        self.resamples = resamples
        self.seed = seed
        self.progress = progress
        self.keep_per_item = keep_per_item
        self.data_path = data_path  # the built dataset folder being scored (for scorers that need model inputs)
        self.cache_dir: Any = None  # the scoring cache folder (services' caches, the CI memo); None: no cache
        self.services: dict[str, Any] = {k: v for k, v in services.items() if v is not None}
        self.unavailable: dict[str, str] = {}  # service -> why it is missing, when configuration failed

    def service(self, name: str) -> Any:
        if name not in SERVICES:
            raise UnknownService(f"unknown scoring service {name!r}; known: {sorted(SERVICES)}")
        return self.services.get(name)

    def provide(self, name: str, value: Any, reason: str | None = None) -> None:
        """Set a service, or record why it is missing (value None)."""
        self.service(name)  # validates the name
        if value is None:
            self.services.pop(name, None)
            if reason:
                self.unavailable[name] = reason
        else:
            self.services[name] = value
            self.unavailable.pop(name, None)

    def why_missing(self, name: str) -> str:
        return self.unavailable.get(name) or SERVICES[name]


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
    stratum_metric: str = ""  # the metric held in result.strata cells; empty = the primary metric
    needs: tuple[str, ...] = ()  # scoring services this benchmark uses (keys of SERVICES)
    decisions: tuple[str, ...] = ()
    citation: str = ""
    # items in the paper's full release: a submission scored on fewer (a sample build) is never "paper protocol"
    # and is not ranked among paper rows; None = unknown (only the data card's SAMPLE mark then tells)
    release_items: int | None = None
    # Readable names for the breakdown views (ids stay in downloads and tooltips). Values are listed in the
    # order they should be shown (e.g. a progression of stages); unlisted values follow in the order seen.
    stratum_labels: dict[str, str] = {}  # stratum id -> name
    value_labels: dict[str, dict[str, str]] = {}  # stratum id -> value id -> name
    cell_metrics: tuple[MetricSpec, ...] = ()  # metrics that exist only in stratum cells (e.g. plain accuracy)
    breakdown_note: str = ""  # what the paper publishes per stratum, when that needs saying in the view
    # The cross-benchmark specialty profile (leaderboard/publishing/specialties.py): the stratum whose values map onto the
    # hub's specialty list and the mapping, or the one specialty the whole benchmark is.
    specialty_stratum: str = ""
    specialty_map: dict[str, str] = {}
    whole_specialty: str = ""

    def __init__(self):
        if not self.stratum_metric:
            self.stratum_metric = self.primary_metric
        unknown = sorted(set(self.needs) - set(SERVICES))
        if unknown:
            raise UnknownService(f"{type(self).__name__}.needs names unknown service(s) {unknown}")

    def metric(self, name: str) -> MetricSpec:
        return next(m for m in self.metrics if m.name == name)

    def metric_spec(self, name: str) -> MetricSpec:
        """The spec of a metric or a cell-only metric; an unknown name gets a plain 0-100 spec named by its id."""
        return next((m for m in (*self.metrics, *self.cell_metrics) if m.name == name), MetricSpec(name, name))

    def stratum_label(self, stratum: str) -> str:
        return self.stratum_labels.get(stratum) or stratum.replace("_", " ").capitalize()

    def value_label(self, stratum: str, value: str) -> str:
        return self.value_labels.get(stratum, {}).get(value, value)

    @abstractmethod
    def score(self, key: AnswerKey, report: ValidationReport, context: ScoringContext) -> Result:
        ...

    def optional_ids(self, key: AnswerKey):
        """Ids a file may leave out without them counting as wrong (an Arrow array), or None."""
        return None

    def anomalies(self, metrics: dict, protocol: dict) -> list[str]:
        """Why a scored result should wait for a maintainer before it is ranked (e.g. a judged score its own
        objective metrics cannot explain); none by default (leaderboard/scoring/judge/anomaly.py asks)."""
        return []

    def extra_issues(self, path, key: AnswerKey, report: ValidationReport) -> list:
        """Line-level problems that depend on the answer key (e.g. an item's format); none by default."""
        return []

    def result(self, context: ScoringContext, *, metrics: dict, protocol: dict, n_items: int, n_answered: int,
               parse_failures: int = 0, ci: dict | None = None, pending: dict | None = None,
               strata: dict | None = None, notes: list | None = None, per_item: dict | None = None,
               metric_n: dict | None = None, cells: list | None = None, derived: dict | None = None,
               sources: dict | None = None, chance: dict | None = None) -> Result:
        """The one way a scorer hands back its numbers: metrics in declaration order (absent = None),
        `pending` kept only for metrics that have no value, per-item scores only when the context keeps them.

        Disclosure control (`leaderboard.privacy.disclosure`) needs to know what stands behind each number:
        `metric_n` (items per metric; undeclared = every item), `cells` (the item sets behind metrics
        and stratum cells, for exact complementary suppression), `derived` (metric -> the metrics it
        averages), `sources` (metric -> the answer-key column it is built from) and `chance` (metric -> what
        the best constant answer scores; held-out results near it publish no breakdowns)."""
        values = {m.name: metrics.get(m.name) for m in self.metrics}
        return Result(benchmark=self.name, model=context.model, metrics=values, ci=dict(ci or {}),
                      n_items=n_items, n_answered=n_answered, parse_failures=parse_failures,
                      pending={k: v for k, v in (pending or {}).items() if values.get(k) is None},
                      strata=strata or {}, protocol=protocol, notes=list(notes or []),
                      per_item=per_item if context.keep_per_item else None,
                      metric_n={k: int(v) for k, v in (metric_n or {}).items() if k in values},
                      disclosure=Disclosure(cells=list(cells or []), derived=dict(derived or {}),
                                            sources=dict(sources or {}),
                                            item_span={m.name: m.item_span for m in self.metrics},
                                            bounds={m.name: m.bounds for m in self.metrics},
                                            chance=dict(chance or {}), primary=self.primary_metric))

    def base_protocol(self, key: AnswerKey, context: ScoringContext) -> dict:
        return {
            "scorer": f"leaderboard {SCORER_VERSION}",
            "benchmark": self.name,
            "dataset_fingerprint": key.fingerprint,
            # held-out keys: the fingerprint is keyed or replaced by this one when published (disclosure)
            "public_fingerprint": key.public_fingerprint if key.held_out_columns else None,
            "answers_held_out": bool(key.held_out_columns),
            "held_out_columns": list(key.held_out_columns),
            "items": len(key),
            "bootstrap": {"resamples": context.resamples, "seed": context.seed, "type": "percentile, over items"},
            "decisions": list(self.decisions),
        }
