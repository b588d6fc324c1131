"""Judge verdicts shared by every worker through a private Hub dataset: append-only Parquet shards.

Each shard is `verdicts/<worker>-<time>-<random>.parquet` with one row per verdict: its cache key (`judge_key`,
content-addressed: the key names the full request), the judge's raw answer and the parsed verdict (JSON text,
as the local sqlite cache stores it). A shard is never rewritten or deleted, so two workers never write the same
file and a reader needs no lock: it imports the shards it has not imported yet (by name) into its local cache
(the hot layer), and a key held by several shards is the same verdict of the same request.

A shard is committed with `parent_commit` (leaderboard/hub_calls.py): a commit on a stale head (412) or whose
acknowledgement was lost is followed by a re-read; the shard is there (done) or it is committed again on the new
head. A verdict is durable once its shard's commit is acknowledged: losing the worker then loses nothing.
"""
from __future__ import annotations

import io
import logging
import os
import time
import uuid
from typing import Callable, Iterator

from .. import hub_calls
from ..hub_calls import DEFAULT_RETRY, HubConfigError, HubMissing, HubUnavailable, Retry, commit, head_files, read_file

log = logging.getLogger("leaderboard.judge.shared")

SHARD_DIR = "verdicts"
COLUMNS = ("key", "raw", "parsed")
PUBLISH_BATCH = 4096  # verdicts waiting for a shard: published at once when this many have accumulated
PUBLISH_AFTER_S = 60.0  # ... or when the oldest of them has waited this long (and at the end of every judge run)
MAX_RACES = 50  # commits lost to other writers before this shard waits for the next publish


class SharedVerdicts:
    """The verdict shards of one private Hub dataset repo. `api` is an HfApi (default: the process's token
    and endpoint); `retry` the Hub retry rule, `clock` (monotonic seconds), `batch` and `after_s` the publish
    rule read by the cache (tests pass their own)."""

    def __init__(self, repo: str, api=None, worker: str | None = None, retry: Retry = DEFAULT_RETRY,
                 clock: Callable[[], float] = time.monotonic, batch: int = PUBLISH_BATCH,
                 after_s: float = PUBLISH_AFTER_S):
        if api is None:
            from huggingface_hub import HfApi

            api = HfApi()
        self.repo, self.api, self.retry = repo, api, retry
        self.clock, self.batch, self.after_s = clock, batch, after_s
        name = worker or f"{os.uname().nodename}-{os.getpid()}"
        self.worker = "".join(c if c.isalnum() or c in "._-" else "-" for c in name)[:64]  # a safe file name

    def shard_paths(self) -> tuple[str, list[str]]:
        """(head commit, the shard paths at it, sorted)."""
        sha, files = head_files(self.api, self.repo, self.retry)
        return sha, sorted(p for p in files if p.startswith(SHARD_DIR + "/") and p.endswith(".parquet"))

    def check_private(self) -> None:
        """Verdicts quote the submissions they judge: a repo anyone can read is refused (HubConfigError)."""
        info = self.retry.run(lambda: self.api.dataset_info(self.repo, timeout=hub_calls.TIMEOUT), f"read {self.repo}")
        if not info.private:
            raise HubConfigError(f"{self.repo} is public: judge verdicts quote the submissions they judge; "
                                 "make the repo private (JUDGE_VERDICTS_REPO)")

    def read_new(self, known: set[str]) -> Iterator[tuple[str, list[tuple[str, str, str]]]]:
        """(path, rows) of every shard not in `known`; a shard unreadable now is left for the next start."""
        import pyarrow.parquet as pq

        sha, paths = self.shard_paths()
        for path in paths:
            if path in known:
                continue
            try:
                table = pq.read_table(io.BytesIO(read_file(self.api, self.repo, path, sha, self.retry)),
                                      columns=list(COLUMNS))
            except (HubMissing, HubUnavailable) as exc:
                log.warning("verdict shard %s not read this time (%s)", path, type(exc).__name__)
                continue
            except Exception as exc:  # not a shard this code wrote (pyarrow's error): its verdicts are asked again
                log.warning("verdict shard %s unreadable (%s); skipped", path, type(exc).__name__)
                continue
            yield path, list(zip(*(table.column(name).to_pylist() for name in COLUMNS)))

    def publish(self, rows: list[tuple[str, str, str]]) -> str:
        """Commit `rows` (key, raw, parsed JSON) as a new shard; returns its path. Raises HubUnavailable when the
        Hub keeps failing or other writers keep winning (the rows stay to be published later)."""
        data = encode_shard(rows)
        path = f"{SHARD_DIR}/{self.worker}-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{uuid.uuid4().hex[:12]}.parquet"
        for _ in range(MAX_RACES):
            sha, paths = self.shard_paths()
            if path in paths:
                return path  # an earlier attempt landed; its acknowledgement was lost
            if commit(self.api, self.repo, f"{len(rows)} judge verdicts ({self.worker})", sha, {path: data},
                      retry=self.retry):
                return path
        raise HubUnavailable(f"verdict shard {path}: lost {MAX_RACES} races to other writers")


def encode_shard(rows: list[tuple[str, str, str]]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = list(zip(*rows)) if rows else [[] for _ in COLUMNS]
    table = pa.table({name: pa.array(list(values), pa.string()) for name, values in zip(COLUMNS, columns)})
    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression="zstd")
    return buffer.getvalue()
