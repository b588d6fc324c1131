"""The computations behind `engine.kinds`: each writes a metric's value (x100, 4 decimals; a calibration
error as a fraction, 6 decimals), its n and, with resamples, its percentile CI into `Numbers`.

CIs are the percentile bootstrap over items, drawn from cell counts where a number depends on the items
only through counts (`metrics.cell_bootstrap`): a proportion's count is Binomial(n, p), a family's cells
are one multinomial, paired outcomes one multinomial per difference.
"""
from __future__ import annotations

import warnings

import numpy as np

from leaderboard.scoring.engine.items import Numbers
from leaderboard.scoring.metrics.calibration import (base_score_vector, expected_calibration_error, uncertainty_aware_score, uncertainty_codes)
from leaderboard.scoring.metrics.cell_bootstrap import (cell_bootstrap, group_accuracy, multinomial_draws, percentile_interval)
from leaderboard.scoring.metrics.chains import chain_completion, chain_completion_rate, modality_contribution

UNCERTAINTY_CELLS = 5  # per label value: no confidence, then the four uncertainty codes (CC, CU, IU, IC)


def _interval(low: float, high: float) -> list[float]:
    return [round(100.0 * float(low), 4), round(100.0 * float(high), 4)]


def _binomial_interval(n: int, rate: float, resamples: int, seed: list[int]) -> list[float]:
    """The item bootstrap of a proportion: the resampled count is Binomial(n, rate)."""
    draws = np.random.default_rng(seed).binomial(n, rate, size=resamples) / n
    low, high = percentile_interval(draws[:, None])
    return _interval(low[0], high[0])


def label_family(numbers: Numbers, codes: np.ndarray, correct: np.ndarray, members: list[str | None],
                 macro: str | None, resamples: int, seed: list[int]) -> None:
    """Accuracy per label value (`members[i]` names value i's metric; None: not published) and their
    unweighted mean, with cell-bootstrap CIs over all `codes` items (one draw for the family)."""
    k = len(members)
    known = codes >= 0
    cells = np.bincount(codes[known] * 2 + correct[known], minlength=2 * k)
    counts = np.append(cells, (~known).sum())  # last cell: items outside the family (keeps N = all items)
    size = cells.reshape(k, 2).sum(axis=1)
    accuracy = np.where(size > 0, cells.reshape(k, 2)[:, 1] / np.maximum(size, 1), np.nan)
    for name, value, n in zip(members, accuracy, size):
        if name:
            numbers.metrics[name] = None if n == 0 else round(100.0 * float(value), 4)
            numbers.counts[name] = int(n)
    if macro:
        numbers.metrics[macro] = None if not (size > 0).any() else round(100.0 * float(np.nanmean(accuracy)), 4)
        numbers.counts[macro] = int(size.sum())
    if resamples <= 0 or size.sum() == 0:
        return

    def statistic(draws: np.ndarray) -> np.ndarray:
        per_value = group_accuracy(draws[:, :-1], k)
        if not macro:
            return per_value
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a resample with no item of any value: NaN
            mean = np.nanmean(np.where(size > 0, per_value, np.nan), axis=1)
        return np.column_stack([per_value, mean])

    low, high = cell_bootstrap(counts, statistic, resamples, seed)
    for name, a, b in zip(members + ([macro] if macro else []), low, high):
        if name and numbers.metrics.get(name) is not None:
            numbers.ci[name] = _interval(a, b)


def proportion(numbers: Numbers, name: str, correct: np.ndarray, resamples: int, seed: list[int]) -> None:
    n = len(correct)
    numbers.counts[name] = n
    numbers.metrics[name] = None if n == 0 else round(100.0 * float(correct.mean()), 4)
    if n and resamples > 0:
        numbers.ci[name] = _binomial_interval(n, correct.mean(), resamples, seed)


def group_completion(numbers: Numbers, name: str, group: np.ndarray, n_groups: int, stage: np.ndarray,
                     n_stages: int, correct: np.ndarray, resamples: int, seed: list[int]) -> None:
    eligible, complete = chain_completion(group, stage, correct, n_groups, n_stages)
    n = int(eligible.sum())
    numbers.counts[name] = n
    numbers.metrics[name] = None if n == 0 else round(chain_completion_rate(eligible, complete), 4)
    if n and resamples > 0:  # groups resampled: the complete count is Binomial(n, rate)
        numbers.ci[name] = _binomial_interval(n, complete.sum() / n, resamples, seed)


