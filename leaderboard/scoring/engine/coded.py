"""The declared kind: a scorer hands over per-item columns and coded labels (`CodedItems`) and declares each
metric's aggregation on its `MetricSpec.aggregation` (`engine.kinds`) and its breakdowns as `Stratum`s;
`coded_numbers` computes every metric, CI and n, every stratum cell, and the item set behind each.

Built for scorers that aggregate from integer codes (label value per item) with cell-count bootstraps:
the numbers of a family are drawn once, so CIs of a family and of its macro mean come from the same
resamples, and cost resamples x cells rather than resamples x items.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from leaderboard.privacy.disclosure import Cells, cell_key, metric_key
from leaderboard.scoring.engine.coded_kinds import (calibration_error, coverage, group_completion, label_family, paired_differences, proportion, uncertainty_score)
from leaderboard.scoring.engine.items import CI_RESAMPLES, CI_SEED, Numbers
from leaderboard.scoring.engine.kinds import (CalibrationError, Coverage, GroupCompletion, LabelAccuracy, MacroMean, PairedDifference, Proportion, Stratum, UncertaintyScore)


@dataclass
class Label:
    """One coded label of the key's rows."""

    codes: np.ndarray  # per row: index into `names`; -1 = missing or unknown
    names: Sequence[str]
    source: str | None = None  # the answer-key column it is read from (held out: its numbers are hidden)


@dataclass
class CodedItems:
    """What a scorer hands the engine, all aligned with the key's rows: per-item columns (0/1 outcomes,
    confidences with NaN for none...), coded labels, and universes (named row masks: the items a metric
    may read, e.g. one task's items). Item sets are reported per universe, in this dict's order."""

    columns: dict[str, np.ndarray]
    labels: dict[str, Label]
    universes: dict[str, np.ndarray]

    def mask(self, over: str, where: Sequence[tuple[str, str]] = ()) -> np.ndarray:
        """Rows of universe `over` whose labels hold every (label, value) of `where`."""
        mask = self.universes[over].copy()
        for name, value in where:
            label = self.labels[name]
            mask &= label.codes == list(label.names).index(value)
        return mask


def coded_numbers(specs: Sequence, items: CodedItems, strata: Sequence[Stratum] = (), cell_metric: str = "accuracy",
                  resamples: int = CI_RESAMPLES, seed: int = CI_SEED) -> Numbers:
    """Every declared metric of `specs` (MetricSpecs; those without an aggregation are left to the scorer),
    its CI and n, the cells of `strata` (their mean under `cell_metric`), the item sets of every metric
    over a label value or a `where` and of every cell, and `derived` (macro mean -> its inputs)."""
    declared = [(spec.name, spec.aggregation) for spec in specs if spec.aggregation is not None]
    numbers = Numbers()
    families: dict[tuple, dict] = {}
    for name, kind in declared:
        if isinstance(kind, (LabelAccuracy, MacroMean)):
            family = families.setdefault((kind.over, kind.by, kind.stream, kind.column), {"members": {}, "macro": None})
            if isinstance(kind, MacroMean):
                family["macro"] = name
            else:
                family["members"][kind.value] = name
    for (over, by, stream, column), family in families.items():
        label = items.labels[by]
        universe = items.universes[over]
        members = [family["members"].get(value) for value in label.names]
        label_family(numbers, label.codes[universe], items.columns[column][universe].astype(np.int64), members,
                     family["macro"], resamples, [seed, stream])
        if family["macro"]:
            numbers.derived[family["macro"]] = [m for m in members if m]
    paired: dict[int, list] = {}
    for name, kind in declared:
        if isinstance(kind, Proportion):
            proportion(numbers, name, items.columns[kind.column][items.mask(kind.over, kind.where)], resamples,
                       [seed, kind.stream])
        elif isinstance(kind, GroupCompletion):
            universe = items.universes[kind.over]
            group, stage = items.labels[kind.group], items.labels[kind.stage]
            group_completion(numbers, name, group.codes[universe], len(group.names), stage.codes[universe],
                             len(stage.names), items.columns[kind.column][universe], resamples, [seed, kind.stream])
        elif isinstance(kind, Coverage):
            coverage(numbers, name, items.columns[kind.present][items.universes[kind.over]])
        elif isinstance(kind, CalibrationError):
            universe = items.universes[kind.over]
            calibration_error(numbers, name, items.columns[kind.confidence][universe], items.columns[kind.column][universe])
        elif isinstance(kind, UncertaintyScore):
            label = items.labels[kind.by]
            uncertainty_score(numbers, name, items.universes[kind.over], label.codes, len(label.names),
                              np.asarray(kind.weights, dtype=np.float64), items.columns[kind.confidence],
                              items.columns[kind.column], resamples, [seed, kind.stream])
        elif isinstance(kind, PairedDifference):
            mask = items.mask(kind.over, kind.where)
            numbers.counts[name] = int(mask.sum())  # here, so counts keep the declaration order
            paired.setdefault(kind.stream, []).append(
                (name, items.columns[kind.baseline][mask], items.columns[kind.column][mask],
                 items.columns[kind.answered][mask]))
    for stream, rows in paired.items():
        paired_differences(numbers, rows, resamples, [seed, stream])
    numbers.strata = _strata(items, strata, cell_metric)
    numbers.cells = _item_sets(items, declared, strata)
    return numbers


