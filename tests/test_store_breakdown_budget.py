"""`LocalStore.save_result` spends an account's breakdown budget only on results scored against a
held-out answer key: with a public key anyone can compute every breakdown, so none is withheld and no
ledger is written; with a held-out key the third result past a budget of 2 loses its subset numbers, and the
public numbers carry noise salted with the submission id."""
import json

import pytest

from leaderboard.scoring.benchmark import ScoringContext
from leaderboard.privacy.disclosure import Policy
from leaderboard.scoring.score_file import score_file
from leaderboard.operations.store import LocalStore
from predict_helpers import build_sample
from test_disclosure import _keyed_gauss


def scored(tmp_path, held_out):
    from leaderboard.intake.answer_key import read_columns

    data = build_sample("medcmr", tmp_path / "hub", hold_out_answers=held_out)
    key = data.with_name("medcmr-answers") if held_out else data
    gold = read_columns(key, "mcq", ["id", "answer"]).to_pylist()
    upload = tmp_path / "a.jsonl"  # 18 of 21 right: above a constant answer, so breakdowns are publishable
    upload.write_text("".join(json.dumps({"id": g["id"], "answer": g["answer"] if k % 5 else "ABCDE"[k % 3]}) + "\n"
                              for k, g in enumerate(gold)))
    _, result = score_file("medcmr", upload, data, ScoringContext(resamples=0))
    assert bool(result.protocol.get("answers_held_out")) is held_out
    return result


@pytest.mark.parametrize("held_out, third_has_breakdowns", [(False, True), (True, False)], ids=["public", "held-out"])
def test_the_budget_applies_to_held_out_keys_only(tmp_path, held_out, third_has_breakdowns):
    result = scored(tmp_path, held_out)
    store = LocalStore(tmp_path / "store", policy=Policy(min_cell=1, secret=b"s", breakdowns_per_month=2))
    for sub in ("s1", "s2", "s3"):
        store.save_result(sub, result, account="mallory")
    records = {s: store.record("medcmr", s) for s in ("s1", "s2", "s3")}
    assert [records[s]["submission_id"] for s in ("s1", "s2", "s3")] == ["s1", "s2", "s3"]
    # public numbers of a held-out key carry noise salted with the submission id: two submissions of the same
    # predictions differ, a rescore under the same id is identical (same budget entry, same noise)
    assert (records["s1"]["metrics"]["mcq_all"] != records["s2"]["metrics"]["mcq_all"]) is held_out
    store.save_result("s1", result, account="mallory")
    assert store.record("medcmr", "s1") == records["s1"]

    def public(value, n, sub, label):
        """The exact value, or under a held-out key the value plus 2 items of keyed noise (recomputed from the
        HMAC of the store's secret, the submission id and the label), clamped to 0-100."""
        if not held_out:
            return value
        return round(min(100.0, max(0.0, value + _keyed_gauss(b"s", sub, label) * 2.0 * 100.0 / n)), 4)

    # 18 of 21 MCQs right (85.7143 %); the SOD task's 3 items all right (100 %)
    for sub in ("s1", "s2") + (("s3",) if third_has_breakdowns else ()):
        assert records[sub]["metrics"]["mcq_SOD"] == public(100.0, 3, sub, "m:mcq_SOD")
        assert records[sub]["strata"]["task"]["SOD"] == {"n": 3, "metrics": {
            "mcq_all": public(100.0, 3, sub, "s:task:SOD:mcq_all")}}
    for sub in ("s1", "s2", "s3"):  # whole-set numbers always
        assert records[sub]["metrics"]["mcq_all"] == public(85.7143, 21, sub, "m:mcq_all")
    third = records["s3"]
    if not third_has_breakdowns:
        assert third["metrics"]["mcq_SOD"] is None and "withheld" in third["strata"]["task"]["SOD"]
    ledger = tmp_path / "store" / "private" / "breakdowns"
    assert (ledger.is_dir() and len(list(ledger.iterdir())) == 1) is held_out  # a public key spends nothing
