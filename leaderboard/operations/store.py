"""Where results and submissions live. A local folder by default; mirrored to Hugging Face dataset
repos when configured (public results in one repo; raw files, per-item scores, queue and contacts in a
private one).

Layout under the root:
    README.md                              dataset card of the public results (docs/results.md)
    results/<benchmark>/data/*.parquet     public result records, one row each (result_shards.py)
    results/<benchmark>/<id>.json          a store from before the shards: `migrate-results` converts it
    private/queue/<id>.json                submission status records
    private/uploads/<id>/predictions.<ext> raw uploaded files
    private/per_item/<id>.parquet          per-item scores (they can leak answers)
    private/bootstrap/<id>.npy             resampled means of the primary metric (for paired tie tests)
    private/contacts/<id>.json             contact details, never shown
Every write goes to a temporary file in the same folder, is flushed to disk and renamed into place, so
a reader or a crash never sees a half-written record.
"""
from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

from ..privacy.disclosure import Policy
from .atomic_files import StoreError, atomic_write  # noqa: F401 (imported from here too)
from ..scoring.result import Result

log = logging.getLogger("leaderboard.operations.store")
SUBMISSIONS_DIR = Path(__file__).resolve().parents[2] / "submissions"


def load_records(benchmark: str, roots: list[Path] | None = None) -> list[Result]:
    """Every `*.json` result record for `benchmark` under the given roots (default: submissions/)."""
    records = []
    for root in roots or [SUBMISSIONS_DIR]:
        folder = Path(root) / benchmark
        for path in sorted(folder.rglob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("benchmark") == benchmark and "metrics" in data:
                records.append(Result.from_dict(data))
    return records


class LocalStore:
    def __init__(self, root: Path, mirror: "HubMirror | None" = None, policy: Policy | None = None, ledger=None):
        """`ledger`: where the breakdown budget is kept when several processes score for one store (a
        HubLedger for Hub workers); None keeps it in this store's private/ folder."""
        self.root = Path(root)
        self.mirror = mirror
        self.ledger = ledger
        self._lock = threading.RLock()
        self._version = 0
        self._policy = policy or Policy()

    @property
    def policy(self) -> Policy:
        """Disclosure policy of public records. Without a configured LEADERBOARD_SECRET the store keeps
        its own random one in private/ (so held-out results are always keyed), made on first use."""
        if self._policy.secret is None:
            with self._lock:
                path = self.private("disclosure.key")
                if not path.is_file():
                    self.write_bytes(path, os.urandom(32).hex().encode("ascii"))
                self._policy = Policy(self._policy.min_cell, path.read_bytes().strip(), self._policy.noise_items,
                                      self._policy.breakdowns_per_month)
        return self._policy

    # --- paths
    def private(self, *parts: str) -> Path:
        return self.root.joinpath("private", *parts)

    @property
    def version(self) -> int:
        """Bumped on every result write; caches of derived tables key on it."""
        return self._version

    # --- writes
    def _write(self, path: Path, data: bytes, public: bool) -> None:
        with self._lock:
            atomic_write(path, data)
            if self.mirror is not None:
                self.mirror.upload(path, path.relative_to(self.root).as_posix(), public=public)

    def write_json(self, path: Path, obj: Any, public: bool = False) -> None:
        self._write(path, (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode("utf-8"), public)

    def write_bytes(self, path: Path, data: bytes) -> None:
        self._write(path, data, public=False)

    def save_result(self, sub_id: str, result: Result, account: str | None = None) -> Path:
        """The public record as a one-row shard (then small shards are compacted); returns the shard's path."""
        breakdowns = self._breakdown_allowed(account, sub_id) if result.protocol.get("answers_held_out") else True
        record = result.to_public_dict(self.policy, salt=sub_id, breakdowns=breakdowns)
        record["submission_id"] = sub_id
        return self.write_records(result.benchmark, [record])

    def write_records(self, benchmark: str, records: list[dict], stored_at: str | None = None) -> Path:
        """Public records (each with its `submission_id`) as one new shard in the benchmark's folder."""
        from ..publishing import result_shards as shards

        with self._lock:
            folder = shards.shard_folder(self.root, benchmark)
            names = shards.metric_names(benchmark, records)
            existing = shards.shard_files(folder)
            if existing:  # the folder's columns, so every shard keeps one schema (load_dataset needs that)
                known = shards.schema_metrics(existing[-1])
                names = known + [n for n in names if n not in known]
            table = shards.records_table(records, benchmark, stored_at, names)
            name = shards.shard_name(records[0]["submission_id"], table.column("stored_at")[0].as_py()) \
                if len(records) == 1 else shards.compacted_name(table)
            self._write(folder / name, shards.to_bytes(table), public=True)
            self._version += 1
            if existing and shards.schema_metrics(existing[-1]) != names:
                self.compact(benchmark, everything=True)  # a new metric: one schema again
            else:
                self.compact(benchmark)
            self.write_card()
            return folder / name

    def compact(self, benchmark: str, everything: bool = False) -> Path | None:
        """Merge the folder's small shards into one (all of them with `everything`), then remove them.
        A crash in between leaves rows twice; readers keep one (the same `stored_at`)."""
        from ..publishing import result_shards as shards

        with self._lock:
            folder = shards.shard_folder(self.root, benchmark)
            files = shards.shard_files(folder)
            chosen = files if everything else shards.compaction_plan(files)
            if len(chosen) < 2:
                return None
            merged = shards.merge([shards.read_table(p) for p in chosen])
            target = folder / shards.compacted_name(merged)
            self._write(target, shards.to_bytes(merged), public=True)
            gone = [Path(p) for p in chosen if Path(p) != target]
            for path in gone:
                path.unlink(missing_ok=True)
            if self.mirror is not None and gone:
                self.mirror.remove([p.relative_to(self.root).as_posix() for p in gone], public=True)
            return target

    def write_card(self) -> None:
        from ..publishing.results_card import card

        data = card().encode("utf-8")
        path = self.root / "README.md"
        if not path.is_file() or path.read_bytes() != data:
            self._write(path, data, public=True)

    def _breakdown_allowed(self, account: str | None, sub_id: str) -> bool:
        """Held-out keys: an account's results show breakdowns (strata, subset metrics) for at most
        `policy.breakdowns_per_month` submissions per 30 days; the ledger is private and keyed by a
        hash of the account. Differencing attacks need many detailed results; honest users need few."""
        if account is None:
            return True
        if self.ledger is not None:
            return self.ledger.breakdown_allowed(account, sub_id, self.policy.breakdowns_per_month)
        import hashlib
        from datetime import datetime, timedelta, timezone

        path = self.private("breakdowns", hashlib.sha256(account.encode("utf-8")).hexdigest()[:24] + ".json")
        with self._lock:
            ledger = self.read_json(path) or {}
            if sub_id in ledger:
                return True
            since = (datetime.now(timezone.utc) - timedelta(days=30)).isoformat(timespec="seconds")
            if sum(1 for when in ledger.values() if when >= since) >= self.policy.breakdowns_per_month:
                return False
            ledger[sub_id] = datetime.now(timezone.utc).isoformat(timespec="seconds")
            self.write_json(path, ledger)
            return True

    # --- reads
    def results_table(self, benchmark: str):
        """Every public record of the benchmark as one Arrow table (latest row per submission), or None."""
        from ..publishing import result_shards as shards

        return shards.read_folder(shards.shard_folder(self.root, benchmark))

    def unmigrated(self, benchmark: str) -> bool:
        """JSON records from before the shards lie in the benchmark's folder (readers ignore them)."""
        folder = self.root / "results" / benchmark
        return folder.is_dir() and any(e.name.endswith(".json") for e in os.scandir(folder))

    def results(self, benchmark: str) -> list[Result]:
        from ..publishing import result_shards as shards

        table = self.results_table(benchmark)
        return [] if table is None else [shards.to_result(r) for r in shards.records(table)]

    def record(self, benchmark: str, sub_id: str) -> dict | None:
        """One submission's public record (with its `submission_id`), or None when it has none."""
        from ..publishing import result_shards as shards

        table = self.results_table(benchmark)
        return None if table is None else shards.find(table, sub_id)

    def result_shard(self, benchmark: str, sub_id: str) -> tuple[str, bytes] | None:
        """(path in the repo, bytes) of a one-row shard holding the submission's latest public record: what a
        Hub worker publishes (the same name and bytes each time it is asked, so a re-publish is recognised)."""
        from ..publishing import result_shards as shards

        table = self.results_table(benchmark)
        found = None if table is None else shards.find_row(table, sub_id)
        if found is None:
            return None
        folder = shards.shard_folder(self.root, benchmark).relative_to(self.root).as_posix()
        return f"{folder}/{shards.shard_name(sub_id, found.column('stored_at')[0].as_py())}", shards.to_bytes(found)

    def read_json(self, path: Path) -> dict | None:
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None


class HubMirror:
    """Copies every store write to two Hub dataset repos: `public_repo` gets results/, the private repo
    everything else. Writes reach the Hub in the order they were made (a queue record never lands before
    the upload it names: a write that fails waits, and every later one waits behind it). Each is a commit
    with `parent_commit`; a queue record is written only when it is fresher than the Hub's copy (a worker
    may have claimed it meanwhile), and a write the Hub already holds is not repeated (a lost acknowledgement)."""

    def __init__(self, public_repo: str, private_repo: str, api=None, token: str | None = None, retry=None):
        from huggingface_hub import HfApi

        from ..remote.hub_calls import Retry, use_timeouts

        use_timeouts()  # a hung Hub must not hang the Space's request or refresh thread
        self.public_repo, self.private_repo = public_repo, private_repo
        self.api = api or HfApi(token=token)
        self.retry = retry or Retry(attempts=3)  # the Space's request thread waits for this: keep it short
        self.api.create_repo(public_repo, repo_type="dataset", exist_ok=True, private=False)
        self.api.create_repo(private_repo, repo_type="dataset", exist_ok=True, private=True)
        self.pending: list[tuple[Path | None, str, bool]] = []  # None: remove the path
        self._order = threading.Lock()
        self._refused: set[str] = set()  # ids whose upload the Hub refused: their queue record stays local too

    def upload(self, local: Path, path_in_repo: str, public: bool) -> None:
        """Best effort: the local copy is the source of truth; a failed write (and all after it) waits for
        `retry_pending`."""
        with self._order:
            self.pending.append((Path(local), path_in_repo, public))
            self._flush()

    def remove(self, paths: list[str], public: bool) -> None:
        """Delete files from the Hub copy (shards a compaction merged), in order with the writes."""
        with self._order:
            self.pending.extend((None, path, public) for path in paths)
            self._flush()

    def retry_pending(self) -> int:
        with self._order:
            before = len(self.pending)
            self._flush()
            return before - len(self.pending)

    def _flush(self) -> None:
        from ..remote.hub_calls import HubMissing, HubUnavailable, is_transient

        while self.pending:
            local, path, public = self.pending[0]
            try:
                done = self._put(local, path, self.public_repo if public else self.private_repo)
            except (HubUnavailable, HubMissing):
                done = False
            except Exception as exc:
                if is_transient(exc):
                    done = False
                else:  # refused for good (bad token, a file the Hub will not take): keep the rest moving
                    log.error("mirroring %s to the Hub failed (%s); the local copy stays", path, type(exc).__name__)
                    self._refused.add(path.split("/")[2] if path.startswith("private/uploads/") else path)
                    done = True
            if not done:  # network or Hub down: keep it (and everything after it) for later
                return
            self.pending.pop(0)

    def _put(self, local: Path | None, path: str, repo: str) -> bool:
        from ..remote.hub_calls import commit, head_files, read_file
        from .hub_data import fresher
        from ..remote.hub_calls import git_blob_oid
        from .hub_queue import QUEUE_DIR

        if local is None:  # a removal
            for _ in range(5):
                sha, files = head_files(self.api, repo, self.retry)
                if path not in files or commit(self.api, repo, f"store: remove {path}", sha, {}, (path,),
                                               retry=self.retry):
                    return True
            return False
        for _ in range(5):
            try:
                data = local.read_bytes()  # the latest local state: a later write to the same path supersedes
            except OSError:
                return True  # removed locally since: nothing to mirror
            if path.startswith(QUEUE_DIR + "/") and path.rsplit("/", 1)[-1][:-len(".json")] in self._refused:
                return True  # never a record without its file
            sha, files = head_files(self.api, repo, self.retry)
            if files.get(path) == git_blob_oid(data):
                return True
            if path.startswith(QUEUE_DIR + "/") and path in files:
                try:
                    theirs = json.loads(read_file(self.api, repo, path, sha, self.retry))
                except ValueError:
                    theirs = None  # unreadable on the Hub: ours replaces it
                if isinstance(theirs, dict) and not fresher(json.loads(data), theirs):
                    return True  # the Hub's record moved on (a worker's claim): never overwrite it
            if commit(self.api, repo, f"store: {path}", sha, {path: data}, retry=self.retry):
                return True
        return False
