"""What every lmms-eval task folder (`benchmarks/<name>/lmms_eval_task/`) shares: reading our datasets
with the images kept as original bytes, turning the messages `predict` builds into lmms-eval's chat
messages, and the per-sample record our converter (`python -m leaderboard from-lmms-eval`) reads back.

This module never imports lmms-eval (the shared .venv does not have it): it only produces the plain
values lmms-eval's task hooks return. The prompt text always comes from the benchmark's `protocol.py`,
the code `predict` runs, so the wording and the prompt hashes are the same in both harnesses.

Where lmms-eval 0.7.3 cannot send what `predict` sends (it re-encodes every image, PNG by default, and
has no image `detail` field; it always sends `max_tokens` and `temperature`), the difference is stated
in the README ("Running in lmms-eval") and in the run settings the converter writes.
"""
from __future__ import annotations

import io
import re
from typing import Any

RECORD_KEY = "hub_prediction"  # the process_results key holding our prediction lines (logged per sample)
THINK = re.compile(r"^\s*<think>.*?</think>\s*", re.S)  # predict strips a leading thinking block by default


def raw_images(dataset):
    """`process_docs` hook: the same dataset with every image column left undecoded ({bytes, path}), so the
    protocol code reads the original bytes exactly as `predict` does."""
    import datasets

    def undecoded(feature):
        if isinstance(feature, datasets.Image):
            return datasets.Image(decode=False)
        if isinstance(feature, datasets.List) and isinstance(feature.feature, datasets.Image):
            return datasets.List(datasets.Image(decode=False))
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
    return image


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


def record(benchmark: str, task: str, rows: list[dict], protocol: dict) -> dict:
    """The per-sample value of RECORD_KEY: prediction lines exactly as `predict` writes them, and the protocol
    settings (name, version, prompt hash...) the lines were produced with."""
    return {"benchmark": benchmark, "task": task, "rows": rows, "protocol": protocol}


def count_lines(records: list[dict]) -> int:
    """Aggregation of RECORD_KEY: how many prediction lines the run produced (not a score)."""
    return sum(len(r.get("rows") or []) for r in records if isinstance(r, dict))


def preview_mean(values: list) -> float | None:
    """Aggregation of a quick-preview metric: the plain mean x100 over the items that have an answer (no CI,
    no strata, no protocol checks); the official score comes from `python -m leaderboard score`."""
    known = [float(v) for v in values if v is not None]
    return round(100 * sum(known) / len(known), 4) if known else None


def protocol_settings(protocol, **options) -> dict:
    """The `protocol` block `predict` writes in its sidecar, for the same options (e.g. text_only=True)."""
    from types import SimpleNamespace

    namespace = SimpleNamespace(**options)
    return {"name": protocol.name, "version": protocol.version, "description": protocol.description,
            **protocol.settings(namespace)}
