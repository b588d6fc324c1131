"""Declared aggregations: what a metric is, as data on its `MetricSpec.aggregation`, for scorers that hand
the engine coded per-item columns (`engine.coded.CodedItems`) and let it compute every number.

Names in a declaration refer to the scorer's `CodedItems`: `over` names a universe (a mask over the key's
rows: the items a metric may read), `by` / `where` name coded labels, `column` / `baseline` / `confidence`
/ `answered` name per-item columns. `stream` picks the bootstrap's random stream (`[seed, stream]`):
numbers declared on one stream share one draw, so their CIs come from the same resamples (a family's
accuracies and their macro mean; all paired differences). Values are x100 and rounded to 4 decimals,
except `CalibrationError` (a fraction, 6 decimals).

This module holds only data and imports nothing of the project.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LabelAccuracy:
    """Mean of the 0/1 `column` over the items of `over` whose label `by` is `value`. All accuracies of one
    (over, by, stream) form a family with one cell-count bootstrap over the universe's items (cells: label
    value x right/wrong, plus the universe's items without a known label, which keep N fixed)."""

    over: str
    by: str
    value: str
    stream: int
    column: str = "correct"


@dataclass(frozen=True)
class MacroMean:
    """Unweighted mean of the family's accuracies over the label values that hold items; its CI is from the
    family's draws (a resample that empties a value averages the others)."""

    over: str
    by: str
    stream: int
    column: str = "correct"


@dataclass(frozen=True)
class Proportion:
    """Mean of the 0/1 `column` over the items of `over` matching every (label, value) in `where`; CI: the
    item bootstrap of a proportion, drawn as Binomial(n, p) / n."""

    over: str
    where: tuple[tuple[str, str], ...] = ()
    stream: int = 0
    column: str = "correct"


@dataclass(frozen=True)
class GroupCompletion:
    """Share of groups (label `group`, e.g. one image's chain of items) that are complete: eligible when the
    group holds items of every value of label `stage`, complete when every one of its items is right.
    n = eligible groups; CI: bootstrap over groups (Binomial(n, rate) / n)."""

    over: str
    group: str
    stage: str
    stream: int
    column: str = "correct"


@dataclass(frozen=True)
class Coverage:
    """Share of the items of `over` that have a value (not NaN) in `present`; no CI. n = the universe."""

    over: str
    present: str = "confidence"


@dataclass(frozen=True)
class CalibrationError:
    """Expected calibration error (fraction; equal-width bins of `metrics.calibration`) over the items of
    `over` with a confidence; no CI. n = those items."""

    over: str
    confidence: str = "confidence"
    column: str = "correct"


@dataclass(frozen=True)
class UncertaintyScore:
    """Uncertainty-aware score (`metrics.calibration`) over the items of `over` with a confidence, each
    weighted by its value of label `by` (`weights`, in the label's value order; items of unknown value left
    out). CI: cell-count bootstrap over the universe (label value x {no confidence, CC, CU, IU, IC}, plus
    unknown-value items). n = items with a confidence."""

    over: str
    by: str
    weights: tuple[float, ...]
    stream: int
    confidence: str = "confidence"
    column: str = "correct"


@dataclass(frozen=True)
class PairedDifference:
    """Mean of `baseline` minus mean of `column` (x100, percentage points) over the items of `over` matching
    `where`: two outcomes of the same item (e.g. with and without one input). None when no such item is
    `answered`. CIs: every paired difference of one stream from one multinomial draw over each one's
    (baseline right & column wrong, the reverse, the rest) cells: items resampled with both outcomes."""

    over: str
    where: tuple[tuple[str, str], ...]
    stream: int
    column: str = "correct"
    baseline: str = "baseline_correct"
    answered: str = "answered"


@dataclass(frozen=True)
class Stratum:
    """A breakdown: cells of label `label` over the items of `over`, each the mean x100 of `column` with its
    n (values in the label's order, '(missing)' last; `by_value`: sorted by value instead, for free text)."""

    name: str
    over: str
    label: str
    by_value: bool = False
    column: str = "correct"


Kind = (LabelAccuracy | MacroMean | Proportion | GroupCompletion | Coverage | CalibrationError | UncertaintyScore
        | PairedDifference)
