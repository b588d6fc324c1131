"""Shared machinery of `predict`: the chat-completions client, the resumable JSONL output with its
metadata sidecar, and the bounded-concurrency task loop with a failure summary.

Output: `--out preds.jsonl` holds prediction lines only (what `validate` reads); the run settings go to
the sidecar `preds.jsonl.meta.json` (model, endpoint without the key, decoding, protocol version and
prompt hashes, one entry per run with counts and failures). Re-running the same command skips every
id already in the file; a task (case, chain, dialogue) is written all at once when it succeeds, so an
interrupted or failed task is simply redone.
"""
from __future__ import annotations

import json
import os
import re2
import threading
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import urlsplit

import httpx
from tqdm.auto import tqdm

from ...remote.chat_http import ChatRequestError, post_chat

from .base import PredictError, Task

THINK = re2.compile(r"(?s)^\s*<think>.*?</think>\s*")
META_SUFFIX = ".meta.json"
# settings that must match for a resumed run to append to the same file
RESUME_KEYS = ("benchmark", "model", "protocol", "request")


class ChatError(RuntimeError):
    """A request that still failed after its retries (or was refused outright)."""


@dataclass(frozen=True)
class ChatConfig:
    base_url: str
    model: str
    api_key: str | None = None
    temperature: float | None = 0.0
    max_tokens: int | None = None
    extra_body: dict = field(default_factory=dict)  # e.g. {"top_p": 1.0} or {"reasoning_effort": "medium"}
    timeout: float = 600.0
    max_retries: int = 5
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    strip_think: bool = True

    def request_settings(self) -> dict:
        """Everything except messages that goes into each request (recorded in the sidecar)."""
        body: dict[str, Any] = {}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        body.update(self.extra_body)
        return body


@dataclass
class ChatStats:
    requests: int = 0
    http_calls: int = 0
    retries: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    truncated: int = 0  # finish_reason "length": the reply hit max_tokens

    def as_dict(self) -> dict:
        return dict(self.__dict__)


class ChatClient:
    """POST {base_url}/chat/completions with retries and exponential backoff (jittered) on 429, 5xx,
    timeouts, connection errors and malformed bodies; other 4xx fail at once (a bad request will not
    get better)."""

    def __init__(self, config: ChatConfig, http: httpx.Client | None = None):
        self.config = config
        headers = {"Content-Type": "application/json"}
        if config.api_key:
            headers["Authorization"] = f"Bearer {config.api_key}"
        self._http = http or httpx.Client(base_url=config.base_url.rstrip("/") + "/", headers=headers,
                                          timeout=config.timeout)
        self.stats = ChatStats()
        self._lock = threading.Lock()

    def _count(self, **increments: int) -> None:
        with self._lock:
            for name, value in increments.items():
                setattr(self.stats, name, getattr(self.stats, name) + value)

    def __call__(self, messages: list[dict], **overrides) -> str:
        body = {"model": self.config.model, "messages": messages, **self.config.request_settings()}
        if "max_tokens" in overrides and self.config.max_tokens is not None:
            overrides.pop("max_tokens")  # the user's --max-tokens wins over a protocol's per-task value
        body.update({k: v for k, v in overrides.items() if v is not None})
        self._count(requests=1)
        try:
            payload = post_chat(self._http, body, self.config.max_retries, self.config.backoff_base,
                                self.config.backoff_max, lambda name: self._count(**{name: 1}))
        except ChatRequestError as exc:
            self._count(failures=1)
            raise ChatError(str(exc)) from None
        choice = payload["choices"][0]
        text = choice["message"].get("content") or ""
        usage = payload.get("usage") or {}
        self._count(prompt_tokens=int(usage.get("prompt_tokens") or 0),
                    completion_tokens=int(usage.get("completion_tokens") or 0),
                    truncated=int(choice.get("finish_reason") == "length"))
        return THINK.sub("", text, count=1) if self.config.strip_think else text

    def close(self) -> None:
        self._http.close()


