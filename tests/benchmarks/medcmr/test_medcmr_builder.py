"""The Med-CMR builder: both configs load with `datasets` (regular and streaming), images keep their
bytes, the card counts match, raw key/value spellings are normalised, and every kind of bad input is
reported with its location while nothing is written."""
import hashlib
import json
import subprocess
import sys

import pyarrow.parquet as pq
import pytest
import yaml
from datasets import Image, List, load_dataset

from conftest import ROOT, png_bytes
from dataset_builders.errors import BuildError
from leaderboard.scoring import registry
from dataset_builders.stage import build

SAMPLE = ROOT / "benchmarks" / "medcmr" / "sample"


def mcq(index, answer="A", task="SOD", **extra):
    record = {"index": index, "image_path": f"imgs/{index}.png", "question": f"Question {index}?",
              "A": "one", "B": "two", "C": "three", "D": "four", "E": "five", "answer": answer,
              "visual_description": f"Finding {index}.", "task": task, "organ system": "Respiratory",
              "modality": "CT"}
    record.update(extra)
    return {k: v for k, v in record.items() if v is not None}


def open_item(index, answer="Pneumonia", **extra):
    record = {"index": index, "image_path": f"imgs/{index}.png", "question": f"What is shown in {index}?",
              "answer": answer, "visual_description": f"Finding {index}.", "task": "CR",
              "organ system": "Digestive", "modality": "MRI"}
    record.update(extra)
    return {k: v for k, v in record.items() if v is not None}


def write_release(folder, mcqs, opens=(), array=True, extra_lines=()):
    """MCQs as a JSON array (indent 2) or JSONL in `mcq.json[l]`, open items as `open.jsonl`, one PNG per path."""
    (folder / "imgs").mkdir(parents=True, exist_ok=True)
    for record in [*mcqs, *opens]:
        paths = next((v for k, v in record.items() if k.lower().replace("_", "") == "imagepath"), None)
        for rel in ([paths] if isinstance(paths, str) else paths or []):
            if rel.startswith("imgs/"):
                (folder / rel).write_bytes(png_bytes())
    if array:
        (folder / "mcq.json").write_text(json.dumps(list(mcqs), indent=2), encoding="utf-8")
    else:
        (folder / "mcq.jsonl").write_text("\n".join([*map(json.dumps, mcqs), *extra_lines]) + "\n", encoding="utf-8")
    if opens:
        (folder / "open.jsonl").write_text("\n".join(map(json.dumps, opens)) + "\n", encoding="utf-8")
    return folder


def card_yaml(folder):
    text = (folder / "README.md").read_text(encoding="utf-8")
    return yaml.safe_load(text.split("---")[1]), text


@pytest.fixture(scope="module")
def sample_hub(tmp_path_factory):
    out = tmp_path_factory.mktemp("hub")
    build(registry.adapter("medcmr"), SAMPLE, out, sample=True, progress=False)
    return out


def test_both_configs_load_by_name_and_streaming(sample_hub, monkeypatch):
    monkeypatch.chdir(sample_hub)
    mcqs = load_dataset("medcmr", "mcq", split="test")
    opens = load_dataset("medcmr", "open_ended", split="test")
    assert (mcqs.num_rows, opens.num_rows) == (21, 4)
    assert mcqs.features["images"] == List(Image()) and "options" not in opens.column_names
    first = mcqs[0]
    assert first["id"] == "mcq-0" and first["answer"] == "A" and first["task"] == "SOD"
    assert first["options"] == ["Right upper lobe", "Right middle lobe", "Right lower lobe", "Left upper lobe",
                                "Left lower lobe"]
    assert first["images"][0].size == (96, 96)  # decodes
    two_images = mcqs[6]
    assert two_images["id"] == "mcq-6" and two_images["num_images"] == 2 and len(two_images["images"]) == 2
    assert mcqs[8]["modality"] == ["CT", "Nuclear Medicine / PET"]
    assert sorted(set(mcqs["answer"])) == list("ABCDE")
    assert opens[2]["id"] == "open-23" and opens[2]["task"] is None and opens[2]["answer"].startswith("Vertebral")
    streamed = next(iter(load_dataset("medcmr", "open_ended", split="test", streaming=True)))
    assert streamed["id"] == "open-21" and streamed["images"][0].mode == "RGB"


