"""What every lmms-eval task folder (`benchmarks/<name>/lmms_eval_task/`) shares: reading our datasets
with the images kept as original bytes, turning the messages `predict` builds into lmms-eval's chat
messages, and the per-sample record our converter (`python -m leaderboard from-lmms-eval`) reads back.

This module never imports lmms-eval (the shared .venv does not have it): it only produces the plain
values lmms-eval's task hooks return. The prompt text always comes from the benchmark's `protocol.py`,
the code `predict` runs, so the wording and the prompt hashes are the same in both harnesses.

Where lmms-eval 0.7.3 cannot send what `predict` sends (it re-encodes every image, PNG by default, and
has no image `detail` field; it always sends `max_tokens` and `temperature`), the difference is stated
in docs/running-models.md ("Running in lmms-eval") and in the run settings the converter writes.
"""
from __future__ import annotations

import io
import re
from functools import lru_cache
from typing import Any

RECORD_KEY = "hub_prediction"  # the process_results key holding our prediction lines (logged per sample)
PNG_MODES = {"1", "L", "LA", "I", "I;16", "P", "RGB", "RGBA"}
THINK = re.compile(r"^\s*<think>.*?</think>\s*", re.S)  # predict strips a leading thinking block by default


def raw_images(dataset):
    """`process_docs` hook: the same dataset with every image column left undecoded ({bytes, path}), so the
    protocol code reads the original bytes exactly as `predict` does."""
    import datasets

    def undecoded(feature):  # images anywhere: a column, a list, a struct field, a list of structs
        if isinstance(feature, datasets.Image):
            return datasets.Image(decode=False)
        if isinstance(feature, datasets.List):
            return datasets.List(undecoded(feature.feature), length=feature.length)
        if isinstance(feature, dict):
            return {name: undecoded(value) for name, value in feature.items()}
        return feature

    features = dataset.features.copy()
    for name, feature in dataset.features.items():
        features[name] = undecoded(feature)
    return dataset.cast(features) if features != dataset.features else dataset


def _image(url: str):
    """A data URL built by `predict` (original bytes) -> a PIL image of those bytes."""
    import base64

    from PIL import Image

    head, _, payload = url.partition(",")
    if not head.startswith("data:image/") or ";base64" not in head:
        raise ValueError(f"expected an image data URL, got {head[:40]!r}")
    image = Image.open(io.BytesIO(base64.b64decode(payload)))
    image.load()
    # lmms-eval re-encodes as PNG by default, which cannot hold e.g. CMYK JPEGs: hand it RGB then
    return image if image.mode in PNG_MODES else image.convert("RGB")


def to_lmms_messages(messages: list[dict]) -> list[dict]:
    """OpenAI chat messages (as `predict` sends them) -> lmms-eval `doc_to_messages` messages: the same roles,
    texts and image order; string contents become one text part, image data URLs become PIL images."""
    converted = []
    for message in messages:
        content = message["content"]
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        out = []
        for part in parts:
            if part["type"] == "text":
                out.append({"type": "text", "text": part["text"]})
            elif part["type"] == "image_url":
                out.append({"type": "image", "url": _image(part["image_url"]["url"])})
            else:
                raise ValueError(f"message part of type {part['type']!r} has no lmms-eval equivalent")
        converted.append({"role": message["role"], "content": out})
    return converted


def reply_text(result: Any) -> str:
    """One model reply as lmms-eval hands it to process_results, minus a leading <think> block (as predict)."""
    if isinstance(result, (list, tuple)):
        result = result[0] if result else ""
    return THINK.sub("", str(result or ""), count=1)


@lru_cache(maxsize=1)
def harness_version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("lmms-eval")
    except PackageNotFoundError:
        return None


def record(benchmark: str, task: str, rows: list[dict], protocol: dict) -> dict:
    """The per-sample value of RECORD_KEY: prediction lines exactly as `predict` writes them, and the protocol
    settings (name, version, prompt hash...) the lines were produced with."""
    return {"benchmark": benchmark, "task": task, "rows": rows, "protocol": protocol, "lmms_eval": harness_version()}


class _NextRound(Exception):
    def __init__(self, messages: list[dict]):
        super().__init__("next round")
        self.messages = messages


def replay(run, outputs: list[str]) -> tuple[list[dict] | None, list[dict] | None]:
    """Multi-turn protocols without a copy of their logic: run `predict`'s own task code (`run(chat) -> rows`)
    with a chat that answers with the model's replies so far. Returns (messages of the next round, None) when
    the code asks one more question, or (None, prediction rows) when the conversation is over. The replies are
    carried as predict carries them (a leading <think> block stripped)."""
    answered = iter([reply_text(o) for o in outputs])

    def chat(messages, **overrides):
        reply = next(answered, None)
        if reply is None:
            raise _NextRound(messages)
        return reply

    try:
        return None, run(chat)
    except _NextRound as asked:
        return asked.messages, None


def round_outputs(results) -> list[str]:
    """The per-round replies lmms-eval hands process_results for a multi-round request."""
    if isinstance(results, (list, tuple)) and results and isinstance(results[0], (list, tuple)):
        results = results[0]
    return [str(r or "") for r in (results or [])]


def multi_round_messages(run, round_idx=None, previous_output=None, previous_round_info=None):
    """lmms-eval's `generate_until_multi_round` protocol for a conversation `predict` runs with `run(chat)`:
    round 0 -> the first messages; round k -> (the whole conversation so far plus the next question, False, ...)
    or (None, True, ...) when there is no next question."""
    outputs = list(previous_output or [])
    messages, _ = replay(run, outputs if round_idx else [])
    if not round_idx:
        return to_lmms_messages(messages)
    if messages is None:
        return None, True, outputs, previous_round_info
    return to_lmms_messages(messages), False, outputs, previous_round_info


def count_lines(records: list[dict]) -> int:
    """Aggregation of RECORD_KEY: how many prediction lines the run produced (not a score)."""
    return sum(len(r.get("rows") or []) for r in records if isinstance(r, dict))


def preview_mean(values: list) -> float | None:
    """Aggregation of a quick-preview metric: the plain mean x100 over the items that have an answer (no CI,
    no strata, no protocol checks); the official score comes from `python -m leaderboard score`."""
    known = [float(v) for v in values if v is not None]
    return round(100 * sum(known) / len(known), 4) if known else None


def options(**values):
    """What `predict`'s argument parser would hand a protocol (e.g. text_only=True)."""
    from types import SimpleNamespace

    return SimpleNamespace(**values)


def protocol_settings(protocol, **values) -> dict:
    """The `protocol` block `predict` writes in its sidecar, for the same options."""
    namespace = options(**values)
    return {"name": protocol.name, "version": protocol.version, "description": protocol.description,
            **protocol.settings(namespace)}
