"""The submission queue on the Hub, shared by any number of scoring workers (hidden keys, the EvalAI way).

The Space writes `private/queue/<id>.json` (state `queued`) and the upload into the private dataset repo.
A worker claims a submission with a commit to that repo made with `parent_commit=<the head it read>`:
the Hub refuses it (412) when anyone committed since, so of two workers racing for the same record one
wins and the other re-reads and picks again. No lock of our own, no lost or doubled submission.

Record states: `queued -> scoring (worker X) -> finished | failed` (or `waiting for judge`, claimed again
after LEADERBOARD_JUDGE_RETRY seconds by a worker with a judge). A claim writes `worker`, `attempt` and
`lease_until`; the worker renews the lease while it scores. A record in `scoring` whose lease ran out
(its worker died) is claimable again. Finishing is also a parent-checked commit that first re-checks the
record is still this worker's claim, so a worker that lost its lease never overwrites the new owner's state.
"""
from __future__ import annotations

import json
import logging
import random
import socket
import os
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

log = logging.getLogger("leaderboard.hub_queue")

QUEUE_DIR = "private/queue"
MAX_RACES = 200  # re-reads after a lost race before giving up for this pass


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def default_worker_id() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


class LostClaim(Exception):
    """Another worker holds this submission now (our lease ran out); our work on it is dropped."""


@dataclass
class Snapshot:
    sha: str
    records: dict[str, dict]  # submission id -> queue record


