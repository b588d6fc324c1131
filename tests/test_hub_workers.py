"""Hidden keys, the EvalAI way: the Space (no answer key) validates and queues on a fake Hub; two workers
holding the `-answers` repo claim submissions through the Hub's parent-commit check, score and publish.
One worker is SIGKILLed mid-scoring: its lease runs out, the other takes the submission over. Every
submission is finished exactly once, and the answer key never reaches anything the Space can read."""
import hashlib
import json
import shutil
import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest
from gradio_client import Client

from conftest import ROOT
from dataset_builders.stage import build
from fake_hub_server import FakeHub
from fake_openid_server import FakeOpenID
from hub_space import HubSpace, assemble, hub_env
from leaderboard.scoring import registry
from leaderboard.publishing.result_shards import repo_records

EXAMPLE = ROOT / "submissions" / "xpcr" / "example_predictions.jsonl"
N = 20
LEASE = "3"


def worker(hub, name, token, tmp):
    env = hub_env(hub.url, token, tmp / f"home-{name}")
    log = (tmp / f"worker-{name}.log").open("w")
    return subprocess.Popen([sys.executable, "-m", "leaderboard", "worker", "--hub-results-repo", "lab/results",
                             "--hub-private-repo", "lab/private", "--datasets", "lab/xpcr", "--worker-id", name,
                             "--lease", LEASE, "--poll", "0.5", "--store", str(tmp / f"worker-{name}")],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)


def queue(hub):
    files = hub.repo("dataset", "lab/private").head.files
    return {k.split("/")[-1][:-5]: json.loads(v) for k, v in files.items() if k.startswith("private/queue/")}


