"""The MedReaMM builder: Hub-shaped output that `datasets` loads offline, a faithful card, and
located errors that leave `--out` untouched."""
import json
import subprocess
import sys

import pyarrow.parquet as pq
import pytest
import yaml
from datasets import Image, List, load_dataset

from conftest import ROOT, SAMPLE_MEDREAMM, TINY_CASES, raw_case, write_release
from dataset_builders.errors import BuildError
from leaderboard.scoring import registry
from dataset_builders.stage import build


def card_yaml(folder):
    text = (folder / "README.md").read_text(encoding="utf-8")
    return yaml.safe_load(text.split("---")[1]), text


@pytest.fixture(scope="module")
def sample_hub(tmp_path_factory):
    out = tmp_path_factory.mktemp("hub")
    build(registry.adapter("medreamm"), SAMPLE_MEDREAMM, out, sample=True, progress=False)
    return out


def test_sample_loads_with_load_dataset_by_name_and_streaming(sample_hub, monkeypatch):
    monkeypatch.chdir(sample_hub)  # `load_dataset("medreamm")` resolves the local folder first
    ds = load_dataset("medreamm", split="test")
    assert ds.num_rows == 10
    assert ds.features["images"] == List(Image())
    first = ds[0]
    assert first["case_id"] == "S0001" and len(first["images"]) == 3
    assert first["images"][0].size[0] > 0  # decodes
    assert sum(d["is_primary"] for d in first["diagnoses"]) == 1
    streamed = next(iter(load_dataset("medreamm", split="test", streaming=True)))
    assert streamed["case_id"] == "S0001" and streamed["images"][2].mode in {"RGB", "L", "RGBA"}


def test_images_keep_their_original_bytes(sample_hub):
    table = pq.read_table(next((sample_hub / "medreamm" / "data").glob("test-*.parquet")), columns=["images", "image_paths"])
    row = table.slice(0, 1).to_pylist()[0]
    original = (SAMPLE_MEDREAMM / row["image_paths"][0]).read_bytes()
    assert row["images"][0]["bytes"] == original


def test_parquet_written_with_datasets_settings(sample_hub):
    path = next((sample_hub / "medreamm" / "data").glob("test-*.parquet"))
    assert path.name == "test-00000-of-00001.parquet"
    meta = pq.ParquetFile(path).metadata
    kv = meta.metadata
    assert b"huggingface" in kv and b"content_defined_chunking" in kv
    features = json.loads(kv[b"huggingface"])["info"]["features"]
    assert features["images"] == {"feature": {"_type": "Image"}, "_type": "List"}
    columns = {meta.row_group(0).column(i).path_in_schema: meta.row_group(0).column(i) for i in range(meta.num_columns)}
    assert columns["images.list.element.bytes"].compression == "UNCOMPRESSED"
    assert columns["medical_records"].compression == "SNAPPY"


def test_card_has_configs_info_license_gating_counts_and_checksums(sample_hub):
    meta, text = card_yaml(sample_hub / "medreamm")
    assert meta["configs"] == [{"config_name": "default", "data_files": [{"split": "test", "path": "data/test-*"}], "default": True}]
    assert meta["dataset_info"]["splits"] == [{"name": "test", "num_bytes": meta["dataset_info"]["splits"][0]["num_bytes"], "num_examples": 10}]
    assert meta["license"] == "other" and meta["license_link"]
    assert "I will not attempt to re-identify any patient" in meta["extra_gated_fields"]
    assert "**SAMPLE.**" in text
    assert "| Infectious | 2 |" in text  # disease category counts
    assert "| 5-10 | 1 |" in text  # image-count bins as in the paper's Table 5
    source_sha = __import__("hashlib").sha256((SAMPLE_MEDREAMM / "medreamm_sample.jsonl").read_bytes()).hexdigest()
    assert source_sha in text
    assert "@article{chen2026medreamm" in text
    assert 'load_dataset("medreamm", "default", split="test")' in text


def test_hold_out_answers_moves_answer_fields(tmp_path, tiny_release):
    build(registry.adapter("medreamm"), tiny_release, tmp_path, hold_out_answers=True, progress=False)
    public = load_dataset(str(tmp_path / "medreamm"), split="test")
    answers = load_dataset(str(tmp_path / "medreamm-answers"), split="test")
    assert "diagnoses" not in public.column_names and "num_diagnoses" not in public.column_names
    assert set(answers.column_names) == {"case_id", "diagnosis_text", "diagnoses", "num_diagnoses", "reasoning_path"}
    assert answers[0]["diagnoses"][0]["icd11_code"] == "1A00"
    _, text = card_yaml(tmp_path / "medreamm")
    assert "medreamm-answers" in text
    # rebuilding without hold-out removes the now stale key
    build(registry.adapter("medreamm"), tiny_release, tmp_path, progress=False)
    assert not (tmp_path / "medreamm-answers").exists()


