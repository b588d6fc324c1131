"""Med-CMR's anomaly rule (the framework's review step asks every scorer, leaderboard/scoring/judge/anomaly.py): across
the paper's 18 models (Table 2), open-ended score ~ 26.42 + 0.364 x MCQ accuracy, residual SD 4.0 points,
largest 7.8. A submission whose open_all lies more than MARGIN points above that line, plus twice a generous
standard error of its mean (a 0-100 item score has SD <= 50: 100/sqrt(n)), is held. A different judge model
shifts every score alike; the margin leaves room for that."""
from __future__ import annotations

import math

FIT = (26.42, 0.364)  # open_all = a + b * mcq_all, least squares over the paper's Table 2
MARGIN = 15.0  # points above the line, ~3.7 residual SDs


def anomalies(metrics: dict, protocol: dict) -> list[str]:
    open_all, mcq, n = metrics.get("open_all"), metrics.get("mcq_all"), protocol.get("open_ended_judged") or 0
    if open_all is None or mcq is None or not n:
        return []
    expected = FIT[0] + FIT[1] * mcq
    margin = MARGIN + 100.0 / math.sqrt(n)
    if open_all <= expected + margin:
        return []
    return [f"open-ended score {open_all:.1f} is {open_all - expected:.1f} points above what its MCQ accuracy "
            f"{mcq:.1f} predicts ({expected:.1f}; allowed {margin:.1f} over {n} items)"]