def test_taxonomy_labels_from_both_key_and_value_spellings(sample_hub):
    mcqs = load_dataset(str(sample_hub / "medcmr"), "mcq", split="test")
    rows = {r["id"]: r for r in mcqs.remove_columns("images")}
    assert rows["mcq-0"]["organ_system"] == "Respiratory"  # raw key "Organ System"
    assert rows["mcq-4"]["medical_intelligence"] == "DX"  # raw "question type": "DX"
    assert rows["mcq-5"]["medical_intelligence"] == "CDS"  # raw "Clinical Decision Support"
    assert rows["mcq-20"]["medical_intelligence"] is None and rows["mcq-20"]["question_type"] is None
    assert rows["mcq-12"]["complexity_group"] == "reasoning" and rows["mcq-0"]["complexity_group"] == "visual"
    opens = load_dataset(str(sample_hub / "medcmr"), "open_ended", split="test").remove_columns("images")
    assert opens[0]["organ_system"] == "Digestive" and opens[0]["task"] == "CR"  # raw "organ_system", "Task"


def test_images_keep_their_original_bytes_and_hash(sample_hub):
    path = next((sample_hub / "medcmr" / "mcq").glob("test-*.parquet"))
    row = pq.read_table(path, columns=["images", "image_paths", "image_sha256"]).slice(6, 1).to_pylist()[0]
    assert row["image_paths"] == ["dataset/imgs/0006.png", "dataset/imgs/0006_2.png"]
    for image, rel, digest in zip(row["images"], row["image_paths"], row["image_sha256"]):
        original = (SAMPLE / rel).read_bytes()
        assert image["bytes"] == original and digest == hashlib.sha256(original).hexdigest()


def test_card_configs_counts_and_checksums(sample_hub):
    meta, text = card_yaml(sample_hub / "medcmr")
    assert [c["config_name"] for c in meta["configs"]] == ["mcq", "open_ended"]
    assert meta["configs"][0]["data_files"] == [{"split": "test", "path": "mcq/test-*"}]
    examples = {i["config_name"]: i["splits"][0]["num_examples"] for i in meta["dataset_info"]}
    assert examples == {"mcq": 21, "open_ended": 4}
    assert "**SAMPLE.**" in text
    counts = text.split("## Counts per stratum")[1]
    assert "**task** (config `mcq`)\n\n| value | count |\n|---|---:|\n| CR | 3 |" in counts  # 3 per task, 7 tasks
    assert "| DX | 9 |" in counts and "| (missing) | 1 |" in counts  # medical intelligence
    assert "| CT | 4 |" in counts  # mcq-0, -8 (multi-label), -12, -20
    assert "**task** (config `open_ended`)" in counts
    digest = hashlib.sha256((SAMPLE / "dataset" / "mcq.json").read_bytes()).hexdigest()
    assert f"| `dataset/mcq.json` |" in text and digest in text
    assert "@article{gong2025medcmr" in text


def test_hold_out_answers_moves_answer_and_visual_description(tmp_path):
    release = write_release(tmp_path / "rel", [mcq(1, "B")], [open_item(2)])
    build(registry.adapter("medcmr"), release, tmp_path / "hub", hold_out_answers=True, progress=False)
    public = load_dataset(str(tmp_path / "hub" / "medcmr"), "mcq", split="test")
    answers = load_dataset(str(tmp_path / "hub" / "medcmr-answers"), "open_ended", split="test")
    assert "answer" not in public.column_names and "visual_description" not in public.column_names
    assert answers[0] == {"id": "open-2", "answer": "Pneumonia", "visual_description": "Finding 2."}


