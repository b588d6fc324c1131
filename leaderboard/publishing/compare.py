"""Two submissions side by side on the same items: paired per-item differences of the primary metric, shown
only as aggregates (where A wins and B loses, ties, the mean difference with a paired bootstrap CI).

Per-item scores stay private (store/private/per_item); nothing per item leaves this module, and a comparison
over fewer than MIN_PUBLIC_CELL shared items is refused, as small stratum cells are suppressed. Submissions
scored against a held-out answer key are never compared: two probes differing in one answer would read it back."""
from __future__ import annotations


from dataclasses import dataclass

import numpy as np

from ..scoring.benchmark import Benchmark
from .result_shards import find
from ..scoring.metrics.bootstrap import bootstrap_means
from ..scoring.result import MIN_PUBLIC_CELL

RESAMPLES = 2000
SEED = 777


class CompareError(Exception):
    """Why two submissions cannot be compared; safe to show."""


@dataclass
class Comparison:
    metric: str
    n: int  # items both submissions scored
    a_wins: int  # items where A scores higher than B
    b_wins: int
    ties: int
    mean_a: float
    mean_b: float
    diff: float  # mean of A - B, on the metric's scale
    ci: tuple[float, float]  # 95% paired percentile bootstrap CI of diff

    def rows(self, name_a: str, name_b: str) -> list[dict]:
        return [
            {"what": "items scored by both", "value": f"{self.n:,}"},
            {"what": f"{name_a} better, {name_b} worse", "value": f"{self.a_wins:,} items"},
            {"what": f"{name_b} better, {name_a} worse", "value": f"{self.b_wins:,} items"},
            {"what": "same score", "value": f"{self.ties:,} items"},
            {"what": f"{name_a} mean", "value": f"{self.mean_a:.1f}"},
            {"what": f"{name_b} mean", "value": f"{self.mean_b:.1f}"},
            {"what": f"difference ({name_a} − {name_b}), 95% paired bootstrap CI",
             "value": f"{self.diff:+.1f} [{self.ci[0]:+.1f}, {self.ci[1]:+.1f}]"},
        ]


def compare(bench: Benchmark, store, id_a: str, id_b: str, resamples: int = RESAMPLES, seed: int = SEED) -> Comparison:
    import pyarrow.parquet as pq

    if id_a == id_b:
        raise CompareError("choose two different submissions")
    public = store.results_table(bench.name)  # ids come back from the page: only the store's own name a file
    known = set() if public is None else set(public.column("submission_id").to_pylist())
    for sub_id in (id_a, id_b):
        if sub_id not in known:
            raise CompareError(f"no per-item scores are kept for {str(sub_id)[:40]!r}: not a stored {bench.name} "
                               "submission")
    metric = bench.primary_metric
    tables = []
    for sub_id in (id_a, id_b):
        record = find(public, sub_id) or {}
        if (record.get("protocol") or {}).get("answers_held_out"):
            # item-level wins and losses of two probes that differ in one answer would read that answer back
            raise CompareError(f"{sub_id} was scored against a held-out answer key; only submissions on public "
                               "keys are compared item by item")
        path = store.private("per_item", f"{sub_id}.parquet")
        if not path.is_file():
            raise CompareError(f"no per-item scores are kept for {sub_id} (paper rows have none)")
        table = pq.read_table(path)
        if metric not in table.column_names:
            raise CompareError(f"{sub_id} has no per-item {metric}")
        tables.append(dict(zip(table.column("id").to_pylist(), table.column(metric).to_pylist())))
    shared = [i for i in tables[0] if i in tables[1] and tables[0][i] is not None and tables[1][i] is not None]
    if len(shared) < MIN_PUBLIC_CELL:
        raise CompareError(f"the two submissions share {len(shared)} scored items; at least {MIN_PUBLIC_CELL} are "
                           "needed (fewer would reveal single items)")
    a = np.array([tables[0][i] for i in shared], dtype=float)
    b = np.array([tables[1][i] for i in shared], dtype=float)
    scale = _scale(find(public, id_a) or {}, bench, a)
    diffs = (a - b) * scale
    means = bootstrap_means(diffs, resamples=resamples, seed=seed)[:, 0]
    lo, hi = np.percentile(means, [2.5, 97.5])
    return Comparison(metric=metric, n=len(shared), a_wins=int((a > b).sum()), b_wins=int((b > a).sum()),
                      ties=int((a == b).sum()), mean_a=float(a.mean() * scale), mean_b=float(b.mean() * scale),
                      diff=float(diffs.mean()), ci=(float(lo), float(hi)))


def _scale(record: dict, bench: Benchmark, per_item: np.ndarray) -> float:
    """Per-item scores are fractions where the public metric is x100: take the factor (1 or 100) that maps
    the per-item mean onto the published value (`record`: the public record)."""
    published = (record.get("metrics") or {}).get(bench.primary_metric)
    mean = float(per_item.mean())
    if published is None or mean == 0:
        return 100.0 if per_item.max() <= 1 else 1.0
    return 100.0 if abs(published - 100 * mean) < abs(published - mean) else 1.0


def comparable_submissions(entries: list) -> list[tuple[str, str]]:
    """(label, submission id) of stored submissions, best first as given."""
    return [(f"{e.result.model.name} · {e.entry_id}", e.entry_id) for e in entries
            if e.result.source == "submission" and not (e.result.protocol or {}).get("answers_held_out")]


def listed(options: list[tuple[str, str]], *ids: str) -> bool:
    """Every id is one the page was offered (ids come back from the browser: nothing else reaches the store)."""
    known = {sub_id for _, sub_id in options}
    return all(isinstance(i, str) and i in known for i in ids)
