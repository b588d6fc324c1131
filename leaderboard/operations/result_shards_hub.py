"""Result shards in the public Hub dataset repo: compaction and the dataset card, with the same `parent_commit`
concurrency as the queue (hub_queue.py). A worker that has just published a one-row shard merges the folder's
small shards into one when there are enough of them: ONE commit that adds the merged shard and deletes the
shards it holds, made with `parent_commit=<the head it read>`. Any other commit in between (another worker's
result, another compaction) makes the Hub refuse it (412); the worker re-reads and tries again, so no row is
lost and no shard is merged twice. A lost acknowledgement is recognised on the re-read (the shards are gone)."""
from __future__ import annotations

import io
import logging

from ..remote.hub_calls import DEFAULT_RETRY, HubMissing, HubUnavailable, Retry, commit, head_files, read_file
from ..publishing.result_shards import SHARD_DIR, compacted_name, compaction_plan, merge, to_bytes

log = logging.getLogger("leaderboard.operations.result_shards_hub")
MAX_RACES = 50
CARD = "README.md"
MIN_AGE = 600.0  # seconds: a one-result shard younger than this is not merged yet (see compact_repo)


def shard_benchmark(path: str) -> str | None:
    """The benchmark of a shard path `results/<benchmark>/data/<name>.parquet`, else None."""
    parts = path.split("/")
    if len(parts) == 4 and parts[0] == "results" and parts[2] == SHARD_DIR and parts[3].endswith(".parquet"):
        return parts[1]
    return None


def settled(path: str, now: float, min_age: float) -> bool:
    """A shard written at least `min_age` seconds ago (its name starts with its `stored_at`). A crashed finisher's
    outbox entry is published again by the next worker pass; were its shard merged away by then, the re-publish
    would add it a second time (readers would still show one row, as the rows are identical)."""
    from datetime import datetime

    stamp = path.rsplit("/", 1)[-1].removeprefix("c-").split("-", 1)[0]
    try:
        written = datetime.strptime(stamp, "%Y%m%dT%H%M%S.%fZ").timestamp() if stamp.endswith("Z") else \
            datetime.strptime(stamp, "%Y%m%dT%H%M%S.%f").replace(tzinfo=__import__("datetime").timezone.utc).timestamp()
    except ValueError:
        return True
    return written <= now - min_age


def compact_repo(api, repo: str, benchmark: str, retry: Retry = DEFAULT_RETRY, now: float | None = None,
                 min_age: float = MIN_AGE) -> str | None:
    """Merge the benchmark's small shards in `repo` once COMPACT_AT of them wait; returns the merged path (None
    when there was nothing to merge or the Hub could not be read this time: the next result tries again).
    Shards younger than `min_age` seconds (at `now`, default the time) wait: their outbox entry may still be
    published again."""
    import time

    import pyarrow.parquet as pq

    now = time.time() if now is None else now
    for _ in range(MAX_RACES):
        try:
            sha, files = head_files(api, repo, retry)
            names = sorted(p for p in files if shard_benchmark(p) == benchmark and settled(p, now, min_age))
            small = compaction_plan(names)  # row counts from the names (a listing has no sizes)
            if not small:
                return None
            tables = [pq.read_table(io.BytesIO(read_file(api, repo, p, sha, retry))) for p in small]
        except (HubMissing, HubUnavailable) as exc:
            log.info("compaction of %s/%s deferred (%s)", repo, benchmark, type(exc).__name__)
            return None
        merged = merge(tables)
        target = f"results/{benchmark}/{SHARD_DIR}/{compacted_name(merged)}"
        deletes = tuple(p for p in small if p != target)
        if commit(api, repo, f"compact {len(small)} {benchmark} shards", sha, {target: to_bytes(merged)}, deletes,
                  retry):
            return target
    log.warning("gave up compacting %s/%s after %d lost races; the next result tries again", repo, benchmark, MAX_RACES)
    return None


def ensure_card(api, repo: str, retry: Retry = DEFAULT_RETRY) -> None:
    """The dataset card, written when the repo's differs (the same bytes on every worker: from the registry)."""
    from ..remote.hub_calls import git_blob_oid
    from ..publishing.results_card import card

    data = card().encode("utf-8")
    for _ in range(MAX_RACES):
        sha, files = head_files(api, repo, retry)
        if files.get(CARD) == git_blob_oid(data) or commit(api, repo, "dataset card", sha, {CARD: data}, retry=retry):
            return