def test_key_names_match_without_case_spaces_or_underscores(tmp_path):
    spaced = mcq(1, "C", **{"organ system": None, "Organ System": "Nervous", "question type": "Diagnosis"})
    snake = mcq(2, "D", **{"organ system": None, "organ_system": "nervous", "Question_Type": "diagnosis (DX)"})
    shouty = {("IMAGE_PATH" if k == "image_path" else k.upper() if len(k) > 1 else k): v
              for k, v in mcq(3, "e", task="small object detection").items()}
    release = write_release(tmp_path / "rel", [spaced, snake, shouty], array=False)
    build(registry.adapter("medcmr"), release, tmp_path / "hub", progress=False)
    rows = load_dataset(str(tmp_path / "hub" / "medcmr"), "mcq", split="test").remove_columns("images").to_list()
    assert [r["organ_system"] for r in rows] == ["Nervous", "Nervous", "Respiratory"]
    assert [r["medical_intelligence"] for r in rows] == ["DX", "DX", None]
    assert [r["answer"] for r in rows] == ["C", "D", "E"]
    assert rows[2]["task"] == "SOD" and rows[2]["id"] == "mcq-3"


def _problems(tmp_path, mcqs, opens=(), array=False, extra_lines=()):
    release = write_release(tmp_path / "bad", mcqs, opens, array=array, extra_lines=extra_lines)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("untouched")
    with pytest.raises(BuildError) as info:
        build(registry.adapter("medcmr"), release, out, progress=False, strict=True)
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]  # nothing written, nothing removed
    return [str(p) for p in info.value.problems], release


def test_bad_records_are_all_reported_with_file_line_and_item(tmp_path):
    problems, _ = _problems(tmp_path, [
        mcq(1),
        mcq(2, task="Big-Object Detection"),
        mcq(3, modality=["CT", "PET-CT"]),
        mcq(4, **{"organ system": "Liver"}),
        mcq(5, D=None),
        mcq(6, answer="F"),
        mcq(1),
        mcq(8, surprise=1),
        mcq(9, task=None),
    ], extra_lines=['{"index": 10, "question": ', "[1, 2]"])
    assert problems[0] == ("mcq.jsonl, line 2, case 'mcq-2': field 'task' has unknown value 'Big-Object Detection'; "
                           "allowed: SOD, FDD, SU, TP, CR, LTG, MSI")
    assert problems[1].startswith("mcq.jsonl, line 3, case 'mcq-3': field 'modality' has unknown value 'PET-CT'; "
                                  "allowed: Pathology / Microscopy, ")
    assert problems[2].startswith("mcq.jsonl, line 4, case 'mcq-4': field 'organ system' has unknown value 'Liver'")
    assert problems[3] == ("mcq.jsonl, line 5, case 'mcq-5': multiple-choice question is missing option(s) D; "
                           "every MCQ has five options A-E")
    assert problems[4] == "mcq.jsonl, line 6, case 'mcq-6': field 'answer' of a multiple-choice question must be one letter A-E"
    assert problems[5] == "mcq.jsonl, line 7, case 'mcq-1': duplicate index (item mcq-1 first seen at mcq.jsonl:1)"
    assert problems[6].startswith("mcq.jsonl, line 8, case 'mcq-8': unknown field(s) surprise; rename or remove them")
    assert problems[7] == "mcq.jsonl, line 9, case 'mcq-9': multiple-choice question has no task; set 'task' to one of SOD, FDD, SU, TP, CR, LTG, MSI"
    # '{"index": 10, "question": ' is 26 characters: the missing value is at column 27
    assert problems[8] == "mcq.jsonl, line 10: malformed JSON (Expecting value at column 27)"
    assert problems[9] == "mcq.jsonl, line 11: each record must be a JSON object, got list"
    assert len(problems) == 10


def test_missing_image_and_array_record_location(tmp_path):
    records = [mcq(1), mcq(2), mcq(3, image_path=["imgs/3.png", "other/missing.png"])]
    problems, _ = _problems(tmp_path, records, array=True)
    # indent=2: '[' on line 1; each record spans 15 lines (braces + 13 keys), so record 2 starts on line 2 + 2*15
    assert problems == ["mcq.json, line 32, case 'mcq-3 (record 2)': image not found: other/missing.png"]


