"""Med-CMR open-ended scoring with an LLM judge (project prompt `medcmr_open`, written from the paper's
criteria because its Table 11 prompt is not public): Consistency, Coherence, Visual accuracy and
Ground-truth correctness, each 0-10; item score = (Con + Coh + 4 VA + 4 GT) on 0-100. Every verdict echoes
the item's id and quotes the answer's final-answer passage as evidence (checked by the judge client)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from leaderboard.scoring.judge import JudgeCall, JudgeParseError, item_key_id, load_prompt, parse_json_object

PROMPTS = Path(__file__).resolve().parent / "prompts"  # this benchmark's versioned judge prompts

CRITERIA = {"Con": "consistency", "Coh": "coherence", "VA": "visual_accuracy", "GT": "ground_truth"}
WEIGHTS = {"Con": 1, "Coh": 1, "VA": 4, "GT": 4}
PROMPT = "medcmr_open"


def parse_scores(raw: str) -> dict:
    value = parse_json_object(raw)
    out = {}
    for abbr, key in CRITERIA.items():
        score = value.get(key)
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= 10 or score != int(score):
            raise JudgeParseError(f"'{key}' must be an integer from 0 to 10")
        out[abbr] = int(score)
    return out


def judge_open_items(judge, ids: list[str], questions: list[str], references: list[str], descriptions: list[str],
                     responses: list[str | None], progress: bool = False) -> dict:
    """Per-item values on a 0-1 scale (criteria /10, the weighted item score /100), 0 for unanswered
    items; plus failures (judge gave no parseable verdict) and flagged injections."""
    prompt = load_prompt(PROMPT, folder=PROMPTS)
    answered = [k for k, r in enumerate(responses) if r]
    calls = [JudgeCall(ids[k], prompt, {"question": questions[k] or "", "reference": references[k] or "",
                                        "visual_description": descriptions[k] or "(none)", "candidate": responses[k]},
                       criterion_id=item_key_id(ids[k]), evidence=True)
             for k in answered]
    verdicts = judge.run(calls, parse_scores, progress=progress, desc="judging Med-CMR open-ended")
    n = len(ids)
    values = {f"open_{abbr}": np.zeros(n) for abbr in CRITERIA}
    values["open_all"] = np.zeros(n)
    failures, flagged, kinds = [], [], {}
    for k, verdict in zip(answered, verdicts):
        if verdict.flagged_injection:
            flagged.append(ids[k])
        if verdict.value is None:
            failures.append(ids[k])
            kinds[verdict.kind] = kinds.get(verdict.kind, 0) + 1
            continue
        for abbr in CRITERIA:
            values[f"open_{abbr}"][k] = verdict.value[abbr] / 10
        values["open_all"][k] = sum(WEIGHTS[a] * verdict.value[a] for a in CRITERIA) / 100
    return {"values": values, "failures": failures, "failure_kinds": kinds, "flagged": flagged, "judged": len(answered)}
