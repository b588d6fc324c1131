"""Med-CMR scoring on a built tiny release, with hand-computed expected numbers (arithmetic in the comments):
accuracy with parse failures and missing items, per task, per medical-intelligence category, strata with
n, the non-paper macro mean, CIs, pending open-ended metrics, the columnar fast path, held-out keys,
and line-level validation that never leaks an answer."""
import csv
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from conftest import ROOT
from leaderboard.scoring import registry
from dataset_builders.stage import build
from leaderboard.scoring import registry
from leaderboard.scoring.benchmark import ScoringContext
from leaderboard.scoring.metrics.bootstrap import percentile_ci
from leaderboard.scoring.metrics.subgroup import percentile_bounds, subset_means, subset_replicates
from leaderboard.scoring.score_file import score_file, validate_file
from test_medcmr_builder import mcq, open_item, write_release

RESULTS = ROOT / "benchmarks" / "medcmr" / "paper_tables"

# id, task, medical intelligence, modality, organ system, gold letter
ITEMS = [
    (1, "SOD", "DX", ["CT"], "Respiratory", "A"),
    (2, "SOD", "DX", ["CT", "Nuclear Medicine / PET"], "Respiratory", "B"),
    (3, "FDD", "CDS", ["MRI"], "Nervous", "C"),
    (4, "FDD", None, ["MRI"], "Nervous", "D"),
    (5, "CR", "DX", ["CT"], "Digestive", "E"),
    (6, "CR", "TRE", ["Ultrasound"], "Digestive", "A"),
    (7, "LTG", "DX", ["Pathology / Microscopy"], "Digestive", "B"),
    (8, "LTG", "CDS", ["CT"], "Other / NA", "C"),
    (9, "LTG", "DX", ["CT"], "Skeletal", "D"),
]
OPEN_ANSWERS = {10: "Hepatic haemangioma with peripheral nodular enhancement", 11: "Plaque psoriasis of the elbow"}

PREDICTIONS = [
    {"id": "mcq-1", "answer": "A"},                                          # right
    {"id": "mcq-2", "response": "The answer is (C)."},                       # C, gold B: wrong
    {"id": "mcq-3", "response": "**C**"},                                    # right
    {"id": "mcq-4", "response": "A or B"},                                   # parse failure: wrong
    # mcq-5 missing: wrong, not a parse failure
    {"id": "mcq-6", "response": "c"},                                        # C, gold A: wrong
    {"id": "mcq-7", "response": "B. Because the nuclei are atypical and the pattern is rare, not A."},  # right
    {"id": "mcq-8", "response": "I am not sure."},                           # parse failure: wrong
    {"id": "mcq-9", "answer": "d"},                                          # right
    {"id": "open-10", "response": "A liver lesion, probably a haemangioma."},
    # open-11 missing
]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    root = tmp_path_factory.mktemp("medcmr")
    mcqs = [mcq(i, gold, task=t, modality=mod, **{"organ system": organ, "medical intelligence": mi})
            for i, t, mi, mod, organ, gold in ITEMS]
    opens = [open_item(i, answer=text) for i, text in OPEN_ANSWERS.items()]
    release = write_release(root / "rel", mcqs, opens, array=False)
    build(registry.adapter("medcmr"), release, root / "hub", progress=False)
    build(registry.adapter("medcmr"), release, root / "held", hold_out_answers=True, progress=False)
    return root


def write_predictions(path: Path, lines) -> Path:
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n",
                    encoding="utf-8")
    return path


def score(tiny, lines=PREDICTIONS, resamples=0, **kw):
    preds = write_predictions(tiny / "p.jsonl", lines)
    return score_file("medcmr", preds, tiny / "hub" / "medcmr", ScoringContext(resamples=resamples, **kw))


def test_mcq_accuracy_counts_parse_failures_and_missing_items_as_wrong(tiny):
    report, result = score(tiny)
    m = result.metrics
    assert report.ok
    # right: mcq-1, -3, -7, -9 -> 4 of 9 MCQs (mcq-5 missing, mcq-4/-8 unparseable, mcq-2/-6 wrong letter)
    assert m["mcq_all"] == pytest.approx(100 * 4 / 9, abs=1e-4)  # 44.4444
    assert result.parse_failures == 2  # mcq-4 ("A or B"), mcq-8
    assert result.n_items == 11 and result.n_answered == 9  # 8 MCQs + open-10
    assert result.protocol["mcq_items"] == 9 and result.protocol["open_items"] == 2


