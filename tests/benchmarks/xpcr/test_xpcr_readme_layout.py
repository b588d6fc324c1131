"""X-PCR in the layout the authors' README recommends (annotations/*.json, images/<MOD>/,
multimodal_cases/case_NNN/): the shipped sample in that form builds exactly the Parquet form's rows;
extra keys and unlisted spellings build (kept, reported), --strict refuses them; missing images,
both layouts at once and case folders without a case file are located problems."""
import importlib.util
import json
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import ROOT, png_bytes
from dataset_builders.errors import BuildError
from dataset_builders.release_report import SIDECAR
from dataset_builders.stage import build
from leaderboard.scoring import registry
from xpcr_release import case, case_item, image_row, qa, write_release

SAMPLE = ROOT / "benchmarks" / "xpcr" / "sample"
CONFIGS = ("chains", "cross_modal", "items", "ablations")


def _make_sample():
    spec = importlib.util.spec_from_file_location("xpcr_make_sample", SAMPLE / "make_sample.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rows(folder, config):
    files = sorted((folder / config).glob("*.parquet"))
    return pa.concat_tables([pq.read_table(f) for f in files]).to_pylist()


@pytest.fixture(scope="module")
def both_forms(tmp_path_factory):
    root = tmp_path_factory.mktemp("forms")
    build(registry.adapter("xpcr"), SAMPLE, root / "parquet", progress=False, hold_out_answers=True)
    build(registry.adapter("xpcr"), SAMPLE / "readme_layout", root / "readme", progress=False, hold_out_answers=True)
    return root / "parquet", root / "readme"


@pytest.mark.parametrize("config", CONFIGS)
def test_readme_layout_sample_builds_the_parquet_forms_rows(both_forms, config):
    parquet, readme = both_forms
    for name in ("xpcr", "xpcr-answers"):
        a, b = rows(parquet / name, config), rows(readme / name, config)
        assert len(a) == len(b) == {"chains": 12, "cross_modal": 4, "items": 75, "ablations": 29}[config]
        if config == "cross_modal" and name == "xpcr":
            # only the provenance column differs: where each case image sits in the release
            first = (a[0]["image_paths"], b[0]["image_paths"])
            assert first == (["cross_modal/images/XM01/1.jpg", "cross_modal/images/XM01/2.jpg"],
                             ["multimodal_cases/case_001/1.jpg", "multimodal_cases/case_001/2.jpg"])
            for x, y in zip(a, b):
                assert [p.rsplit("/", 1)[1] for p in x.pop("image_paths")] == \
                       [p.rsplit("/", 1)[1] for p in y.pop("image_paths")]
        assert a == b


def test_shipped_readme_layout_is_what_the_converter_writes(tmp_path):
    _make_sample().to_readme_layout(SAMPLE, tmp_path / "converted")
    shipped = sorted(p.relative_to(SAMPLE / "readme_layout") for p in (SAMPLE / "readme_layout").rglob("*") if p.is_file())
    converted = sorted(p.relative_to(tmp_path / "converted") for p in (tmp_path / "converted").rglob("*") if p.is_file())
    assert shipped == converted
    for rel in shipped:
        assert (SAMPLE / "readme_layout" / rel).read_bytes() == (tmp_path / "converted" / rel).read_bytes(), rel


def _readme_release(tmp_path, rows, cases=None):
    """A tiny Hub-layout release converted to the README layout by the sample's converter."""
    hub = write_release(tmp_path / "hub", rows, cases)
    _make_sample().to_readme_layout(hub, tmp_path / "readme")
    return tmp_path / "readme"


def _edit_annotations(release, change):
    path = release / "annotations" / "test.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    change(records)
    path.write_text(json.dumps(records, indent=1), encoding="utf-8")


def test_extra_key_and_unlisted_modality_build_every_record_and_strict_refuses(tmp_path):
    release = _readme_release(tmp_path, [image_row("img1", "CFP", [qa("IQA", "R")]),
                                         image_row("img2", "OCT", [qa("IQA", "R")]),
                                         image_row("img3", "CFP", [qa("IQA", "R")])])

    def change(records):
        records[1]["grader"] = {"name": "A. Reader", "round": 2}
        records[2]["modality"] = "Slit-lamp"
    _edit_annotations(release, change)
    report = build(registry.adapter("xpcr"), release, tmp_path / "out", progress=False).release
    chains = rows(tmp_path / "out" / "xpcr", "chains")
    assert [r["id"] for r in chains] == ["img1", "img2", "img3"]
    assert [r["modality"] for r in chains] == ["CFP", "OCT", "Slit-lamp"]  # kept verbatim
    assert report.unknown_keys["grader"].count == 1
    assert report.unknown_keys["grader"].first.startswith("annotations/test.json, line ")
    assert report.values[("modality", "Slit-lamp")][0] is None
    sidecar = (tmp_path / "out" / "xpcr" / SIDECAR).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in sidecar] == [
        {"config": "chains", "id": "img2", "extra_fields": {"grader": {"name": "A. Reader", "round": 2}}}]
    card = (tmp_path / "out" / "xpcr" / "README.md").read_text(encoding="utf-8")
    assert "| `grader` | 1 | annotations/test.json, line " in card
    assert "| `modality` | `Slit-lamp` | kept verbatim | 1 |" in card
    with pytest.raises(BuildError) as info:
        build(registry.adapter("xpcr"), release, tmp_path / "strict", progress=False, strict=True)
    problems = [str(p) for p in info.value.problems]
    assert len(problems) == 2
    assert problems[0].startswith("annotations/test.json, line ") and "case 'img2': unknown field(s) grader" in problems[0]
    assert "case 'img3': field 'modality' has unknown value 'Slit-lamp'" in problems[1]
    assert not (tmp_path / "strict" / "xpcr").exists()


