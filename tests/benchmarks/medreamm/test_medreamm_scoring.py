"""End-to-end MedReaMM scoring on a built tiny release, with hand-computed expected numbers.

ICD matching uses a dictionary coder and semantic matching an embedder with hand-set vectors, so
every match is known in advance; the arithmetic is spelled out next to each expected value.
"""
import json
import math

import numpy as np
import pytest

from leaderboard.scoring.benchmark import ScoringContext
from leaderboard.scoring.score_file import score_file

LOG3 = math.log2(3)


class DictCoder:
    identity = {"coder": "test-dictionary", "approximate": False}
    table = {"cholera": "1A00", "vibrio cholerae infection": "1A00", "dehydration": "5C70.0", "pneumonia": "CA40",
             "asthma": "CA23", "essential hypertension": "BA00"}

    def code(self, term):
        return self.table.get(term.strip().lower())


class VectorEmbedder:
    """Each term gets a hand-chosen unit vector; 'Bronchitis' has cosine 0.8 with 'Pneumonia'."""
    identity = {"embedder": "test-vectors", "comparable_to_paper": True}
    axes = {"cholera": 0, "vibrio cholerae infection": 0, "dehydration": 1, "pneumonia": 2, "asthma": 4,
            "obesity": 5, "essential hypertension": 6, "unknown thing": 7}

    def embed(self, texts):
        out = np.zeros((len(texts), 10), dtype=np.float32)
        for i, text in enumerate(texts):
            key = text.strip().lower()
            if key == "bronchitis":
                out[i, 2], out[i, 3] = 0.8, 0.6
            else:
                out[i, self.axes.get(key, 9)] = 1.0
        return out


def write_predictions(path, lines):
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


PREDICTIONS = [
    {"id": "100", "diagnoses": ["Vibrio cholerae infection", "Cholera", "Dehydration"]},
    {"id": "200", "response": "Likely lower respiratory infection.\n### Output ###\n[\"Bronchitis\", \"Pneumonia\"]"},
    {"id": "300", "diagnoses": ["Obesity", "Unknown thing", "Asthma"]},
]


def context(**kw):
    return ScoringContext(icd_coder=DictCoder(), embedder=VectorEmbedder(), resamples=0, **kw)


def test_icd_semantic_and_avg_metrics_match_hand_computation(tmp_path, tiny_built):
    preds = write_predictions(tmp_path / "p.jsonl", PREDICTIONS)
    report, result = score_file("medreamm", preds, tiny_built, context())
    assert report.ok and result.n_answered == 3 and result.parse_failures == 0
    m = result.metrics
    # ICD. case 100: P at 1 (and again at 2, credited once), S at 3. case 200: P at 2. case 300: P at 3;
    # 'Obesity' has no code on either side, which must not count as a match.
    ndcg_100 = (2 + 1 / 2) / (2 + 1 / LOG3)            # 0.950226
    ndcg_200 = (2 / LOG3) / 2                          # 0.630930
    ndcg_300_icd = (2 / 2) / (2 + 1 / LOG3 + 1 / 2)    # 0.319394
    assert m["top1_icd"] == pytest.approx(100 / 3, abs=1e-3)
    assert m["top5_primary_icd"] == 100.0 and m["top10_primary_icd"] == 100.0
    assert m["top5_complete_icd"] == pytest.approx(200 / 3, abs=1e-3)
    assert m["mrr_icd"] == pytest.approx(100 * (1 + 1 / 2 + 1 / 3) / 3, abs=1e-3)  # 61.1111
    assert m["ndcg10_icd"] == pytest.approx(100 * (ndcg_100 + ndcg_200 + ndcg_300_icd) / 3, abs=1e-3)  # 63.3517
    assert m["ndcg10_icd"] == pytest.approx(63.3517, abs=1e-3)
    # Semantic: same as ICD except case 300, where 'Obesity' (rank 1) now matches the secondary by text.
    ndcg_300_sem = (1 + 2 / 2) / (2 + 1 / LOG3 + 1 / 2)  # 0.638788
    assert m["ndcg10_sem"] == pytest.approx(100 * (ndcg_100 + ndcg_200 + ndcg_300_sem) / 3, abs=1e-3)  # 73.9981
    assert m["top5_complete_sem"] == pytest.approx(200 / 3, abs=1e-3)  # hypertension still missing in 300
    assert m["ndcg10_avg"] == pytest.approx((m["ndcg10_icd"] + m["ndcg10_sem"]) / 2, abs=1e-3)  # 68.6749
    assert result.pending == {}
    assert result.protocol["codable_predictions"] == 5  # 3 + 1 + 1 of the 8 predictions have a code
    assert result.protocol["comparable_to_paper"] is True


def test_missing_items_count_as_wrong_and_parse_failures_are_counted(tmp_path, tiny_built):
    lines = [PREDICTIONS[0], {"id": "300", "response": "I cannot tell from these images."}]
    report, result = score_file("medreamm", write_predictions(tmp_path / "p.jsonl", lines), tiny_built, context())
    assert result.n_items == 3 and result.n_answered == 2 and result.parse_failures == 1
    assert result.coverage == pytest.approx(2 / 3)
    assert result.metrics["top1_icd"] == pytest.approx(100 / 3, abs=1e-3)  # only case 100, over 3 cases
    assert result.metrics["top5_primary_sem"] == pytest.approx(100 / 3, abs=1e-3)
    assert any("1 of 3 items have no prediction" in i.message for i in report.warnings)