def test_per_task_macro_and_medical_intelligence_accuracies(tiny):
    _, result = score(tiny)
    m = result.metrics
    assert m["mcq_SOD"] == 50.0  # mcq-1 right, mcq-2 wrong
    assert m["mcq_FDD"] == 50.0  # mcq-3 right, mcq-4 parse failure
    assert m["mcq_CR"] == 0.0  # mcq-5 missing, mcq-6 wrong
    assert m["mcq_LTG"] == pytest.approx(200 / 3, abs=1e-4)  # mcq-7, -9 right; -8 failure
    for task in ("SU", "TP", "MSI"):
        assert m[f"mcq_{task}"] is None and result.pending[f"mcq_{task}"] == f"no MCQ in the dataset has task {task}"
    assert m["mcq_macro"] == pytest.approx((50 + 50 + 0 + 200 / 3) / 4, abs=1e-4)  # 41.6667, over the 4 present tasks
    assert m["mcq_DX"] == 60.0  # mcq-1, -7, -9 right of mcq-1, -2, -5, -7, -9
    assert m["mcq_CDS"] == 50.0  # mcq-3 right, mcq-8 wrong
    assert m["mcq_TRE"] == 0.0  # mcq-6
    assert m["mcq_PA"] is None and result.pending["mcq_PA"] == "no MCQ in the dataset has medical_intelligence PA"


def test_strata_have_n_and_accuracy_over_mcqs(tiny):
    _, result = score(tiny)
    s = result.strata
    cell = lambda stratum, value: (s[stratum][value]["n"], s[stratum][value]["metrics"]["mcq_all"])  # noqa: E731
    assert cell("modality", "CT") == (5, 40.0)  # mcq-1 right, -2 wrong, -5 missing, -8 failure, -9 right
    assert cell("modality", "Nuclear Medicine / PET") == (1, 0.0)  # multi-label mcq-2 counts here too
    assert cell("modality", "MRI") == (2, 50.0)
    assert cell("organ_system", "Digestive") == (3, pytest.approx(100 / 3, abs=1e-4))  # -7 right of -5, -6, -7
    assert cell("organ_system", "Other / NA") == (1, 0.0)
    assert cell("complexity_group", "visual") == (4, 50.0)  # SOD + FDD: mcq-1, -3 right of 4
    assert cell("complexity_group", "reasoning") == (5, 40.0)  # CR + LTG: mcq-7, -9 right of 5
    assert cell("medical_intelligence", "(missing)") == (1, 0.0)  # mcq-4 has no label
    assert "SU" not in s["task"] and "Radiotherapy" not in s["modality"]  # empty cells are not listed
    assert sum(c["n"] for c in s["organ_system"].values()) == 9


def test_cis_use_one_resampling_for_all_subsets(tiny):
    _, result = score(tiny, resamples=2000)
    correct = np.array([1, 0, 1, 0, 0, 0, 1, 0, 1], dtype=float)  # key order mcq-1..mcq-9
    lo, hi = percentile_ci(correct[:, None], resamples=2000)  # the shared overall bootstrap, same seed
    assert result.ci["mcq_all"] == [round(lo[0] * 100, 4), round(hi[0] * 100, 4)]
    assert result.ci["mcq_TRE"] == [0.0, 0.0]  # one item, always wrong
    assert result.strata["modality"]["Pathology / Microscopy"]["ci"]["mcq_all"] == [100.0, 100.0]  # one right item
    for name in ("mcq_SOD", "mcq_LTG", "mcq_DX", "mcq_macro"):
        low, high = result.ci[name]
        assert 0.0 <= low <= result.metrics[name] <= high <= 100.0


def test_subset_helpers_by_hand():
    values = np.array([1.0, 0.0, 1.0, 1.0])
    masks = np.array([[1, 1, 0], [1, 0, 0], [1, 1, 0], [1, 0, 0]], dtype=bool)
    # all: 3/4; first and third item: 2/2; empty subset: NaN
    assert subset_means(values, masks)[:2].tolist() == [0.75, 1.0] and np.isnan(subset_means(values, masks)[2])
    reps = subset_replicates(values, masks, resamples=500, seed=1)
    assert reps.shape == (500, 3) and np.all(np.isnan(reps[:, 2]))
    # the subset holds only 1s, so every resample that draws it gives exactly 1; resamples without it give NaN
    assert set(np.unique(reps[:, 1][~np.isnan(reps[:, 1])]).tolist()) == {1.0}
    lo, hi = percentile_bounds(reps)
    assert (lo[1], hi[1]) == (1.0, 1.0) and np.isnan(lo[2]) and np.isnan(hi[2])


