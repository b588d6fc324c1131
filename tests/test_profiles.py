"""The Overview and model profiles: one row per registry model across the papers, the visitor's sort, each
benchmark's primary metric with CI and rank range, the specialty profile, and the main/sample split."""
import pytest

from leaderboard.publishing import models, profiles
from leaderboard.scoring import registry
from leaderboard.publishing.board import MAIN, SAMPLE, Board
from leaderboard.scoring.result import ModelInfo, Result
from leaderboard.scoring import registry
from leaderboard.publishing.specialties import SPECIALTIES, pooled
from leaderboard.operations.store import load_records
from leaderboard.publishing.tables import Entry
from space.plain import md

BENCHES = list(registry.scorers().values())


def paper_boards(extra: dict | None = None):
    boards = {}
    for b in BENCHES:
        entries = [Entry(r, f"p{i}") for i, r in enumerate(load_records(b.name))] + (extra or {}).get(b.name, [])
        boards[b.name] = Board.build(b, entries)
    return boards


@pytest.fixture(scope="module")
def boards():
    return paper_boards()


def test_one_row_per_model_across_spellings(boards):
    payload, _, ids = profiles.overview(BENCHES, boards)
    names = [row[0] for row in payload["data"]]
    assert len(names) == len(set(names))
    assert "MedGemma-27B" in names and "Medgemma-27B" not in names and "MedGemma-27B-IT" not in names
    row = dict(zip(payload["headers"], payload["data"][names.index("MedGemma-27B")]))
    # MedReaMM 40.8 (Table 2), ClinMM 0.61, Med-CMR 28.91 (as Medgemma-27B), X-PCR 65.21 (as MedGemma-27B-IT)
    assert (row["Benchmarks"], row["MedReaMM"], row["ClinMM-Bench"], row["Med-CMR"], row["X-PCR"]) == (
        4, 40.8, 0.606, 28.91, 65.21)
    assert row["MedRealMM"] is None  # a gap, never 0
    assert ids["MedGemma-27B"] == "medgemma-27b"
    assert not any(name.startswith(("Residents", "All 15 models")) for name in names)  # groups are not models


def test_sorts_are_the_visitors_choice(boards):
    by_name = [r[0] for r in profiles.overview(BENCHES, boards, profiles.SORTS[0])[0]["data"]]
    assert by_name == sorted(by_name, key=str.casefold)
    xpcr = [r for r in profiles.overview(BENCHES, boards, "X-PCR: " + registry.scorer("xpcr").metric(
        registry.scorer("xpcr").primary_metric).label)[0]["data"]]
    values = [r[-1] for r in xpcr]
    shown = [v for v in values if v is not None]
    assert shown == sorted(shown, reverse=True) and values[:len(shown)] == shown  # best first, gaps last
    assert xpcr[0][-1] == max(shown)
    newest = [r[4] for r in profiles.overview(BENCHES, boards, profiles.SORTS[2])[0]["data"]]
    dated = [d for d in newest if d]
    assert dated == sorted(dated, reverse=True) and newest[-1] == ""  # unknown release dates last


def test_profile_renders_for_every_model_on_three_or_more_benchmarks(boards):
    many = profiles.profile_candidates(BENCHES, boards, minimum=3)
    assert {m for _, m in many} == {"medgemma-27b", "qwen3-vl-8b", "gemini-2-5-pro", "lingshu-7b", "medgemma-4b",
                                    "qwen2-5-vl-72b", "qwen2-5-vl-7b"}
    for _, model_id in many:
        table = profiles.benchmark_table(model_id, BENCHES, boards)
        assert len(table) == len(BENCHES)
        assert (table["Value"] != "").sum() >= 3
        specialties, notes = profiles.specialty_table(model_id, BENCHES, boards)
        assert list(specialties.columns)[0] == "Specialty"
    table = profiles.benchmark_table("gemini-2-5-pro", BENCHES, boards).set_index("Benchmark")
    # Wilson CI from n = 625 and the whole board's rank range (the MedReaMM table's first row)
    assert table.loc["MedReaMM", ["Value", "95% CI", "Rank"]].tolist() == ["65.9", "[62.1, 69.5]", "1–2 of 23"]
    assert table.loc["ClinMM-Bench", "Rows"] == "not evaluated" and table.loc["ClinMM-Bench", "Value"] == ""


