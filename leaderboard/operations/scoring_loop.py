"""The scoring loop: a worker thread scores queued submissions off the request thread, each in a child process
under time and memory limits (isolation.py): `queued -> scoring -> finished | failed` (`waiting for judge` when
judged metrics are pending). On start-up every `queued` or `scoring` record is picked up again, so a restart
resumes work."""
from __future__ import annotations

import logging
import queue
import threading
import time
import traceback

import numpy as np

from ..scoring import registry
from ..scoring.metrics.bootstrap import bootstrap_means
from ..publishing.tie_groups import TIE_RESAMPLES, TIE_SEED
from ..scoring.judge.anomaly import review_note as anomaly_note
from .review import NEEDS_REVIEW, NEUTRAL_MESSAGE
from ..scoring.isolation import Limits, ScoreJob, ScoringCrash, ScoringLimit
from .store import StoreError

log = logging.getLogger("leaderboard.operations.service")


class ScoringLoop:
    """Service's worker half (mixed into service.Service, whose fields it uses)."""

    def start(self) -> None:
        """Resume unfinished work (and, when a judge is now configured, submissions waiting for one),
        then score in a background thread."""
        from ..scoring.judge import judge_configured

        judge_ready = judge_configured()
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
        from ..scoring.judge import judge_configured

        if not judge_configured():
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
                           context_factory=self.context_factory, key=self.key(record["benchmark"]),
                           validated=self.store.private("uploads", sub_id))
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

