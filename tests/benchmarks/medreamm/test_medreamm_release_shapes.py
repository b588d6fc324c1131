"""MedReaMM releases shaped unlike this project's own: one extra top-level key in one record builds
every record (the key kept in the sidecar, listed in the report and the card), `modalities` is read
as an image type, an unlisted source type is kept verbatim; `--strict` refuses each, naming record
and field; held-out answers take the sidecar with them."""
import json
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from conftest import ROOT, TINY_CASES, raw_case, write_release
from dataset_builders.errors import BuildError
from dataset_builders.release_report import SIDECAR
from dataset_builders.stage import build
from leaderboard.scoring import registry


def _release(tmp_path):
    extra = raw_case("200", [("Pneumonia", "CA40", True)], n_images=2, year=2025, source_type="Case Report Archive",
                     source_name="Eurorad", review_round={"round": 2, "by": "physician"})
    extra["patient_info"]["supplementary_info"][0] = {
        "caption": "Axial CT", "path": ["images/200/1.png"], "modalities": ["CT", "contrast-enhanced"]}
    extra["patient_info"]["supplementary_info"][1].pop("image_type")
    extra["patient_info"]["supplementary_info"][1]["modalities"] = "X-ray"
    return write_release(tmp_path / "release", [TINY_CASES[0], extra, TINY_CASES[2]])


def test_one_extra_key_builds_every_record_and_is_kept(tmp_path):
    report = build(registry.adapter("medreamm"), _release(tmp_path), tmp_path / "hub", progress=False).release
    table = pq.read_table(tmp_path / "hub" / "medreamm" / "data" / "test-00000-of-00001.parquet").to_pylist()
    assert [r["case_id"] for r in table] == ["100", "200", "300"]
    assert "review_round" not in table[1]
    assert table[1]["image_types"] == ["CT; contrast-enhanced", "X-ray"]  # `modalities`, a list or a string
    assert table[1]["source_type"] == "Case Report Archive"  # outside journal/web: kept verbatim
    assert [json.loads(line) for line in (tmp_path / "hub" / "medreamm" / SIDECAR).read_text().splitlines()] == [
        {"config": "default", "id": "200", "extra_fields": {"review_round": {"round": 2, "by": "physician"}}}]
    [(key, found)] = report.unknown_keys.items()
    assert (key, found.count, found.first) == ("review_round", 1, "cases.jsonl, line 2, case '200'")
    assert report.values[("source_type", "Case Report Archive")][0] is None
    card = (tmp_path / "hub" / "medreamm" / "README.md").read_text(encoding="utf-8")
    report_section = card.split("## Build report")[1].split("## Build\n")[0]
    assert "| `review_round` | 1 | cases.jsonl, line 2, case '200' |" in report_section
    assert "| `source_type` | `Case Report Archive` | kept verbatim | 1 | cases.jsonl, line 2, case '200' |" in report_section
    assert "(1 record(s))" in report_section


def test_held_out_answers_keep_the_sidecar_private(tmp_path):
    build(registry.adapter("medreamm"), _release(tmp_path), tmp_path / "hub", progress=False, hold_out_answers=True)
    assert not (tmp_path / "hub" / "medreamm" / SIDECAR).exists()
    assert (tmp_path / "hub" / "medreamm-answers" / SIDECAR).is_file()
    public = (tmp_path / "hub" / "medreamm" / "README.md").read_text(encoding="utf-8")
    assert "in the answer-key folder" in public


def test_strict_refuses_the_extra_key_and_the_unlisted_value(tmp_path):
    with pytest.raises(BuildError) as info:
        build(registry.adapter("medreamm"), _release(tmp_path), tmp_path / "hub", progress=False, strict=True)
    problems = [str(p) for p in info.value.problems]
    assert len(problems) == 2
    assert problems[0].startswith("cases.jsonl, line 2, case '200': unknown field(s) review_round; rename or remove them")
    assert problems[1] == ("cases.jsonl, line 2, case '200': field 'source_type' has unknown value 'Case Report Archive'; "
                           "allowed: journal, web")
    assert not (tmp_path / "hub" / "medreamm").exists()


def test_cli_build_prints_the_report_and_strict_fails(tmp_path):
    release = _release(tmp_path)
    command = [sys.executable, "-m", "dataset_builders", "build", "medreamm", "--source", str(release), "--quiet"]
    run = subprocess.run([*command, "--out", str(tmp_path / "a")], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert "release report: 1 unknown key(s) kept in extra_fields.jsonl (1 record(s)); 0 value spelling(s) mapped, " \
           "1 kept verbatim" in run.stdout
    assert "  unknown key 'review_round': 1 record(s), first at cases.jsonl, line 2, case '200'" in run.stdout
    run = subprocess.run([*command, "--out", str(tmp_path / "b"), "--strict"], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 1
    assert "Traceback" not in run.stderr
    assert "line 2, case '200': unknown field(s) review_round" in run.stderr
    assert "Nothing was written" in run.stderr


def test_more_images_than_the_paper_describes_is_kept_and_reported(tmp_path):
    release = write_release(tmp_path / "release", [TINY_CASES[0], raw_case("900", [("Gout", "FA25", True)], n_images=11)])
    report = build(registry.adapter("medreamm"), release, tmp_path / "hub", progress=False).release
    table = pq.read_table(tmp_path / "hub" / "medreamm" / "data" / "test-00000-of-00001.parquet").to_pylist()
    assert [r["num_images"] for r in table] == [2, 11]
    assert {what: (f.count, f.first) for what, f in report.irregular.items()} == {
        "case has more than 10 images (MedReaMM cases have 1-10)": (1, "cases.jsonl, line 2, case '900'")}
    with pytest.raises(BuildError) as info:
        build(registry.adapter("medreamm"), release, tmp_path / "strict", progress=False, strict=True)
    assert [str(p) for p in info.value.problems] == ["cases.jsonl, line 2, case '900': case has 11 images; MedReaMM cases have 1-10"]


def test_card_tables_are_capped(tmp_path):
    from dataset_builders.release_report import CARD_ROWS, ReleaseReport

    report = ReleaseReport()
    for k in range(CARD_ROWS + 7):
        report.value("image_type", f"type {k:03d}", None, f"cases.jsonl, line {k + 1}")
    table = report.markdown().split("\n")
    assert sum(1 for line in table if line.startswith("| `image_type` |")) == CARD_ROWS
    assert "| ... 7 more | | |" in table
