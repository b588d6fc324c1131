"""ClinMM-Bench's anomaly rule (the framework's review step asks every scorer, leaderboard/scoring/judge/anomaly.py):
the two diagnosis judges disagree sharply on a case when one says completely correct (2) and the other
completely incorrect (0). More than SHARP_SHARE of the cases both judged, and at least SHARP_MIN cases, is
held: text that persuades one judge and not the other looks like this."""
from __future__ import annotations

SHARP_SHARE = 0.10
SHARP_MIN = 3


def anomalies(metrics: dict, protocol: dict) -> list[str]:
    agreement = protocol.get("judge_agreement")
    if not agreement or not agreement.get("cases"):
        return []
    sharp, cases = agreement.get("sharp_disagreements", 0), agreement["cases"]
    if sharp >= SHARP_MIN and sharp > SHARP_SHARE * cases:
        return [f"the two diagnosis judges disagree sharply (one 2, the other 0) on {sharp} of {cases} cases"]
    return []