def test_open_ended_items_that_look_like_broken_mcqs(tmp_path):
    opens = [open_item(20, answer="B"), open_item(21, A="one"), open_item(22, question_format="open-ended")]
    problems, _ = _problems(tmp_path, [mcq(1)], opens)
    assert problems[0] == ("open.jsonl, line 1, case 'open-20': open-ended item has a single-letter answer; it looks "
                           "like a multiple-choice question whose options A-E are missing")
    # a record with option A is read as an MCQ: its text answer and the four other options are reported
    assert problems[1:] == [
        "open.jsonl, line 2, case 'mcq-21': field 'answer' of a multiple-choice question must be one letter A-E",
        "open.jsonl, line 2, case 'mcq-21': multiple-choice question is missing option(s) B, C, D, E; every MCQ has "
        "five options A-E",
    ]


def test_malformed_json_array_stops_with_its_line(tmp_path):
    release = write_release(tmp_path / "rel", [mcq(1)], array=True)
    (release / "mcq.json").write_text("[\n  " + json.dumps(mcq(1)) + ',\n  {"index": 2,, }\n]')
    with pytest.raises(BuildError) as info:
        build(registry.adapter("medcmr"), release, tmp_path / "out", progress=False)
    # line 3 is '  {"index": 2,, }': the second comma is column 15
    assert [str(p) for p in info.value.problems] == [
        "mcq.json, line 3: malformed JSON in record 1 (Expecting property name enclosed in double quotes at line 3, "
        "column 15); the rest of the file was not read"]


def test_paths_outside_the_release_are_refused(tmp_path):
    problems, _ = _problems(tmp_path, [mcq(1, image_path="../../etc/passwd")])
    assert problems == ["mcq.jsonl, line 1, case 'mcq-1': field 'image_path' points outside the release folder: '../../etc/passwd'"]


