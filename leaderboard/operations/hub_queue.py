"""The submission queue on the Hub, shared by any number of scoring workers (hidden keys, the EvalAI way).

The Space writes the upload, then `private/queue/<id>.json` (state `queued`), into the private dataset repo.
A worker claims a submission with a commit made with `parent_commit=<the head it read>`: the Hub refuses it
(412) when anyone committed since, so of two workers racing for the same record one wins and the other
re-reads and picks again. No lock of our own, no lost or doubled submission. Every Hub call goes through
hub_calls (retries with backoff on 5xx/429/timeouts; a commit whose answer was lost is re-read, and each
step below recognises its own applied change by the claim's `instance` and `attempt`).

Record states: `queued -> scoring (worker X) -> finished | failed` (or `waiting for judge`, claimed again
after LEADERBOARD_JUDGE_RETRY seconds by a worker with a judge). A claim writes `worker`, `instance` (this
process), `attempt` and `lease_until`; the worker renews the lease while it scores. A record in `scoring`
whose lease ran out (its worker died) is claimable by any live worker; after `max_takeovers` such take-overs
it is closed `failed` (not counted against the quota) instead of being tried again.

Finishing is ONE commit conditional on the claim: the closed record, the private per-item files and an
outbox entry holding the exact public result bytes. Only the claim's holder can make it, so a worker that
lost its lease can never publish. The public result (another repo, so not the same commit) is then copied
from the outbox by whoever sees it first (the finisher, or any worker's next pass after a crash), written
only when the results repo does not already hold exactly those bytes, and the outbox entry removed.
"""
from __future__ import annotations

import base64
import hashlib
import json
import logging
import socket
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from ..remote.hub_calls import (DEFAULT_RETRY, HubMissing, HubUnavailable, Retry, commit, encode, git_blob_oid,  # noqa: F401
                                 head_files, read_file)  # git_blob_oid: tests import it from here

log = logging.getLogger("leaderboard.operations.hub_queue")

QUEUE_DIR = "private/queue"
OUTBOX_DIR = "private/outbox"  # finished results waiting to be copied to the public repo
MAX_RACES = 200  # re-reads after a lost race before giving up for this pass
NOT_READY_LIMIT = 5  # claims that found no upload (404) before the submission is closed `failed`


def iso(at: float) -> str:
    return datetime.fromtimestamp(at, timezone.utc).isoformat(timespec="seconds")


def default_worker_id(*configuration: str) -> str:
    """Stable per host and configuration (repos, datasets, store): a restarted worker keeps its name."""
    digest = hashlib.sha256("\0".join(str(c) for c in configuration).encode("utf-8")).hexdigest()[:8]
    return f"{socket.gethostname()}-{digest}"


class LostClaim(Exception):
    """Another worker holds this submission now (our lease ran out); our work on it is dropped."""


class NotReady(Exception):
    """The submission's upload is not on the Hub (yet)."""


@dataclass
class Snapshot:
    sha: str
    records: dict[str, dict]  # submission id -> queue record
    files: dict[str, str] = field(default_factory=dict)  # every path of the repo -> blob id
    unread: set[str] = field(default_factory=set)  # ids of records listed but not readable this time

    def outbox(self) -> list[str]:
        return sorted(p for p in self.files if p.startswith(OUTBOX_DIR + "/") and p.endswith(".json"))


