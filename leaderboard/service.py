"""Submissions: validate now, score later, never lose one.

`submit` refuses over-quota users, has the upload validated with the same code as the CLI in a sandboxed
child (upload_check.py: the Space process never reads upload content itself), refuses duplicates (content
hash), stores the raw file and a queue record (`queued`), and returns at once. A worker
thread scores queued submissions off the request thread: `queued -> scoring -> finished | failed`
(`waiting for judge` when judged metrics are pending). On start-up every `queued` or `scoring`
record is picked up again, so a restart resumes work.
"""
from __future__ import annotations

import hashlib
import logging
import queue
import re2
import shutil
import threading
import time
import traceback
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import numpy as np

from . import registry
from .benchmark import ScoringContext
from .metrics.bootstrap import bootstrap_means
from .prediction_files import MAX_FILE_BYTES, size_refusal
from .tie_groups import TIE_RESAMPLES, TIE_SEED
from .result import ModelInfo
from .settings import Settings
from .judge.anomaly import review_note as anomaly_note
from .review import NEEDS_REVIEW, NEUTRAL_MESSAGE
from .run_settings import one_line
from .answer_key import AnswerKeyError
from .public_index import has_answer_key
from .isolation import Limits, ScoreJob, ScoringCrash, ScoringLimit, ScoringProcess
from .scoring import load_key
from .upload_check import CheckJob, Checker, CheckReport, limit_message, store_upload
from .store import LocalStore, StoreError
from .tables import Entry

log = logging.getLogger("leaderboard.service")

STATES = ("queued", "needs review", "scoring", "waiting for judge", "finished", "failed")
ALLOWED_SUFFIXES = (".jsonl", ".json", ".csv", ".parquet")
MAX_TEXT = {"model_name": 120, "organisation": 120, "link": 300, "contamination": 2000, "contact": 300}


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def clean_text(value: str | None, limit: int) -> str:
    """Plain one-line text: control characters, angle brackets, bidi overrides and zero-width marks (they can
    disguise a name) and unpaired surrogates (not storable as UTF-8) removed, length capped."""
    return one_line(str(value or ""))[:limit]


_LINK = re2.compile(r"https?://[\pL\pN_.-]+(:[0-9]+)?(/[\pL\pN_\-./?%&=+#~:@!$,;]*)?")  # \w as Unicode, on RE2


def clean_link(value: str | None) -> str | None:
    link = clean_text(value, MAX_TEXT["link"])
    return link if _LINK.fullmatch(link) else None


@dataclass
class SubmissionForm:
    benchmark: str
    model_name: str
    link: str | None = None
    organisation: str | None = None
    access: str | None = None
    domain: str | None = None
    reasoning: bool | None = None
    input_modality: str | None = None
    params_b: float | None = None
    contamination: str = ""
    contact: str = ""  # private: never in a public record

    def model(self) -> ModelInfo:
        return ModelInfo(name=clean_text(self.model_name, MAX_TEXT["model_name"]), link=clean_link(self.link),
                         organisation=clean_text(self.organisation, MAX_TEXT["organisation"]) or None,
                         access=self.access if self.access in ("open", "proprietary") else None,
                         domain=self.domain if self.domain in ("general", "medical") else None,
                         reasoning=self.reasoning,
                         input_modality=self.input_modality if self.input_modality in ("multimodal", "text-only") else None,
                         params_b=self.params_b if isinstance(self.params_b, (int, float)) and 0 < self.params_b < 1e5 else None)


@dataclass
class Outcome:
    accepted: bool
    message: str
    report: str = ""
    submission_id: str | None = None