def test_cli_build_reports_errors_without_traceback(tmp_path):
    release = write_release(tmp_path / "rel", [mcq(1, answer="Z")], array=False)
    run = subprocess.run([sys.executable, "-m", "dataset_builders", "build", "medcmr", "--source", str(release),
                          "--out", str(tmp_path / "hub"), "--quiet"], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "mcq.jsonl, line 1, case 'mcq-1': field 'answer' of a multiple-choice question must be one letter A-E" in run.stderr
    assert "Nothing was written" in run.stderr and not (tmp_path / "hub" / "medcmr").exists()


def test_sample_generator_is_deterministic(tmp_path):
    """The committed sample equals what the generator writes."""
    import shutil

    copy = tmp_path / "medcmr"
    shutil.copytree(SAMPLE, copy, ignore=shutil.ignore_patterns("dataset", "__pycache__"))
    subprocess.run([sys.executable, str(copy / "make_sample.py")], check=True, cwd=ROOT)
    committed = sorted(p.relative_to(SAMPLE) for p in (SAMPLE / "dataset").rglob("*") if p.is_file())
    generated = sorted(p.relative_to(copy) for p in (copy / "dataset").rglob("*") if p.is_file())
    assert committed == generated and len(committed) == 29
    assert all((SAMPLE / p).read_bytes() == (copy / p).read_bytes() for p in committed)


def test_unseen_value_spellings_build_every_record(tmp_path):
    """The paper's tables are not the release's spellings: known ones are mapped (case, hyphens, a
    'System' suffix, listed synonyms), unknown ones kept verbatim; all are counted in the report."""
    mcqs = [mcq(1, modality="Pathology", **{"organ system": "Digestive System"}),
            mcq(2, modality="pathology", **{"organ system": "digestive system"}),
            mcq(3, modality=["ct", "Thermography"], **{"organ system": "Nervous"}),
            mcq(4, task="small object detection", surprise="kept"),
            mcq(5, **{"organ system": "Liver"})]
    release = write_release(tmp_path / "rel", mcqs, array=False)
    report = build(registry.adapter("medcmr"), release, tmp_path / "hub", progress=False).release
    rows = pq.read_table(tmp_path / "hub" / "medcmr" / "mcq" / "test-00000-of-00001.parquet").to_pylist()
    assert [r["id"] for r in rows] == ["mcq-1", "mcq-2", "mcq-3", "mcq-4", "mcq-5"]
    assert [r["modality"] for r in rows] == [["Pathology / Microscopy"], ["Pathology / Microscopy"],
                                             ["CT", "Thermography"], ["CT"], ["CT"]]
    assert [r["organ_system"] for r in rows] == ["Digestive", "Digestive", "Nervous", "Respiratory", "Liver"]
    assert rows[3]["task"] == "SOD" and rows[3]["complexity_group"] == "visual"
    values = {pair: (canonical, found.count, found.first) for pair, (canonical, found) in report.values.items()}
    assert values == {
        ("modality", "Pathology"): ("Pathology / Microscopy", 1, "mcq.jsonl, line 1, case 'mcq-1'"),
        ("modality", "pathology"): ("Pathology / Microscopy", 1, "mcq.jsonl, line 2, case 'mcq-2'"),
        ("modality", "Thermography"): (None, 1, "mcq.jsonl, line 3, case 'mcq-3'"),
        ("organ system", "Digestive System"): ("Digestive", 1, "mcq.jsonl, line 1, case 'mcq-1'"),
        ("organ system", "digestive system"): ("Digestive", 1, "mcq.jsonl, line 2, case 'mcq-2'"),
        ("organ system", "Liver"): (None, 1, "mcq.jsonl, line 5, case 'mcq-5'"),
        ("task", "small object detection"): ("SOD", 1, "mcq.jsonl, line 4, case 'mcq-4'"),  # the hyphen differs
        # 'ct' differs from the listed 'CT' only in letter case: not reported
    }
    assert report.unknown_keys["surprise"].count == 1
    card = (tmp_path / "hub" / "medcmr" / "README.md").read_text(encoding="utf-8")
    assert "| `organ system` | `Digestive System` | `Digestive` | 1 | mcq.jsonl, line 1, case 'mcq-1' |" in card
    assert "| `modality` | `Thermography` | kept verbatim | 1 | mcq.jsonl, line 3, case 'mcq-3' |" in card
    with pytest.raises(BuildError) as info:
        build(registry.adapter("medcmr"), release, tmp_path / "strict", progress=False, strict=True)
    assert [str(p) for p in info.value.problems] == [
        "mcq.jsonl, line 3, case 'mcq-3': field 'modality' has unknown value 'Thermography'; allowed: "
        "Pathology / Microscopy, Photography / Dermatology, CT, X-ray & Fluoroscopy, MRI, Ultrasound, Endoscopy, "
        "Ophthalmology / Optical, Nuclear Medicine / PET, Physiologic Signals, Radiotherapy, Derived / Meta",
        "mcq.jsonl, line 4, case 'mcq-4': unknown field(s) surprise; rename or remove them (known: A, B, C, D, E, "
        "answer, image_path, index, medical_intelligence, modality, options, organ_system, question, question_format, "
        "question_type, source_journal, subtype, task, visual_description)",
        "mcq.jsonl, line 5, case 'mcq-5': field 'organ system' has unknown value 'Liver'; allowed: Digestive, "
        "Integumentary, Nervous, Skeletal, Other / NA, Respiratory, Cardiovascular, Reproductive, Muscular, Urinary, "
        "Endocrine",
    ]


def test_unknown_task_is_kept_verbatim_without_a_complexity_group_and_scores(tmp_path):
    from leaderboard.scoring.benchmark import ScoringContext
    from leaderboard.scoring.score_file import score_file

    release = write_release(tmp_path / "rel", [mcq(1, task="Gazing"), mcq(2)], array=False)
    build(registry.adapter("medcmr"), release, tmp_path / "hub", progress=False)
    rows = pq.read_table(tmp_path / "hub" / "medcmr" / "mcq" / "test-00000-of-00001.parquet").to_pylist()
    assert [(r["task"], r["complexity_group"]) for r in rows] == [("Gazing", None), ("SOD", "visual")]
    preds = tmp_path / "preds.jsonl"
    preds.write_text('{"id": "mcq-1", "answer": "A"}\n{"id": "mcq-2", "answer": "B"}\n', encoding="utf-8")
    _, result = score_file("medcmr", preds, tmp_path / "hub" / "medcmr", ScoringContext(resamples=0))
    assert result.metrics["mcq_all"] == 50.0  # gold is A for both: one right of two
    assert result.metrics["mcq_SOD"] == 0.0