class HubQueue:
    def __init__(self, private_repo: str, results_repo: str, worker_id: str, lease_seconds: float,
                 cache_dir: Path | None = None, token: str | None = None, api=None,
                 retry_judged_after: float | None = None, clock: Callable[[], float] = time.time,
                 retry: Retry = DEFAULT_RETRY, max_takeovers: int = 2):
        """`retry_judged_after`: with a judge configured, re-claim `waiting for judge` records this many
        seconds after their last update (None: leave them waiting). `clock` gives the time leases are
        measured in (tests pass a fake one); `max_takeovers`: lease expiries before a submission fails."""
        from huggingface_hub import HfApi

        self.retry_judged_after = retry_judged_after
        self.private_repo, self.results_repo = private_repo, results_repo
        self.worker_id, self.lease_seconds = worker_id, lease_seconds
        self.instance = uuid.uuid4().hex[:12]  # this process: two workers sharing an id stay apart
        self.clock, self.retry, self.max_takeovers = clock, retry, max_takeovers
        self.api = api or HfApi(token=token)
        self._blobs: dict[str, dict] = {}  # blob id -> parsed record: unchanged records are not read again

    # ------------------------------------------------------------------ reading
    def snapshot(self) -> Snapshot:
        """Every queue record as of one commit (the commit a claim will name as its parent): one listing with
        blob ids, then only the records whose blob changed since the last read. A record that cannot be read
        now is left out of this pass, not fatal."""
        sha, files = head_files(self.api, self.private_repo, self.retry)
        records, blobs, unread = {}, {}, set()
        for path, oid in files.items():
            if not (path.startswith(QUEUE_DIR + "/") and path.endswith(".json")):
                continue
            record = self._blobs.get(oid) if oid else None
            if record is None:
                try:
                    data = read_file(self.api, self.private_repo, path, sha, self.retry)
                    record = json.loads(data)
                except (HubMissing, HubUnavailable, ValueError) as exc:
                    log.info("queue record %s skipped this pass (%s)", path, type(exc).__name__)
                    unread.add(path[len(QUEUE_DIR) + 1:-len(".json")])
                    continue
                if not isinstance(record, dict) or "id" not in record:
                    continue
                if not oid or git_blob_oid(data) != oid:
                    records[record["id"]] = record
                    continue
            blobs[oid] = record
            records[record["id"]] = record
        self._blobs = blobs  # only the records still on the Hub stay cached
        return Snapshot(sha, records, files, unread)

    def download_upload(self, record: dict, target: Path) -> Path:
        try:
            data = read_file(self.api, self.private_repo, f"private/uploads/{record['id']}/{record['file_name']}",
                             "main", self.retry)
        except HubMissing:
            raise NotReady(record["id"]) from None
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        return target

    # ------------------------------------------------------------------ writing
    def _commit(self, files: dict[str, bytes], message: str, parent: str, deletes: tuple[str, ...] = (),
                repo: str | None = None) -> bool:
        return commit(self.api, repo or self.private_repo, message, parent, files, deletes, self.retry)

    _encode = staticmethod(encode)

    def _path(self, sub_id: str) -> str:
        return f"{QUEUE_DIR}/{sub_id}.json"

    def claimable(self, record: dict, at: float) -> bool:
        if record.get("state") == "queued":
            return True
        if record.get("state") == "waiting for judge" and self.retry_judged_after is not None:
            updated = datetime.fromisoformat(record.get("updated_at") or "1970-01-01T00:00:00+00:00").timestamp()
            return updated + self.retry_judged_after < at
        return record.get("state") == "scoring" and float(record.get("lease_until") or 0) < at

    def _ours(self, record: dict | None, attempt: int) -> bool:
        return bool(record) and record.get("state") == "scoring" and record.get("worker") == self.worker_id \
            and record.get("instance") == self.instance and record.get("attempt") == attempt

    def claim(self, benchmarks: list[str]) -> dict | None:
        """The oldest claimable submission of these benchmarks, now ours; None when there is none. Results a
        crashed finisher left in the outbox are published first."""
        tried: dict[str, int] = {}  # sub id -> attempt we wrote whose answer we never got
        for _ in range(MAX_RACES):
            snap = self.snapshot()
            if snap.unread & set(tried):
                continue  # cannot tell yet whether an unanswered claim landed: read again
            for sub_id, attempt in tried.items():  # a lost acknowledgement: the claim may have landed
                if self._ours(snap.records.get(sub_id), attempt):
                    return snap.records[sub_id]
            self.publish_outbox(snap)
            at = self.clock()
            candidates = sorted((r for r in snap.records.values()
                                 if r.get("benchmark") in benchmarks and self.claimable(r, at)),
                                key=lambda r: (r.get("created_at") or "", r["id"]))
            if not candidates:
                return None
            record = candidates[0]
            expired = record.get("state") == "scoring"
            takeovers = int(record.get("takeovers") or 0) + expired
            if takeovers > self.max_takeovers:
                self._close_failed(snap, record, f"scoring did not complete in {takeovers} attempts (the worker "
                                                 "stopped each time); it does not count against your quota")
                continue
            claimed = {**record, "state": "scoring", "worker": self.worker_id, "instance": self.instance,
                       "attempt": int(record.get("attempt") or 0) + 1, "takeovers": takeovers,
                       "lease_until": at + self.lease_seconds, "updated_at": iso(at), "progress": 0.05,
                       "message": f"scoring (worker {self.worker_id})"
                                  + (f"; re-queued after worker {record.get('worker')} went silent" if expired else "")}
            if self._commit({self._path(record["id"]): self._encode(claimed)},
                            f"claim {record['id']} ({self.worker_id})", parent=snap.sha):
                return claimed
            tried[record["id"]] = claimed["attempt"]
        log.warning("gave up claiming after %d lost races; will retry next pass", MAX_RACES)
        return None

    def _close_failed(self, snap: Snapshot, record: dict, message: str) -> None:
        closed = {**record, "state": "failed", "message": message, "lease_until": None, "ranked": False,
                  "updated_at": iso(self.clock()), "progress": 1.0}
        self._commit({self._path(record["id"]): self._encode(closed)}, f"failed {record['id']}", snap.sha)

    def _snapshot_with(self, sub_id: str) -> Snapshot:
        """A snapshot in which this record could be read (a failed read is not a lost claim)."""
        for _ in range(MAX_RACES):
            snap = self.snapshot()
            if sub_id not in snap.unread:
                return snap
        raise HubUnavailable(f"queue record {sub_id} unreadable")

    def _still_mine(self, snap: Snapshot, claimed: dict) -> dict:
        current = snap.records.get(claimed["id"])
        if not self._ours(current, claimed["attempt"]):
            raise LostClaim(claimed["id"])
        return current

    def renew(self, claimed: dict) -> None:
        """Push the lease forward (raises LostClaim if someone else took the submission meanwhile)."""
        for _ in range(MAX_RACES):
            snap = self._snapshot_with(claimed["id"])
            current = self._still_mine(snap, claimed)
            at = self.clock()
            renewed = {**current, "lease_until": at + self.lease_seconds, "updated_at": iso(at)}
            if self._commit({self._path(claimed["id"]): self._encode(renewed)}, f"lease {claimed['id']}", snap.sha):
                return

    def release(self, claimed: dict, reason: str, not_ready: bool = False) -> None:
        """Give a claim back (`queued`, with the reason shown); after NOT_READY_LIMIT claims that found no
        upload the submission is closed `failed` instead (quota refunded: failed runs do not count)."""
        for _ in range(MAX_RACES):
            snap = self._snapshot_with(claimed["id"])
            current = snap.records.get(claimed["id"])
            if not self._ours(current, claimed["attempt"]):
                return  # already released (a lost acknowledgement) or taken over
            misses = int(current.get("not_ready") or 0) + not_ready
            if misses >= NOT_READY_LIMIT:
                self._close_failed(snap, current, "the uploaded file never reached the Hub; it does not count "
                                                  "against your quota, please submit again")
                continue
            back = {**current, "state": "queued", "message": f"waiting for a scoring worker ({reason})",
                    "lease_until": None, "not_ready": misses, "updated_at": iso(self.clock()), "progress": 0.0}
            self._commit({self._path(claimed["id"]): self._encode(back)}, f"release {claimed['id']}", snap.sha)

    def complete(self, claimed: dict, final: dict, public_files: dict[str, bytes],
                 private_files: dict[str, bytes]) -> None:
        """Close the record, store the private files and put the public result in the outbox: one commit,
        made only while the claim is ours. Then publish the outbox entry."""
        sub_id = claimed["id"]
        outbox = f"{OUTBOX_DIR}/{sub_id}.json"
        entry = {"repo": self.results_repo, "files": {p: base64.b64encode(d).decode("ascii")
                                                       for p, d in public_files.items()}}
        sent = False
        for _ in range(MAX_RACES):
            snap = self._snapshot_with(sub_id)
            current = snap.records.get(sub_id)
            if sent and current and current.get("finished_instance") == self.instance \
                    and current.get("attempt") == claimed["attempt"]:
                break  # our commit landed; its acknowledgement was lost
            current = self._still_mine(snap, claimed)
            closed = {**current, **{k: final[k] for k in ("state", "message", "progress", "ranked") if k in final},
                      "updated_at": iso(self.clock()), "lease_until": None, "finished_by": self.worker_id,
                      "finished_instance": self.instance}
            files = {**private_files, self._path(sub_id): self._encode(closed)}
            if public_files:
                files[outbox] = self._encode(entry)
            if self._commit(files, f"{closed['state']} {sub_id} ({self.worker_id})", snap.sha):
                break
            sent = True
        else:
            raise LostClaim(sub_id)
        if public_files:
            try:
                self.publish_outbox(self.snapshot(), only=outbox)
            except (HubUnavailable, HubMissing) as exc:  # the entry waits; any worker's next pass publishes it
                log.warning("publishing %s deferred (%s)", sub_id, type(exc).__name__)

    # ------------------------------------------------------------------ publishing
    def publish_outbox(self, snap: Snapshot, only: str | None = None) -> None:
        for path in snap.outbox():
            if only is not None and path != only:
                continue
            try:
                entry = json.loads(read_file(self.api, self.private_repo, path, snap.sha, self.retry))
            except (HubMissing, HubUnavailable, ValueError):
                continue
            files = {p: base64.b64decode(d) for p, d in entry["files"].items()}
            if self._publish(entry["repo"], files, f"result {path.rsplit('/', 1)[-1][:-5]}"):
                self._drop_outbox(path)
                self._compact(entry["repo"], files)

    def _publish(self, repo: str, files: dict[str, bytes], message: str) -> bool:
        """Write `files` to `repo` unless it already holds exactly these bytes: a result is written once."""
        for _ in range(MAX_RACES):
            sha, present = head_files(self.api, repo, self.retry)
            missing = {p: d for p, d in files.items() if present.get(p) != git_blob_oid(d)}
            if not missing:
                return True
            if self._commit(missing, message, sha, repo=repo):
                return True
        return False

    def _compact(self, repo: str, files: dict[str, bytes]) -> None:
        """Published result shards: merge the folder's small shards when enough wait, keep the card current."""
        from .result_shards_hub import compact_repo, ensure_card, shard_benchmark

        benchmarks = {b for b in map(shard_benchmark, files) if b}
        try:
            for benchmark in sorted(benchmarks):
                compact_repo(self.api, repo, benchmark, self.retry, now=self.clock())
            if benchmarks:
                ensure_card(self.api, repo, self.retry)
        except (HubUnavailable, HubMissing) as exc:  # published already; merging waits for the next result
            log.info("compaction deferred (%s)", type(exc).__name__)

    def _drop_outbox(self, path: str) -> None:
        for _ in range(MAX_RACES):
            sha, present = head_files(self.api, self.private_repo, self.retry)
            if path not in present or self._commit({}, f"published {path}", sha, deletes=(path,)):
                return


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
    push the outcome; returns the final state (`queued` when the upload was not there to score)."""
    store = service.store
    sub_id = claimed["id"]
    with LeaseKeeper(queue, claimed) as keeper:
        try:
            queue.download_upload(claimed, store.private("uploads", sub_id, claimed["file_name"]))
        except NotReady:
            queue.release(claimed, "its file is not on the Hub yet", not_ready=True)
            return "queued"
        except HubUnavailable:
            queue.release(claimed, "the Hub did not answer; trying again")
            return "queued"
        store.write_json(service.queue_path(sub_id), claimed)
        service.score_one(sub_id)  # the same scoring path as the Space's own worker
        final = store.read_json(service.queue_path(sub_id)) or {"state": "failed", "message": "no outcome recorded"}
    if keeper.lost:
        raise LostClaim(sub_id)
    public, private = {}, {}
    shard = store.result_shard(claimed["benchmark"], sub_id) if final.get("state") != "failed" else None
    if shard is not None:  # a one-row shard; compaction into bigger ones happens on the Hub (result_shards_hub)
        public[shard[0]] = shard[1]
    for part, suffix in (("per_item", ".parquet"), ("bootstrap", ".npy")):
        path = store.private(part, sub_id + suffix)
        if path.is_file():
            private[path.relative_to(store.root).as_posix()] = path.read_bytes()
    queue.complete(claimed, final, public, private)
    return final["state"]
