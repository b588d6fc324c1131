"""Benchmark datasets and the results store, read from the Hugging Face Hub (on a Space, or a worker).

`LEADERBOARD_DATASETS` names the public dataset repos, either one by one (`org/<name>,org/<name2>`: the
benchmark is the repo's name) or as one namespace (`org`: every registered benchmark as `org/<name>`,
absent repos skipped). Each is mirrored with `snapshot_download` into `<cache>/<name>`, the layout the
local `hub/` folder has, so everything downstream is unchanged. A worker that holds the keys also
mirrors `<repo>-answers` into `<cache>/<name>-answers`, where the answer-key loader looks. The token is
the process's own (HF_TOKEN: the Space's secret, or the worker's), read by huggingface_hub.
"""
from __future__ import annotations

import logging
import os
import shutil
import threading
from pathlib import Path
from typing import Callable

from ..intake.answer_key import ANSWERS_SUFFIX

log = logging.getLogger("leaderboard.operations.hub_data")
PERSISTENT = Path("/data")  # where a Space's persistent storage is mounted


def dataset_repos(spec: str, names: list[str]) -> dict[str, str]:
    """Benchmark name -> dataset repo id, from LEADERBOARD_DATASETS."""
    items = [s.strip() for s in spec.split(",") if s.strip()]
    if len(items) == 1 and "/" not in items[0].rstrip("/"):
        org = items[0].rstrip("/")
        return {name: f"{org}/{name}" for name in names}
    repos = {}
    for repo in items:
        name = repo.split("/")[-1]
        if "/" not in repo or name not in names:
            raise ValueError(f"LEADERBOARD_DATASETS entry {repo!r}: expected ORG/NAME with NAME one of "
                             f"{', '.join(names)} (or a single ORG for all of them)")
        repos[name] = repo
    return repos


def default_cache(explicit: Path | None = None) -> Path:
    """Persistent storage when the Space has it (data survives restarts), else the Hugging Face cache folder."""
    if explicit is not None:
        return Path(explicit)
    if PERSISTENT.is_dir() and os.access(PERSISTENT, os.W_OK):
        return PERSISTENT / "leaderboard-hub"
    from huggingface_hub import constants

    return Path(constants.HF_HOME) / "leaderboard-hub"


def mirror_repo(repo_id: str, folder: Path, token: str | None = None, allow_patterns=None,
                revision: str | None = None) -> str:
    """Make `folder` hold exactly the repo's files (at `revision`, default the head); returns the commit sha.
    Files the repo no longer has are removed, so a deleted shard never lingers in a build."""
    from huggingface_hub import HfApi, snapshot_download

    from ..remote.hub_calls import DEFAULT_RETRY

    api = HfApi(token=token)
    info = DEFAULT_RETRY.run(lambda: api.dataset_info(repo_id, revision=revision), f"read {repo_id}")
    snapshot_download(repo_id, repo_type="dataset", revision=info.sha, local_dir=str(folder), token=token,
                      allow_patterns=allow_patterns)
    if allow_patterns is None:
        wanted = {s.rfilename for s in info.siblings or []}
        for path in sorted(folder.rglob("*"), reverse=True):
            relative = path.relative_to(folder).as_posix()
            if relative.startswith(".cache") or not path.is_file():
                continue
            if relative not in wanted:
                path.unlink()
    return info.sha


class HubDatasets:
    """The benchmark datasets of one process, kept in step with the Hub."""

    def __init__(self, repos: dict[str, str], root: Path, token: str | None = None, answers: bool = False):
        self.repos, self.root, self.token, self.answers = repos, Path(root), token, answers
        self.revisions: dict[str, str] = {}

    @property
    def data_dirs(self) -> dict[str, Path]:
        return {name: self.root / name for name in self.repos}

    def sync(self) -> list[str]:
        """Download what changed; returns the benchmarks whose data moved to a new revision."""
        from huggingface_hub.errors import RepositoryNotFoundError

        from ..remote.hub_calls import HubMissing

        changed = []
        for name, repo in self.repos.items():
            try:
                sha = mirror_repo(repo, self.root / name, self.token)
                if self.answers:
                    sha += "+" + mirror_repo(repo + ANSWERS_SUFFIX, self.root / (name + ANSWERS_SUFFIX), self.token)
            except (RepositoryNotFoundError, HubMissing):
                log.warning("dataset %s not found on the Hub (or not readable with this token); skipped", repo)
                shutil.rmtree(self.root / name, ignore_errors=True)
                continue
            except Exception as exc:  # the Hub is down: keep serving what is cached
                log.warning("could not refresh %s (%s); using the cached copy", repo, type(exc).__name__)
                continue
            if self.revisions.get(name) != sha:
                self.revisions[name] = sha
                changed.append(name)
        return changed


