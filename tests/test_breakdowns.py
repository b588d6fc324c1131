"""The breakdown matrix (leaderboard/publishing/breakdowns.py) with exact numbers, and the papers' per-stratum tables as
they reach it through the committed records."""
import csv
import json

import pytest

from conftest import ROOT
from leaderboard.scoring import registry
from leaderboard.scoring.benchmark import Benchmark, MetricSpec
from leaderboard.privacy.disclosure import why_hidden
from leaderboard.publishing.breakdowns import (ALL_CASES, HIDDEN, NOT_REPORTED, PENDING, breakdown, metrics_available, radar_data, strata_available)
from leaderboard.scoring.result import ModelInfo, Result
from leaderboard.operations.store import load_records
from leaderboard.publishing.tables import Entry


class Organ(Benchmark):
    name = "organ"
    pretty_name = "Organ"
    id_column = "id"
    answer_columns = ("answer",)
    metrics = (MetricSpec("acc", "Accuracy"), MetricSpec("err", "Error rate", higher_is_better=False))
    primary_metric = "acc"
    stratum_labels = {"organ": "Organ system", "year": "Year"}
    value_labels = {"organ": {"heart": "Heart", "lung": "Lung", "skin": "Skin"}}

    def score(self, key, report, context):  # not used here
        raise NotImplementedError


def record(name, source, acc, strata, created="2026-01-01T00:00:00+00:00"):
    return Result(benchmark="organ", model=ModelInfo(name=name), metrics={"acc": acc}, source=source, strata=strata,
                  created_at=created)


@pytest.fixture
def entries():
    submitted = record("Alpha", "submission", 70.0, {"organ": {
        "lung": {"n": 12, "metrics": {"acc": 75.0, "err": 25.0}, "ci": {"acc": [50.0, 91.7]}},
        "skin": {"n": 3, "metrics": {}, "suppressed": True},
        "(missing)": {"n": 6, "metrics": {"acc": 50.0, "err": 50.0}},
        "kidney": {"n": 8, "metrics": {"acc": None}},  # pending: the metric exists but has no value yet
    }})
    paper = record("Beta", "paper", 80.0, {"organ": {"skin": {"n": None, "metrics": {"acc": 62.5}}}})
    no_strata = record("Gamma", "paper", 90.0, {})
    pooled = record("All 3 models, pooled", "pooled", None, {"organ": {
        "lung": {"n": 40, "metrics": {"acc": 71.25}, "ci": {"acc": [60.0, 80.5]}},
        "heart": {"n": 9, "metrics": {"acc": 44.4}}}})
    again = record("Alpha", "submission", 65.0, {"organ": {"heart": {"n": 5, "metrics": {"acc": 40.0}}},
                                                "year": {"2025": {"n": 10, "metrics": {"acc": 60.0}}}},
                   created="2026-02-01T00:00:00+00:00")
    return [Entry(r, str(i)) for i, r in enumerate([submitted, paper, no_strata, pooled, again])]


def test_matrix_rows_columns_values_and_the_reason_for_every_gap(entries):
    bd = breakdown(Organ(), entries, "organ", "acc")
    # pooled first, then best primary first; the listed values in their order, others as seen, (missing) last
    assert [r.label for r in bd.rows] == ["All 3 models, pooled · paper figure", "Beta · paper",
                                          "Alpha · submitted", "Alpha · submitted #2"]
    assert bd.values == ["heart", "lung", "skin", "kidney", "(missing)"]
    assert bd.matrix() == [[44.4, 71.25, None, None, None],
                           [None, None, 62.5, None, None],
                           [None, 75.0, None, None, 50.0],
                           [40.0, None, None, None, None]]
    alpha = bd.rows[2].cells
    assert alpha["skin"].gap == HIDDEN and alpha["skin"].n == 3 and alpha["skin"].value is None
    assert alpha["kidney"].gap == PENDING and alpha["kidney"].n == 8
    assert alpha["heart"].gap == NOT_REPORTED and alpha["heart"].n is None
    assert alpha["lung"].ci == (50.0, 91.7) and alpha["lung"].n == 12
    assert bd.rows[1].cells["skin"].n is None and bd.rows[1].cells["skin"].gap is None
    assert bd.without == [("Gamma · paper", "the paper publishes no organ system breakdown for this model")]
    assert bd.total_rows == 4


