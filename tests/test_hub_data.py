"""Datasets and store read from the Hub (leaderboard/operations/hub_data.py), against the fake Hub."""
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT
from fake_hub_server import FakeHub
from leaderboard.operations.hub_data import dataset_repos

NAMES = ["alpha", "beta"]


def test_dataset_repos_accepts_ids_or_one_org_and_names_bad_entries():
    assert dataset_repos("lab", NAMES) == {"alpha": "lab/alpha", "beta": "lab/beta"}
    assert dataset_repos("lab/", NAMES) == {"alpha": "lab/alpha", "beta": "lab/beta"}
    assert dataset_repos(" lab/beta , other/alpha ", NAMES) == {"beta": "lab/beta", "alpha": "other/alpha"}
    with pytest.raises(ValueError, match="entry 'lab/gamma': expected ORG/NAME with NAME one of alpha, beta"):
        dataset_repos("lab/alpha,lab/gamma", NAMES)


SCRIPT = r"""
import json, sys
from pathlib import Path
from leaderboard.operations.hub_data import HubDatasets, pull_store
root = Path(sys.argv[1])
data = HubDatasets({"xpcr": "lab/xpcr"}, root / "datasets", answers=sys.argv[2] == "answers")
steps = [data.sync()]
input()  # the test changes the Hub here
steps.append(data.sync())
steps.append(data.sync())
pull_store("lab/results", "lab/private", root / "store")
files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and "/.cache/" not in p.as_posix())
print(json.dumps({"steps": steps, "files": files}))
"""


def run(hub, tmp_path, token, change, answers="", wait=True):
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("HF_")}, "HF_ENDPOINT": hub.url,
           "HF_TOKEN": token, "HF_HOME": str(tmp_path / "home"), "HF_HUB_DISABLE_PROGRESS_BARS": "1"}
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, str(tmp_path / "out"), answers], cwd=ROOT, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    import time

    deadline = time.monotonic() + 60
    while wait and not (tmp_path / "out" / "datasets" / "xpcr" / "README.md").is_file() and time.monotonic() < deadline:
        time.sleep(0.1)
    change()
    out, err = proc.communicate("\n", timeout=120)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def test_sync_mirrors_new_revisions_removes_stale_files_and_pulls_only_the_public_store_parts(tmp_path):
    with FakeHub(tokens={"space": "space-bot"}) as hub:
        repo = hub.create("dataset", "lab/xpcr", files={"README.md": b"---\n---\n", "items/test-0.parquet": b"old"})
        hub.create("dataset", "lab/xpcr-answers", private=True, files={"items/test-0.parquet": b"key"})
        hub.create("dataset", "lab/results", files={"results/xpcr/s1.json": b"{}"})
        private = hub.create("dataset", "lab/private", private=True, files={
            "private/queue/s1.json": b"{}", "private/per_item/s1.parquet": b"leaky", "private/contacts/s1.json": b"{}",
            "private/bootstrap/s1.npy": b"npy"})
        private.readers.add("space-bot")

        def change():  # a new release: one shard renamed
            hub.commit(repo, {"README.md": b"---\n---\n", "items/test-1.parquet": b"new"}, "v2", None)

        seen = run(hub, tmp_path, "space", change)
    assert seen["steps"] == [["xpcr"], ["xpcr"], []]  # changed, changed, unchanged
    assert seen["files"] == ["datasets/xpcr/README.md", "datasets/xpcr/items/test-1.parquet",
                             "store/private/bootstrap/s1.npy", "store/private/queue/s1.json",
                             "store/results/xpcr/s1.json"]  # old shard gone; no per-item scores, no contacts


def test_a_worker_token_also_gets_the_answers_and_a_space_token_cannot(tmp_path):
    with FakeHub(tokens={"space": "space-bot", "worker": "scorer"}, orgs={"lab": {"scorer"}}) as hub:
        hub.create("dataset", "lab/xpcr", files={"README.md": b"---\n---\n"})
        hub.create("dataset", "lab/xpcr-answers", private=True, files={"README.md": b"key card"})
        hub.create("dataset", "lab/results")
        hub.create("dataset", "lab/private", private=True).readers.add("space-bot")
        worker = run(hub, tmp_path / "worker", "worker", lambda: None, answers="answers")
        space = run(hub, tmp_path / "space", "space", lambda: None, answers="answers", wait=False)
    assert worker["steps"][0] == ["xpcr"] and "datasets/xpcr-answers/README.md" in worker["files"]
    # asked for a key it may not read, the Space's token gets "not found": that benchmark is skipped entirely
    assert space["steps"] == [[], [], []] and not any("datasets/" in f for f in space["files"])