def wait_for(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("workers")
    build(registry.adapter("xpcr"), registry.get("xpcr").sample_dir, tmp / "built", hold_out_answers=True,
          sample=True, progress=False)
    tokens = {"space-token": "space-bot", "a-token": "scorer-a", "b-token": "scorer-b"}
    with FakeHub(tokens=tokens, orgs={"lab": {"scorer-a", "scorer-b"}}) as hub, FakeOpenID() as openid:
        for folder, repo_id, private in ((tmp / "built" / "xpcr", "lab/xpcr", False),
                                         (tmp / "built" / "xpcr-answers", "lab/xpcr-answers", True)):
            hub.create("dataset", repo_id, private=private,
                       files={p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()})
        for repo_id, private in (("lab/results", False), ("lab/private", True)):
            repo = hub.create("dataset", repo_id, private=private)
            repo.writers.add("space-bot")
            repo.readers.add("space-bot")
        folder = assemble(tmp / "space", "--datasets", "lab/xpcr", "--results-repo", "lab/results",
                          "--private-repo", "lab/private")
        space = HubSpace(folder, hub.url, openid, "space-token", {
            "LEADERBOARD_DATASETS": "lab/xpcr", "LEADERBOARD_HUB_RESULTS_REPO": "lab/results",
            "LEADERBOARD_HUB_PRIVATE_REPO": "lab/private", "LEADERBOARD_WORKER": "external",
            "LEADERBOARD_STORE": str(tmp / "store"), "LEADERBOARD_REFRESH": "1", "LEADERBOARD_QUOTA": "100"},
            tmp / "home", tmp / "space.log")
        yield hub, space, tmp
        space.stop()


def variants(tmp):
    """N byte-different prediction files (each leaves out one line), as N researchers would submit."""
    lines = EXAMPLE.read_text().splitlines()
    out = []
    for i in range(N):
        path = tmp / "uploads" / f"v{i}.jsonl"
        path.parent.mkdir(exist_ok=True)
        path.write_text("\n".join(lines[:i] + lines[i + 1:]) + "\n")
        out.append(path)
    return out


def test_two_workers_one_killed_every_submission_finished_exactly_once_key_never_on_the_space(setup):
    hub, space, tmp = setup
    client = Client(space.url, headers={"Cookie": space.sign_in("alice")}, verbose=False)
    from gradio_client import handle_file

    for i, path in enumerate(variants(tmp)):  # through the Space, which has no answer key
        message, *_ = client.predict("xpcr", f"Model-{i:02d}", "", "", "open", "general", "no", "multimodal", 7, "",
                                     "", handle_file(str(path)), None, api_name="/submit")
        assert message.startswith("**Accepted.** Queued as"), message
    assert len(queue(hub)) == N and {r["state"] for r in queue(hub).values()} == {"queued"}

    a = worker(hub, "A", "a-token", tmp)
    b = None
    try:
        wait_for(lambda: sum(r.get("finished_by") == "A" for r in queue(hub).values()) >= 2, 240, "A to score two")
        hub.stall_users.add("scorer-a")  # A's next download hangs: it is frozen holding a claim
        b = worker(hub, "B", "b-token", tmp)
        frozen = wait_for(lambda: [i for i, r in queue(hub).items() if r["state"] == "scoring" and r["worker"] == "A"
                                   and any(i in path for user, path in hub.stalled)], 120, "A frozen")[0]
        a.send_signal(signal.SIGKILL)
        a.wait(10)
        # finished, and published: the result leaves the outbox right after the finishing commit
        wait_for(lambda: all(r["state"] == "finished" for r in queue(hub).values())
                 and not any(p.startswith("private/outbox/") for p in hub.repo("dataset", "lab/private").head.files),
                 300, "all finished and published")
    finally:
        for proc in (a, b):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait(10)

    records = queue(hub)
    taken_over = records[frozen]
    assert taken_over["attempt"] == 2 and taken_over["finished_by"] == "B"
    path = f"private/queue/{frozen}.json"
    seen = [json.loads(c.files[path]).get("message") for c in hub.repo("dataset", "lab/private").commits
            if path in c.files]
    assert "scoring (worker A)" in seen  # what the Space showed while A held it...
    assert "scoring (worker B); re-queued after worker A went silent" in seen  # ...and after the lease ran out
    # exactly once: over the private repo's whole history, each record turns `finished` in one commit only
    private = hub.repo("dataset", "lab/private")
    turned = {}
    previous: dict[str, str] = {}
    for commit in private.commits:
        for path, data in commit.files.items():
            if path.startswith("private/queue/"):
                state = json.loads(data)["state"]
                if state == "finished" and previous.get(path) != "finished":
                    turned[path] = turned.get(path, 0) + 1
                previous[path] = state
    assert len(turned) == N and set(turned.values()) == {1}
    results = repo_records(hub.repo("dataset", "lab/results").head.files)
    assert sorted(r["submission_id"] for r in results.values()) == sorted(records)  # one row each, none lost
    assert {r["model"]["name"] for r in results.values()} == {f"Model-{i:02d}" for i in range(N)}
    both = {r["finished_by"] for r in records.values()}
    assert both == {"A", "B"}

    # the Space shows the workers' outcome (its store refreshes from the Hub without a restart)
    def shown():
        status, _ = client.predict(api_name="/status")
        return sorted(row[3] for row in status["data"]) == ["finished"] * N
    wait_for(shown, 60, "the Space to show every submission finished")

    # the answer key never left the workers: not requested with the Space's token, not in any file it can read
    assert not any(q.user == "space-bot" and "xpcr-answers" in q.path for q in hub.requests)
    key_files = hub.repo("dataset", "lab/xpcr-answers").head.files
    key_digests = {hashlib.sha256(d).hexdigest() for p, d in key_files.items() if p.endswith(".parquet")}
    held = set(registry.scorer("xpcr").answer_columns) | {"disease", "disease_category"}
    readable = [p for root in (tmp / "space", tmp / "store", tmp / "home") for p in root.rglob("*") if p.is_file()]
    assert readable and any(p.suffix == ".parquet" for p in readable)  # the public data is there
    for path in readable:
        assert "-answers" not in path.as_posix() and "/per_item/" not in path.as_posix(), path
        assert hashlib.sha256(path.read_bytes()).hexdigest() not in key_digests, path
        if path.suffix == ".parquet":
            assert not held & set(pq.read_schema(path).names), path