def test_a_hidden_cell_is_never_zero_anywhere(entries):
    bd = breakdown(Organ(), entries, "organ", "acc")
    frame = bd.frame()
    skin = frame[(frame["model"] == "Alpha") & (frame["value"] == "skin")].iloc[0]
    assert skin["acc"] is None or skin["acc"] != skin["acc"]  # None/NaN, not 0
    assert skin["empty_because"] == HIDDEN and skin["n"] == 3
    axes, series, notes = radar_data(bd, ["Alpha · submitted", "Beta · paper"])
    assert axes == ["lung", "skin", "(missing)"]  # heart and kidney have no value for either model
    assert series == {"Alpha · submitted": [75.0, None, 50.0], "Beta · paper": [None, 62.5, None]}
    assert "left out (no value for any chosen model): heart, kidney" in notes
    assert any("Alpha · submitted (1)" in n and "Beta · paper (2)" in n for n in notes)


def test_limit_keeps_the_best_rows_and_counts_the_rest(entries):
    bd = breakdown(Organ(), entries, "organ", "acc", limit=2)
    assert [r.model for r in bd.rows] == ["All 3 models, pooled", "Beta"] and bd.total_rows == 4
    assert bd.values == ["heart", "lung", "skin"]  # columns of the shown rows only


def test_a_metric_no_cell_holds_moves_the_row_to_without(entries):
    bd = breakdown(Organ(), entries, "organ", "err")
    assert [r.label for r in bd.rows] == ["Alpha · submitted"]  # its hidden skin cell still shows as a gap
    reasons = dict(bd.without)
    assert reasons["Beta · paper"] == "no Error rate per organ system"
    assert bd.values == ["lung", "skin", "kidney", "(missing)"]
    assert bd.matrix() == [[25.0, None, None, 50.0]]
    assert [c.gap for c in bd.rows[0].cells.values()] == [None, HIDDEN, NOT_REPORTED, None]


def test_choices_strata_by_label_order_and_metrics_by_filled_cells(entries):
    bench = Organ()
    assert strata_available(bench, entries) == ["organ", "year"]
    assert metrics_available(bench, entries, "organ") == ["acc", "err"]  # acc: 6 values, err: 2
    assert metrics_available(bench, entries, "nothing") == []
    hidden_only = [Entry(record("H", "submission", 1.0, {"organ": {"skin": {"n": 2, "metrics": {}, "suppressed": True}}}),
                         "h")]
    assert metrics_available(bench, hidden_only, "organ") == ["acc"]  # a view of gaps, not no view
    bd = breakdown(bench, hidden_only, "organ", "acc")
    # one stratum value: the row's overall value stands beside it (a lone subset says little), n = its items
    assert bd.values == [ALL_CASES, "skin"] and bd.matrix() == [[1.0, None]] and bd.rows[0].cells["skin"].gap == HIDDEN


def test_paper_rows_carry_the_published_per_stratum_numbers():
    """Each benchmark whose paper prints per-stratum numbers: the committed records hold them exactly."""
    tables = ROOT / "benchmarks"
    with (tables / "medcmr/paper_tables/table2_main_results.csv").open() as handle:
        gpt5 = next(r for r in csv.DictReader(handle) if r["model"] == "GPT-5")
    medcmr = {r.model.name: r for r in load_records("medcmr")}
    assert medcmr["GPT-5"].strata["task"]["SOD"] == {"n": None, "metrics": {"mcq_all": float(gpt5["mcq_SOD"])}}
    assert medcmr["GPT-5"].strata["medical_intelligence"]["TRE"]["metrics"] == {"mcq_all": 57.39}
    xpcr = {(r.source, r.model.name): r for r in load_records("xpcr")}
    gpt = xpcr[("paper", "GPT-5")].strata
    assert gpt["stage"]["IQA"] == {"n": 21200, "metrics": {"accuracy": 98.9}}  # n from Figure 2(f)
    assert gpt["tier"]["S"]["metrics"]["accuracy"] == 62.92 and gpt["modality"]["RetCam"]["metrics"]["accuracy"] == 75.28
    assert gpt["case_group"]["4"]["n"] == 4  # published: not suppressed although n < 5
    assert xpcr[("human", "Specialists (n=8)")].strata["stage"]["CD"]["metrics"]["accuracy"] == 70.97
    medreamm = {r.model.name: r for r in load_records("medreamm")}
    assert medreamm["LLaMA-4-Maverick"].strata == {"rare_disease": {"True": {
        "n": 180, "metrics": {"top5_primary_avg": 53.6, "top10_primary_avg": 55.8}}}}
    assert sum(bool(r.strata) for r in medreamm.values()) == 7
    pooled = [r for r in load_records("clinmm") if r.source == "pooled"]
    assert len(pooled) == 1 and pooled[0].metrics["diagnostic_accuracy_score"] is None
    radiology = pooled[0].strata["specialty"]["Radiology"]
    assert radiology == {"n": 679, "metrics": {"diagnostic_accuracy_score": 0.646, "fact_recall": 47.5},
                         "ci": {"diagnostic_accuracy_score": [0.613, 0.68], "fact_recall": [46.5, 48.5]}}