def _problems(tmp_path, cases, raw_lines=None):
    release = write_release(tmp_path / "bad", cases, raw_lines=raw_lines)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("untouched")
    with pytest.raises(BuildError) as info:
        build(registry.adapter("medreamm"), release, out, progress=False, strict=True)
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]  # nothing half-written, nothing removed
    return [str(p) for p in info.value.problems], release


def test_missing_image_names_file_line_and_case(tmp_path):
    release = write_release(tmp_path / "rel", TINY_CASES)
    (release / "images" / "200" / "1.png").unlink()
    out = tmp_path / "out"
    build(registry.adapter("medreamm"), write_release(tmp_path / "ok", TINY_CASES), out, progress=False)
    before = sorted(p.name for p in (out / "medreamm" / "data").iterdir())
    with pytest.raises(BuildError) as info:
        build(registry.adapter("medreamm"), release, out, progress=False)
    assert [str(p) for p in info.value.problems] == ["cases.jsonl, line 2, case '200': image not found: images/200/1.png"]
    assert sorted(p.name for p in out.iterdir()) == ["medreamm"]  # the earlier good build is intact, no temp folder
    assert sorted(p.name for p in (out / "medreamm" / "data").iterdir()) == before


def test_bad_cases_are_all_reported_at_once(tmp_path):
    no_primary = raw_case("400", [("Cholera", "1A00", False)])
    wrong_type = raw_case("500", [("Cholera", "1A00", True)], year="nineteen")
    problems, _ = _problems(tmp_path, [TINY_CASES[0], no_primary, wrong_type],
                            raw_lines=['{"pmid": "700", "patient_info": ', "[1, 2]"])
    assert problems == [
        "cases.jsonl, line 2, case '400': case has no primary diagnosis (set \"primary\": true on exactly one standardized_diagnosis)",
        "cases.jsonl, line 3, case '500': field 'year' must be an integer, got str 'nineteen'",
        "cases.jsonl, line 4: malformed JSON (Expecting value at column 33)",
        "cases.jsonl, line 5: each line must be a JSON object, got list",
    ]


def test_paths_outside_the_release_and_corrupt_images_are_refused(tmp_path):
    escape = raw_case("600", [("Cholera", "1A00", True)])
    release = write_release(tmp_path / "rel", [escape])
    escape["patient_info"]["supplementary_info"][0]["path"] = ["../../etc/passwd"]
    (release / "cases.jsonl").write_text(json.dumps(escape) + "\n")
    with pytest.raises(BuildError) as info:
        build(registry.adapter("medreamm"), release, tmp_path / "out", progress=False)
    assert "points outside the release folder" in str(info.value)
    good = raw_case("601", [("Cholera", "1A00", True)])
    release = write_release(tmp_path / "rel2", [good])
    (release / "images" / "601" / "1.png").write_bytes(b"not an image at all")
    with pytest.raises(BuildError) as info:
        build(registry.adapter("medreamm"), release, tmp_path / "out", progress=False)
    assert "image cannot be decoded" in str(info.value) and "case '601'" in str(info.value)


def test_duplicate_pmid_and_unknown_field(tmp_path):
    dup = raw_case("100", [("Cholera", "1A00", True)])
    odd = raw_case("800", [("Cholera", "1A00", True)], surprise_field=1)
    problems, _ = _problems(tmp_path, [TINY_CASES[0], dup, odd])
    assert problems[0] == "cases.jsonl, line 2, case '100': duplicate pmid (first seen at cases.jsonl:1)"
    assert problems[1].startswith("cases.jsonl, line 3, case '800': unknown field(s) surprise_field")


def test_cli_build_reports_errors_without_traceback(tmp_path):
    release = write_release(tmp_path / "rel", [raw_case("900", [("Cholera", "1A00", False)])])
    run = subprocess.run([sys.executable, "-m", "dataset_builders", "build", "medreamm", "--source", str(release),
                          "--out", str(tmp_path / "hub"), "--quiet"], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 1
    assert "Traceback" not in run.stderr
    assert "line 1, case '900': case has no primary diagnosis" in run.stderr
    assert "Nothing was written" in run.stderr
