"""The X-PCR builder: the authors' Parquet layout -> Hub folder with four configs, images stored once,
normalised stages/options/letters/tiers, a faithful card, and located errors that write nothing."""
import glob

import pyarrow.parquet as pq
import pytest
import yaml
from datasets import Image, List, load_dataset

from conftest import ROOT
from benchmarks.xpcr.taxonomy import (answer_letter, category_for_disease, default_tier, modality_code,
                                                     OptionError, source_dataset, split_options, stage_code)
from dataset_builders.errors import BuildError
from leaderboard.scoring import registry
from dataset_builders.stage import build
from xpcr_release import OPTIONS, SCORING_CASES, SCORING_ROWS, case, case_item, image_row, qa, write_release

SAMPLE = ROOT / "benchmarks" / "xpcr" / "sample"


@pytest.fixture(scope="module")
def sample_hub(tmp_path_factory):
    out = tmp_path_factory.mktemp("hub")
    build(registry.adapter("xpcr"), SAMPLE, out, sample=True, progress=False)
    return out


def card(folder):
    text = (folder / "README.md").read_text(encoding="utf-8")
    return yaml.safe_load(text.split("---")[1]), text


def test_sample_loads_by_name_regular_and_streaming(sample_hub, monkeypatch):
    monkeypatch.chdir(sample_hub)
    chains = load_dataset("xpcr", "chains", split="test")
    assert chains.num_rows == 12 and chains.features["image"] == Image()
    row = next(r for r in chains if r["id"] == "cfp_000000")
    assert row["image"].size == (96, 96) and row["modality"] == "CFP" and row["source_dataset"] == "ODIR-5K"
    assert len(row["items"]) == len(row["answers"]) == 7 and row["has_all_stages"]
    first = row["items"][0]
    assert first["item_id"] == "cfp_000000-1" and first["stage"] == "IQA" and first["options"] == ["excellent", "good", "fair", "poor"]
    assert first["question"] == "How would you rate the overall clarity of this image?" and row["answers"][0] == "B"
    streamed = next(iter(load_dataset("xpcr", "cross_modal", split="test", streaming=True)))
    assert streamed["case_group"] == 1 and streamed["images"][1].mode == "RGB"
    assert load_dataset("xpcr", "cross_modal", split="test").features["images"] == List(Image())
    items = load_dataset("xpcr", "items", split="test")
    assert items.num_rows == 75 and "image" not in items.column_names
    assert set(items["answer"]) == set("ABCDE")
    assert load_dataset("xpcr", "ablations", split="test").num_rows == 2 * 2 + 3 * 3 + 2 * 4 + 2 * 4  # items x modalities


def test_sample_covers_every_stage_tier_modality_and_letter(sample_hub):
    items = pq.read_table(glob.glob(str(sample_hub / "xpcr" / "items" / "*.parquet"))).to_pylist()
    chain = [r for r in items if r["task"] == "chain"]
    assert {r["stage"] for r in chain} == {"IQA", "AL", "LC", "DD", "SG", "CD"}
    assert {r["tier"] for r in chain} == {"R", "A", "S"} and {r["modality"] for r in chain} == {"CFP", "OCT", "FFA", "ICGA", "RetCam", "EP"}
    assert {r["case_group"] for r in items if r["task"] == "cross_modal"} == {1, 2, 3, 4}
    chains = pq.read_table(glob.glob(str(sample_hub / "xpcr" / "chains" / "*.parquet")), columns=["has_all_stages"]).column(0).to_pylist()
    assert True in chains and False in chains


def test_card_documents_configs_counts_layout_and_rules(sample_hub):
    meta, text = card(sample_hub / "xpcr")
    assert {c["config_name"] for c in meta["configs"]} == {"chains", "cross_modal", "items", "ablations"}
    assert next(c for c in meta["configs"] if c["config_name"] == "chains")["default"] is True
    assert "**SAMPLE.**" in text and "| CFP | 5 |" in text  # modality counts of the chains config
    assert "| IQA | 12 |" in text  # items per stage
    assert "cross_modal/cases.jsonl" in text and "`<item id>/without-<MODALITY>`" in text
    assert "IQA R, AL R, LC R, DD A, SG A, CD S" in text  # the documented tier mapping
    assert "@inproceedings{wang2026xpcr" in text


