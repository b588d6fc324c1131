"""The prediction shapes MedReaMM's authors' scripts write (OpenDxBench `eval/run.py`,
`eval/standardized_pred.py`; the repository the paper's code grew from), read as prediction files.

- `run.py` appends one JSON line per case: {"pmid": ..., "pred_diagnoses": [..]} (a case whose output never
  parsed gets `[]`, which scores 0 here as there).
- The ICD stage (`standardized_pred.py`) adds "standardized_pred_diagnosis": [{"original_term", "code",
  "title", "chapter"}, ...] to each line. Its codes are not used: the leaderboard codes every prediction
  itself, with a pinned coder. The terms come from `pred_diagnoses`, else the entries' `original_term`.
"""
from __future__ import annotations

from leaderboard.intake.author_formats import AuthorFormat


def _from_run(row: dict) -> dict:
    out = {k: v for k, v in row.items() if k not in ("pmid", "pred_diagnoses", "standardized_pred_diagnosis")}
    out["id"] = row.get("pmid")
    diagnoses = row.get("pred_diagnoses")
    if diagnoses is None and isinstance(row.get("standardized_pred_diagnosis"), list):
        diagnoses = [e.get("original_term") if isinstance(e, dict) else e for e in row["standardized_pred_diagnosis"]]
    if diagnoses is not None:
        out["diagnoses"] = diagnoses
    return out


FORMATS = (
    AuthorFormat(
        name="the MedReaMM authors' ICD-stage file (pmid, pred_diagnoses, standardized_pred_diagnosis)",
        signature=("pmid", "standardized_pred_diagnosis"), convert=_from_run,
        source="OpenDxBench eval/standardized_pred.py",
        notes=("its ICD codes are not used: every prediction is coded again by the leaderboard's pinned coder",)),
    AuthorFormat(
        name="the MedReaMM authors' run.py file (pmid, pred_diagnoses)",
        signature=("pmid", "pred_diagnoses"), convert=_from_run, source="OpenDxBench eval/run.py"),
)
