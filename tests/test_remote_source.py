"""`dataset_builders build NAME --source hf://ORG/NAME[@REV]` against the fake Hub: the authors' release is
downloaded into the cache, every file checked against the Hub's object ids, then built."""
import os
import subprocess
import sys

import pyarrow.parquet as pq

from conftest import ROOT, SAMPLE_MEDREAMM
from fake_hub_server import FakeHub


def build(hub_url, tmp_path, source, out):
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    env.update({"HF_ENDPOINT": hub_url, "HF_HOME": str(tmp_path / "home"), "HF_HUB_DISABLE_PROGRESS_BARS": "1"})
    return subprocess.run([sys.executable, "-m", "dataset_builders", "build", "medreamm", "--source", source,
                           "--out", str(out), "--sample", "--quiet"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


def rows(folder):
    return sorted(pq.read_table(next(folder.rglob("*.parquet")), columns=["case_id"]).column(0).to_pylist())


def test_release_from_the_hub_is_verified_and_builds_like_the_local_copy(tmp_path):
    release = {p.relative_to(SAMPLE_MEDREAMM).as_posix(): p.read_bytes() for p in SAMPLE_MEDREAMM.rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    with FakeHub() as hub:
        repo = hub.create("dataset", "authors/medreamm-release", files=release)
        first = repo.head.sha
        hub.commit(repo, {**repo.head.files, "NOTES.md": b"later"}, "later", None)
        remote = build(hub.url, tmp_path, f"hf://authors/medreamm-release@{first}", tmp_path / "remote")
        local = build(hub.url, tmp_path, str(SAMPLE_MEDREAMM), tmp_path / "local")
        assert remote.returncode == 0 and local.returncode == 0, remote.stderr + local.stderr
        assert f"at commit {first}: checksums verified" in remote.stdout
        assert rows(tmp_path / "remote" / "medreamm") == rows(tmp_path / "local" / "medreamm")
        assert len(rows(tmp_path / "remote" / "medreamm")) == 10

        victim = "medreamm_sample.jsonl"
        hub.tamper[("authors/medreamm-release", victim)] = release[victim].replace(b"fever", b"fevex", 1)
        bad = build(hub.url, tmp_path / "fresh", "hf://authors/medreamm-release", tmp_path / "bad")
        assert bad.returncode == 1 and "Traceback" not in bad.stderr
        assert f"checksum mismatch for {victim}" in bad.stderr and not (tmp_path / "bad" / "medreamm").exists()
        missing = build(hub.url, tmp_path, "hf://authors/nothing-here", tmp_path / "none")
        assert missing.returncode == 1 and "cannot download hf://authors/nothing-here" in missing.stderr
