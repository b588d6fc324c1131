"""The submission desk: `submit` refuses over-quota users, has the upload checked in a sandboxed child (the one
door, upload_check.py: the Space process never reads upload content itself), refuses duplicates (content hash),
stores the raw file, the table the check validated and a queue record (`queued`), and returns at once."""
from __future__ import annotations

import logging
import re2
import shutil
import tempfile
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from ..scoring import registry
from ..intake.prediction_files import size_refusal
from ..scoring.result import ModelInfo
from .review import NEEDS_REVIEW, NEUTRAL_MESSAGE
from ..intake.run_settings import one_line
from ..intake.answer_key import AnswerKeyError
from ..scoring.public_index import has_answer_key
from ..scoring.isolation import Limits, ScoringCrash, ScoringLimit
from ..intake import validated_upload
from .upload_check import CheckJob, CheckReport, limit_message, store_upload
from .store import StoreError


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


log = logging.getLogger("leaderboard.operations.service")


class SubmissionDesk:
    """Service's submit half (mixed into service.Service, whose fields it uses)."""

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
        kept = Path(tempfile.mkdtemp(prefix="checked-"))  # the check child keeps the validated table here
        job.keep_in = kept
        try:
            return self._check_and_queue(user, form, upload, suffix, job, kept)
        finally:
            shutil.rmtree(kept, ignore_errors=True)

    def _check_and_queue(self, user: str, form: SubmissionForm, upload: Path, suffix: str, job: CheckJob,
                         kept: Path) -> Outcome:
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
            return self._submit_checked(user, form, upload, suffix, checked, kept)

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
                        checked: CheckReport, kept: Path | None = None) -> Outcome:
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
            for name, path in (validated_upload.files(kept) if kept else {}).items():  # scored without re-reading
                self.store.write_bytes(self.store.private("uploads", sub_id, name), path.read_bytes())
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
        from ..intake.file_hints import dataset_ids

        found = {}
        for name in self.available():
            if name != benchmark:
                with self._lock:
                    if name not in self._public_ids:
                        self._public_ids[name] = dataset_ids(self.data_dirs[name], registry.scorer(name).id_column)
                found[registry.scorer(name).pretty_name] = self._public_ids[name]
        return found