def _payload_bytes(path) -> int:
    """Parquet file size minus its footer (schema + HF metadata + page index): the data pages."""
    meta = pq.ParquetFile(path).metadata
    return path.stat().st_size - meta.serialized_size - 8


def test_only_the_image_configs_hold_binary_columns(sample_hub):
    for path in (sample_hub / "xpcr").rglob("*.parquet"):
        types = {str(f.type) for f in pq.read_schema(path)}
        assert any("binary" in t for t in types) == (path.parent.name in {"chains", "cross_modal"}), path


def _noise_png(seed: int) -> bytes:
    import io
    import random

    from PIL import Image as PILImage

    rng = random.Random(seed)
    img = PILImage.frombytes("RGB", (32, 24), bytes(rng.randrange(256) for _ in range(32 * 24 * 3)))
    buffer = io.BytesIO()
    img.save(buffer, format="PNG")
    return buffer.getvalue()


def test_images_are_stored_once_and_size_stays_within_10_percent_of_images_plus_text(tmp_path):
    # 200 images x 7 items: big enough that Parquet's fixed per-column overhead (which dominates the
    # 12-image sample) is amortised, as in a real release. Storing an image per question would give ~7x.
    stages = ("IQA", "AL", "LC", "DD", "SG", "CD", "AL")
    rows = [image_row(f"im{k:04d}", "CFP", [qa(s, "R") for s in stages], disease="glaucoma", image=_noise_png(k))
            for k in range(200)]
    write_release(tmp_path / "raw", rows, SCORING_CASES)
    build(registry.adapter("xpcr"), tmp_path / "raw", tmp_path / "hub", progress=False)
    folder = tmp_path / "hub" / "xpcr"
    chains = pq.read_table(glob.glob(str(folder / "chains" / "*.parquet"))).to_pylist()
    cases = pq.read_table(glob.glob(str(folder / "cross_modal" / "*.parquet"))).to_pylist()
    images = sum(len(r["image"]["bytes"]) for r in chains) + sum(len(i["bytes"]) for r in cases for i in r["images"])
    text = sum(len(s.encode()) for r in chains + cases for s in _strings(r))
    staged = sum(p.stat().st_size for p in folder.rglob("*.parquet"))  # every config, footers included
    assert images <= staged <= 1.10 * (images + text), (images, text, staged)


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            if k != "bytes":
                yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def test_hold_out_moves_answers_disease_and_category(tmp_path):
    write_release(tmp_path / "raw", SCORING_ROWS, SCORING_CASES)
    build(registry.adapter("xpcr"), tmp_path / "raw", tmp_path / "hub", hold_out_answers=True, progress=False)
    public = {p.parent.name: pq.read_schema(p).names for p in (tmp_path / "hub" / "xpcr").rglob("*.parquet")}
    held = {p.parent.name: pq.read_schema(p).names for p in (tmp_path / "hub" / "xpcr-answers").rglob("*.parquet")}
    assert not {"answers", "answer", "disease", "disease_category"} & {c for names in public.values() for c in names}
    assert held == {"chains": ["id", "disease", "disease_category", "answers"],
                    "cross_modal": ["id", "disease", "disease_category", "answers"],
                    "items": ["id", "disease", "disease_category", "answer"], "ablations": ["id", "answer"]}


def test_tiers_come_from_the_release_else_the_documented_mapping(tmp_path):
    rows = [image_row("a", "CFP", [qa("IQA", None, sub_label="Artifact"), qa("DD", None, sub_label="Differential diagnosis"),
                                   qa("SG", "Specialist"), qa("CD", None, sub_label="Treatment"), qa("LC", "r-level")])]
    write_release(tmp_path / "raw", rows)
    build(registry.adapter("xpcr"), tmp_path / "raw", tmp_path / "hub", progress=False)
    row = pq.read_table(glob.glob(str(tmp_path / "hub" / "xpcr" / "chains" / "*.parquet"))).to_pylist()[0]
    assert [(i["tier"], i["tier_source"]) for i in row["items"]] == [
        ("A", "mapped"), ("S", "mapped"), ("S", "release"), ("S", "mapped"), ("R", "release")]


