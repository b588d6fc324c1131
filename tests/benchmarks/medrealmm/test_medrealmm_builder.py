"""The MedRealMM builder on the project's documented JSONL layout: Chinese text intact through card,
Parquet and load_dataset; hold-out answers; located problems that leave --out untouched."""
import json

import pyarrow.parquet as pq
import pytest
import yaml
from datasets import Image, List, load_dataset

from conftest import ROOT
from dataset_builders.errors import BuildError
from leaderboard.scoring import registry
from dataset_builders.stage import build
from leaderboard.scoring import registry
from leaderboard.scoring.score_file import load_key
from medrealmm_release import CASES, build_release, case, turn, write_release

SAMPLE = ROOT / "benchmarks" / "medrealmm" / "sample"


@pytest.fixture(scope="module")
def sample_hub(tmp_path_factory):
    out = tmp_path_factory.mktemp("hub")
    build(registry.adapter("medrealmm"), SAMPLE, out, sample=True, progress=False)
    return out


def raw_sample():
    lines = (SAMPLE / "medrealmm_sample.jsonl").read_text(encoding="utf-8").splitlines()
    return {r["id"]: r for r in map(json.loads, lines)}


def test_sample_loads_and_chinese_text_survives_parquet_and_load_dataset(sample_hub, monkeypatch):
    raw = raw_sample()
    monkeypatch.chdir(sample_hub)
    ds = load_dataset("medrealmm", split="test")
    assert ds.num_rows == len(raw) == 7
    assert ds.features["dialogue"].feature["images"] == List(Image())
    for row in ds:
        source = raw[row["id"]]
        assert [t["text"] for t in row["dialogue"]] == [t["text"] for t in source["dialogue"]]
        assert [c["criterion"] for c in row["rubric"]] == [c["criterion"] for c in source["rubric"]]
        assert [c["points"] for c in row["rubric"]] == [float(c["points"]) for c in source["rubric"]]
        assert row["department"] == source["department"] and row["original_response"] == source["original_response"]
    mrs007 = ds.filter(lambda r: r["id"] == "MRS007")[0]
    assert (mrs007["num_images"], mrs007["num_patient_images"], mrs007["num_turns"]) == (4, 3, 4)
    assert mrs007["dialogue"][1]["role"] == "physician" and mrs007["dialogue"][1]["images"][0].size[0] > 0
    assert json.loads(ds.filter(lambda r: r["id"] == "MRS001")[0]["patient_metadata"])["主诉"] == "双足趾缝瘙痒脱皮2周"
    table = pq.read_table(next((sample_hub / "medrealmm" / "data").glob("*.parquet")), columns=["id", "dialogue"])
    first = table.to_pylist()[0]
    assert first["dialogue"][0]["text"] == raw[first["id"]]["dialogue"][0]["text"]
    streamed = next(iter(load_dataset("medrealmm", split="test", streaming=True)))
    assert streamed["dialogue"][0]["text"].startswith("医生您好")


def test_sample_rubrics_cover_both_polarities_and_several_strata():
    raw = raw_sample()
    for item in raw.values():
        points = [c["points"] for c in item["rubric"]]
        assert any(p > 0 for p in points) and any(p < 0 for p in points) and 8 <= len(points) <= 9
    assert len({r["department"] for r in raw.values()}) == 7 and len({r["stage"] for r in raw.values()}) >= 4
    assert len({r["intent"] for r in raw.values()}) >= 4


def test_card_states_the_project_layout_in_chinese_intact(sample_hub):
    text = (sample_hub / "medrealmm" / "README.md").read_text(encoding="utf-8")
    meta = yaml.safe_load(text.split("---")[1])
    assert meta["language"] == ["zh"] and meta["pretty_name"] == "MedRealMM"
    assert "raw file layout is not published" in text and "SAMPLE" in text
    assert "| 精神心理科 | 1 |" in text and "| 6-10 |" not in text  # counts per stratum, Chinese values
    assert "`rubric`" in text and "apache-2.0; this is unverified" in text


def test_hold_out_answers_splits_rubric_and_the_key_joins_it_back(tmp_path):
    folder = build_release(tmp_path, hold_out=True)
    public = pq.read_schema(next((folder / "data").glob("*.parquet"))).names
    held = pq.read_schema(next((tmp_path / "hub" / "medrealmm-answers" / "data").glob("*.parquet"))).names
    assert "rubric" not in public and "original_response" not in public and "max_points" not in public
    assert "dialogue" in public and "department" in public
    assert set(held) == {"id", "rubric", "num_criteria", "num_positive_criteria", "num_negative_criteria",
                         "max_points", "original_response"}
    key = load_key(registry.scorer("medrealmm"), folder)
    assert key.ids == ["A", "B", "C", "D", "E"]
    assert key.table.column("rubric").to_pylist()[0][0] == {"criterion": "[A1] 指出皮疹为足癣", "points": 5.0,
                                                            "polarity": "positive"}
    assert key.table.column("department").to_pylist()[2] == "儿科"


