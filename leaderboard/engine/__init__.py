"""The aggregation engine: a scorer hands over per-item scores and item labels; the engine computes
every number users see (overall values, bootstrap CIs, stratum cells) together with the exact item
set behind each one, which disclosure control (`leaderboard.disclosure`) checks. See docs/engine.md.

One resampling default for every front door (CLI, Space, workers, benches): `CI_RESAMPLES`
percentile-bootstrap resamples over items with seed `CI_SEED`; the count and seed a result used are
recorded in its `protocol.bootstrap`.
"""
from .items import CI_RESAMPLES, CI_SEED, Numbers, coded_cells, mean_metrics, scored_means
from .subsets import Subsets, subset_numbers

__all__ = ["CI_RESAMPLES", "CI_SEED", "Numbers", "Subsets", "coded_cells", "mean_metrics", "scored_means", "subset_numbers"]
