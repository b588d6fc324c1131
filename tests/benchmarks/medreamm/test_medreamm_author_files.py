"""The MedReaMM authors' own prediction files (OpenDxBench eval/run.py: {"pmid", "pred_diagnoses"}; the ICD
stage adds "standardized_pred_diagnosis") validate and score like the native file with the same lists, and
the report says which format it read (issue 27 part 3)."""
import json

import pytest

from leaderboard.intake.author_formats import formats_of
from leaderboard.scoring.score_file import score_file, validate_file
from leaderboard.scoring.public_index import validate_public
from leaderboard.scoring import registry
from test_medreamm_scoring import context

NATIVE = [{"id": "100", "diagnoses": ["Vibrio cholerae infection", "Cholera", "Dehydration"]},
          {"id": "200", "diagnoses": ["Bronchitis", "Pneumonia"]},
          {"id": "300", "diagnoses": ["Obesity", "Unknown thing", "Asthma"]}]
RUN_PY = [{"pmid": "100", "pred_diagnoses": ["Vibrio cholerae infection", "Cholera", "Dehydration"]},
          {"pmid": 200, "pred_diagnoses": ["Bronchitis", "Pneumonia"]},                 # an integer pmid, as JSON allows
          {"pmid": "300", "pred_diagnoses": ["Obesity", "Unknown thing", "Asthma"]}]


def write(path, rows, blank_first=False):
    path.write_text(("\n" if blank_first else "") + "\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def icd_stage(row):
    entries = [{"original_term": t, "code": "XX99", "title": "wrong on purpose", "chapter": "01"}
               for t in row["pred_diagnoses"]]
    return {**row, "standardized_pred_diagnosis": entries}


def test_run_py_file_validates_scores_and_is_named(tmp_path, tiny_built):
    native_report, native = score_file("medreamm", write(tmp_path / "n.jsonl", NATIVE), tiny_built, context())
    report, result = score_file("medreamm", write(tmp_path / "run.jsonl", RUN_PY), tiny_built, context())
    assert report.ok and report.n_valid == 3 and native_report.format == "native"
    assert report.format == "the MedReaMM authors' run.py file (pmid, pred_diagnoses)"
    assert "read as the MedReaMM authors' run.py file" in report.render()
    assert report.to_dict()["format"] == report.format
    assert result.metrics == native.metrics


def test_icd_stage_file_uses_the_terms_not_their_codes(tmp_path, tiny_built):
    _, native = score_file("medreamm", write(tmp_path / "n.jsonl", NATIVE), tiny_built, context())
    rows = [icd_stage(r) for r in RUN_PY]
    report, result = score_file("medreamm", write(tmp_path / "icd.jsonl", rows), tiny_built, context())
    assert report.ok and report.format.startswith("the MedReaMM authors' ICD-stage file")
    assert "its ICD codes are not used" in report.render()
    assert result.metrics == native.metrics  # "XX99" everywhere would have matched nothing
    only_terms = [{k: v for k, v in r.items() if k != "pred_diagnoses"} for r in rows]
    report, again = score_file("medreamm", write(tmp_path / "terms.jsonl", only_terms), tiny_built, context())
    assert report.ok and again.metrics == native.metrics  # the entries' original_term


def test_problems_keep_their_line_numbers(tmp_path, tiny_built):
    rows = [RUN_PY[0], {"pmid": "999", "pred_diagnoses": ["X"]}, {"pmid": "300", "pred_diagnoses": "Asthma"}]
    report, _ = validate_file("medreamm", write(tmp_path / "bad.jsonl", rows, blank_first=True), tiny_built)
    errors = [(i.line, i.field) for i in report.errors]
    assert errors == [(3, "id"), (4, "diagnoses")]  # a blank first line: the rows sit on lines 2-4
    assert "unknown id '999'" in report.render()


def test_a_failed_case_written_as_an_empty_list_counts_as_answered_wrong(tmp_path, tiny_built):
    rows = [RUN_PY[0], {"pmid": "200", "pred_diagnoses": []}]
    report, result = score_file("medreamm", write(tmp_path / "e.jsonl", rows), tiny_built, context())
    assert report.format.endswith("run.py file (pmid, pred_diagnoses)")
    assert result.metrics["top1_icd"] == pytest.approx(100 / 3, abs=1e-3)  # only case 100's first item hits


def test_native_files_are_not_touched_and_key_less_validation_reads_the_format(tmp_path, tiny_built):
    mixed = [NATIVE[0], RUN_PY[1]]  # the first row decides: native, so the pmid row is an error
    report, _ = validate_file("medreamm", write(tmp_path / "m.jsonl", mixed), tiny_built)
    assert report.format == "native" and [(i.line, i.field) for i in report.errors] == [(2, "id")]
    public = validate_public(registry.scorer("medreamm"), write(tmp_path / "run.jsonl", RUN_PY), tiny_built)
    assert public.ok and public.n_valid == 3 and "run.py" in public.format


def test_every_benchmark_declares_its_formats():
    assert [f.signature for f in formats_of("medreamm")] == [("pmid", "standardized_pred_diagnosis"),
                                                             ("pmid", "pred_diagnoses")]
    for name in ("clinmm", "medcmr", "medrealmm", "xpcr"):
        assert formats_of(name) == ()
        assert registry.scorer(name).schema.formats == ()
    assert registry.scorer("medreamm").schema.formats == formats_of("medreamm")