def test_disease_is_derived_from_the_dd_answer_when_the_row_has_none(tmp_path):
    options = ["glaucoma", "diabetic retinopathy", "normal", "cataract"]
    rows = [image_row("a", "cfp", [qa("DD", "A", gold=1, options=options, sub_label="Diagnosis")])]
    write_release(tmp_path / "raw", rows)
    build(registry.adapter("xpcr"), tmp_path / "raw", tmp_path / "hub", progress=False)
    row = pq.read_table(glob.glob(str(tmp_path / "hub" / "xpcr" / "chains" / "*.parquet"))).to_pylist()[0]
    assert (row["disease"], row["disease_category"], row["disease_source"]) == ("diabetic retinopathy", "DR", "dd_answer")


# ------------------------------------------------------------------ bad input: located, nothing written
def _problems(tmp_path, rows, cases=None, extra=None):
    release = write_release(tmp_path / "bad", rows, cases)
    if extra:
        extra(release)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("untouched")
    with pytest.raises(BuildError) as info:
        build(registry.adapter("xpcr"), release, out, progress=False, strict=True)
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]
    return [str(p) for p in info.value.problems]


def test_answer_text_matching_no_option_names_file_row_and_item(tmp_path):
    bad = qa("AL", "R")
    bad["answer"] = "epsilon"
    problems = _problems(tmp_path, [image_row("ok", "CFP", [qa("IQA", "R")]), image_row("img9", "CFP", [qa("IQA", "R"), bad])])
    assert problems == ["data/test-00000.parquet row 2, case 'img9': qa_pairs[1].answer: answer text 'epsilon' matches "
                        "none of the 4 options"]


def test_unknown_stage_category_and_unknown_modality(tmp_path):
    problems = _problems(tmp_path, [image_row("img1", "CFP", [qa("IQA", "R", category="Visual Acuity")]),
                                    image_row("img2", "MRI", [qa("IQA", "R")])])
    assert problems[0].startswith("data/test-00000.parquet row 1, case 'img1': qa_pairs[0]: unknown stage category "
                                  "'Visual Acuity' (known: IQA, AL, LC, DD, SG, CD")
    assert problems[1].startswith("data/test-00000.parquet row 2, case 'img2': field 'modality' has unknown value 'MRI'; "
                                  "allowed: CFP, OCT, FFA, ICGA, RetCam, EP")


def test_missing_and_corrupt_image_bytes(tmp_path):
    problems = _problems(tmp_path, [image_row("img1", "CFP", [qa("IQA", "R")], image=None),
                                    image_row("img2", "CFP", [qa("IQA", "R")], image=b"not an image")])
    assert problems == [
        "data/test-00000.parquet row 1, case 'img1': missing image bytes (image.bytes is empty and image.path / "
        "image_path is not a file inside the release)",
        "data/test-00000.parquet row 2, case 'img2': image cannot be decoded (UnidentifiedImageError)",
    ]


def test_malformed_parquet_and_missing_columns(tmp_path):
    def damage(release):
        (release / "data" / "broken.parquet").write_bytes(b"PAR1 this is not parquet")
        (release / "data" / "x").mkdir()
        import pyarrow as pa
        pq.write_table(pa.table({"id": ["a"], "modality": ["CFP"]}), release / "data" / "x" / "thin.parquet")

    problems = _problems(tmp_path, [image_row("img1", "CFP", [qa("IQA", "R")])], extra=damage)
    assert problems[0].startswith("data/broken.parquet: not a readable Parquet file (ArrowInvalid")
    assert problems[1] == "data/x/thin.parquet: missing column(s) image, qa_pairs (found: id, modality)"


