"""Judge verdicts shared by every worker through a private Hub dataset: append-only Parquet shards.

Each shard is `verdicts/<worker>-<time>-<random>.parquet` with one row per verdict: its cache key (`judge_key`,
content-addressed: the key names the full request), the judge's raw answer and the parsed verdict (JSON text,
as the local sqlite cache stores it). Rows whose key starts with "q:" carry a reply's quoted digest instead
(cache.quoted_many's memo: key "q:" + digest, raw the digest of the reply as quoted, parsed "true"/"false" for
its flag), so a worker rescoring another's submission runs no injection detector either. A shard is never
rewritten (only merged, below), so two workers never write the same file and a reader needs no lock: it
imports the shards it has not imported yet (by name) into its local cache (the hot layer), and a key held by
several shards is the same verdict of the same request.

A shard is committed with `parent_commit` (leaderboard/remote/hub_calls.py): a commit on a stale head (412) or whose
acknowledgement was lost is followed by a re-read; the shard is there (done) or it is committed again on the new
head. A verdict is durable once its shard's commit is acknowledged: losing the worker then loses nothing.

Small shards (one per submission or so) are merged: a judge that starts with COMPACT_AT unmerged shards writes
them as one and deletes them, in one commit on the head it read them at (a shard published meanwhile refuses
it, and the merge is read again); a reader that had imported them imports the merged shard's rows again
(ignored: same keys, same verdicts).
"""
from __future__ import annotations

import io
import logging
import os
import time
import uuid
from typing import Callable, Iterator

from ...remote import hub_calls
from ...remote.hub_calls import (DEFAULT_RETRY, HubConfigError, HubMissing, HubUnavailable, Retry, commit, head_files, read_file)

log = logging.getLogger("leaderboard.scoring.judge.shared")

SHARD_DIR = "verdicts"
COLUMNS = ("key", "raw", "parsed")
PUBLISH_BATCH = 16384  # verdicts waiting for a shard: published at once when this many have accumulated
PUBLISH_AFTER_S = 300.0  # ... or when the oldest has waited this long (and at the end of every submission)
COMPACT_AT = 32  # unmerged shards: a judge that starts with this many merges them into one
MERGED = "merged-"  # the name of a merged shard starts so (merged shards are not merged again)
MAX_RACES = 50  # commits lost to other writers before this shard waits for the next publish


class SharedVerdicts:
    """The verdict shards of one private Hub dataset repo. `api` is an HfApi (default: the process's token
    and endpoint); `retry` the Hub retry rule, `clock` (monotonic seconds), `batch` and `after_s` the publish
    rule read by the cache, `compact_at` the merge rule (tests pass their own)."""

    def __init__(self, repo: str, api=None, worker: str | None = None, retry: Retry = DEFAULT_RETRY,
                 clock: Callable[[], float] = time.monotonic, batch: int = PUBLISH_BATCH,
                 after_s: float = PUBLISH_AFTER_S, compact_at: int = COMPACT_AT):
        if api is None:
            from huggingface_hub import HfApi

            api = HfApi()
        self.repo, self.api, self.retry = repo, api, retry
        self.clock, self.batch, self.after_s, self.compact_at = clock, batch, after_s, compact_at
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
        path = self._new_path()
        for _ in range(MAX_RACES):
            sha, paths = self.shard_paths()
            if path in paths:
                return path  # an earlier attempt landed; its acknowledgement was lost
            if commit(self.api, self.repo, f"{len(rows)} judge verdicts ({self.worker})", sha, {path: data},
                      retry=self.retry):
                return path
        raise HubUnavailable(f"verdict shard {path}: lost {MAX_RACES} races to other writers")

    def compact(self) -> tuple[str, list[str]] | None:
        """Merge the unmerged shards into one when there are `compact_at` or more (each key once); returns the merged
        shard's path and the shards it replaced, None when there was nothing to merge or the Hub did not let
        it (tried again at the next start)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        for _ in range(MAX_RACES):
            sha, paths = self.shard_paths()
            small = [path for path in paths if not path[len(SHARD_DIR) + 1:].startswith(MERGED)]
            if len(small) < self.compact_at:
                return None
            tables, read = [], []
            for path in small:
                try:
                    data = read_file(self.api, self.repo, path, sha, self.retry)
                    tables.append(pq.read_table(io.BytesIO(data), columns=list(COLUMNS)))
                except HubUnavailable:
                    return None
                except Exception as exc:  # unreadable: left where it is, never deleted unread
                    log.warning("verdict shard %s not merged (%s)", path, type(exc).__name__)
                    continue
                read.append(path)
            merged = pa.concat_tables(tables)
            keys = merged.column("key").to_pylist()
            firsts = sorted({key: n for n, key in reversed(list(enumerate(keys)))}.values())
            data = encode_table(merged.take(firsts) if len(firsts) < len(keys) else merged)
            path = self._new_path(MERGED)
            if commit(self.api, self.repo, f"merge {len(read)} verdict shards ({self.worker})", sha, {path: data},
                      tuple(read), retry=self.retry):
                return path, read
        return None

    def _new_path(self, prefix: str = "") -> str:
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        return f"{SHARD_DIR}/{prefix}{self.worker}-{stamp}-{uuid.uuid4().hex[:12]}.parquet"


def encode_shard(rows: list[tuple[str, str, str]]) -> bytes:
    import pyarrow as pa

    columns = list(zip(*rows)) if rows else [[] for _ in COLUMNS]
    return encode_table(pa.table({name: pa.array(list(values), pa.string()) for name, values in zip(COLUMNS, columns)}))


def encode_table(table) -> bytes:
    import pyarrow.parquet as pq

    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression="zstd")
    return buffer.getvalue()