def test_bad_input_is_located_and_nothing_is_written(tmp_path):
    out = tmp_path / "hub"
    build_release(tmp_path / "good")  # an earlier good build must survive
    good = write_release(tmp_path / "ok", CASES)
    build(registry.adapter("medrealmm"), good, out, progress=False)
    before = sorted(p.name for p in (out / "medrealmm" / "data").iterdir())
    bad_cases = [
        case("X1", "皮肤科", [("只有罚分", -3)]),
        case("X2", "皮肤科", [("零分标准", 0), ("正常", 2)]),
        case("X3", "皮肤科", [("正常", 2)], turns=[turn("nurse", "你好", "images/X3/1.png")]),
        case("X4", "皮肤科", [("正常", 2)], turns=[turn("patient", "没有图片")]),
        case("X5", "皮肤科", [("正常", 2)], turns=[turn("patient", "越界", "../outside.png")]),
        case("A", "皮肤科", [("重复", 2)]),
        case("A", "皮肤科", [("重复", 2)]),
        {**case("X6", "皮肤科", [("正常", "五")]), "comments": "x"},
    ]
    source = write_release(tmp_path / "bad", bad_cases, raw_lines=['{"id": "X7", "dialogue": [}'])
    (source / "images" / "X4").mkdir(parents=True, exist_ok=True)
    with pytest.raises(BuildError) as info:
        build(registry.adapter("medrealmm"), source, out, progress=False, strict=True)
    messages = [str(p) for p in info.value.problems]
    expected = [
        "cases.jsonl, line 1, case 'X1': rubric has no positive criterion",
        "cases.jsonl, line 2, case 'X2': field 'rubric[0].points' is 0",
        "cases.jsonl, line 3, case 'X3': field 'dialogue[0].role' must be patient or physician, got 'nurse'",
        "cases.jsonl, line 4, case 'X4': no patient-uploaded image",
        "cases.jsonl, line 5, case 'X5': field 'dialogue[0].images[0]' points outside the release folder",
        "cases.jsonl, line 7, case 'A': duplicate id (first seen at cases.jsonl:6)",
        "cases.jsonl, line 8, case 'X6': unknown field(s) comments",
        "cases.jsonl, line 8, case 'X6': field 'rubric[0].points' must be a non-zero number",
        "cases.jsonl, line 9: malformed JSON",
    ]
    for start in expected:
        assert any(m.startswith(start) for m in messages), start
    assert sorted(p.name for p in (out / "medrealmm" / "data").iterdir()) == before


def test_missing_image_and_too_many_patient_images(tmp_path):
    cases = [case("M1", "眼科", [("正常", 1)], images=11), case("M2", "眼科", [("正常", 1)])]
    source = write_release(tmp_path / "r", cases)
    (source / "images" / "M2" / "1.png").unlink()
    with pytest.raises(BuildError) as info:
        build(registry.adapter("medrealmm"), source, tmp_path / "hub", progress=False, strict=True)
    messages = [str(p) for p in info.value.problems]
    assert messages == ["cases.jsonl, line 1, case 'M1': 11 patient-uploaded images; MedRealMM cases have 1-10",
                        "cases.jsonl, line 2, case 'M2': image not found: images/M2/1.png"]
    # leniently, eleven images are usable (kept, reported); the missing image still stops the build
    with pytest.raises(BuildError) as info:
        build(registry.adapter("medrealmm"), source, tmp_path / "hub", progress=False)
    assert [str(p) for p in info.value.problems] == ["cases.jsonl, line 2, case 'M2': image not found: images/M2/1.png"]
    (source / "images" / "M2" / "1.png").write_bytes((source / "images" / "M1" / "1.png").read_bytes())
    report = build(registry.adapter("medrealmm"), source, tmp_path / "hub", progress=False).release
    [(what, found)] = report.irregular.items()
    assert (what, found.count, found.first) == (
        "more than 10 patient-uploaded images (MedRealMM cases have 1-10)", 1, "cases.jsonl, line 1, case 'M1'")
    card = (tmp_path / "hub" / "medrealmm" / "README.md").read_text(encoding="utf-8")
    assert ("| more than 10 patient-uploaded images (MedRealMM cases have 1-10) | 1 | cases.jsonl, line 1, case 'M1' |"
            in card)