def _strata(items: CodedItems, strata: Sequence[Stratum], cell_metric: str) -> dict[str, dict]:
    out = {}
    for stratum in strata:
        universe = items.universes[stratum.over]
        if not universe.any():
            continue
        label = items.labels[stratum.label]
        cells = _stratum_cells(label.codes[universe], label.names, items.columns[stratum.column][universe], cell_metric)
        if stratum.by_value:
            cells = dict(sorted(cells.items(), key=lambda kv: (kv[0] == "(missing)", kv[0])))
        out[stratum.name] = cells
    return out


def _stratum_cells(codes: np.ndarray, names: Sequence[str], values: np.ndarray, cell_metric: str) -> dict[str, dict]:
    """Cells of one label (-1 = '(missing)', listed last), in `names` order, each the mean x100 of `values`."""
    size = np.bincount(codes + 1, minlength=len(names) + 1)
    right = np.bincount(codes + 1, weights=values, minlength=len(names) + 1)
    labels = ["(missing)", *names]
    order = [*range(1, len(labels)), 0]
    return {str(labels[i]): {"n": int(size[i]), "metrics": {cell_metric: round(100.0 * float(right[i]) / size[i], 4)}}
            for i in order if size[i]}


def _item_sets(items: CodedItems, declared: list, strata: Sequence[Stratum]) -> list[Cells]:
    """Per universe holding items: the item set of every metric over a label value or a `where` (declaration
    order), then every cell of its coded strata, then of its strata by value. Macro means are `derived`;
    completion, calibration and paired numbers have no item set of their own here."""
    out = []
    for over, universe in items.universes.items():
        if not universe.any():
            continue
        masks, keys, sources = [], [], {}

        def add(mask: np.ndarray, key: tuple, source: str | None) -> None:
            if mask.any():
                masks.append(mask)
                keys.append(key)
                if source:
                    sources[key] = source

        for name, kind in declared:
            if isinstance(kind, LabelAccuracy) and kind.over == over:
                label = items.labels[kind.by]
                add(label.codes[universe] == list(label.names).index(kind.value), metric_key(name), label.source)
            elif isinstance(kind, Proportion) and kind.over == over:
                # a set read from several labels is named after the first
                source = items.labels[kind.where[0][0]].source if kind.where else None
                add(items.mask(over, kind.where)[universe], metric_key(name), source)
        mine = [s for s in strata if s.over == over]
        for stratum in [s for s in mine if not s.by_value] + [s for s in mine if s.by_value]:
            label = items.labels[stratum.label]
            codes = label.codes[universe]
            for i, value in [*enumerate(label.names), (-1, "(missing)")]:
                add(codes == i, cell_key(stratum.name, value), label.source)
        if keys:
            out.append(Cells(np.column_stack(masks), keys, sources))
    return out
