"""Helpers shared by the `predict` tests: build a shipped sample, run `predict` against the fake
OpenAI server, and look inside the recorded request bodies."""
from __future__ import annotations

import base64
import hashlib
import json
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from leaderboard.scoring import registry
from dataset_builders.stage import build
from leaderboard.intake.answer_key import config_files
from leaderboard.harness.predict.cli import main as predict_main


def build_sample(name: str, out: Path, hold_out_answers: bool = False) -> Path:
    build(registry.adapter(name), registry.get(name).sample_dir, out, progress=False, hold_out_answers=hold_out_answers)
    return out / name


def read_config(folder: Path, config: str = "default") -> list[dict]:
    return pa.concat_tables([pq.read_table(p) for p in config_files(folder, config)]).to_pylist()


def run(name: str, data: Path, server, out: Path, *extra: str) -> int:
    return predict_main([name, "--data", str(data), "--base-url", server.base_url, "--model", "test-model",
                         "--out", str(out), "--quiet", "--retry-backoff", "0.01", "--concurrency", "8", *extra])


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def parts(message: dict) -> list[dict]:
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def texts(message: dict) -> str:
    return "\n".join(p["text"] for p in parts(message) if p["type"] == "text")


def image_urls(message: dict) -> list[str]:
    return [p["image_url"]["url"] for p in parts(message) if p["type"] == "image_url"]


def decoded(url: str) -> bytes:
    assert url.startswith("data:image/") and ";base64," in url
    return base64.b64decode(url.split(",", 1)[1])


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def body_text(body: dict) -> str:
    """Every text a request carries (images left out), for leak checks."""
    return "\n".join(texts(m) for m in body["messages"])


def assert_never_sent(bodies: list[dict], secrets: list[str]) -> None:
    """No answer-side string (longer than a few characters, so not a coincidence) in any prompt."""
    sent = "\n".join(body_text(b) for b in bodies).casefold()
    for secret in secrets:
        if secret and len(secret.strip()) >= 8:
            assert secret.strip().casefold() not in sent, f"answer-side text reached a prompt: {secret[:60]!r}"


def reset_server(server, responder=None):
    """Reuse one fake server across a module's tests (starting and stopping one costs up to 0.5 s). Requests
    still in flight from the previous test (a timed-out one sleeps on) are drained first, so no counter of
    the next test sees them."""
    deadline = time.monotonic() + 10
    while server.in_flight and time.monotonic() < deadline:
        time.sleep(0.01)
    with server.lock:
        server.requests.clear()
        server.headers.clear()
        server.script.clear()
        server.delay, server.timeout_sleep, server.max_in_flight = 0.0, 3.0, 0
    server.responder = responder or (lambda body: "{}")
    return server