def coverage(numbers: Numbers, name: str, present: np.ndarray) -> None:
    has = ~np.isnan(present)
    numbers.counts[name] = len(present)
    numbers.metrics[name] = None if not len(present) else round(100.0 * has.sum() / len(present), 4)


def calibration_error(numbers: Numbers, name: str, confidence: np.ndarray, correct: np.ndarray) -> None:
    has = ~np.isnan(confidence)
    numbers.counts[name] = int(has.sum())
    numbers.metrics[name] = round(expected_calibration_error(confidence[has], correct[has]), 6) if has.any() else None


def uncertainty_score(numbers: Numbers, name: str, universe: np.ndarray, codes: np.ndarray, k: int,
                      weights: np.ndarray, confidence: np.ndarray, correct: np.ndarray, resamples: int,
                      seed: list[int]) -> None:
    """UAS over the universe's items with a confidence, weighted by label value; rows are the key's rows."""
    has = universe & ~np.isnan(confidence)
    numbers.counts[name] = int(has.sum())
    if not has.any():
        numbers.metrics[name] = None
        return
    known = has & (codes >= 0)
    numbers.metrics[name] = round(uncertainty_aware_score(confidence[known], correct[known], weights[codes[known]]), 4)
    if resamples <= 0:
        return
    # cells: label value x (no confidence, CC, CU, IU, IC), plus one for the universe's items of unknown value
    category = np.where(has, uncertainty_codes(np.nan_to_num(confidence), correct) + 1, 0)
    rows = universe & (codes >= 0)
    cells = np.bincount(codes[rows] * UNCERTAINTY_CELLS + category[rows], minlength=k * UNCERTAINTY_CELLS)
    counts = np.append(cells, (universe & (codes < 0)).sum())
    value = np.concatenate([[0.0], base_score_vector()])  # per category code 0..4
    w_cell = np.repeat(weights, UNCERTAINTY_CELLS) * np.tile(np.r_[0.0, np.ones(UNCERTAINTY_CELLS - 1)], k)
    wb_cell = np.repeat(weights, UNCERTAINTY_CELLS) * np.tile(value, k)

    def statistic(draws: np.ndarray) -> np.ndarray:
        d = draws[:, :-1].astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (d @ wb_cell) / (d @ w_cell)

    low, high = cell_bootstrap(counts, statistic, resamples, seed)
    numbers.ci[name] = _interval(low[0], high[0])


def paired_differences(numbers: Numbers, rows: list[tuple[str, np.ndarray, np.ndarray, np.ndarray]],
                       resamples: int, seed: list[int]) -> None:
    """Each (name, baseline outcomes, outcomes, answered) over its items: baseline accuracy minus accuracy
    (points); None without items or without an answered one. CIs of all from one draw."""
    paired: dict[str, np.ndarray] = {}  # name -> counts of (baseline, outcome) 00, 01, 10, 11
    for name, baseline, outcome, answered in rows:
        numbers.counts[name] = len(outcome)
        if not len(outcome) or not answered.any():
            numbers.metrics[name] = None
        else:
            numbers.metrics[name] = round(modality_contribution(baseline, outcome), 4)
            paired[name] = np.bincount(baseline * 2 + outcome, minlength=4)
    if paired and resamples > 0:  # paired: each item's two outcomes are resampled together
        low, high = paired_intervals(np.array(list(paired.values())), resamples, seed)
        for name, a, b in zip(paired, low, high):
            numbers.ci[name] = _interval(a, b)


def paired_intervals(counts: np.ndarray, resamples: int, seed: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Percentile CIs of baseline minus outcome accuracy for several (cells 00, 01, 10, 11) count rows.
    Only 10 (baseline right, outcome wrong) and 01 move the difference: those two cells are drawn and
    00 + 11 lumped, which is the same multinomial with one binomial fewer per resample."""
    totals = counts.sum(axis=1)
    lumped = np.column_stack([counts[:, 2], counts[:, 1], counts[:, 0] + counts[:, 3]])
    draws = multinomial_draws(lumped, resamples, np.random.default_rng(seed))  # (resamples, rows, 3)
    return percentile_interval((draws[:, :, 0] - draws[:, :, 1]) / totals)