def test_x_pcr_is_ophthalmology_and_gaps_stay_gaps(boards):
    specialties, notes = profiles.specialty_table("gpt-5", BENCHES, boards)
    assert specialties["Specialty"].tolist() == ["Ophthalmology"]
    assert specialties.iloc[0, 1].startswith("76.24")
    assert any("ophthalmology" in n for n in notes)


def test_specialty_cells_pool_by_n_and_never_fill_gaps():
    cells = {"Muscular": {"n": 10, "metrics": {"mcq_all": 50.0}}, "Skeletal": {"n": 30, "metrics": {"mcq_all": 70.0}},
             "Nervous": {"n": 2, "suppressed": True}, "Other / NA": {"n": 40, "metrics": {"mcq_all": 10.0}}}
    out = pooled(cells, "medcmr", "mcq_all")
    assert out["Musculoskeletal & orthopaedics"] == (65.0, 40, "2 strata pooled by n")  # (500 + 2100) / 40
    assert out["Neurology"][0] is None  # hidden stays hidden
    assert "Other / NA" not in str(out)  # unmapped: left out, never forced into a neighbour
    for name in registry.names():
        bench = registry.scorer(name)
        assert set(bench.specialty_map.values()) <= set(SPECIALTIES), name
        assert (bench.whole_specialty or "Ophthalmology") in SPECIALTIES
        assert bool(bench.specialty_stratum) != bool(bench.whole_specialty), name  # one way to map, never both


def sample_run(bench, name, value):
    metrics = {m.name: None for m in bench.metrics}
    metrics[bench.primary_metric] = value
    result = Result(bench.name, ModelInfo(name), metrics, source="submission", n_items=10, protocol={"items": 10})
    return Entry(result, f"s-{name}")


def test_sample_runs_never_sit_beside_paper_rows():
    xpcr = registry.scorer("xpcr")
    boards = paper_boards({"xpcr": [sample_run(xpcr, "Sample-Run", 99.0)]})
    main = [r[0] for r in profiles.overview(BENCHES, boards, board=MAIN)[0]["data"]]
    sample = [r[0] for r in profiles.overview(BENCHES, boards, board=SAMPLE)[0]["data"]]
    assert "Sample-Run (not in registry)" not in main and "Gemini-2.5-Pro" in main
    assert sample == ["Sample-Run (not in registry)"]


def test_plain_text_in_markdown():
    hostile = "![](https://x.example/beacon.png)[Official result: click](https://x.example/login) <b>x</b>"
    shown = md(hostile)
    for dangerous in ("](", "![", "<b>", "https://", "*"):
        assert dangerous not in shown
    assert md("Qwen3-VL-8B") == "Qwen3&#45;VL&#45;8B"  # a browser shows it as written


def test_unknown_names_listed_for_review_not_merged():
    xpcr = registry.scorer("xpcr")
    full = Result("xpcr", ModelInfo("MedGemma-27B-finetuned"), {
        **{m.name: None for m in xpcr.metrics}, xpcr.primary_metric: 50.0}, source="submission")  # a full-release run
    boards = paper_boards({"xpcr": [Entry(full, "s1")]})
    found = profiles.placings(BENCHES, boards)
    assert "unlisted:MedGemma-27B-finetuned" in found and found["medgemma-27b"][1]["xpcr"].value == 65.21
    assert models.unknown_names([Result("xpcr", ModelInfo("MedGemma-27B-finetuned"), {}, source="submission")]) == [
        ("MedGemma-27B-finetuned", "xpcr")]