def test_missing_image_names_record_and_field(tmp_path):
    release = _readme_release(tmp_path, [image_row("img1", "CFP", [qa("IQA", "R")]),
                                         image_row("img2", "CFP", [qa("IQA", "R")])])
    (release / "images" / "CFP" / "12 ODIR-5K" / "img2.png").unlink()
    with pytest.raises(BuildError) as info:
        build(registry.adapter("xpcr"), release, tmp_path / "out", progress=False)
    problems = [str(p) for p in info.value.problems]
    assert len(problems) == 1
    assert problems[0].startswith("annotations/test.json, line ")
    assert problems[0].endswith("case 'img2': missing image bytes (image.bytes is empty and image.path / image_path "
                                "is not a file inside the release)")


def test_cases_from_folders_with_images_named_by_modality(tmp_path):
    release = _readme_release(tmp_path, [image_row("img1", "CFP", [qa("IQA", "R")])])
    folder = release / "multimodal_cases" / "case_007"
    folder.mkdir(parents=True)
    for name in ("CFP.png", "OCT.png", "L-FFA.png"):
        (folder / name).write_bytes(png_bytes())
    (folder / "case.json").write_text(json.dumps({"items": [case_item("Diagnostic Integration")]}), encoding="utf-8")
    build(registry.adapter("xpcr"), release, tmp_path / "out", progress=False)
    [row] = rows(tmp_path / "out" / "xpcr", "cross_modal")
    assert row["id"] == "case_007"  # the folder name
    assert row["image_labels"] == ["CFP", "L-FFA", "OCT"]  # name order
    assert row["image_modalities"] == ["CFP", "FFA", "OCT"]
    assert row["case_group"] == 2
    assert row["image_paths"] == ["multimodal_cases/case_007/CFP.png", "multimodal_cases/case_007/L-FFA.png",
                                  "multimodal_cases/case_007/OCT.png"]


def test_both_layouts_at_once_and_a_case_folder_without_case_file_are_refused(tmp_path):
    release = _readme_release(tmp_path, [image_row("img1", "CFP", [qa("IQA", "R")])],
                              [case("K1", 1, ["CFP", "OCT"], [case_item("Diagnostic Integration")])])
    (release / "multimodal_cases" / "case_001" / "case.json").rename(release / "multimodal_cases" / "case_001" / "x.txt")
    with pytest.raises(BuildError) as info:
        build(registry.adapter("xpcr"), release, tmp_path / "out", progress=False)
    assert [str(p) for p in info.value.problems] == [
        "multimodal_cases/case_001/: case folder has no case.json or annotation.json or annotations.json "
        "(and not exactly one .json file)"]
    shutil.copytree(tmp_path / "hub" / "data", release / "data")
    with pytest.raises(BuildError) as info:
        build(registry.adapter("xpcr"), release, tmp_path / "out", progress=False)
    assert [str(p) for p in info.value.problems] == [
        "data/test-00000.parquet: the release holds both layouts: Parquet files and an annotations/ folder (the README "
        "layout); keep one, or their rows would be read twice"]


def test_public_card_does_not_pair_a_held_out_value_with_its_record(tmp_path):
    release = _readme_release(tmp_path, [image_row("img1", "CFP", [qa("IQA", "R")]),
                                         image_row("img2", "CFP", [qa("IQA", "R")])])
    _edit_annotations(release, lambda records: records[1].update(disease_category="Uveitis"))
    build(registry.adapter("xpcr"), release, tmp_path / "out", progress=False, hold_out_answers=True)
    public = (tmp_path / "out" / "xpcr" / "README.md").read_text(encoding="utf-8")
    private = (tmp_path / "out" / "xpcr-answers" / "README.md").read_text(encoding="utf-8")
    assert "| `disease_category` | `Uveitis` | kept verbatim | 1 | (held out) |" in public
    assert "| `disease_category` | `Uveitis` | kept verbatim | 1 | annotations/test.json, line " in private
    assert "case 'img2' |" in private.split("`Uveitis`")[1].split("\n")[0]