@dataclass
class Service:
    store: LocalStore
    data_dirs: dict[str, Path]  # benchmark -> built dataset folder (answers beside it or in it)
    context_factory: Callable[[str], ScoringContext] = lambda benchmark: ScoringContext()  # name -> context
    quota_per_day: int = 5
    max_bytes: int = MAX_FILE_BYTES
    # while idle, the worker re-tries `waiting for judge` submissions this often when a judge is configured
    judge_retry_seconds: float = Settings.judge_retry_seconds  # front doors pass LEADERBOARD_JUDGE_RETRY
    judge_max_attempts: int = Settings.judge_max_attempts  # LEADERBOARD_JUDGE_ATTEMPTS: then `failed`, not re-asked
    score_seconds: float = Settings.score_seconds  # LEADERBOARD_SCORE_SECONDS: wall-time limit of one scoring
    score_memory_mb: int = Settings.score_memory_mb  # LEADERBOARD_SCORE_MEMORY_MB: memory limit of one scoring
    check_seconds: float = Settings.check_seconds  # LEADERBOARD_CHECK_SECONDS: wall-time limit of one upload check
    check_memory_mb: int = Settings.check_memory_mb  # LEADERBOARD_CHECK_MEMORY_MB: memory limit of one upload check
    _queue: "queue.Queue[str]" = field(default_factory=queue.Queue)
    _worker: threading.Thread | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _keys: dict = field(default_factory=dict)
    _resample_cache: dict = field(default_factory=dict)
    _entries_cache: dict = field(default_factory=dict)
    _loading: dict = field(default_factory=dict)  # benchmark -> lock: one load at a time (the others wait for it)
    _public_ids: dict = field(default_factory=dict)  # benchmark -> its public ids (wrong-benchmark hints)
    _scorer: ScoringProcess = field(default_factory=ScoringProcess)  # the child process that scores
    _user_index_ready: bool = False
    _unrecorded: dict = field(default_factory=dict)  # sub id -> failure the store could not take yet (disk full)
    _lock: threading.RLock = field(default_factory=threading.RLock)
    _submit_lock: threading.Lock = field(default_factory=threading.Lock)
    _checker: Checker = field(default_factory=Checker)  # the children that read uploads (upload_check.py)

    # ---------------------------------------------------------------- submit
    def available(self) -> list[str]:
        return [name for name in registry.names() if name in self.data_dirs and Path(self.data_dirs[name]).is_dir()]

    def key(self, benchmark: str):
        with self._lock:
            if benchmark not in self._keys:
                self._keys[benchmark] = load_key(registry.scorer(benchmark), self.data_dirs[benchmark])
            return self._keys[benchmark]

    def forget_keys(self) -> None:
        """The datasets moved to a new revision (a Space refreshing from the Hub): reload keys on next use."""
        with self._lock:
            self._keys.clear()

    def submit(self, user: str, form: SubmissionForm, upload: Path, settings: Path | None = None) -> Outcome:
        """Checks that read no upload byte, the quota, then the check in the child, then the queue write."""
        if not user:
            return Outcome(False, "Sign in to submit.")
        if form.benchmark not in self.available():
            return Outcome(False, f"Benchmark {form.benchmark!r} is not open for submissions here.")
        if not clean_text(form.model_name, MAX_TEXT["model_name"]):
            return Outcome(False, "Give the model a name.")
        upload = Path(upload)
        suffix = upload.suffix.lower()
        if suffix not in ALLOWED_SUFFIXES:
            return Outcome(False, f"Upload a {', '.join(ALLOWED_SUFFIXES)} file (got {clean_text(suffix, 20) or 'no extension'}).")
        size = upload.stat().st_size
        if size > self.max_bytes:
            return Outcome(False, f"The {size_refusal(size, self.max_bytes)}.")
        if (refusal := self._quota_refusal(user)) is not None:  # before any child time is spent on the file
            return refusal
        try:
            job = self._check_job(form.benchmark, upload, settings)
        except AnswerKeyError as exc:
            return self._data_unavailable(form.benchmark, exc)
        limits = Limits(seconds=self.check_seconds, memory_mb=self.check_memory_mb)
        try:  # outside the submit lock: one slow file must not hold up everyone's submissions
            checked = self._checker.check(job, limits)
        except ScoringLimit as exc:
            log.warning("checking an upload for %s stopped: %s", form.benchmark, exc)
            return Outcome(False, f"{limit_message(exc.kind, limits)}; nothing was queued and it does not count "
                                  "against your quota. Split or simplify the file and upload again.")
        except ScoringCrash as exc:
            log.error("checking an upload for %s failed:\n%s", form.benchmark, exc)
            return Outcome(False, "The file could not be checked on the server; nothing was queued. The maintainers "
                                  "were notified; please try again later.")
        if checked.key_error:
            return self._data_unavailable(form.benchmark, checked.key_error)
        if checked.settings_error:
            return Outcome(False, f"{checked.settings_error}. Upload the `.meta.json` that `python -m leaderboard "
                                  "predict` wrote, or leave that field empty.")
        if checked.run_settings and checked.run_settings.get("benchmark") not in (None, form.benchmark):
            return Outcome(False, f"The run settings are for {checked.run_settings['benchmark']}, not {form.benchmark}.")
        if not checked.ok:
            wrong = checked.wrong_benchmark
            return Outcome(False, "The file has errors; nothing was queued. "
                           + (wrong[0].upper() + wrong[1:] + " " if wrong else "")
                           + "Fix the lines below and upload again.", checked.rendered)
        with self._submit_lock:  # the duplicate and quota checks and the queue write are one step
            return self._submit_checked(user, form, upload, suffix, checked)

    def _quota_refusal(self, user: str) -> Outcome | None:
        used = self.used_today(user)
        if used < self.quota_per_day:
            return None
        return Outcome(False, f"Daily quota reached ({used}/{self.quota_per_day} submissions today, failed runs "
                              "excluded): nothing was queued. Try again tomorrow (UTC); meanwhile `python -m "
                              "leaderboard validate` checks a file offline.")

    def _data_unavailable(self, benchmark: str, exc) -> Outcome:
        log.error("benchmark data for %s unusable: %s", benchmark, exc)
        return Outcome(False, f"{benchmark} cannot take submissions right now (its dataset is not "
                              "available here); nothing was queued. Please try again later.")

    def _submit_checked(self, user: str, form: SubmissionForm, upload: Path, suffix: str,
                        checked: CheckReport) -> Outcome:
        content, rendered = checked.content_sha256, checked.rendered
        for record in self.queue_records():
            same = record.get("content_sha256") == content
            live = record["state"] != "failed" or record.get("ranked")
            if same and record.get("benchmark") == form.benchmark and live:
                if record.get("user") != user:  # nothing about that submission, its account or its model
                    return Outcome(False, "These predictions were already submitted; identical predictions "
                                          "(same ids and answers, in any file format or order) are ranked once.")
                return Outcome(False, f"You already submitted these predictions as {record['id']} "
                                      f"({record['model']['name']}, {record['state']}).", submission_id=record["id"])
        if (refusal := self._quota_refusal(user)) is not None:  # again: another tab may have queued meanwhile
            return Outcome(False, refusal.message.replace("nothing was queued", "the file is valid, but nothing was "
                                                                                 "queued"), rendered)
        sub_id = f"{datetime.now(timezone.utc):%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:8]}"
        model = form.model()
        record = {
            "id": sub_id, "benchmark": form.benchmark, "user": user, "state": "queued", "created_at": now(),
            "updated_at": now(), "message": "waiting for a scoring worker", "progress": 0.0,
            "file_sha256": checked.file_sha256, "content_sha256": content,
            "file_name": f"predictions{suffix}", "model": model.__dict__,
            "contamination": clean_text(form.contamination, MAX_TEXT["contamination"]),
            "run_settings": checked.run_settings,
        }
        if checked.review:
            record.update(state=NEEDS_REVIEW, message=NEUTRAL_MESSAGE, review=checked.review)
        try:
            store_upload(self.store, self.store.private("uploads", sub_id, record["file_name"]), upload)
            if form.contact:
                self.store.write_json(self.store.private("contacts", f"{sub_id}.json"),
                                      {"id": sub_id, "contact": clean_text(form.contact, MAX_TEXT["contact"])})
            self._index_submission(user, sub_id)
            self.store.write_json(self.queue_path(sub_id), record)
        except StoreError as exc:
            shutil.rmtree(self.store.private("uploads", sub_id), ignore_errors=True)
            return Outcome(False, str(exc), rendered)
        if checked.review:
            return Outcome(True, f"Received as {sub_id}; it is {NEEDS_REVIEW} ({NEUTRAL_MESSAGE}).", rendered, sub_id)
        self._queue.put(sub_id)
        return Outcome(True, f"Queued as {sub_id}. Scoring runs in the background; follow it below.", rendered, sub_id)

    def _check_job(self, benchmark: str, upload: Path, settings: Path | None) -> CheckJob:
        """With the answer key at hand: the full check. Without it (LEADERBOARD_WORKER=external, keys only where
        the worker runs): the public rows' ids, shapes and option letters; the worker re-checks with the key."""
        data = self.data_dirs[benchmark]
        settings = Path(settings) if settings is not None else None
        if not has_answer_key(registry.scorer(benchmark), data):
            return CheckJob(benchmark, upload, data, self.max_bytes, settings=settings)
        return CheckJob(benchmark, upload, data, self.max_bytes, key=self.key(benchmark),
                        other_ids=self.other_ids(benchmark), settings=settings)

    def other_ids(self, benchmark: str) -> dict[str, frozenset[str]]:
        """Pretty name -> public ids of every other open benchmark (read once), for "wrong benchmark?" hints."""
        from .file_hints import dataset_ids

        found = {}
        for name in self.available():
            if name != benchmark:
                with self._lock:
                    if name not in self._public_ids:
                        self._public_ids[name] = dataset_ids(self.data_dirs[name], registry.scorer(name).id_column)
                found[registry.scorer(name).pretty_name] = self._public_ids[name]
        return found

    # ---------------------------------------------------------------- queue
    def queue_path(self, sub_id: str) -> Path:
        return self.store.private("queue", f"{sub_id}.json")

    def queue_records(self) -> list[dict]:
        folder = self.store.private("queue")
        records = [self.store.read_json(p) for p in sorted(folder.glob("*.json"))] if folder.is_dir() else []
        return [self._with_unrecorded(r) for r in records if r]

    def _with_unrecorded(self, record: dict) -> dict:
        """A failure the full disk would not take yet still shows (and refunds the quota) at once."""
        failure = self._unrecorded.get(record.get("id"))
        return {**record, **failure} if failure else record

    def status_for(self, user: str) -> list[dict]:
        """The user's own records, through their index file: a status poll every 2 s from every open tab
        reads a handful of small files, not the whole queue (~1 s per tick at 10,000 records)."""
        records = (self.store.read_json(self.queue_path(sub_id)) for sub_id in self._user_ids(user))
        return [self._with_unrecorded(r) for r in records if r and r.get("user") == user]

    # ---------------------------------------------------------------- per-user index
    def _user_index_path(self, user: str) -> Path:  # a hash: account names never become file names
        return self.store.private("users", hashlib.sha256(user.encode("utf-8")).hexdigest()[:32] + ".json")

    def _user_ids(self, user: str) -> list[str]:
        if not user:
            return []
        self._ensure_user_index()
        return list((self.store.read_json(self._user_index_path(user)) or {}).get("ids") or [])

    def _ensure_user_index(self) -> None:
        """A store from before the index (or copied without it) gets one, from one scan of the queue."""
        if self._user_index_ready or self.store.private("users").is_dir():
            self._user_index_ready = True
            return
        with self._lock:
            if self._user_index_ready:
                return
            by_user: dict[str, list[str]] = {}
            for record in self.queue_records():
                by_user.setdefault(record.get("user") or "", []).append(record["id"])
            self.store.private("users").mkdir(parents=True, exist_ok=True)
            for user, ids in by_user.items():
                if user:
                    self.store.write_json(self._user_index_path(user), {"ids": ids})
            self._user_index_ready = True

    def _index_submission(self, user: str, sub_id: str) -> None:
        """Called under the submit lock, before the queue record is written (an id without a record is skipped)."""
        ids = self._user_ids(user)
        self.store.write_json(self._user_index_path(user), {"ids": [*ids, sub_id]})

    def used_today(self, user: str) -> int:
        today = now()[:10]
        return sum(1 for r in self.status_for(user)
                   if r["created_at"][:10] == today and (r["state"] != "failed" or r.get("ranked")))

    def _update(self, sub_id: str, **changes) -> dict:
        record = self.store.read_json(self.queue_path(sub_id)) or {}
        record.update(changes, updated_at=now())
        self.store.write_json(self.queue_path(sub_id), record)
        return record

    def start(self) -> None:
        """Resume unfinished work (and, when a judge is now configured, submissions waiting for one),
        then score in a background thread."""
        from .judge import JudgeConfig

        judge_ready = JudgeConfig.from_env() is not None
        for record in self.queue_records():
            if record["state"] in ("queued", "scoring") or (judge_ready and record["state"] == "waiting for judge"):
                self._queue.put(record["id"])
        self._worker = threading.Thread(target=self._run, name="scoring-worker", daemon=True)
        self._worker.start()

    def stop(self) -> None:
        self._stop.set()
        self._queue.put("")
        self._scorer.close_when_idle()
        self._checker.close()

    def drain(self, timeout: float = 60.0) -> bool:
        """Wait until the queue is empty (tests and batch use)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self._queue.unfinished_tasks == 0:
                return True
            time.sleep(0.05)
        return False

    def _run(self) -> None:
        next_retry = time.monotonic() + self.judge_retry_seconds
        while not self._stop.is_set():
            try:
                sub_id = self._queue.get(timeout=max(0.05, next_retry - time.monotonic()))
            except queue.Empty:
                self._record_pending_failures()
                self._retry_waiting_for_judge()
                next_retry = time.monotonic() + self.judge_retry_seconds
                continue
            try:
                if sub_id:
                    self.score_one(sub_id)
            finally:
                self._queue.task_done()

    def _retry_waiting_for_judge(self) -> None:
        """A judge that was down or rate-limited past its retries leaves a submission `waiting for judge`;
        re-queue it (as the external worker does on every pass). Cached verdicts make a retry cost only
        the calls that failed."""
        from .judge import JudgeConfig

        if JudgeConfig.from_env() is None:
            return
        for record in self.queue_records():
            if record.get("state") == "waiting for judge":
                self._queue.put(record["id"])

    def score_one(self, sub_id: str) -> None:
        """Score one queued submission in a child process (time and memory limited, see isolation.py): the
        worker thread only waits for it, so a pathological file cannot freeze or exhaust the Space. A
        limit hit, a scorer crash or a failed write records `failed` (not counted against the quota)."""
        record = self.store.read_json(self.queue_path(sub_id))
        if not record or record["state"] not in ("queued", "scoring", "waiting for judge"):
            return
        try:
            attempts = int(record.get("judge_attempts") or 0) + (record["state"] == "waiting for judge")
            if attempts > self.judge_max_attempts:
                # its deterministic metrics stay ranked, so it keeps its quota unit (else unparseable answers
                # would buy free ranked submissions)
                self._fail(sub_id, f"the judge gave no usable verdicts after {self.judge_max_attempts} attempts; "
                                   "deterministic metrics stay ranked, judged metrics are not scored",
                           judge_attempts=attempts - 1, ranked=True)
                return
            self._update(sub_id, state="scoring", message="matching and scoring", progress=0.1,
                         **({"judge_attempts": attempts} if attempts else {}))
            job = ScoreJob(benchmark=record["benchmark"], upload=self.store.private("uploads", sub_id, record["file_name"]),
                           data_dir=self.data_dirs[record["benchmark"]], model=record["model"],
                           context_factory=self.context_factory, key=self.key(record["benchmark"]))
            result = self._scorer.run(job, Limits(seconds=self.score_seconds, memory_mb=self.score_memory_mb))
            held = anomaly_note(record, record["benchmark"], result.metrics, result.protocol)
            if held:  # a judged score its objective numbers cannot explain: a maintainer looks first
                self._update(sub_id, state=NEEDS_REVIEW, message=NEUTRAL_MESSAGE, progress=1.0, review=held)
                return
            result.protocol["contamination_disclosure"] = record.get("contamination", "")
            if record.get("run_settings"):
                result.protocol["run_settings"] = record["run_settings"]
            result.created_at = record["created_at"]
            self._update(sub_id, message="saving private per-item scores", progress=0.8)
            self._save_private_scores(sub_id, record["benchmark"], result)
            per_item, result.per_item = result.per_item, None
            self.store.save_result(sub_id, result, account=record.get("user"))
            judged_pending = any("judge" in reason for reason in result.pending.values())
            primary = registry.scorer(record["benchmark"]).primary_metric
            if judged_pending:
                message = "deterministic metrics ranked; judged metrics wait for a judge"
            elif result.metrics.get(primary) is None:
                message = f"scored, but not ranked: {result.pending.get(primary, 'the primary metric is missing')}"
            else:
                message = "ranked"
            self._update(sub_id, state="waiting for judge" if judged_pending else "finished", progress=1.0,
                         message=message)
            del per_item
        except ScoringLimit as exc:
            log.warning("scoring %s stopped: %s", sub_id, exc)
            self._fail(sub_id, f"{exc}; it does not count against your quota")
        except StoreError as exc:
            self._fail(sub_id, str(exc))
        except Exception as exc:  # a scorer bug must not kill the worker; the user gets a short message
            detail = str(exc) if isinstance(exc, ScoringCrash) else traceback.format_exc()
            log.error("scoring %s failed:\n%s", sub_id, detail)
            self._fail(sub_id, "scoring failed on the server; the maintainers were notified and it does not count "
                               "against your quota")

    def _fail(self, sub_id: str, message: str, **changes) -> None:
        """Record `failed`; when even that write fails (disk full), keep the failure in memory so the
        status and the quota show it at once, and write it on a later worker tick. A restart before then
        finds the record `scoring` and scores it again (re-queued)."""
        try:
            self._update(sub_id, state="failed", message=message, **changes)
            self._unrecorded.pop(sub_id, None)
        except StoreError:
            log.error("could not record failure of %s; kept in memory until the store accepts writes", sub_id)
            self._unrecorded[sub_id] = {"state": "failed", "message": message, **changes}

    def _record_pending_failures(self) -> None:
        for sub_id, failure in list(self._unrecorded.items()):
            self._fail(sub_id, failure["message"], **{k: v for k, v in failure.items() if k not in ("state", "message")})

    def _save_private_scores(self, sub_id: str, benchmark: str, result) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not result.per_item:
            return
        bench = registry.scorer(benchmark)
        ids = self.key(benchmark).ids
        columns = {"id": ids}
        for name in next(iter(result.per_item.values())).keys():
            columns[name] = [result.per_item.get(i, {}).get(name) for i in ids]
        sink = pa.BufferOutputStream()
        pq.write_table(pa.table(columns), sink)
        self.store.write_bytes(self.store.private("per_item", f"{sub_id}.parquet"), sink.getvalue().to_pybytes())
        primary = [v for v in columns.get(bench.primary_metric) or [] if v is not None]
        if primary:  # items without the metric (e.g. open-ended items under an MCQ metric) are left out alike
            means = bootstrap_means(np.asarray(primary, dtype=float), resamples=TIE_RESAMPLES, seed=TIE_SEED)[:, 0]
            buffer = __import__("io").BytesIO()
            np.save(buffer, means)
            self.store.write_bytes(self.store.private("bootstrap", f"{sub_id}.npy"), buffer.getvalue())

    # ---------------------------------------------------------------- views
    def entries(self, benchmark: str, paper_roots: list[Path] | None = None) -> list[Entry]:
        """Paper rows plus stored results (BoardEntries: the stored part keeps its shard columns); the same list
        object until the shard folder changes. One listing of the shard folder per call (a few dozen files
        however many results); a new shard is read alone and joined to the columns held, a compaction (files
        gone) reads the folder again."""
        from .result_shards import shard_files, shard_folder

        files = tuple(shard_files(shard_folder(self.store.root, benchmark)))
        cache_key = (benchmark, files, tuple(paper_roots or ()))
        with self._lock:
            cached = self._entries_cache.get(benchmark)
            if cached and cached[0] == cache_key:
                return cached[1]
            loading = self._loading.setdefault(benchmark, threading.Lock())
        with loading:  # the Space's start-up thread and a first page load must not both read the shards
            with self._lock:
                cached = self._entries_cache.get(benchmark)
                if cached and cached[0] == cache_key:
                    return cached[1]
            entries = self._load_entries(benchmark, paper_roots, files, cached)
            with self._lock:
                self._entries_cache[benchmark] = (cache_key, entries)
        return entries

    def _load_entries(self, benchmark: str, paper_roots: list[Path] | None, files: tuple = (),
                      cached: tuple | None = None) -> list[Entry]:
        from . import registry
        from .board_rows import BoardEntries, ShardEntry, ShardRows, read_rows
        from .result_shards import latest, shard_folder
        from .store import load_records

        paper = [Entry(r, f"paper:{i}") for i, r in enumerate(load_records(benchmark, paper_roots))]
        bench = registry.scorer(benchmark)
        held = cached[1].rows if cached and cached[1].rows is not None else None
        known = set(cached[0][1]) if cached and cached[0][2] == tuple(paper_roots or ()) else set()
        if held is not None and known and known <= set(files):  # only new shards: read them alone
            import pyarrow as pa

            added = read_rows([f for f in files if f not in known], bench)
            table = latest(pa.concat_tables([held.table, added], promote_options="permissive")) \
                if added is not None else held.table
        else:
            table = read_rows(list(files), bench)
        if table is None:
            if self.store.unmigrated(benchmark):
                log.warning("%s: the store holds JSON results from before the shards; they are not shown until "
                            "`python -m leaderboard migrate-results --store %s` converts them", benchmark,
                            self.store.root)
            return BoardEntries(paper)
        import pyarrow as pa

        from .heap import release_freed_memory

        pa.default_memory_pool().release_unused()  # the decode's scratch memory back to the system
        release_freed_memory()  # and the per-row objects the derivation made (board_columns)
        rows = ShardRows(table, shard_folder(self.store.root, benchmark), self._resamples)
        ids = table.column("submission_id").to_pylist()
        before = {} if held is None else dict(zip(held.table.column("submission_id").to_pylist(),
                                                  held.table.column("stored_at").to_pylist()))
        with self._lock:  # a rescored record (a newer row) may come with new resamples
            for sub_id, stored_at in zip(ids, table.column("stored_at").to_pylist()):
                if before.get(sub_id) != stored_at:
                    self._resample_cache.pop(sub_id, None)
        stored = [ShardEntry(rows, i, sub_id) for i, sub_id in enumerate(ids)]
        return BoardEntries(paper + stored, rows, len(paper))

    def _resamples(self, sub_id: str) -> np.ndarray | None:
        if sub_id not in self._resample_cache:
            path = self.store.private("bootstrap", f"{sub_id}.npy")
            self._resample_cache[sub_id] = np.load(path) if path.is_file() else None
        return self._resample_cache[sub_id]

