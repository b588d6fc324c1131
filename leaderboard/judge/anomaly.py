"""Anomaly review: a judged score far beyond what the submission's own objective numbers predict, or two
judges that disagree sharply, sends the submission to a maintainer (`needs review`, leaderboard/review.py)
instead of the board. The last line of defence against an injection that got past detection and grounding:
it cannot be seen in one verdict, only in the pattern of many.

- Med-CMR: across the paper's 18 models (Table 2), open-ended score ~ 26.42 + 0.364 x MCQ accuracy, residual
  SD 4.0 points, largest 7.8. A submission whose open_all lies more than MEDCMR_MARGIN points above that
  line, plus twice a generous standard error of its mean (a 0-100 item score has SD <= 50: 100/sqrt(n)), is
  held. A different judge model shifts every score alike; the margin leaves room for that.
- ClinMM-Bench: the two diagnosis judges disagree sharply on a case when one says completely correct (2) and
  the other completely incorrect (0). More than SHARP_SHARE of the cases both judged, and at least SHARP_MIN
  cases, is held: text that persuades one judge and not the other looks like this.
"""
from __future__ import annotations

import math

MEDCMR_FIT = (26.42, 0.364)  # open_all = a + b * mcq_all, least squares over the paper's Table 2
MEDCMR_MARGIN = 15.0  # points above the line, ~3.7 residual SDs
SHARP_SHARE = 0.10
SHARP_MIN = 3


def anomalies(benchmark: str, metrics: dict, protocol: dict) -> list[str]:
    """Why this result should be reviewed before it is ranked (empty: nothing unusual). Texts for the
    maintainer only (private queue record)."""
    found = []
    if benchmark == "medcmr":
        open_all, mcq, n = metrics.get("open_all"), metrics.get("mcq_all"), protocol.get("open_ended_judged") or 0
        if open_all is not None and mcq is not None and n:
            expected = MEDCMR_FIT[0] + MEDCMR_FIT[1] * mcq
            margin = MEDCMR_MARGIN + 100.0 / math.sqrt(n)
            if open_all > expected + margin:
                found.append(f"open-ended score {open_all:.1f} is {open_all - expected:.1f} points above what its MCQ "
                             f"accuracy {mcq:.1f} predicts ({expected:.1f}; allowed {margin:.1f} over {n} items)")
    agreement = protocol.get("judge_agreement") if benchmark == "clinmm" else None
    if agreement and agreement.get("cases"):
        sharp, cases = agreement.get("sharp_disagreements", 0), agreement["cases"]
        if sharp >= SHARP_MIN and sharp > SHARP_SHARE * cases:
            found.append(f"the two diagnosis judges disagree sharply (one 2, the other 0) on {sharp} of {cases} cases")
    return found


def review_note(record: dict, benchmark: str, metrics: dict, protocol: dict) -> dict | None:
    """The queue record's `review` note when the result must wait for a maintainer; None when it may be
    published (nothing unusual, or a maintainer already approved this submission)."""
    if record.get("review_decision") == "approved":
        return None
    found = anomalies(benchmark, metrics, protocol)
    return {"anomalies": found} if found else None