def test_every_paper_with_breakdowns_reaches_the_default_view():
    expected = {"medcmr": ("task", "GPT-5 · paper", "SOD", 66.08),
                "xpcr": ("stage", "GPT-5 · paper", "IQA", 98.9),
                "medreamm": ("rare_disease", "Gemini-2.5-Flash · paper", "True", 55.8),
                "clinmm": ("specialty", "All 15 models, pooled · paper figure", "Nephrology", 0.808)}
    for name, (stratum, row, value, number) in expected.items():
        bench = registry.scorer(name)
        entries = [Entry(r, str(i)) for i, r in enumerate(load_records(name))]
        assert strata_available(bench, entries)[0] == stratum
        bd = breakdown(bench, entries, stratum, metrics_available(bench, entries, stratum)[0])
        assert next(r for r in bd.rows if r.label == row).cells[value].value == number
        if name == "medreamm":  # one stratum value (rare disease): the row's overall value stands beside it
            assert bd.values == [ALL_CASES, "True"]
            assert next(r for r in bd.rows if r.label == row).cells[ALL_CASES].value == 55.05  # Table 2, Avg
    medrealmm = [Entry(r, str(i)) for i, r in enumerate(load_records("medrealmm"))]
    assert strata_available(registry.scorer("medrealmm"), medrealmm) == []
    assert "only as figures" in registry.scorer("medrealmm").breakdown_note


def test_submissions_hide_small_cells_but_published_numbers_stay(tmp_path):
    cells = {"organ": {"skin": {"n": 3, "metrics": {"acc": 100.0}}}}
    submitted = record("S", "submission", 50.0, cells)
    published = record("P", "paper", 50.0, cells)
    submitted.write(tmp_path / "s.json")
    published.write(tmp_path / "p.json")
    assert json.loads((tmp_path / "s.json").read_text())["strata"]["organ"]["skin"] == {
        "n": 3, "metrics": {}, "suppressed": True, "reason": why_hidden("k-rule", 5)}
    assert json.loads((tmp_path / "p.json").read_text())["strata"]["organ"]["skin"]["metrics"] == {"acc": 100.0}


def test_labels_are_the_papers_names():
    medcmr, xpcr = registry.scorer("medcmr"), registry.scorer("xpcr")
    assert medcmr.value_label("task", "SOD") == "Small-Object Detection"
    assert medcmr.value_label("medical_intelligence", "PA") == "Psychophysiologic analysis"
    assert xpcr.value_label("stage", "CD") == "6. Clinical Decision-Making"
    assert xpcr.value_label("tier", "A") == "Attending" and xpcr.value_label("modality", "FFA") == "Fundus fluorescein angiography"
    assert xpcr.metric_spec("accuracy").label == "Accuracy (%)"
    assert registry.scorer("clinmm").metric_spec("diagnostic_accuracy_score").scale == (0.0, 2.0)
    assert medcmr.value_label("task", "unknown-id") == "unknown-id" and medcmr.stratum_label("organ_system") == "Organ system"


def test_committed_paper_strata_equal_a_fresh_regeneration_and_keep_the_doubts():
    """The records in submissions/ are what paper_records.py writes from the committed CSVs (no hand edits)."""
    from benchmarks.clinmm import paper_records as clinmm
    from benchmarks.medreamm import paper_records as medreamm
    from benchmarks.xpcr import paper_records as xpcr

    committed = json.loads((ROOT / "submissions/clinmm/pooled/all-models.json").read_text(encoding="utf-8"))
    assert clinmm.pooled(clinmm.DEFAULT_RESULTS).to_public_dict() == committed
    rare = medreamm.rare_subset(medreamm.DEFAULT_RESULTS)
    by_name = {r.model.name: r for r in load_records("medreamm")}
    assert all(by_name[name].strata == strata for name, strata in rare.items()) and len(rare) == 7
    records = {r.model.name: r for r in load_records("xpcr") if r.source == "paper"}
    ffa = records["GPT-5"].strata["modality"]["FFA"]
    assert ffa["metrics"] == {"accuracy": 71.47} and "probable copy error" in ffa["flags"]["accuracy"]
    cell = breakdown(registry.scorer("xpcr"), [Entry(records["GPT-5"], "0")], "modality", "accuracy").rows[0].cells
    assert cell["FFA"].flag == ffa["flags"]["accuracy"] and cell["CFP"].flag is None
    lingshu = next(r for r in load_records("medcmr") if r.model.name == "Lingshu-7B")
    assert lingshu.strata["task"]["SOD"]["flags"]["mcq_all"].startswith("Adversarial filter model")
