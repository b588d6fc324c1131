"""The one door for uploaded bytes: everything that reads an upload (decoding, validation, file hints, content
and file hashes, the prompt-injection scan, the run-settings sidecar) runs in `CheckJob.run`, inside a child
process under a wall-time and a memory limit (isolation.py, the same door scoring uses). The Space process
only stats the upload (the byte cap), hands the path to the child, renders the child's `CheckReport`, and
copies the accepted bytes into the store with `store_upload`; tests/test_upload_door.py fails when anything
else it runs at request time reads the file.

A file that needs more than the limits to check gets a verdict saying so, never a frozen Space: the child is
killed at the time limit and a fresh one takes the next upload.
"""
from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..scoring.isolation import Limits, ScoringProcess

CHECK_SLOTS = 2  # uploads checked at once: one child each, so their memory adds up to a bounded total
CHECK_NICENESS = 5  # a check child yields the CPU to the Space process serving pages (2 cores)


@dataclass
class CheckReport:
    """What the Space needs from a check; small, whatever the upload's size (the rendered report is capped)."""

    ok: bool
    rendered: str = ""
    wrong_benchmark: str = ""  # "this looks like a <benchmark> file ..." when validation put that hint first
    content_sha256: str = ""
    file_sha256: str = ""
    review: dict | None = None  # review_note() of the suspected injections, None when nothing matched
    run_settings: dict | None = None
    settings_error: str | None = None
    key_error: str | None = None  # the benchmark's data is unusable (AnswerKeyError): not the uploader's fault


@dataclass
class CheckJob:
    """Executed in the child (`run`); picklable: names and paths, plus the parent's cached answer key."""

    benchmark: str
    upload: Path
    data_dir: Path
    max_bytes: int
    key: Any = None  # None: no answer key here (external worker), the public rows are checked
    other_ids: dict = field(default_factory=dict)  # pretty name -> ids of the other open benchmarks
    settings: Path | None = None
    keep_in: Path | None = None  # a folder for the validated table (validated_upload.py): scoring reuses it

    def run(self) -> CheckReport:
        from ..scoring import registry
        from ..intake.answer_key import AnswerKeyError
        from ..scoring.public_index import validate_public
        from .review import review_note, suspected_injections
        from ..intake.run_settings import RunSettingsError, read_run_settings
        from ..scoring.score_file import validate_file

        run_settings = None
        if self.settings is not None:
            try:
                run_settings = read_run_settings(self.settings)
            except (RunSettingsError, OSError) as exc:
                return CheckReport(False, settings_error=str(exc))
        bench = registry.scorer(self.benchmark)
        try:
            if self.key is None:
                report = validate_public(bench, self.upload, self.data_dir, max_bytes=self.max_bytes)
            else:
                report = validate_file(bench, self.upload, self.data_dir, key=self.key, max_bytes=self.max_bytes,
                                       other_ids=self.other_ids)[0]
        except AnswerKeyError as exc:
            return CheckReport(False, key_error=str(exc))
        rendered = report.render()
        if not report.ok:
            first = report.issues[0].message if report.issues else ""
            return CheckReport(False, rendered, wrong_benchmark=first if first.startswith("this looks like") else "",
                               run_settings=run_settings)
        suspects = suspected_injections(bench, report)  # text that seems to address the judge waits for review
        if self.keep_in is not None and self.key is not None:  # checked against the answer key: score this table
            from ..intake.validated_upload import keep

            keep(report, self.keep_in)
        return CheckReport(True, rendered, content_sha256=content_digest(report.table),
                           file_sha256=sha256_file(self.upload), review=review_note(suspects) if suspects else None,
                           run_settings=run_settings)


class Checker:
    """CHECK_SLOTS persistent check children; `check` borrows a free one (waits when all are busy)."""

    def __init__(self, slots: int = CHECK_SLOTS) -> None:
        self._free = [ScoringProcess(niceness=CHECK_NICENESS) for _ in range(slots)]
        self._all = list(self._free)
        self._ready = threading.Condition()

    def check(self, job: CheckJob, limits: Limits) -> CheckReport:
        """The child's report; ScoringLimit (kind "time", "memory" or "killed") or ScoringCrash otherwise."""
        with self._ready:
            self._ready.wait_for(lambda: self._free)
            process = self._free.pop()
        try:
            return process.run(job, limits)
        finally:
            with self._ready:
                self._free.append(process)
                self._ready.notify()

    def close(self) -> None:
        for process in self._all:
            process.close_when_idle()


def limit_message(kind: str, limits: Limits) -> str:
    """The verdict for a check stopped at a limit (the submitter sees it)."""
    if kind == "time":
        return f"The file took too long to check (over the {limits.seconds:,.0f} s limit)"
    if kind == "memory":
        return f"The file took too much memory to check (over the {limits.memory_mb:,} MB limit)"
    return "The check of the file was stopped (most likely for using too much memory)"


def store_upload(store, destination: Path, upload: Path) -> None:
    """Copy the accepted upload's bytes into the store: the only read of an upload the Space process does."""
    store.write_bytes(destination, Path(upload).read_bytes())


def content_digest(table) -> str:
    """What a submission predicts, independent of its file: rows sorted by id, text with case and
    whitespace normalised, lists kept in order (they are ranked). CSV and JSONL of the same predictions,
    reordered lines, CRLF or an upper-case letter all give the same digest."""
    import json

    def canonical(value):
        if isinstance(value, str):
            return " ".join(value.split()).casefold()
        if isinstance(value, list):
            return [canonical(v) for v in value]
        return value

    digest = hashlib.sha256()
    columns = table.column_names if table is not None else []
    rows = sorted(table.to_pylist(), key=lambda row: row["id"]) if table is not None else []
    for row in rows:
        digest.update(json.dumps([canonical(row[name]) for name in columns], ensure_ascii=False).encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