def test_open_ended_metrics_are_pending_never_guessed(tiny):
    _, result = score(tiny)
    for name in ("open_Con", "open_Coh", "open_VA", "open_GT", "open_all"):
        assert result.metrics[name] is None and result.pending[name].startswith("LLM judge not configured")
    assert result.ci.get("open_all") is None


def test_columnar_fast_path_gives_the_same_result(tiny):
    """When validation provides `report.table` (pyarrow), scoring reads it instead of the dict."""
    preds = write_predictions(tiny / "p.jsonl", PREDICTIONS)
    report, key = validate_file("medcmr", preds, tiny / "hub" / "medcmr")
    rows = [{"id": i, "response": v.get("response"), "answer": v.get("answer")} for i, v in report.valid.items()]
    report.table = pa.Table.from_pylist(rows)
    benchmark = registry.scorer("medcmr")
    fast = benchmark.score(key, report, ScoringContext(resamples=0))
    report.table = None
    slow = benchmark.score(key, report, ScoringContext(resamples=0))
    assert fast.metrics == slow.metrics and fast.strata == slow.strata
    assert (fast.parse_failures, fast.n_answered) == (slow.parse_failures, slow.n_answered) == (2, 9)


def test_held_out_answer_key_scores_the_same(tiny):
    preds = write_predictions(tiny / "p.jsonl", PREDICTIONS)
    _, public = score_file("medcmr", preds, tiny / "hub" / "medcmr", ScoringContext(resamples=0))
    _, held = score_file("medcmr", preds, tiny / "held" / "medcmr", ScoringContext(resamples=0))
    assert held.metrics == public.metrics and held.protocol["dataset_fingerprint"] == public.protocol["dataset_fingerprint"]


def test_bad_predictions_get_line_level_messages_without_answers(tiny):
    lines = [
        {"id": "mcq-1", "answer": "A"},
        {"id": "mcq-1", "answer": "B"},                 # line 2: duplicate
        {"id": "mcq-2", "answer": "F"},                 # line 3: not a letter A-E
        {"id": "mcq-99", "response": "A"},              # line 4: unknown id
        {"id": "mcq-3"},                                # line 5: neither field
        "{not json",                                    # line 6
        {"id": "open-10", "answer": "B"},               # line 7: letter only for an open-ended item
    ]
    preds = write_predictions(tiny / "bad.jsonl", lines)
    report, key = validate_file("medcmr", preds, tiny / "hub" / "medcmr")
    issues = [str(i) for i in report.issues]  # validate_file runs the benchmark's format_issues hook too
    assert issues[:5] == [
        "error: line 2, field 'id': duplicate id 'mcq-1' (first on line 1)",
        "error: line 3, field 'answer': must be one of A, B, C, D, E, a, b, c, d, e, got 'F'",
        "error: line 4, field 'id': unknown id 'mcq-99' (did you mean 'mcq-9'?)",
        "error: line 5: needs one of the fields response, answer",
        "error: line 6: not valid JSON (Expecting property name enclosed in double quotes at column 2)",
    ]
    # ids with a valid line: mcq-1 (line 1) and open-10 (line 7) -> 11 - 2 = 9 without
    assert issues[5] == "warning: file: 9 of 11 items have no prediction; they count as wrong"
    assert issues[6] == ("warning: line 7, field 'answer': id 'open-10' is an open-ended item: a letter `answer` is "
                         "not scored (the item counts as unanswered); put the model's text in `response`")
    text = report.render() + "\n".join(issues)
    for secret in [*OPEN_ANSWERS.values(), "Finding 1.", "Finding 10."]:
        assert secret not in text
    _, result = score_file("medcmr", preds, tiny / "hub" / "medcmr", ScoringContext(resamples=0))
    assert result.metrics["mcq_all"] == pytest.approx(100 / 9, abs=1e-4)  # only mcq-1 counts (right)
    assert result.n_answered == 1  # open-10 is letter-only: unanswered
    assert result.notes == ["1 open-ended item(s) were submitted with only a letter `answer` and no `response`; "
                            "they count as unanswered: open-10"]


def test_metric_names_match_the_paper_tables():
    benchmark = registry.scorer("medcmr")
    names = {m.name for m in benchmark.metrics}
    with (RESULTS / "table2_main_results.csv").open(encoding="utf-8") as handle:
        table2 = [c for c in next(csv.reader(handle)) if c.startswith(("mcq_", "open_"))]
    with (RESULTS / "table3_medical_intelligence.csv").open(encoding="utf-8") as handle:
        table3 = [f"mcq_{c}" for c in next(csv.reader(handle))[1:]]
    assert len(table2) == 13 and set(table2) <= names and set(table3) <= names
    assert benchmark.primary_metric == "mcq_all"
    assert all(m.name.endswith("_" + m.group) for m in benchmark.metrics)  # `<stem>_<group>` as the renderer expects


