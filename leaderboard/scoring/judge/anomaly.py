"""Anomaly review: a judged score far beyond what the submission's own objective numbers predict, or two
judges that disagree sharply, sends the submission to a maintainer (`needs review`, leaderboard/operations/review.py)
instead of the board. The last line of defence against an injection that got past detection and grounding:
it cannot be seen in one verdict, only in the pattern of many. Each benchmark states its own rule
(`Benchmark.anomalies`, e.g. in its folder's anomaly.py); this module only asks and records."""
from __future__ import annotations

from .. import registry


def anomalies(benchmark: str, metrics: dict, protocol: dict) -> list[str]:
    """Why this result should be reviewed before it is ranked (empty: nothing unusual). Texts for the
    maintainer only (private queue record)."""
    return list(registry.scorer(benchmark).anomalies(metrics, protocol))


def review_note(record: dict, benchmark: str, metrics: dict, protocol: dict) -> dict | None:
    """The queue record's `review` note when the result must wait for a maintainer; None when it may be
    published (nothing unusual, or a maintainer already approved this submission)."""
    if record.get("review_decision") == "approved":
        return None
    found = anomalies(benchmark, metrics, protocol)
    return {"anomalies": found} if found else None
