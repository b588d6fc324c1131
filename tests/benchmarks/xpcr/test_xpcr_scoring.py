"""X-PCR scoring end to end on a built tiny release, every expected number computed by hand.

Release (tests/xpcr_release.py): img1 (CFP, DR) has one item per stage; img2 (OCT, AMD) has seven
items (AL twice); img3 (FFA, Rare) has IQA, AL, DD only. Hospital cases C1 (group 1, CFP/OCT) and C2
(group 2, CFP/OCT/FFA) have two items each. Every gold answer is B.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest

from conftest import ROOT
from leaderboard.scoring import registry
from dataset_builders.stage import build
from leaderboard.scoring import registry
from leaderboard.scoring.benchmark import ScoringContext
from benchmarks.xpcr.response_letters import _parse_responses
from leaderboard.scoring.letters import RULE_VERSION, parse_letter
from leaderboard.scoring.score_file import score_file, validate_file
from leaderboard.scoring.result import Result
from xpcr_release import SCORING_CASES, SCORING_ROWS, image_row, write_release

# (id, letter, confidence) - C marks a wrong answer; None confidence = field absent.
CHAIN_PREDICTIONS = [
    ("img1-1", "B", 0.95), ("img1-2", "B", 0.9), ("img1-3", "B", 0.85), ("img1-4", "B", 0.8), ("img1-5", "B", 0.4),
    ("img1-6", "B", 0.3),
    ("img2-1", "B", 1.0), ("img2-2", "B", 0.5), ("img2-3", "C", 0.7), ("img2-4", "B", None), ("img2-5", "B", 0.65),
    ("img2-6", "B", 0.55), ("img2-7", "B", 0.75),
    ("img3-1", "B", 0.6), ("img3-2", "C", 0.2),  # img3-3 (DD) missing
]
CROSS_PREDICTIONS = [
    {"id": "C1-1", "answer": "B"}, {"id": "C1-2", "answer": "B"}, {"id": "C2-1", "answer": "B"}, {"id": "C2-2", "answer": "C"},
    {"id": "C1-1/without-CFP", "answer": "B", "removed_modality": "CFP"},
    {"id": "C1-2/without-CFP", "answer": "C"},
    {"id": "C1-1/without-OCT", "answer": "C"},  # C1-2/without-OCT missing
    {"id": "C2-1/without-CFP", "answer": "B"}, {"id": "C2-2/without-CFP", "answer": "B"},
    {"id": "C2-1/without-FFA", "answer": "B", "removed_modality": "OCT"},  # contradicts its id: ignored
    {"id": "C2-2/without-FFA", "answer": "C", "removed_modality": "FFA"},
    # no .../without-OCT rows for group 2
]


def chain_lines():
    return [{"id": i, "answer": a, **({"confidence": c} if c is not None else {})} for i, a, c in CHAIN_PREDICTIONS]


def write(path, lines):
    path.write_text("\n".join(l if isinstance(l, str) else json.dumps(l) for l in lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("xpcr")
    write_release(root / "raw", SCORING_ROWS, SCORING_CASES)
    build(registry.adapter("xpcr"), root / "raw", root / "hub", progress=False)
    return root / "hub" / "xpcr"


@pytest.fixture(scope="module")
def scored(built, tmp_path_factory):
    preds = write(tmp_path_factory.mktemp("p") / "p.jsonl", chain_lines() + CROSS_PREDICTIONS)
    return score_file("xpcr", preds, built, ScoringContext(resamples=2000))


def test_stage_tier_modality_and_category_accuracy(scored):
    report, result = scored
    # the contradicting removed_modality row is a line-level error where the key-aware hook is wired
    assert [i.field for i in report.errors] in ([], ["removed_modality"])
    assert report.missing_ids == 1  # img3-3; the three absent without-OCT rows are optional (MCS pending)
    m = result.metrics
    # IQA 3/3; AL img1 ok, img2 R ok, img2 A wrong, img3 wrong = 2/4; LC 2/2; DD 2/3 (img3-3 missing); SG 2/2; CD 2/2
    assert (m["IQA"], m["AL"], m["LC"], m["SG"], m["CD"]) == (100.0, 50.0, 100.0, 100.0, 100.0)
    assert m["DD"] == pytest.approx(66.6667, abs=1e-4)
    assert m["SWA_Avg"] == pytest.approx((100 + 50 + 100 + 200 / 3 + 100 + 100) / 6, abs=1e-4)  # 86.1111
    # R: 5 of 6 (img3 AL wrong); A: 4 of 6 (img2 AL-A wrong, img3 DD missing); S: 4 of 4
    assert m["R_level"] == pytest.approx(83.3333, abs=1e-4)
    assert m["A_level"] == pytest.approx(66.6667, abs=1e-4)
    assert m["S_level"] == 100.0
    assert m["ESA_Avg"] == pytest.approx((500 / 6 + 400 / 6 + 100) / 3, abs=1e-4)  # 83.3333
    # CFP img1 6/6; OCT img2 6/7; FFA img3 1/3; Avg over the three present modalities
    assert m["modality_CFP"] == 100.0
    assert m["modality_OCT"] == pytest.approx(600 / 7, abs=1e-4)  # 85.7143
    assert m["modality_FFA"] == pytest.approx(100 / 3, abs=1e-4)
    assert m["modality_Avg"] == pytest.approx((100 + 600 / 7 + 100 / 3) / 3, abs=1e-4)  # 73.0159
    assert m["modality_ICGA"] is None and "modality_ICGA" in result.pending
    assert (m["category_DR"], m["category_Rare"]) == (100.0, pytest.approx(100 / 3, abs=1e-4))
    assert m["category_AMD"] == pytest.approx(600 / 7, abs=1e-4)
    assert result.n_items == 20 and result.n_answered == 19 and result.parse_failures == 0
    assert result.metric_n["AL"] == 4 and result.metric_n["CCR"] == 2


def test_chain_completion_counts_only_six_stage_images(scored):
    # img1 complete; img2 has one wrong item (AL, A tier) -> incomplete; img3 lacks LC/SG/CD -> not a chain
    assert scored[1].metrics["CCR"] == 50.0


def test_ece_uas_and_confidence_coverage(scored):
    m = scored[1].metrics
    # 14 of 16 chain items carry a confidence (img2-4 has none, img3-3 is missing).
    # Bins (|hits - sum conf|): b2 {0.2 x} 0.2; b3 {0.3 v} 0.7; b4 {0.4 v} 0.6; b5 {0.5 v, 0.55 v} 0.95;
    # b6 {0.65 v, 0.6 v} 0.75; b7 {0.7 x, 0.75 v} 0.45; b8 {0.85 v, 0.8 v} 0.35; b9 {0.95, 0.9, 1.0 all v} 0.15
    assert m["ECE"] == pytest.approx(4.15 / 14, abs=1e-6)  # 0.296429
    # UAS weights x base: R (6 items, w 1): CC x5 + IU (img3-2, 0.2) = 5.25; A (4 items, w 1.5): CC x3 + IC
    # (img2-3, 0.7) = 4.5; S (4 items, w 2): CU x2 (0.4, 0.3) + CC x2 = 2 x 2 x 0.5 + 2 x 2 = 6.
    # UAS = 100 x (5.25 + 4.5 + 6) / (6 + 6 + 8) = 78.75
    assert m["UAS"] == pytest.approx(78.75)
    assert m["conf_coverage"] == pytest.approx(87.5)  # 14 / 16


def test_cross_modal_groups_and_modality_contribution(scored):
    result = scored[1]
    m = result.metrics
    assert m["XM_All"] == 75.0  # 3 of 4
    assert (m["All_G1"], m["All_G2"]) == (100.0, 50.0)
    assert m["MCS_CFP_G1"] == 50.0  # 100 - (1 of 2)
    assert m["MCS_OCT_G1"] == 100.0  # 100 - 0: one wrong, one missing (counts as wrong)
    assert m["MCS_CFP_G2"] == -50.0  # 50 - 100: removing CFP helped
    assert m["MCS_FFA_G2"] == 50.0  # 50 - 0: the contradicting C2-1 row is ignored, C2-2 wrong
    assert m["MCS_OCT_G2"] is None and "no ablated predictions" in result.pending["MCS_OCT_G2"]
    assert m["All_G3"] is None and m["MCS_EP_G4"] is None and "no cross-modal case" in result.pending["All_G3"]
    assert any("contradicts their id" in n for n in result.notes)
    assert result.protocol["ablation"] == {"rows": 10, "answered": 6, "conflicting_removed_modality": 1}


def test_confidence_intervals_are_percentile_bootstrap_and_bracket_the_estimate(scored):
    result = scored[1]
    for name in ("SWA_Avg", "AL", "ESA_Avg", "CCR", "UAS", "modality_Avg", "XM_All", "MCS_CFP_G1"):
        lo, hi = result.ci[name]
        assert lo <= result.metrics[name] <= hi, name
    assert result.ci["IQA"] == [100.0, 100.0]  # every IQA item right in every resample
    assert "ECE" not in result.ci
    lo, hi = result.ci["CCR"]
    assert 0.0 <= lo < 50.0 < hi <= 100.0


def test_scores_are_deterministic(built, scored, tmp_path):
    preds = write(tmp_path / "p.jsonl", chain_lines() + CROSS_PREDICTIONS)
    _, again = score_file("xpcr", preds, built, ScoringContext(resamples=2000))
    assert again.metrics == scored[1].metrics and again.ci == scored[1].ci


def test_parse_cases_restricted_to_the_items_options(built, tmp_path):
    lines = [
        {"id": "img1-1", "response": "The answer is (B)."},
        {"id": "img1-2", "response": "A or B"},                                   # two letters: parse failure
        {"id": "img1-3", "response": "**B**"},
        {"id": "img1-4", "response": "b"},                                        # lower case
        {"id": "img1-5", "response": "B. The haemorrhages are dot-blot, so the grade follows."},
        {"id": "img1-6", "response": "E"},                                        # only A-D exist: parse failure
        {"id": "img2-1", "answer": "F"},                                          # a letter, beyond the options
        {"id": "img2-2", "response": "  B  "},
        {"id": "img2-3", "response": "Answer: C"},                                # parsed, wrong
        {"id": "img2-4", "answer": "B", "response": "C"},                         # answer wins
    ]
    report, result = score_file("xpcr", write(tmp_path / "p.jsonl", lines), built,
                                ScoringContext(resamples=0, keep_per_item=True))
    assert [(i.line, i.field) for i in report.errors] in ([], [(7, "answer")])  # 'F': flagged where the hook is wired
    correct = {i: result.per_item[i]["correct"] for i in (l["id"] for l in lines)}
    assert correct == {"img1-1": 1, "img1-2": 0, "img1-3": 1, "img1-4": 1, "img1-5": 1, "img1-6": 0, "img2-1": 0,
                       "img2-2": 1, "img2-3": 0, "img2-4": 1}
    assert result.parse_failures == 3  # img1-2, img1-6, img2-1
    assert {k: v for k, v in result.per_item["img3-3"].items() if k != "SWA_Avg"} == \
        {"correct": 0.0, "answered": 0.0, "confidence": None}


def test_vectorised_response_parsing_equals_parse_letter():
    texts = ["B", " C ", "E", "b", "(D)", "The answer is (C).", "A or B", "**B**", "Answer: E", "A 45-year-old: B",
             "none", "C", "E", "Z"]
    n_options = np.array([4, 4, 4, 4, 4, 5, 4, 2, 5, 4, 4, 2, 5, 26])
    got = _parse_responses(pa.array(texts), n_options, np.ones(len(texts), dtype=bool))
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    expected = [-1 if (p := parse_letter(t, letters[:n])) is None else letters.index(p) for t, n in zip(texts, n_options)]
    assert got.tolist() == expected


def test_missing_items_count_as_wrong_over_all_items(built, tmp_path):
    only_img1 = [l for l in chain_lines() if l["id"].startswith("img1")]
    report, result = score_file("xpcr", write(tmp_path / "p.jsonl", only_img1), built, ScoringContext(resamples=0))
    assert "items have no prediction; they count as wrong" in report.render()
    m = result.metrics
    assert m["IQA"] == pytest.approx(100 / 3, abs=1e-4)  # 1 of 3 images answered
    assert m["AL"] == 25.0  # 1 of 4
    assert m["CCR"] == 50.0  # img1 complete, img2 (all missing) not
    assert m["XM_All"] == 0.0 and m["conf_coverage"] == pytest.approx(100 * 6 / 16)
    assert result.n_answered == 6 and result.n_items == 20


BAD_LINES = [
    '{"id": "img1-1", "answer": "B", "confidence": 0.9}',
    '{"id": "img1-2", "answer": "B", "confidence": 1.5}',        # 2: out of [0, 1]
    '{"id": "img1-1", "answer": "C"}',                             # 3: duplicate
    '{"id": "img1-3", "answer": "B", "confidence": NaN}',          # 4: NaN is not JSON
    '{"id": "img1-4", "answer": "x"}',                             # 5: 'X' is beyond the item's options
    '{"id": "nope-1", "answer": "B"}',                             # 6: unknown id
    '{"id": "img1-5", "answer": "B", "confidence": -0.1}',        # 7: below 0
    '{"id": "C1-1/without-ICGA", "answer": "B"}',                  # 8: no such ablation run for group 1
    '{"id": "C1-1/without-CFP", "answer": "B", "removed_modality": "XYZ"}',  # 9: unknown modality
    '{"id": "img1-6", "confidence": 0.5}',                         # 10: neither answer nor response
]


def test_bad_predictions_get_a_line_level_report(built, tmp_path):
    report, _ = validate_file("xpcr", write(tmp_path / "bad.jsonl", BAD_LINES), built)
    issues = sorted((i.line, i.field or "") for i in report.errors)
    assert issues == [(2, "confidence"), (3, "id"), (4, ""), (5, "answer"), (6, "id"), (7, "confidence"), (8, "id"),
                      (9, "removed_modality"), (10, "")]
    text = report.render()
    assert "duplicate id 'img1-1' (first on line 1)" in text and "must be between 0.0 and 1.0, got 1.5" in text
    assert "NaN is not allowed" in text and "unknown id 'C1-1/without-ICGA'" in text


def test_reports_never_depend_on_the_answers(built, tmp_path):
    """The same bad file validated against a key whose gold letters all differ gives the same report."""
    other = [image_row(r["id"], r["modality"], [dict(q, answer="gamma") for q in r["qa_pairs"]], disease=r["disease"],
                       source=r["image_path"].split("/")[1]) for r in SCORING_ROWS]
    write_release(tmp_path / "raw2", other, SCORING_CASES)
    build(registry.adapter("xpcr"), tmp_path / "raw2", tmp_path / "hub2", progress=False)
    bad = write(tmp_path / "bad.jsonl", BAD_LINES)
    first, _ = validate_file("xpcr", bad, built)
    second, _ = validate_file("xpcr", bad, tmp_path / "hub2" / "xpcr")
    assert first.render() == second.render()
    assert "beta" not in first.render() and "gamma" not in first.render()


def test_scoring_through_a_held_out_answer_key(tmp_path):
    write_release(tmp_path / "raw", SCORING_ROWS, SCORING_CASES)
    build(registry.adapter("xpcr"), tmp_path / "raw", tmp_path / "hub", hold_out_answers=True, progress=False)
    preds = write(tmp_path / "p.jsonl", chain_lines() + CROSS_PREDICTIONS)
    _, result = score_file("xpcr", preds, tmp_path / "hub" / "xpcr", ScoringContext(resamples=0))
    assert result.metrics["SWA_Avg"] == pytest.approx(86.1111, abs=1e-4) and result.metrics["category_AMD"] is not None


def test_example_predictions_validate_and_score_on_the_sample(tmp_path):
    sample = ROOT / "benchmarks" / "xpcr" / "sample"
    build(registry.adapter("xpcr"), sample, tmp_path, sample=True, progress=False)
    example = ROOT / "submissions" / "xpcr" / "example_predictions.jsonl"
    run = subprocess.run([sys.executable, "-m", "leaderboard", "score", "xpcr", str(example), "--data",
                          str(tmp_path / "xpcr"), "--json", str(tmp_path / "r.json"), "--resamples", "100", "--quiet"],
                         capture_output=True, text=True, cwd=ROOT,
                         # the sample's groups hold 2-3 items: below the public minimum (tests/test_disclosure.py)
                         env={**os.environ, "LEADERBOARD_MIN_CELL": "1"})
    assert run.returncode == 0, run.stderr
    result = Result.read(tmp_path / "r.json")
    assert result.n_items == 75 and result.n_answered == 75 and result.metrics["MCS_CFP_G1"] is not None
    assert result.metrics["MCS_CFP_G3"] is None  # the example submits ablated runs for groups 1-2 only


def test_paper_records_match_the_tables_and_use_the_benchmarks_metric_names(tmp_path):
    folder = ROOT / "submissions" / "xpcr"
    paper = [Result.read(p) for p in sorted((folder / "paper").glob("*.json"))]
    human = [Result.read(p) for p in sorted((folder / "human").glob("*.json"))]
    assert len(paper) == 21 and len(human) == 3
    assert {r.source for r in paper} == {"paper"} and {r.source for r in human} == {"human"}
    names = {m.name for m in registry.scorer("xpcr").metrics}
    by_name = {r.model.name: r for r in paper + human}
    for record in paper + human:
        assert set(record.metrics) <= names, record.model.name
        stages = [record.metrics[s] for s in ("IQA", "AL", "LC", "DD", "SG", "CD")]
        assert abs(sum(stages) / 6 - record.metrics["SWA_Avg"]) <= 0.006  # the paper's Avg = mean of stages
    assert by_name["GPT-5"].metrics["SWA_Avg"] == 76.24 and by_name["GPT-5"].metrics["MCS_EP_G4"] == 2.76
    assert by_name["InternVL-32B"].metrics["modality_CFP"] == 85.67  # Table 3's "InternVL3-32B"
    assert by_name["Specialists (n=8)"].metrics["CCR"] == 62.48
    assert "modality_FFA" in by_name["GPT-5"].cell_flags and "CCR" in by_name["GPT-5"].cell_flags
    assert registry.scorer("xpcr").metric("ECE").higher_is_better is False


def test_key_dependent_problems_are_reported_per_line(built, tmp_path):
    lines = [
        {"id": "img1-1", "answer": "B"},
        {"id": "img1-2", "answer": "F"},                                           # 2: only A-D exist
        {"id": "C2-1/without-FFA", "answer": "B", "removed_modality": "OCT"},     # 3: contradicts the id
        {"id": "C1-1", "answer": "B", "removed_modality": "CFP"},                 # 4: a full-input item
        {"id": "img1-3", "response": "E"},                                         # free text: scored as a parse failure, no issue
    ]
    path = write(tmp_path / "p.jsonl", lines)
    report, key = validate_file("xpcr", path, built)
    issues = registry.scorer("xpcr").extra_issues(path, key, report)
    assert [str(i) for i in issues] == [
        "error: line 2, field 'answer': id 'img1-2': letter 'F' is beyond this item's 4 options (A-D)",
        "error: line 3, field 'removed_modality': id 'C2-1/without-FFA': contradicts the id: the id is the ablated run "
        "without FFA",
        "error: line 4, field 'removed_modality': id 'C1-1': contradicts the id: the id is a full-input item; ablated "
        "runs use ids '<item id>/without-<MODALITY>'",
    ]


def test_a_build_without_hospital_cases_scores_with_table4_pending(tmp_path):
    write_release(tmp_path / "raw", SCORING_ROWS)
    build(registry.adapter("xpcr"), tmp_path / "raw", tmp_path / "hub", progress=False)
    _, result = score_file("xpcr", write(tmp_path / "p.jsonl", chain_lines()), tmp_path / "hub" / "xpcr",
                           ScoringContext(resamples=0))
    assert result.metrics["SWA_Avg"] == pytest.approx(86.1111, abs=1e-4) and result.n_items == 16
    assert result.metrics["XM_All"] is None and result.metrics["MCS_CFP_G1"] is None
    assert "no cross-modal case" in result.pending["All_G1"]


def test_without_confidences_ece_and_uas_are_pending_not_zero(built, tmp_path):
    lines = [{"id": i, "answer": a} for i, a, _ in CHAIN_PREDICTIONS]
    _, result = score_file("xpcr", write(tmp_path / "p.jsonl", lines), built, ScoringContext(resamples=0))
    assert result.metrics["ECE"] is None and result.metrics["UAS"] is None and result.metrics["conf_coverage"] == 0.0
    assert result.pending["UAS"] == "no chain item was submitted with a confidence"


def test_per_item_swa_shares_average_to_swa_avg(tmp_path):
    """The private per-item SWA_Avg shares (used for paired tie tests) average exactly to SWA_Avg."""
    from conftest import ROOT
    from leaderboard.scoring import registry
    from dataset_builders.stage import build
    from leaderboard.scoring.benchmark import ScoringContext
    from leaderboard.scoring.score_file import score_file

    build(registry.adapter("xpcr"), ROOT / "benchmarks" / "xpcr" / "sample", tmp_path, progress=False)
    _, result = score_file("xpcr", ROOT / "submissions" / "xpcr" / "example_predictions.jsonl", tmp_path / "xpcr",
                           ScoringContext(resamples=0, keep_per_item=True))
    shares = [v["SWA_Avg"] for v in result.per_item.values() if v["SWA_Avg"] is not None]
    assert len(shares) == sum(cell["n"] for cell in result.strata["stage"].values())  # one per chain item
    assert 100 * sum(shares) / len(shares) == pytest.approx(result.metrics["SWA_Avg"], abs=1e-4)  # metric rounded to 4 dp


def test_option_text_answers_use_the_items_options(built, tmp_path):
    # every test item's options are alpha, beta, gamma, delta (A-D); gold is beta (B)
    lines = [{"id": "img1-1", "response": "The finding is beta."},            # B: right
             {"id": "img1-2", "response": "Gamma"},                           # C: wrong, parsed
             {"id": "img1-3", "response": "alpha or delta"},                  # two options: parse failure
             {"id": "img1-4", "response": "It is not alpha; it is beta."},    # B: right
             {"id": "img1-5", "response": "Betas"}]                           # plural of B's text: right
    _, result = score_file("xpcr", write(tmp_path / "p.jsonl", lines), built,
                           ScoringContext(resamples=0, keep_per_item=True))
    correct = {i: result.per_item[i]["correct"] for i in (l["id"] for l in lines)}
    assert correct == {"img1-1": 1, "img1-2": 0, "img1-3": 0, "img1-4": 1, "img1-5": 1}
    assert result.parse_failures == 1
    assert result.protocol["letter_rule_version"] == RULE_VERSION == "letters-v13"


def test_vectorised_parsing_with_options_keeps_digits():
    options = pa.chunked_array([[["T1-weighted", "T2-weighted"], ["T1-weighted", "T2-weighted"], None]])
    got = _parse_responses(pa.array(["T2-weighted", "T1-weighted", "T2-weighted"]), np.array([2, 2, 2]),
                           np.ones(3, dtype=bool), options)
    assert got.tolist() == [1, 0, -1]  # digits decide between option texts; no options, no text step


def test_batch_parsing_with_options_equals_parse_letter_on_the_option_corpora():
    """The batch path parses without options first and again with them only where they can change the letter
    (letters.needs_options); on every option-text case it must give what parse_letter with options gives."""
    rows = []
    for name in ("tests/parsing/letter_options_corpus.jsonl", "tests/parsing/heldout/heldout_letters.jsonl"):
        for line in (ROOT / name).read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            options = case["options"] if isinstance(case["options"], list) else [case["options"][k] for k in case["letters"]]
            rows.append((case["text"], case["letters"], options))
    got = _parse_responses(pa.array([t for t, _, _ in rows]), np.array([len(l) for _, l, _ in rows]),
                           np.ones(len(rows), dtype=bool), pa.chunked_array([[o for _, _, o in rows]]))
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    expected = [-1 if (p := parse_letter(t, l, o)) is None else letters.index(p) for t, l, o in rows]
    assert len(rows) > 200 and got.tolist() == expected


def test_ccr_interval_is_centred_on_the_chain_completion_rate(built, tmp_path):
    # every chain item right: CCR 100 and every resample of chains complete; all wrong: 0 and [0, 0]
    right = [{"id": i, "answer": "B"} for i, _, _ in CHAIN_PREDICTIONS] + [{"id": "img3-3", "answer": "B"}]
    _, result = score_file("xpcr", write(tmp_path / "r.jsonl", right), built, ScoringContext(resamples=500))
    assert result.metrics["CCR"] == 100.0 and result.ci["CCR"] == [100.0, 100.0]
    wrong = [{"id": i, "answer": "C"} for i, _, _ in CHAIN_PREDICTIONS]
    _, result = score_file("xpcr", write(tmp_path / "w.jsonl", wrong), built, ScoringContext(resamples=500))
    assert result.metrics["CCR"] == 0.0 and result.ci["CCR"] == [0.0, 0.0]


def test_parse_failures_count_every_row_kind(built, tmp_path):
    # one unusable response on a chain item, a cross-modal item and an ablated run: all three are counted
    lines = [{"id": "img1-1", "response": "A or B"}, {"id": "C1-1", "response": "no idea"},
             {"id": "C1-1/without-CFP", "response": "B and C"}, {"id": "img1-2", "answer": "B"}]
    _, result = score_file("xpcr", write(tmp_path / "p.jsonl", lines), built, ScoringContext(resamples=0))
    assert result.parse_failures == 3
    assert any("2 answered item(s) gave no usable letter" in note for note in result.notes)  # the ablation row apart
