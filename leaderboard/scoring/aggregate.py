"""Turns per-item scores into a result's numbers: means x100, bootstrap CIs, per-stratum means with n.

Benchmark-agnostic: every benchmark hands over a dict metric -> per-item array (aligned with the
answer key's rows; missing items already scored 0) and stratum -> per-item labels.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .metrics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, percentile_ci

SCALE = 100.0


def overall(per_item: dict[str, np.ndarray], resamples: int = DEFAULT_RESAMPLES,
            seed: int = DEFAULT_SEED) -> tuple[dict[str, float], dict[str, list[float]]]:
    names = list(per_item)
    if not names:
        return {}, {}
    matrix = np.column_stack([np.asarray(per_item[n], dtype=np.float64) for n in names])
    means = matrix.mean(axis=0) * SCALE if len(matrix) else np.full(len(names), np.nan)
    metrics = {n: round(float(m), 4) for n, m in zip(names, means)}
    if resamples <= 0 or len(matrix) == 0:
        return metrics, {}
    lo, hi = percentile_ci(matrix, resamples=resamples, seed=seed)
    ci = {n: [round(float(a) * SCALE, 4), round(float(b) * SCALE, 4)] for n, a, b in zip(names, lo, hi)}
    return metrics, ci


def by_stratum(per_item: dict[str, np.ndarray], labels: dict[str, Sequence[Any]]) -> dict[str, dict[str, dict]]:
    """stratum -> value -> {"n": count, "metrics": {name: mean x100}}. A list label counts the item
    in every value it holds (e.g. a case with CT and MRI images is in both image-type cells)."""
    names = list(per_item)
    matrix = np.column_stack([np.asarray(per_item[n], dtype=np.float64) for n in names]) if names else None
    out: dict[str, dict[str, dict]] = {}
    for stratum, values in labels.items():
        groups = _groups(values)
        cells = {}
        for value, rows in sorted(groups.items(), key=lambda kv: _sort_key(kv[0])):
            means = matrix[rows].mean(axis=0) * SCALE if matrix is not None else []
            cells[value] = {"n": len(rows), "metrics": {n: round(float(m), 4) for n, m in zip(names, means)}}
        out[stratum] = cells
    return out


def _groups(values: Sequence[Any]) -> dict[str, Any]:
    """label -> row indices (ascending). Scalar labels are coded once per distinct value and split with
    numpy; list labels put a row in every value it holds."""
    kinds = set(map(type, values))
    if any(issubclass(k, (list, tuple)) for k in kinds):
        groups: dict[str, list[int]] = {}
        for index, value in enumerate(values):
            for v in (value if isinstance(value, (list, tuple)) else [value]):
                groups.setdefault("(missing)" if v is None else str(v), []).append(index)
        return groups
    plain = kinds - {type(None)}
    if len(values) and (plain == {str} or plain == {int} or plain == {bool} or not plain):
        # one plain type, maybe with missing values: numpy does it (an unrecorded field is all None)
        present = values
        missing = None
        if type(None) in kinds:
            absent = np.fromiter((v is None for v in values), dtype=bool, count=len(values))
            missing, rows_present = np.flatnonzero(absent), np.flatnonzero(~absent)
            present = [v for v in values if v is not None]
        groups = {}
        if present:
            levels, codes = np.unique(np.asarray(present), return_inverse=True)
            codes = codes.ravel()
            order = np.argsort(codes, kind="stable")
            bounds = np.searchsorted(codes[order], np.arange(len(levels) + 1))
            if missing is not None:  # positions among the present values -> rows
                order = rows_present[order]
            groups = {str(level): order[bounds[k]:bounds[k + 1]] for k, level in enumerate(levels.tolist())}
        if missing is not None:  # the label "(missing)", merged with a value spelled so (as below)
            label = "(missing)"
            groups[label] = missing if label not in groups else np.union1d(groups[label], missing)
        return groups
    code_of: dict[tuple, int] = {}  # keyed with the type: True and 1 are equal keys but different labels
    codes = np.fromiter((code_of.setdefault((v.__class__, v), len(code_of)) for v in values), dtype=np.int64,
                        count=len(values))
    groups = {}
    for (_, value), code in code_of.items():
        label = "(missing)" if value is None else str(value)
        rows = np.flatnonzero(codes == code)
        groups[label] = rows if label not in groups else np.union1d(groups[label], rows)  # 1 and "1": one label
    return groups


def _sort_key(value: str):
    try:
        return (0, float(value.split("-")[0]), value)
    except ValueError:
        return (1, 0.0, value)