class HubQueue:
    def __init__(self, private_repo: str, results_repo: str, worker_id: str, lease_seconds: float,
                 cache_dir: Path, token: str | None = None, api=None, retry_judged_after: float | None = None):
        """`retry_judged_after`: with a judge configured, re-claim `waiting for judge` records this many
        seconds after their last update (None: leave them waiting)."""
        from huggingface_hub import HfApi

        self.retry_judged_after = retry_judged_after

        self.private_repo, self.results_repo = private_repo, results_repo
        self.worker_id, self.lease_seconds = worker_id, lease_seconds
        self.cache_dir, self.token = Path(cache_dir), token
        self.api = api or HfApi(token=token)

    # ------------------------------------------------------------------ reading
    def snapshot(self) -> Snapshot:
        """Every queue record as of one commit (the commit a claim will name as its parent)."""
        from huggingface_hub import hf_hub_download

        info = self.api.dataset_info(self.private_repo)
        records = {}
        for sibling in info.siblings or []:
            path = sibling.rfilename
            if path.startswith(QUEUE_DIR + "/") and path.endswith(".json"):
                local = hf_hub_download(self.private_repo, path, repo_type="dataset", revision=info.sha,
                                        cache_dir=self.cache_dir, token=self.api.token, endpoint=self.api.endpoint)
                record = json.loads(Path(local).read_text(encoding="utf-8"))
                records[record["id"]] = record
        return Snapshot(info.sha, records)

    def download_upload(self, record: dict, target: Path) -> Path:
        from huggingface_hub import hf_hub_download

        local = hf_hub_download(self.private_repo, f"private/uploads/{record['id']}/{record['file_name']}",
                                repo_type="dataset", cache_dir=self.cache_dir, token=self.api.token,
                                endpoint=self.api.endpoint)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(Path(local).read_bytes())
        return target

    # ------------------------------------------------------------------ writing
    def _commit(self, files: dict[str, bytes], message: str, parent: str | None, repo: str | None = None) -> bool:
        """True when committed; False when the head moved since `parent` (412: re-read and retry)."""
        from huggingface_hub import CommitOperationAdd
        from huggingface_hub.errors import HfHubHTTPError

        operations = [CommitOperationAdd(path, data) for path, data in files.items()]
        try:
            self.api.create_commit(repo or self.private_repo, operations, commit_message=message, repo_type="dataset",
                                   parent_commit=parent)
            return True
        except HfHubHTTPError as exc:
            if exc.response is not None and exc.response.status_code == 412:
                time.sleep(random.uniform(0.01, 0.2))  # let the other writer finish before re-reading
                return False
            raise

    @staticmethod
    def _encode(record: dict) -> bytes:
        return (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode("utf-8")

    def _path(self, sub_id: str) -> str:
        return f"{QUEUE_DIR}/{sub_id}.json"

    def claimable(self, record: dict, at: float) -> bool:
        if record.get("state") == "queued":
            return True
        if record.get("state") == "waiting for judge" and self.retry_judged_after is not None:
            updated = datetime.fromisoformat(record.get("updated_at") or "1970-01-01T00:00:00+00:00").timestamp()
            return updated + self.retry_judged_after < at
        return record.get("state") == "scoring" and float(record.get("lease_until") or 0) < at

    def claim(self, benchmarks: list[str]) -> dict | None:
        """The oldest claimable submission of these benchmarks, now ours; None when there is none."""
        for _ in range(MAX_RACES):
            snap = self.snapshot()
            at = time.time()
            candidates = sorted((r for r in snap.records.values()
                                 if r.get("benchmark") in benchmarks and self.claimable(r, at)),
                                key=lambda r: (r.get("created_at") or "", r["id"]))
            if not candidates:
                return None
            record = candidates[0]
            previous = record.get("worker") if record.get("state") == "scoring" else None
            claimed = {**record, "state": "scoring", "worker": self.worker_id, "attempt": int(record.get("attempt") or 0) + 1,
                       "lease_until": at + self.lease_seconds, "updated_at": now_iso(), "progress": 0.05,
                       "message": f"scoring (worker {self.worker_id})"
                                  + (f"; re-queued after worker {previous} went silent" if previous else "")}
            if self._commit({self._path(record["id"]): self._encode(claimed)},
                            f"claim {record['id']} ({self.worker_id})", parent=snap.sha):
                return claimed
        log.warning("gave up claiming after %d lost races; will retry next pass", MAX_RACES)
        return None

    def _still_mine(self, snap: Snapshot, claimed: dict) -> dict:
        current = snap.records.get(claimed["id"])
        if not current or current.get("state") != "scoring" or current.get("worker") != self.worker_id \
                or current.get("attempt") != claimed["attempt"]:
            raise LostClaim(claimed["id"])
        return current

    def renew(self, claimed: dict) -> None:
        """Push the lease forward (raises LostClaim if someone else took the submission meanwhile)."""
        for _ in range(MAX_RACES):
            snap = self.snapshot()
            current = self._still_mine(snap, claimed)
            renewed = {**current, "lease_until": time.time() + self.lease_seconds, "updated_at": now_iso()}
            if self._commit({self._path(claimed["id"]): self._encode(renewed)}, f"lease {claimed['id']}", snap.sha):
                return

    def complete(self, claimed: dict, final: dict, public_files: dict[str, bytes],
                 private_files: dict[str, bytes]) -> None:
        """Publish the result and close the record, once. Public result first: its path is fixed per
        submission, so a crash between the two commits leaves a re-queued record whose re-scoring rewrites
        the same file, never a second row."""
        self._still_mine(self.snapshot(), claimed)
        if public_files:
            self._commit(public_files, f"result {claimed['id']}", parent=None, repo=self.results_repo)
        for _ in range(MAX_RACES):
            snap = self.snapshot()
            current = self._still_mine(snap, claimed)
            closed = {**current, **{k: final[k] for k in ("state", "message", "progress") if k in final},
                      "updated_at": now_iso(), "lease_until": None, "finished_by": self.worker_id}
            files = {**private_files, self._path(claimed["id"]): self._encode(closed)}
            if self._commit(files, f"{closed['state']} {claimed['id']} ({self.worker_id})", snap.sha):
                return
        raise LostClaim(claimed["id"])


class LeaseKeeper:
    """Renews a claim every third of the lease while the work runs (a background thread)."""

    def __init__(self, queue: HubQueue, claimed: dict):
        self.queue, self.claimed = queue, claimed
        self.lost = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lease", daemon=True)

    def __enter__(self) -> "LeaseKeeper":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def _run(self) -> None:
        while not self._stop.wait(self.queue.lease_seconds / 3):
            try:
                self.queue.renew(self.claimed)
            except LostClaim:
                self.lost = True
                return
            except Exception as exc:  # a Hub hiccup: the next renewal tries again, well within the lease
                log.warning("lease renewal failed (%s)", type(exc).__name__)


def score_claimed(queue: HubQueue, service, claimed: dict) -> str:
    """Score one claimed submission with the local Service (its store is this worker's scratch folder) and
    push the outcome; returns the final state."""
    store = service.store
    sub_id = claimed["id"]
    with LeaseKeeper(queue, claimed) as keeper:
        queue.download_upload(claimed, store.private("uploads", sub_id, claimed["file_name"]))
        store.write_json(service.queue_path(sub_id), claimed)
        service.score_one(sub_id)  # the same scoring path as the Space's own worker
        final = store.read_json(service.queue_path(sub_id)) or {"state": "failed", "message": "no outcome recorded"}
    if keeper.lost:
        raise LostClaim(sub_id)
    public, private = {}, {}
    result = store.result_path(claimed["benchmark"], sub_id)
    if final.get("state") != "failed" and result.is_file():
        public[result.relative_to(store.root).as_posix()] = result.read_bytes()
    for part, suffix in (("per_item", ".parquet"), ("bootstrap", ".npy")):
        path = store.private(part, sub_id + suffix)
        if path.is_file():
            private[path.relative_to(store.root).as_posix()] = path.read_bytes()
    queue.complete(claimed, final, public, private)
    return final["state"]