def test_duplicate_ids_and_bad_cross_modal_cases(tmp_path):
    cases = [case("K1", 2, ["CFP", "OCT"], [case_item("Diagnostic Integration")]),         # group 2 needs FFA too
             case("K2", None, ["CFP", "ICGA"], [case_item("Integration")]),                 # matches no group
             case("K3", 1, ["CFP", "OCT"], [case_item("Guessing")])]                        # unknown family
    problems = _problems(tmp_path, [image_row("img1", "CFP", [qa("IQA", "R")]), image_row("img1", "OCT", [qa("IQA", "R")])],
                         cases)
    assert problems == [
        "data/test-00000.parquet row 2, case 'img1': duplicate image id 'img1' (first seen at data/test-00000.parquet row 1)",
        "cross_modal/cases.jsonl, line 1, case 'K1': case_group 2 needs modalities CFP/OCT/FFA, the images have CFP/OCT",
        "cross_modal/cases.jsonl, line 2, case 'K2': image modalities CFP/ICGA match no case group (1: CFP/OCT; "
        "2: CFP/OCT/FFA; 3: CFP/OCT/FFA/ICGA; 4: CFP/OCT/FFA/EP)",
        "cross_modal/cases.jsonl, line 3, case 'K3': field 'items[0].task_family' has unknown value 'Guessing'; "
        "allowed: Correspondence Identification, Diagnostic Integration, Modality Selection",
    ]


def test_cli_build_reports_errors_without_traceback(tmp_path):
    import subprocess
    import sys

    bad = qa("AL", "R")
    bad["question"] = "Where is it?"  # no options in the text
    release = write_release(tmp_path / "rel", [image_row("img1", "CFP", [bad])])
    run = subprocess.run([sys.executable, "-m", "dataset_builders", "build", "xpcr", "--source", str(release),
                          "--out", str(tmp_path / "hub"), "--quiet"], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "row 1, case 'img1': qa_pairs[0].question holds no options" in run.stderr and "Nothing was written" in run.stderr


# ------------------------------------------------------------------ normalisers
def test_options_parsed_from_the_viewer_form_and_lettered_lines():
    assert split_options("Rate it.\nOptions: ['excellent', 'good', \"fair\", 'poor']") == (
        "Rate it.", ["excellent", "good", "fair", "poor"])
    assert split_options("Which layer?\nA. RPE\nB) choroid\nC. retina") == ("Which layer?", ["RPE", "choroid", "retina"])
    assert split_options("No options here.") is None
    with pytest.raises(OptionError, match="not a valid list literal"):
        split_options("Q?\nOptions: ['a', 'b]")


def test_answer_text_to_letter():
    assert answer_letter("fair", ["excellent", "good", "fair", "poor"]) == "C"
    assert answer_letter("  Fair. ", ["excellent", "good", "fair", "poor"]) == "C"  # case, spaces, trailing period
    assert answer_letter("(D)", OPTIONS) == "D"  # a letter when no option text matches
    with pytest.raises(OptionError, match="matches 2 identical options"):
        answer_letter("a", ["a", "a", "b"])
    with pytest.raises(OptionError, match="matches none of the 4 options"):
        answer_letter("E", OPTIONS)


def test_aliases_source_dataset_tier_and_category_rules():
    assert [stage_code(c) for c in ("Image Quality", "QA", "Pathological Features", "DR", "Disease Recognition",
                                    "Severity Grading", "Clinical Decision")] == ["IQA", "IQA", "LC", "DD", "DD", "SG", "CD"]
    assert [modality_code(m) for m in ("cfp", "Ext-Eye", "Exter Eye", "Retcam", "icga")] == ["CFP", "EP", "EP", "RetCam", "ICGA"]
    assert source_dataset("CFP/12 ODIR-5K/a.jpg") == "ODIR-5K" and source_dataset("CFP/39 APTOS2019/x/y.png") == "APTOS2019"
    assert source_dataset("a.jpg") is None and source_dataset("images/OCT/7 OCT2017/b.png") == "OCT2017"
    assert (default_tier("IQA", "Clarity"), default_tier("IQA", "Artifacts"), default_tier("CD", None),
            default_tier("LC", "Differential")) == ("R", "A", "S", "S")
    assert [category_for_disease(d) for d in ("Diabetic macular edema", "BRVO", "normal fundus", "Coats disease",
                                              "high myopia", None)] == ["DR", "RVO", None, "Rare", "PM", None]
