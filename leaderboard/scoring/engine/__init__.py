"""The aggregation engine: a scorer hands over per-item scores and item labels; the engine computes
every number users see (overall values, bootstrap CIs, stratum cells) together with the exact item
set behind each one, which disclosure control (`leaderboard.privacy.disclosure`) checks. See docs/engine.md.

One resampling default for every front door (CLI, Space, workers, benches): `CI_RESAMPLES`
percentile-bootstrap resamples over items with seed `CI_SEED`; the count and seed a result used are
recorded in its `protocol.bootstrap`.

Declared kinds (`engine.kinds`, set on `MetricSpec.aggregation`) are computed by `coded_numbers` from a
scorer's coded per-item columns and labels.
"""
from .items import CI_RESAMPLES, CI_SEED, Numbers, mean_metrics, scored_means
from .subsets import Subsets, subset_numbers
from .coded import CodedItems, Label, coded_numbers

__all__ = ["CI_RESAMPLES", "CI_SEED", "CodedItems", "Label", "Numbers", "Subsets", "coded_numbers",
           "mean_metrics", "scored_means", "subset_numbers"]