def test_paper_records_match_tables_2_and_3_with_flags():
    from leaderboard.scoring.result import Result

    paper = ROOT / "submissions" / "medcmr" / "paper"
    records = {r.model.name: r for r in map(Result.read, sorted(paper.glob("*.json")))}
    assert len(records) == 18 and all(r.source == "paper" and r.n_answered is None for r in records.values())
    gpt5 = records["GPT-5"].metrics
    assert (gpt5["mcq_all"], gpt5["mcq_LTG"], gpt5["mcq_PRA"], gpt5["open_all"]) == (57.81, 55.19, 61.11, 48.70)
    # mean of the 7 GPT-5 task cells: (66.08+71.45+62.06+58.33+60.30+55.19+69.00)/7 = 442.41/7 = 63.2014
    assert gpt5["mcq_macro"] == 63.2
    assert "45.88" in records["Gemini-2.5-Pro"].cell_flags["open_all"]
    assert "40.23" in records["Qwen3-VL-32B"].cell_flags["open_all"]
    assert set(records["Lingshu-7B"].cell_flags) == {"mcq_all"} and records["Lingshu-7B"].protocol["filter_model"]
    assert records["Qwen3-VL-30B-A3B"].protocol["size_group"] == "Open-source Models 10B~100B"


@pytest.mark.parametrize("given, response, expected", [
    (None, "The answer is (C).", "C"),
    (None, "A or B", None),
    (None, "**B**", "B"),
    (None, "c", "C"),
    (None, "D. The lesion abuts the ventricle, so options A and B are unlikely.", "D"),
    (None, "", None),
    ("e", None, "E"),
    ("A", "Answer: B", "A"),  # an explicit `answer` wins over the response
])
def test_letter_choice(given, response, expected):
    from benchmarks.medcmr.scorer import choose_letters

    letters, failed = choose_letters(np.array([given], dtype=object), np.array([response], dtype=object),
                                     np.array([True]))
    assert letters[0] == expected and failed[0] == (expected is None)


def test_categories_pending_when_the_dataset_has_no_labels(tmp_path):
    release = write_release(tmp_path / "rel", [mcq(1, "A"), mcq(2, "B", task="TP")], array=False)
    build(registry.adapter("medcmr"), release, tmp_path / "hub", progress=False)
    preds = write_predictions(tmp_path / "p.jsonl", [{"id": "mcq-1", "answer": "A"}, {"id": "mcq-2", "answer": "A"}])
    _, result = score_file("medcmr", preds, tmp_path / "hub" / "medcmr", ScoringContext(resamples=0))
    assert result.metrics["mcq_all"] == 50.0 and result.metrics["mcq_SOD"] == 100.0 and result.metrics["mcq_TP"] == 0.0
    for category in ("CDS", "DX", "PA", "PRA", "SEE", "TRE"):
        assert result.metrics[f"mcq_{category}"] is None
        assert result.pending[f"mcq_{category}"] == "the dataset has no medical-intelligence labels"
    assert result.strata["medical_intelligence"] == {"(missing)": {"n": 2, "metrics": {"mcq_all": 50.0}}}
    assert result.pending["open_all"] == "the dataset has no open-ended items"


def test_option_text_answers_are_read_with_the_items_options(tiny):
    # the release's options are "one" ... "five" (A-E); a text of 3 characters counts only as a whole response
    lines = [{"id": "mcq-1", "response": "one"},                        # A, gold A: right
             {"id": "mcq-2", "response": "The answer is two."},         # "two" only as the whole response: failure
             {"id": "mcq-3", "response": "Three."},                     # C, gold C: right
             {"id": "mcq-4", "response": "I pick four."},               # D, gold D: right
             {"id": "mcq-5", "response": "The answer is five, not three."},  # E ("three" rejected), gold E: right
             {"id": "mcq-6", "response": "four"}]                       # D, gold A: wrong, parsed
    _, result = score(tiny, lines)
    assert result.metrics["mcq_all"] == pytest.approx(100 * 4 / 9, abs=1e-4)
    assert result.parse_failures == 1
    assert result.protocol["letter_rule_version"] == "letters-v13"
    assert result.protocol["letter_rule"].startswith("letters-v13:")