def pull_store(results_repo: str, private_repo: str, root: Path, token: str | None = None, api=None,
               keep: frozenset[str] = frozenset()) -> None:
    """The parts of the results store a Space shows: public results, queue records and the bootstrap
    resamples used for tie groups. Uploads, per-item scores, contacts, the outbox and the ledger stay on the Hub.

    One listing per repo (with blob ids); only files whose blob changed are downloaded, one request each, and
    a file that cannot be read now is left for the next pull (a flaky Hub delays one record, not the pull).
    Queue records are pulled beside the store and merged, never downloaded over it: the snapshot a pull reads
    can be older than a record this process's worker has just written ("finished" replaced by the "scoring"
    state of a moment before, then pushed back as if it were ours: a lost update)."""
    from huggingface_hub import HfApi

    api = api or HfApi(token=token)
    listed = _pull(api, results_repo, root, ("results/",))
    prune_shards(root, listed, keep)
    staging = root / ".cache" / "hub-pull"
    _pull(api, private_repo, root, ("private/bootstrap/",), staging, ("private/queue/",))
    merge_queue_records(staging / "private" / "queue", root / "private" / "queue")


def _pull(api, repo: str, root: Path, prefixes: tuple[str, ...], staging: Path | None = None,
          staged: tuple[str, ...] = ()) -> dict[str, str]:
    """Files under `prefixes` into `root`, under `staged` into `staging`: those whose blob id differs."""
    from ..remote.hub_calls import HubMissing, HubUnavailable, head_files, read_file
    from .atomic_files import atomic_write
    from ..remote.hub_calls import git_blob_oid

    sha, files = head_files(api, repo)
    for path, oid in sorted(files.items()):
        folder = root if path.startswith(prefixes) else staging if staged and path.startswith(staged) else None
        if folder is None or ".." in path.split("/"):
            continue
        target = folder / path
        try:
            if target.is_file() and git_blob_oid(target.read_bytes()) == oid:
                continue
            atomic_write(target, read_file(api, repo, path, sha))
        except (HubMissing, HubUnavailable) as exc:
            log.info("%s not pulled this time (%s)", path, type(exc).__name__)
    return files


def prune_shards(root: Path, listed: dict[str, str], keep: frozenset[str] = frozenset()) -> list[str]:
    """Remove local result shards the Hub no longer lists (merged by a compaction there), except `keep` (our
    own writes not mirrored yet). Rows are never lost: a merged shard's rows are in the compacted one."""
    from ..publishing.result_shards import SHARD_DIR, shard_files

    removed = []
    results = Path(root) / "results"
    for folder in sorted(results.glob(f"*/{SHARD_DIR}")) if results.is_dir() else []:
        for path in shard_files(folder):
            relative = Path(path).relative_to(root).as_posix()
            if relative not in listed and relative not in keep:
                os.unlink(path)
                removed.append(relative)
    return removed


TERMINAL_STATES = ("finished", "failed")


def _freshness(record: dict) -> tuple:
    """Later update first; within the same second, the further-on record (more progress, a terminal state)."""
    progress = record.get("progress")
    return (str(record.get("updated_at") or ""), record.get("state") in TERMINAL_STATES,
            progress if isinstance(progress, (int, float)) else -1.0)


def fresher(record: dict, than: dict) -> bool:
    """`record` is a later state of the submission than `than` (what may overwrite it)."""
    return _freshness(record) > _freshness(than)


def merge_queue_records(pulled: Path, local: Path) -> list[str]:
    """Copy each pulled queue record over the local one only when it is fresher; returns the names copied.
    A pulled file that is not a JSON object is skipped (the local record stays)."""
    import json

    copied: list[str] = []
    if not pulled.is_dir():
        return copied
    local.mkdir(parents=True, exist_ok=True)
    for source in sorted(pulled.glob("*.json")):
        try:
            incoming = json.loads(source.read_bytes())
        except (OSError, ValueError):
            continue
        if not isinstance(incoming, dict):
            continue
        target = local / source.name
        try:
            current = json.loads(target.read_bytes()) if target.exists() else None
        except (OSError, ValueError):
            current = None  # an unreadable local record: the Hub's copy is better than nothing
        if isinstance(current, dict) and not fresher(incoming, current):
            continue
        temporary = target.with_name(target.name + ".pull")
        shutil.copyfile(source, temporary)
        os.replace(temporary, target)
        copied.append(source.name)
    return copied


class Refresher:
    """Calls `step` every `seconds` in a daemon thread (new datasets or results appear without a restart)."""

    def __init__(self, step: Callable[[], None], seconds: float):
        self.step, self.seconds = step, seconds
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="hub-refresh", daemon=True)

    def start(self) -> "Refresher":
        self.thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.seconds):
            try:
                self.step()
            except Exception as exc:  # never let a refresh kill the thread
                log.warning("hub refresh failed: %s", type(exc).__name__)
