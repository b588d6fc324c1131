"""docs/layout.md's "Adding a benchmark", proved: a copy of the project plus one new folder under
`benchmarks/` is built, validated, scored and shown by the Space, and no other file changes."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time

import pytest
from gradio_client import Client, handle_file

from conftest import ROOT
from space_server import SpaceServer

TOY = ROOT / "tests" / "benchmarks" / "toy"


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A copy of the tracked project with the toy folder dropped in as `benchmarks/toy/`."""
    root = tmp_path_factory.mktemp("project")
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for rel in tracked:
        if (ROOT / rel).is_file() and not rel.startswith("tests/"):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, root / rel)
    before = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    shutil.copytree(TOY, root / "benchmarks" / "toy", ignore=shutil.ignore_patterns("__pycache__"))
    return root, before


def run(root, *args):
    done = subprocess.run([sys.executable, *args], cwd=root, capture_output=True, text=True, timeout=300,
                          env={"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"})
    return done.returncode, done.stdout + done.stderr


def test_a_new_folder_is_built_scored_and_shown(project, tmp_path):
    root, before = project
    code, out = run(root, "-m", "dataset_builders", "build", "toy", "--source", "benchmarks/toy/sample",
                    "--out", "hub", "--quiet")
    assert code == 0, out
    assert "built" in out and "4 rows" in out
    code, out = run(root, "-m", "leaderboard", "benchmarks")
    assert code == 0 and "toy: Toy; primary metric accuracy" in out, out

    preds = root / "toy_preds.jsonl"  # t1 right, t2 wrong, t3 right, t4 missing -> 2/4
    preds.write_text("\n".join(json.dumps(r) for r in [{"id": "t1", "answer": "B"}, {"id": "t2", "answer": "A"},
                                                       {"id": "t3", "answer": "A"}]) + "\n")
    code, out = run(root, "-m", "leaderboard", "validate", "toy", str(preds), "--data", "hub/toy")
    assert code == 0, out
    code, out = run(root, "-m", "leaderboard", "score", "toy", str(preds), "--data", "hub/toy", "--json", "r.json",
                    "--public", "--quiet")
    assert code == 0, out
    record = json.loads((root / "r.json").read_text())
    assert record["metrics"] == {"accuracy": 50.0} and record["n_items"] == 4 and record["n_answered"] == 3
    # cells of 2 items are below the public minimum: n only (in what the Space would publish: --public)
    assert record["strata"]["topic"]["cardiology"] == {
        "n": 2, "metrics": {}, "suppressed": True,
        "reason": "computed from fewer than 5 items; kept private so individual answers cannot be read back"}

    server = SpaceServer(root / "hub", tmp_path / "store", tmp_path / "space.log", root=root)
    try:
        client = Client(server.url, verbose=False)
        message, report, _, _ = client.predict(
            "toy", "Toy-Model", "https://example.org/m", "Lab", "open", "general", "no", "multimodal", 1, "none",
            "x@example.org", handle_file(str(preds)), None, api_name="/submit")
        assert message.startswith("**Accepted.**"), message
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            status, _ = client.predict(api_name="/status")
            if {row[2]: row[3] for row in status["data"]}.get("Toy-Model") == "finished":
                break
            time.sleep(0.5)
        result = client.predict("any", "any", "any", "any", "any", ["paper", "submission", "human"], False, "",
                                ["accuracy"], api_name="/table_toy")
        table = result[0].get("value", result[0])  # the table update carries the rows in "value"
        rows = [dict(zip(table["headers"], row)) for row in table["data"]]
        assert [(r["Model"], r["Accuracy"]) for r in rows] == [("Toy-Model", 50.0)]
    finally:
        server.stop()
    after = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()
                   if not str(p.relative_to(root)).startswith(("benchmarks/toy/", "hub/", ".cache/"))
                   and "__pycache__" not in str(p) and p.name not in ("toy_preds.jsonl", "r.json"))
    assert after == [b for b in before if "__pycache__" not in b]  # no other file was touched or added