def test_strata_carry_n_and_per_stratum_means(tmp_path, tiny_built):
    report, result = score_file("medreamm", write_predictions(tmp_path / "p.jsonl", PREDICTIONS), tiny_built, context())
    years = result.strata["publication_year"]
    assert years["2025"]["n"] == 2 and years["2024"]["n"] == 1
    assert years["2025"]["metrics"]["top1_icd"] == 0.0 and years["2024"]["metrics"]["top1_icd"] == 100.0
    assert set(result.strata["image_count"]) == {"1", "2", "3"}
    assert result.strata["diagnosis_count"]["3"]["metrics"]["top10_complete_icd"] == 0.0
    assert set(result.strata) == {"disease_category", "image_count", "diagnosis_count", "publication_year",
                                  "rare_disease", "source_type"}


def test_without_matchers_metrics_are_pending_with_reasons(tmp_path, tiny_built):
    ctx = ScoringContext(resamples=0)
    _, result = score_file("medreamm", write_predictions(tmp_path / "p.jsonl", PREDICTIONS), tiny_built, ctx)
    assert all(v is None for v in result.metrics.values())
    assert "SAPBERT_PATH" in result.pending["top5_primary_sem"]
    assert result.pending["top5_primary_avg"] == "needs both ICD and semantic matching"
    assert result.protocol["comparable_to_paper"] is False


def test_held_out_answer_key_scores_identically(tmp_path, tiny_release):
    from leaderboard.scoring import registry
    from dataset_builders.stage import build

    build(registry.adapter("medreamm"), tiny_release, tmp_path / "hub", hold_out_answers=True, progress=False)
    public = tmp_path / "hub" / "medreamm"
    assert not list(public.rglob("*-answers*"))
    preds = write_predictions(tmp_path / "p.jsonl", PREDICTIONS)
    _, held = score_file("medreamm", preds, public, context())
    assert held.metrics["ndcg10_icd"] == pytest.approx(63.3517, abs=1e-3)
    assert held.strata["diagnosis_count"]["3"]["n"] == 1  # num_diagnoses comes from the held-out key


def test_bootstrap_ci_brackets_the_mean_and_is_reproducible(tmp_path, tiny_built):
    preds = write_predictions(tmp_path / "p.jsonl", PREDICTIONS)
    _, a = score_file("medreamm", preds, tiny_built, context())
    a_ci = a.ci
    ctx = context()
    ctx.resamples = 300
    _, b = score_file("medreamm", preds, tiny_built, ctx)
    _, c = score_file("medreamm", preds, tiny_built, ctx)
    assert a_ci == {}
    assert b.ci == c.ci
    lo, hi = b.ci["mrr_icd"]
    assert lo <= b.metrics["mrr_icd"] <= hi
    assert b.ci["top5_primary_icd"] == [100.0, 100.0]


def test_per_item_scores_are_private(tmp_path, tiny_built):
    preds = write_predictions(tmp_path / "p.jsonl", PREDICTIONS)
    _, result = score_file("medreamm", preds, tiny_built, context(keep_per_item=True))
    assert result.per_item["200"]["mrr_icd"] == 0.5
    assert "per_item" not in result.to_public_dict()


def test_vectorised_ranked_lists_equal_the_per_case_rule():
    """ranked_matrix (the scorer's numpy form) gives ranked_list's lists: first 10 items, duplicates after
    normalisation and blanks dropped, later items moving up, items stripped."""
    import random

    from benchmarks.medreamm.parsing import ranked_list, ranked_lists

    cases = [
        ["Asthma", " asthma ", "COPD", "", "copd.", "Pneumonia"],
        ["  ", "x"] + [f"d{i}" for i in range(12)],  # the 11th submitted item never enters the ten
        [],
        ["ﬁbrosis", "fibrosis", "Fibrosis!", "Sjögren syndrome"],
    ]
    assert ranked_lists(cases) == [["Asthma", "COPD", "Pneumonia"], ["x"] + [f"d{i}" for i in range(8)], [],
                                   ["ﬁbrosis", "Fibrosis!", "Sjögren syndrome"]]
    rng = random.Random(5)
    pool = ["Asthma", "asthma", " Asthma", "", " ", "COPD", "copd;", "Pneumonia", "ﬁbrosis", "fibrosis", "x" * 3]
    many = [[rng.choice(pool) for _ in range(rng.randint(0, 14))] for _ in range(500)]
    assert ranked_lists(many) == [ranked_list(c) for c in many]


def test_ranked_matrix_of_missing_lists_and_an_offset_slice():
    """Null lists (cases without predictions) rank nothing; a slice of a larger Arrow array (non-zero offset)
    keeps each case's own first ten items."""
    import pyarrow as pa

    from benchmarks.medreamm.parsing import ranked_list, ranked_matrix

    cases = [["a"] * 3 + [f"z{i}" for i in range(12)], None, [f"y{i}" for i in range(11)], ["b", "B", "c"], None]
    array = pa.array(cases, type=pa.list_(pa.string()))
    assert ranked_matrix(array).lists() == [ranked_list(c or []) for c in cases]
    assert ranked_matrix(array).lists()[0] == ["a"] + [f"z{i}" for i in range(7)]
    assert ranked_matrix(array.slice(2, 2)).lists() == [[f"y{i}" for i in range(10)], ["b", "c"]]