# ------------------------------------------------------------------ output file
def done_ids(out: Path) -> set[str]:
    """Ids already written. A torn last line (a crash mid-write) is cut off so appends stay valid JSONL."""
    if not out.is_file():
        return set()
    raw = out.read_bytes()
    if raw and not raw.endswith(b"\n"):
        cut = raw.rfind(b"\n") + 1
        with out.open("r+b") as handle:
            handle.truncate(cut)
        raw = raw[:cut]
    ids = set()
    for number, line in enumerate(raw.decode("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            raise PredictError(f"{out} line {number} is not valid JSON; fix or remove it before resuming") from None
        if isinstance(row, dict) and isinstance(row.get("id"), str):
            ids.add(row["id"])
    return ids


class Writer:
    """Appends whole tasks under a lock; never writes an id twice."""

    def __init__(self, out: Path, skip: set[str], extra: dict | None = None):
        out.parent.mkdir(parents=True, exist_ok=True)
        self._extra = dict(extra or {})  # constant fields on every line (e.g. input_modality)
        self._handle = out.open("a", encoding="utf-8")
        self._seen = set(skip)
        self._lock = threading.Lock()
        self.written = 0

    def write(self, rows: list[dict]) -> None:
        lines = []
        for row in rows:
            if row["id"] not in self._seen:
                self._seen.add(row["id"])
                lines.append(json.dumps({**row, **self._extra}, ensure_ascii=False) + "\n")
        with self._lock:
            self._handle.write("".join(lines))
            self._handle.flush()
            self.written += len(lines)

    def close(self) -> None:
        self._handle.close()


def meta_path(out: Path) -> Path:
    return out.with_name(out.name + META_SUFFIX)


def load_meta(out: Path) -> dict | None:
    path = meta_path(out)
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        raise PredictError(f"{path} is not valid JSON; delete it (and {out}) or pick another --out") from None


def check_resume(out: Path, settings: dict, existing: set[str]) -> dict | None:
    """The previous metadata when resuming; refuses to mix different models or protocols in one file."""
    meta = load_meta(out)
    if not existing:
        return meta
    if meta is None:
        raise PredictError(f"{out} already has predictions but no {meta_path(out).name}; it was not written by "
                           "`predict`. Pick another --out, or pass --overwrite to start again")
    changed = [k for k in RESUME_KEYS if meta.get(k) != settings.get(k)]
    if changed:
        raise PredictError(f"{out} was written with different settings ({', '.join(changed)}); resuming would mix "
                           "them in one file. Pick another --out, or pass --overwrite to start again")
    return meta


def write_meta(out: Path, settings: dict, previous: dict | None, run: dict) -> None:
    meta = {**settings, "runs": [*(previous or {}).get("runs", []), run]}
    path = meta_path(out)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def endpoint_identity(base_url: str) -> str:
    """Scheme, host and path of the endpoint: never credentials or query strings."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


# ------------------------------------------------------------------ the loop
@dataclass
class RunSummary:
    tasks_total: int = 0
    tasks_skipped: int = 0  # already complete in --out
    tasks_done: int = 0
    rows_written: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)  # (task key, error)

    def as_dict(self) -> dict:
        return {"tasks_total": self.tasks_total, "tasks_skipped": self.tasks_skipped, "tasks_done": self.tasks_done,
                "rows_written": self.rows_written, "tasks_failed": len(self.failures),
                "failures": [{"task": k, "error": e} for k, e in self.failures[:1000]]}

    def render(self, limit: int = 10) -> str:
        lines = [f"{self.tasks_done} tasks done, {self.tasks_skipped} already in the output, "
                 f"{len(self.failures)} failed, {self.rows_written} prediction lines written"]
        if self.failures:
            lines.append("failures by cause:")
            for error, count in Counter(e for _, e in self.failures).most_common():
                keys = [k for k, e in self.failures if e == error]
                shown = ", ".join(keys[:limit]) + (f", ... ({len(keys) - limit} more)" if len(keys) > limit else "")
                lines.append(f"  {count} x {error}: {shown}")
            lines.append("re-run the same command to retry them (finished ones are skipped)")
        return "\n".join(lines)


def select_tasks(tasks: Iterable[Task], limit: int | None, done: set[str]) -> tuple[list[Task], int, int]:
    """(tasks to run, total considered, skipped). --limit takes the first K tasks in dataset order
    before skipping finished ones, so re-running with the same --limit is idempotent."""
    chosen, total, skipped = [], 0, 0
    for task in tasks:
        if limit is not None and total >= limit:
            break
        total += 1
        if task.ids and all(i in done for i in task.ids):
            skipped += 1
        else:
            chosen.append(task)
    return chosen, total, skipped


def run_tasks(tasks: list[Task], chat, writer: Writer, concurrency: int, progress: bool,
              summary: RunSummary, desc: str = "predicting") -> None:
    """Run tasks with at most `concurrency` in flight; a task that raises is recorded, never written."""
    bar = tqdm(total=sum(len(t.ids) for t in tasks), desc=desc, unit="item", disable=not progress)
    pending = iter(tasks)
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        running = {}

        def refill() -> None:
            while len(running) < max(1, concurrency):
                task = next(pending, None)
                if task is None:
                    return
                running[pool.submit(task.run, chat)] = task

        refill()
        while running:
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                task = running.pop(future)
                try:
                    rows = future.result()
                    writer.write(rows)
                    summary.tasks_done += 1
                except (ChatError, ValueError, KeyError, TypeError) as exc:
                    summary.failures.append((task.key, _short(exc)))
                bar.update(len(task.ids))
            refill()
    bar.close()
    summary.rows_written = writer.written


def _short(exc: Exception) -> str:
    text = str(exc) if isinstance(exc, ChatError) else f"{type(exc).__name__}: {exc}"
    return text[:200]


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
