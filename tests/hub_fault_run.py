"""Scoring workers on a fake Hub behind the fault proxy, for tests/test_hub_workers_faults.py and
bench/hub_faults.py: a queue of byte-different X-PCR sample uploads as the Space leaves them, and N workers
running the real loop (`worker.serve`) with the real Service against the held-out answer key, in threads."""
from __future__ import annotations

import json
import sys
import threading
import time
import traceback
from pathlib import Path

from huggingface_hub import HfApi

from conftest import ROOT
from leaderboard.privacy.disclosure import Policy
from leaderboard.remote.hub_calls import Retry
from leaderboard.operations.hub_ledger import HubLedger
from leaderboard.operations.hub_queue import HubQueue
from leaderboard.operations.service import Service
from leaderboard.operations.store import LocalStore
from leaderboard.operations.worker import serve
from leaderboard.scoring.services import context_factory

EXAMPLE = ROOT / "submissions" / "xpcr" / "example_predictions.jsonl"
ACCOUNTS = ("alice", "bob", "carol")
TOKENS = {"a": "scorer-a", "b": "scorer-b", "c": "scorer-c"}


def seeded_queue(n: int) -> dict[str, bytes]:
    """n byte-different uploads (each leaves out one line) and their `queued` records, accounts in turn."""
    lines = EXAMPLE.read_text().splitlines()
    files = {}
    for i in range(n):
        sub = f"2026-s{i:02d}"
        files[f"private/uploads/{sub}/predictions.jsonl"] = ("\n".join(lines[:i] + lines[i + 1:]) + "\n").encode()
        files[f"private/queue/{sub}.json"] = json.dumps({
            "id": sub, "benchmark": "xpcr", "user": ACCOUNTS[i % len(ACCOUNTS)], "state": "queued", "progress": 0.0,
            "created_at": f"2026-01-01T00:00:{i:02d}+00:00", "updated_at": f"2026-01-01T00:00:{i:02d}+00:00",
            "file_name": "predictions.jsonl", "model": {"name": f"Model-{i:02d}"}, "contamination": ""}).encode()
    return files


def writes(repo, path: str) -> int:
    """Commits of a fake Hub repo that wrote `path` (it appeared or its bytes changed)."""
    count, before = 0, None
    for commit in repo.commits:
        now = commit.files.get(path)
        count += now is not None and now != before
        before = now
    return count


def drained(private) -> bool:
    files = private.head.files
    return not any(p.startswith("private/outbox/") for p in files) and all(
        json.loads(d)["state"] == "finished" for p, d in files.items() if p.startswith("private/queue/"))


def run_workers(endpoint: str, private, data: Path, scratch: Path, lease: float, deadline: float,
                budget: int = 2, retry: Retry | None = None) -> tuple[bool, float, list[str]]:
    """Three workers until every record of `private` (the fake Hub's repo) is finished and published, or
    `deadline` seconds pass; returns (drained, seconds, the workers' log lines). The workers are then stopped
    and joined; a worker thread still alive after that is an error."""
    retry = retry or Retry(attempts=8, base=0.02, cap=0.5)
    stop, said, threads = threading.Event(), [], []
    for token, name in (("a", "A"), ("b", "B"), ("c", "C")):
        api = HfApi(endpoint=endpoint, token=token)
        store = LocalStore(scratch / name, policy=Policy(min_cell=1, secret=b"one-secret", breakdowns_per_month=budget),
                           ledger=HubLedger(api, "lab/private", retry=retry))
        queue = HubQueue("lab/private", "lab/results", name, lease, api=api, retry=retry)
        # the production worker's picklable context factory (worker.py): scoring runs in the persistent child, not
        # in a fork of this many-threaded process (a fork taken while another thread holds a lock hung a worker)
        service = Service(store=store, data_dirs={"xpcr": data}, context_factory=context_factory())
        threads.append(threading.Thread(target=serve, args=(queue, service),
                                        kwargs={"poll": 0.2, "stop": stop, "say": said.append}, daemon=True))
    start = time.monotonic()
    for thread in threads:
        thread.start()
    done = False
    try:
        while time.monotonic() - start < deadline and not done:
            time.sleep(0.1)
            done = drained(private)
        elapsed = time.monotonic() - start
    finally:
        stop.set()
        for thread in threads:
            thread.join(180)  # a worker finishing a scoring under a loaded 2-core machine; a hang still fails
    alive = [t for t in threads if t.is_alive()]
    if alive:  # say where each one is stuck, so a hang can be read from the CI log
        frames = sys._current_frames()
        where = "\n\n".join("".join(traceback.format_stack(frames[t.ident])) for t in alive if t.ident in frames)
        raise RuntimeError(f"a worker did not stop when asked; last log lines: {said[-5:]}\n{where}")
    return done, elapsed, said
