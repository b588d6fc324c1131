"""The committed MedRealMM paper rows: subset numbers never enter the ranking, the one full-set row does."""
from leaderboard.scoring import registry
from leaderboard.operations.store import load_records
from board_helpers import ranked_table
from leaderboard.publishing.tables import Entry, reported_baselines


def test_subset_rows_are_reported_beside_the_ranking_and_only_full_set_rows_are_ranked():
    records = load_records("medrealmm")
    ranked = ranked_table(registry.scorer("medrealmm"), records)
    assert ranked["model"].tolist() == ["GLM-5.1"] and ranked["score_pct"].tolist() == [24.8]
    subset = [r for r in records if r.protocol["case_set"] != "full"]
    assert len(subset) == 11 and all(r.n_items == 200 and "score_pct" not in r.metrics for r in subset)
    assert all(r.notes[0].startswith("200-case subset, NOT the full 5,620-case benchmark") for r in subset)
    table3 = {r.model.name: r.metrics["score_pct_table3_subset200"] for r in subset
              if r.protocol["case_set"] == "table3-subset-200"}
    assert table3["Physician (deliberative: ample time, references)"] == 60.07
    assert table3["Online (original platform physician reply)"] == 50.33 and table3["Claude-Opus-4.7"] == 50.66
    humans = {r.model.name for r in subset if r.source == "human"}
    assert humans == {"Physician (deliberative: ample time, references)", "Online (original platform physician reply)"}
    grader_row = next(r for r in subset if r.model.name == "Claude-Opus-4.7 (judged by Gemini-3-Pro-Preview)")
    assert grader_row.metrics == {"score_pct_table2_subset200": 52.03} and grader_row.protocol["comparable_to_paper"]
    assert grader_row.protocol["gwet_ac1_with"] == {"Physician": 0.82, "GPT-5": 0.89, "Kimi-K2.5": 0.89}
    assert len(reported_baselines([Entry(r, str(i)) for i, r in enumerate(records)], "score_pct")) == 11
